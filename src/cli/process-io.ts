/**
 * The bin's standard streams, created only when a command uses them as streams.
 *
 * Why: reading `process.stdin`, `process.stdout` or `process.stderr` creates a stream object, and the first one
 * loads node's stream modules (and `net` for a pipe): ~5 ms of a cold `aorta-probe eval` or `--version`, whose
 * whole output is one write. Those writes go to the descriptor instead (`fs.writeSync`, which is what node's
 * stream does for a file, a pipe or a terminal on Linux anyway), as long as the stream object does not exist;
 * once it does, everything goes through it, so output keeps its order.
 */
import { fstatSync, writeSync } from 'node:fs';

import type { CliIo } from './io.js';
import { isTty } from './tty.js';
import type { StdFds } from './writer.js';

type Which = 'stdout' | 'stderr';
const FD: Readonly<Record<Which, number>> = { stdout: 1, stderr: 2 };

export function processIo(): CliIo {
  const made = { stdout: false, stderr: false };
  const fds: StdFds = {
    write(which, text) {
      if (made[which]) return false;
      const buf = Buffer.from(text);
      let off = 0;
      while (off < buf.length) {
        try {
          off += writeSync(FD[which], buf, off);
        } catch (err) {
          // A descriptor the parent left non-blocking, and full: the stream waits for it.
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
          made[which] = true;
          process[which].write(buf.subarray(off));
          return true;
        }
      }
      return true;
    },
    isTty(which) {
      if (!made[which]) {
        // A pipe, a file or a socket is no terminal; only a character device needs the stream (tty) to tell.
        if (!fstatSync(FD[which]).isCharacterDevice()) return false;
        made[which] = true;
      }
      return isTty(process[which]);
    },
  };
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      made.stdout = true;
      return process.stdout;
    },
    get stderr() {
      made.stderr = true;
      return process.stderr;
    },
    ownProcess: true,
    fds,
  };
}
