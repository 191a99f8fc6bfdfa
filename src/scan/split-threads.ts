/**
 * A scan of a large file on two threads (`aorta-probe scan --threads 2`): the file is cut into ranges at line starts, this thread and
 * a worker thread take them in turn, and the ranges' scans are merged as scan/split.ts proves equal to one scan.
 *
 * Why ranges taken in turn rather than two halves: the worker starts ~50–100 ms after this thread (node boots a
 * fresh environment for it), and the two cores of a VM need not run at one speed (measured here: one ran a loop
 * 1.5× slower than the other). With halves the faster thread idles at the end; with ranges claimed from a shared
 * counter each thread scans until none is left. The ranges shrink towards the end of the file (each a quarter of
 * what is left, then RANGE_MIN_BYTES), so the last one either thread finishes is short, while the first ones are
 * long enough that a range's own set-up (a session: its regexes and conditions) is a small part of it.
 *
 * Where the split does not apply (a pattern that is not split-safe, a file under MIN_SPLIT_BYTES, no "\n" after the
 * first cut, one thread asked for or available) or the ranges cannot be merged (an engine failure), the caller
 * scans in one piece. Ranges the worker claimed but did not scan (it failed to start or threw) are scanned here.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { scanFileRange, type ByteRange } from './file.js';
import type { ScanRecipe, ScanResult, ScanVars } from './scan.js';
import { mergeRanges, scanSplitSafe, type RangeScan } from './split.js';

/** Below this the second thread's start-up is a large part of the scan. */
export const MIN_SPLIT_BYTES = 16 * 1024 * 1024;
/** The shortest range (but the last): its session's set-up stays well under 1% of its scan. */
const RANGE_MIN_BYTES = 8 * 1024 * 1024;
/** How far past a cut's target the plan looks for a "\n" (a log with longer lines is cut in fewer places). */
const CUT_SEARCH_BYTES = 1024 * 1024;
/**
 * The worker's young generation, in MiB (V8 makes 1 MiB semi-spaces of 3): held at its starting size as this
 * thread's is (src/cli/young-generation.ts says why). Without it the worker's semi-spaces grew to 16 MiB each, ~30 MiB
 * more peak RSS on a 1 GiB scan.
 */
const WORKER_YOUNG_GENERATION_MB = 3;

/**
 * What both threads share: the next range to claim, the last range still needed (a range whose scan stopped early
 * decides every pattern, so later ones are skipped), and the bytes the worker has scanned (for the progress line).
 */
interface Shared {
  /** [0]: next range index; [1]: last range index still needed. */
  readonly ctl: Int32Array;
  /** [0]: bytes the worker has scanned. */
  readonly workerBytes: Float64Array;
}

const SHARED_BYTES = 2 * Int32Array.BYTES_PER_ELEMENT + Float64Array.BYTES_PER_ELEMENT;

export function sharedView(buffer: SharedArrayBuffer): Shared {
  return { ctl: new Int32Array(buffer, 0, 2), workerBytes: new Float64Array(buffer, 8, 1) };
}

/** What the worker (split-worker.ts) is given. */
export interface PartJob {
  readonly recipe: ScanRecipe | null;
  readonly path: string;
  readonly ranges: readonly ByteRange[];
  readonly vars: ScanVars;
  /** SHARED_BYTES, laid out as `Shared`. */
  readonly shared: SharedArrayBuffer;
}

/** What the worker posts: each range it scanned, then once that it has stopped. */
export type PartReply =
  | { readonly kind: 'range'; readonly index: number; readonly scan: RangeScan }
  | { readonly kind: 'stopped'; readonly error: string | null };

/** The second thread: its entry, and what its caller does once it runs. */
export interface SplitWorker {
  /**
   * split-worker.ts as a script node can start: the bin has it bundled beside its chunks as scan-part-worker.cjs
   * (scripts/bundle-cli.mjs); a test gives one that fails, to see this thread scan what the worker did not.
   */
  readonly url: URL;
  /** Called once the worker thread is online (the CLI holds its young generation again, src/cli/young-generation.ts). */
  readonly onOnline?: () => void;
}

/** Byte just after the first "\n" at or after `at` (within CUT_SEARCH_BYTES), or null. */
function lineStartAfter(fd: number, at: number, size: number, buf: Uint8Array): number | null {
  const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
  const nl = buf.subarray(0, n).indexOf(0x0a);
  return nl < 0 || at + nl + 1 >= size ? null : at + nl + 1;
}

/**
 * The ranges a file of `size` bytes is cut into for `threads` threads: each cut just after a "\n", each range a
 * quarter of what is left per thread pair (at least RANGE_MIN_BYTES), the last range taking the rest.
 */
