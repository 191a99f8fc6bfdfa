/**
 * Worker-thread entry of scan-split.ts: scans its byte range of the log and posts the range's scan (firings,
 * engine failures, where its text ends). Bundled beside the bin as scan-part-worker.cjs (scripts/bundle-cli.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanFileRange } from '../scan/file.js';
import type { PartJob, PartReply } from './scan-split.js';

const job = workerData as PartJob;
const scanned = new Float64Array(job.progress);
const post = (reply: PartReply): void => parentPort?.postMessage(reply);

scanFileRange(job.recipe, job.path, job.range, job.vars, (chunk) => {
  scanned[0] = scanned[0]! + chunk.length;
}).then(
  (scan) => post({ ok: true, scan }),
  (err: unknown) => post({ ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
