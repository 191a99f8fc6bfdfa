/**
 * Worker-thread entry of split-threads.ts: claims ranges of the log in turn with the main thread, posts each range's
 * scan (firings, engine failures, where its text ends), then that it stopped. Bundled beside the bin as
 * scan-part-worker.cjs (scripts/bundle-cli.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanClaimedRanges, sharedView, type PartJob, type PartReply } from './split-threads.js';

const job = workerData as PartJob;
const scanned = sharedView(job.shared).workerBytes;
const post = (reply: PartReply): void => parentPort?.postMessage(reply);

scanClaimedRanges(
  job,
  (index, scan) => post({ kind: 'range', index, scan }),
  (chunk) => {
    scanned[0] = scanned[0]! + chunk.length;
  },
).then(
  () => post({ kind: 'stopped', error: null }),
  (err: unknown) => post({ kind: 'stopped', error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
