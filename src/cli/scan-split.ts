/**
 * `aorta-probe scan` of a large file on two threads: the first half on this one, the second in a worker thread,
 * merged as scan/split.ts proves equal to one scan.
 *
 * Why: a second core is often idle while a large log is scanned. The worker is started first, so its start-up
 * overlaps this thread's half. It is opt-in (`--threads 2`): see the figures in `scanSplit`.
 * Where the split does not apply (a pattern that is not split-safe, a file under MIN_SPLIT_BYTES, no "\n" near
 * the middle, one thread asked for or available) or the halves cannot be merged (an engine failure), the caller
 * scans in one piece.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { scanFileRange, type ByteRange } from '../scan/file.js';
import type { ScanRecipe, ScanResult, ScanVars } from '../scan/scan.js';
import { mergeRanges, scanSplitSafe, type RangeScan } from '../scan/split.js';

/** Below this the second thread's start-up is a large part of the scan. */
export const MIN_SPLIT_BYTES = 16 * 1024 * 1024;
/** How far past the middle the split looks for a "\n" (a log with longer lines is scanned in one piece). */
const SPLIT_SEARCH_BYTES = 1024 * 1024;

/** What the worker (scan-part-worker.ts) is given. */
export interface PartJob {
  readonly recipe: ScanRecipe | null;
  readonly path: string;
  readonly range: ByteRange;
  readonly vars: ScanVars;
  /** progress[0]: bytes the worker has scanned, for the progress line. */
  readonly progress: SharedArrayBuffer;
}

export type PartReply =
  | { readonly ok: true; readonly scan: RangeScan }
  | { readonly ok: false; readonly message: string };

/** The worker entry beside this module: the bin's bundle has it as scan-part-worker.cjs. */
const WORKER_URL = new URL('./scan-part-worker.cjs', import.meta.url);

const NOTHING_SCANNED: RangeScan = { firings: [], engineFailed: false, end: null, tierMs: { tier4: 0, tier5: 0 } };

/** Byte just after the first "\n" at or after the middle of the file, or null. */
export function splitPoint(path: string, size: number): number | null {
  const mid = Math.floor(size / 2);
  const buf = new Uint8Array(Math.min(SPLIT_SEARCH_BYTES, size - mid));
  const fd = openSync(path, 'r');
  try {
    const n = readSync(fd, buf, 0, buf.length, mid);
    const nl = buf.subarray(0, n).indexOf(0x0a);
    return nl < 0 || mid + nl + 1 >= size ? null : mid + nl + 1;
  } finally {
    closeSync(fd);
  }
}

/** The merged result of a two-thread scan, or null when the caller must scan in one piece. */
export async function scanSplit(
  recipe: ScanRecipe | null,
  path: string,
  size: number,
  vars: ScanVars,
  threads: number | null,
  /** Bytes scanned so far by both threads, after each chunk of this one. */
  onProgress: ((bytes: number) => void) | null,
): Promise<ScanResult | null> {
  // Not the default: measured on 2 cores, the worker's own start-up and heap made a 100 MiB scan ~25% slower
  // and a 1 GiB scan ~20% faster at twice the peak RSS (~125 MiB against ~61).
  const n = Math.min(threads ?? 1, availableParallelism());
  if (n < 2 || size < MIN_SPLIT_BYTES || !scanSplitSafe(recipe)) return null;
  const at = splitPoint(path, size);
  if (at === null) return null;
  const shared = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
  const theirs = new Float64Array(shared);
  const job: PartJob = { recipe, path, range: { start: at, end: size }, vars, progress: shared };
  const worker = new Worker(WORKER_URL, { workerData: job });
  const second = new Promise<RangeScan | null>((resolve) => {
    worker.once('message', (m: PartReply) => resolve(m.ok ? m.scan : null));
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
  try {
    let mine = 0;
    const first = await scanFileRange(recipe, path, { start: 0, end: at }, vars, (chunk) => {
      mine += chunk.length;
      onProgress?.(mine + theirs[0]!);
    });
    // Every pattern fired in the first half (its scan stopped early): the second half cannot change the result.
    if (first.end === null && !first.engineFailed)
      return mergeRanges(first, NOTHING_SCANNED, recipe?.customPatterns ?? []);
    const rest = await second;
    return rest === null ? null : mergeRanges(first, rest, recipe?.customPatterns ?? []);
  } finally {
    await worker.terminate();
  }
}
