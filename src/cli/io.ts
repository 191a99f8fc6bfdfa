/**
 * What every command is given: one `CommandIo`, built by the dispatcher (main.ts) from the host's streams. A
 * command takes what it needs from it — the streams for a trial's echo or a JSON Lines pipeline, `writeOut` and
 * `writeErr` for an answer of a few writes (straight to the descriptor in the bin, process-io.ts), the terminal
 * queries for colour and the progress line, `ownProcess` for process-wide settings.
 */
import type { Readable, Writable } from 'node:stream';
import { isTty, type Palette, paletteOnTty } from './tty.js';
import { type StdFds, writeTo } from './writer.js';

/** The streams `runCli` is called with: the bin's own (process-io.ts) or a host's (tests, scripts). */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** The commands' and trials' environment (default: `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The process is the `aorta-probe` bin's own, not a host calling `runCli`: `scan` and `run` may then change
   * process-wide settings (young-generation.ts) and start a worker thread from the bin's bundle.
   */
  readonly ownProcess?: boolean;
  /** The process's own descriptors, for output written without creating the stream objects (process-io.ts). */
  readonly fds?: StdFds;
}

export type StdStream = 'stdout' | 'stderr';

export interface CommandIo {
  /** Read only when a command reads stdin: in the bin, the getter creates the stream object. */
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  readonly ownProcess: boolean;
  /** Writes all of `text` to stdout; rejects on a failed write (main.ts: EPIPE exits 0, anything else 3). */
  writeOut(text: string): Promise<void>;
  writeErr(text: string): Promise<void>;
  /** Whether stdout or stderr is a terminal, without creating the stream where the descriptor can tell. */
  isTty(which: StdStream): boolean;
  /** The colours for stdout (none unless it is a terminal; NO_COLOR, FORCE_COLOR). */
  stdoutPalette(): Palette;
  /** stderr when it is a terminal, where a long command draws its progress line; else null. */
  progressStream(): Writable | null;
}

export function commandIo(host: CliIo): CommandIo {
  const env = host.env ?? process.env;
  const isTtyOf = (which: StdStream): boolean => (host.fds !== undefined ? host.fds.isTty(which) : isTty(host[which]));
  return {
    // Getters: the host's own may create the stream (process-io.ts), which only a command that uses it should do.
    get stdin() {
      return host.stdin;
    },
    get stdout() {
      return host.stdout;
    },
    get stderr() {
      return host.stderr;
    },
    env,
    ownProcess: host.ownProcess === true,
    writeOut: (text) => writeTo(host.fds, 'stdout', () => host.stdout, text),
    writeErr: (text) => writeTo(host.fds, 'stderr', () => host.stderr, text),
    isTty: isTtyOf,
    stdoutPalette: () => paletteOnTty(isTtyOf('stdout'), env),
    progressStream: () => (isTtyOf('stderr') ? host.stderr : null),
  };
}
