// Part 5 — redaction (issue 37): a realistic training log (logs.mjs kind 'redact': the clean log plus NCCL
// interface addresses, home paths and a rare token) scrubbed as `aorta-probe bundle` scrubs a text artifact, beside
// the original's Python running the same path and IP regexes over the same windows. Each engine runs in its own
// process, `repeats` times, in turn; the in-process figure is from the first read to the last write, the
// whole-process one from spawn to exit. The counts must agree with Python's (paths, IPs), or the table says so.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON, runJson } from './child.mjs';
import { writeLog } from './logs.mjs';
import { summarize } from './stats.mjs';

/** The target of issue 37: ours, credentials included, at least this many MB/s in-process. */
export const REDACTION_TARGET_MBPS = 100;

export async function runRedaction({ logBytes, repeats, log }) {
  const dir = tmpdir();
  const input = join(dir, `aorta-bench-redact-${process.pid}.log`);
  const out = join(dir, `aorta-bench-redact-${process.pid}.out`);
  const bytes = writeLog(input, logBytes, { kind: 'redact', seed: 37 });
  const engines = [
    { name: 'ours: paths + IPs', cmd: process.execPath, args: ['redact-worker.mjs', input, out, '0'] },
    { name: 'ours: paths + IPs + credentials', cmd: process.execPath, args: ['redact-worker.mjs', input, out, '1'] },
    { name: 'python3: the original (paths + IPs)', cmd: PYTHON, args: ['redact_reference.py', input, out] },
  ];
  const runs = engines.map(() => ({ ms: [], wallMs: [], rss: [], counts: null }));
  try {
    for (let k = 0; k < repeats; k++) {
      for (const [i, e] of engines.entries()) {
        // The last run's output goes first, untimed: truncating 100 MB of it on a disk is no engine's work.
        rmSync(out, { force: true });
        const t0 = performance.now();
        const r = await runJson(e.cmd, e.args);
        runs[i].wallMs.push(performance.now() - t0);
        runs[i].ms.push(r.ms);
        runs[i].rss.push(r.maxRssKiB / 1024);
        runs[i].counts = { paths: r.paths, ips: r.ips, secrets: r.secrets };
      }
      log?.(`redaction: round ${k + 1}/${repeats}`);
    }
  } finally {
    rmSync(input, { force: true });
    rmSync(out, { force: true });
  }
  const py = runs[2].counts;
  return {
    bytes,
    targetMBps: REDACTION_TARGET_MBPS,
    rows: engines.map((e, i) => ({
      engine: e.name,
      MBps: summarize(runs[i].ms.map((ms) => bytes / 1e6 / (ms / 1000))),
      wholeMBps: summarize(runs[i].wallMs.map((ms) => bytes / 1e6 / (ms / 1000))),
      maxRssMiB: summarize(runs[i].rss).median,
      counts: runs[i].counts,
      agrees: runs[i].counts.paths === py.paths && runs[i].counts.ips === py.ips,
    })),
  };
}
