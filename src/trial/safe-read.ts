/**
 * Reading a file named by a record or found by a walk without trusting it: a FIFO, a device or a socket is never
 * opened (opening one can block forever, or act: a watchdog or tape device does something on open), a symbolic
 * link is not followed unless the caller says so, and no more than a bounded number of bytes is read, so
 * `/dev/zero` or a 100 GB file cannot grow memory. Synchronous: `report` reads hundreds of thousands of small
 * files, where the promise API costs several times as much, and nothing else runs meanwhile.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** What a file is, for a reason a person reads ("not a regular file (a FIFO)"). */
export function fileKind(s: Stats): string {
  if (s.isFile()) return 'a regular file';
  if (s.isDirectory()) return 'a directory';
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isFIFO()) return 'a FIFO';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a file';
}

export interface ReadLimits {
  /** At most this many bytes are read. */
  readonly maxBytes: number;
  /** Larger files: `'reject'` them (a reason), or read their first `maxBytes` (`'prefix'`). */
  readonly over: 'reject' | 'prefix';
  /** Follow a symbolic link as the last component (a path the user typed); default false. */
  readonly follow?: boolean;
}

export type ReadOutcome = { readonly bytes: Buffer } | { readonly reason: string };

function errorReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return `cannot read: ${e.code ?? e.message}`;
}

// Not on Windows; there the lstat check before the open is what keeps a link from being followed.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * An open descriptor of a regular file and its `fstat`, or why not: the lstat before the open keeps a FIFO or a
 * device from being opened at all, O_NONBLOCK and the fstat after it refuse what was swapped in between. The
 * caller closes the descriptor.
 */
export function openRegularFile(
  path: string,
  follow = false,
): { readonly fd: number; readonly stats: Stats } | { readonly reason: string } {
  let before: Stats;
  try {
    before = follow ? statSync(path) : lstatSync(path);
  } catch (err) {
    return { reason: errorReason(err) };
  }
  if (!before.isFile()) return { reason: `not a regular file (${fileKind(before)})` };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK | (follow ? 0 : NOFOLLOW));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { reason: code === 'ELOOP' ? 'not a regular file (a symbolic link)' : errorReason(err) };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      return { reason: `not a regular file (${fileKind(stats)})` };
    }
    return { fd, stats };
  } catch (err) {
    closeSync(fd);
    return { reason: errorReason(err) };
  }
}

/** The bytes of a regular file, or why not (never blocks, never reads more than `limits.maxBytes`). */
export function readRegularFile(path: string, limits: ReadLimits): ReadOutcome {
  const opened = openRegularFile(path, limits.follow === true);
  if ('reason' in opened) return opened;
  const { fd, stats: s } = opened;
  try {
    if (s.size > limits.maxBytes && limits.over === 'reject')
      return { reason: `larger than ${limits.maxBytes} bytes (${s.size})` };
    // One byte more than allowed, to see a file that grew since the fstat.
    const want = Math.min(s.size, limits.maxBytes) + (limits.over === 'reject' ? 1 : 0);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got > limits.maxBytes) {
      if (limits.over === 'reject') return { reason: `larger than ${limits.maxBytes} bytes` };
      got = limits.maxBytes;
    }
    return { bytes: buf.subarray(0, got) };
  } catch (err) {
    return { reason: errorReason(err) };
  } finally {
    closeSync(fd);
  }
}