export function planRanges(path: string, size: number, threads: number): ByteRange[] {
  const ranges: ByteRange[] = [];
  const buf = new Uint8Array(CUT_SEARCH_BYTES);
  const fd = openSync(path, 'r');
  try {
    let start = 0;
    for (;;) {
      const target = start + Math.max(RANGE_MIN_BYTES, Math.floor((size - start) / (2 * threads)));
      const cut = target + RANGE_MIN_BYTES > size ? null : lineStartAfter(fd, target, size, buf);
      if (cut === null) break;
      ranges.push({ start, end: cut });
      start = cut;
    }
    ranges.push({ start, end: size });
  } finally {
    closeSync(fd);
  }
  return ranges;
}

/**
 * Claims ranges of `job` until none is left (or none is still needed) and scans each, reporting it to `done`;
 * both threads run this. `onChunk` sees each chunk read.
 */
export async function scanClaimedRanges(
  job: PartJob,
  done: (index: number, scan: RangeScan) => void,
  onChunk?: (chunk: Uint8Array | string) => void,
): Promise<void> {
  const { ctl } = sharedView(job.shared);
  for (;;) {
    const i = Atomics.add(ctl, 0, 1);
    if (i >= job.ranges.length || i > Atomics.load(ctl, 1)) return;
    const scan = await scanFileRange(job.recipe, job.path, job.ranges[i]!, job.vars, onChunk);
    if (scan.end === null) lowerLastNeeded(ctl, i);
    done(i, scan);
  }
}

/** ctl[1] = min(ctl[1], i), atomically. */
function lowerLastNeeded(ctl: Int32Array, i: number): void {
  for (;;) {
    const cur = Atomics.load(ctl, 1);
    if (cur <= i || Atomics.compareExchange(ctl, 1, cur, i) === cur) return;
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
  worker: SplitWorker,
): Promise<ScanResult | null> {
  // Not the default: see --threads in `aorta-probe scan --help`. Measured on 2 cores: the worker's start-up and heap pay
  // off only where each line costs work (1 GiB, a pattern on every line: 6.3 -> 5.1 s, 69 -> 143 MiB); a log the
  // byte pass skips is read as fast as two threads get (1 GiB clean: 0.63 vs 0.65 s).
  const n = Math.min(threads ?? 1, availableParallelism());
  if (n < 2 || size < MIN_SPLIT_BYTES || !scanSplitSafe(recipe)) return null;
  const ranges = planRanges(path, size, n);
  if (ranges.length < 2) return null;
  const buffer = new SharedArrayBuffer(SHARED_BYTES);
  const shared = sharedView(buffer);
  shared.ctl[1] = ranges.length - 1;
  const job: PartJob = { recipe, path, ranges, vars, shared: buffer };
  const scans: (RangeScan | undefined)[] = ranges.map(() => undefined);

  // The worker's messages arrive while this thread awaits its own reads; `workerEvent` wakes the wait below.
  let workerRunning = true;
  let wake: (() => void) | null = null;
  const workerEvent = (): void => {
    wake?.();
    wake = null;
  };
  const thread = new Worker(worker.url, {
    workerData: job,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  if (worker.onOnline !== undefined) thread.once('online', worker.onOnline);
  thread.on('message', (m: PartReply) => {
    if (m.kind === 'range') scans[m.index] = m.scan;
    else workerRunning = false;
    workerEvent();
  });
  const stopped = (): void => {
    workerRunning = false;
    workerEvent();
  };
  thread.once('error', stopped);
  thread.once('exit', stopped);
  const missing = (): number => scans.findIndex((s, i) => s === undefined && i <= Atomics.load(shared.ctl, 1));

  try {
    let mine = 0;
    const report = (chunk: Uint8Array | string): void => {
      mine += chunk.length;
      onProgress?.(mine + shared.workerBytes[0]!);
    };
    await scanClaimedRanges(job, (i, scan) => (scans[i] = scan), report);
    // Wait while a needed range is the worker's to finish.
    while (workerRunning && missing() >= 0) await new Promise<void>((resolve) => (wake = resolve));
    // The worker stopped without scanning ranges it had claimed: scan them here.
    for (let i = missing(); i >= 0; i = missing()) {
      const scan = await scanFileRange(recipe, path, ranges[i]!, vars, report);
      scans[i] = scan;
      if (scan.end === null) lowerLastNeeded(shared.ctl, i);
    }
    const needed = scans.slice(0, Atomics.load(shared.ctl, 1) + 1) as RangeScan[];
    return mergeRanges(needed, recipe?.customPatterns ?? []);
  } finally {
    await thread.terminate();
  }
}
