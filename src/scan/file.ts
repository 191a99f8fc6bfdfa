/**
 * Reading a log file for `scanStream` with one reused buffer (Node only; not re-exported by src/scan/index.ts,
 * which the browser bundle uses).
 *
 * Why not `createReadStream`: it allocates a new Buffer per chunk, and on a VM where a fresh page costs ~70 µs to
 * fault in, allocating 1 MiB chunks alone caps a scan near 60 MB/s. Here reads land in a reused buffer: the
 * windower's own (`readInto`, which stream.ts uses), or one of this module's whose chunks the windower copies.
 */
import { close, fstat, open, readSync, type Stats } from 'node:fs';
import {
  SCAN_OPTION_KEYS,
  ScanSession,
  type ScanOptions,
  type ScanRecipe,
  type ScanResult,
  type ScanVars,
} from './scan.js';
import { checkOptions } from '../text/options.js';
import type { RangeEnd, RangeScan } from './split.js';
import { feedSource, READ_BYTES, scanStream, type ByteReader } from './stream.js';
import type { ScanWindow } from './windows.js';

/**
 * An open descriptor, through node:fs's callback API (the open itself still goes through the thread pool, so a
 * FIFO without a writer does not block the event loop): node:fs/promises would load ~15 more node modules, ~2 ms
 * of a cold `aorta-probe scan`.
 */
interface OpenFile {
  readonly fd: number;
  stat(): Promise<Stats>;
  /** Closes the descriptor once; later calls resolve at once. */
  close(): Promise<void>;
}

function openFile(path: string): Promise<OpenFile> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (err, fd) => {
      if (err) return reject(err);
      let closed = false;
      resolve({
        fd,
        stat: () => new Promise((res, rej) => fstat(fd, (e, st) => (e ? rej(e) : res(st)))),
        close: () =>
          new Promise((res, rej) => {
            if (closed) return res();
            closed = true;
            close(fd, (e) => (e ? rej(e) : res()));
          }),
      });
    });
  });
}

/**
 * Opens `path` (failing here, before any scanning, if it cannot be read: missing, unreadable, a directory) and
 * returns its bytes (and its size, for a regular file) as chunks that are views of one reused buffer: each is valid
 * only until the next is requested. Or, instead of iterating, `readInto` reads the next bytes into a buffer the
 * caller gives (stream.ts: the windower's own, which saves copying every byte once more); the two must not be
 * mixed. The file is closed when the iteration ends, also early (`return()`, even before the first chunk), which a
 * caller of `readInto` calls when done.
 */
export async function openFileChunks(
  path: string,
  chunkBytes = READ_BYTES,
  range: ByteRange | null = null,
): Promise<FileChunks> {
  const handle = await openFile(path);
  let size: number | null;
  try {
    const st = await handle.stat();
    if (st.isDirectory())
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR' });
    size = st.isFile() ? st.size : null; // a FIFO or device has no size to show progress against
  } catch (e) {
    await handle.close();
    throw e;
  }
  const reader = new Reader(handle.fd, range);
  return Object.assign(closingEarly(chunks(handle, reader, chunkBytes), handle), {
    size,
    readInto: (into: Uint8Array) => reader.read(into),
  });
}

/** What `openFileChunks` returns. */
export type FileChunks = AsyncGenerator<Uint8Array> & Pick<ByteReader, 'readInto'> & { readonly size: number | null };

/**
 * Synchronous reads, from where the last one ended. A regular file's read returns from the page cache in tens of
 * microseconds; going through the thread pool for each (fs/promises) left the scanner idle for ~15% of a clean
 * scan, while a blocking read holds the event loop only for that long (a read ahead on the thread pool, into a
 * second buffer, measured no faster on 2 cores).
 */
class Reader {
  #at: number | null;
  constructor(
    readonly fd: number,
    readonly range: ByteRange | null,
  ) {
    this.#at = range?.start ?? null;
  }

  read(into: Uint8Array): number {
    const at = this.#at;
    const want = this.range === null || at === null ? into.length : Math.min(into.length, this.range.end - at);
    if (want <= 0) return 0;
    const n = readSync(this.fd, into, 0, want, at);
    if (at !== null) this.#at = at + n;
    return n;
  }
}

/**
 * `gen`, whose `return()` also closes `handle` when called before the first `next()`: a generator that has not
 * started does not run its `finally` (scan.ts opens a file to report "cannot read" early, then may not read it).
 */
function closingEarly(gen: AsyncGenerator<Uint8Array>, handle: OpenFile): AsyncGenerator<Uint8Array> {
  let started = false;
  const it: AsyncGenerator<Uint8Array> = {
    next(...args) {
      started = true;
      return gen.next(...args);
    },
    async return(value) {
      if (!started) {
        started = true;
        await handle.close();
      }
      return gen.return(value);
    },
    throw(err) {
      return gen.throw(err);
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/** Bytes [start, end) of a file. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** The file's bytes as views of one reused buffer; closes the file when done. */
async function* chunks(handle: OpenFile, reader: Reader, chunkBytes: number): AsyncGenerator<Uint8Array> {
  try {
    const buf = new Uint8Array(chunkBytes);
    for (;;) {
      const n = reader.read(buf);
      if (n === 0) return;
      yield buf.subarray(0, n);
    }
  } finally {
    await handle.close();
  }
}

/** `scanStream` over a file, read with `openFileChunks` (into the windower's buffer). */
export async function scanFile(
  recipe: ScanRecipe | null,
  path: string,
  vars: ScanVars,
  options: ScanOptions = {},
): Promise<ScanResult> {
  checkOptions('scanFile', options, SCAN_OPTION_KEYS);
  const file = await openFileChunks(path);
  try {
    return await scanStream(recipe, file, vars, options);
  } finally {
    await file.return(undefined); // closes it also when the scan failed before reading
  }
}

/**
 * Scans bytes [start, end) of a file as a log of its own, for scan/split.ts: its firings (positions within the
 * range), whether an engine failure happened, and where its text ends (null when it stopped early, every pattern
 * having fired).
 */
export async function scanFileRange(
  recipe: ScanRecipe | null,
  path: string,
  range: ByteRange,
  vars: ScanVars,
  onChunk?: (chunk: Uint8Array | string) => void,
): Promise<RangeScan> {
  let last: ScanWindow | null = null;
  const session = new ScanSession(recipe, vars, { observer: { windowDone: (w) => (last = w) } });
  try {
    await feedSource(session, await openFileChunks(path, READ_BYTES, range), {}, onChunk);
    const result = session.result();
    let end: RangeEnd | null = null;
    if (!session.done && last !== null) {
      const w: ScanWindow = last;
      const units = w.base + w.ownEnd; // the last window owns its whole text (which may no longer be readable)
      const at = session.locate(units);
      end = { units, newlines: at.line - 1, bytes: at.byteOffset };
    }
    return {
      firings: [...session.tier4Firings(), ...session.tier5Firings()],
      conditionErrors: session.conditionErrors(),
      engineFailed: session.engineFailures().length > 0,
      end,
      tierMs: result.tier_durations_ms,
    };
  } finally {
    session.dispose();
  }
}
