// Part 2 — log scanning. Each engine runs in its own child process (peak RSS is per engine);
// every time is end to end from a page-cached file (read + decode + scan).
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLog } from './logs.mjs';
import { python, runJson } from './child.mjs';
import { CUSTOM_PATTERNS, EVERY_LINE_PATTERN, SCAN_VARS, tier4Sources } from './patterns.mjs';
import { summarize } from './stats.mjs';

const node = (spec) => runJson(process.execPath, ['scan-worker.mjs', JSON.stringify(spec)]);

/** Copies of `src` up to exactly `bytes` bytes (the big log: generating 1 GiB afresh takes a minute). */
function repeatFile(src, dst, bytes) {
  const data = readFileSync(src);
  const fd = openSync(dst, 'w');
  try {
    for (let left = bytes; left > 0; left -= data.length) writeSync(fd, data, 0, Math.min(left, data.length));
  } finally {
    closeSync(fd);
  }
}

/** Runs one engine; a failing engine becomes a row with its error, not the end of the suite. */
async function attempt(run) {
  try {
    return await run();
  } catch (e) {
    return {
      error: String(e.message ?? e)
        .split('\n')[0]
        .slice(0, 300),
    };
  }
}

function figures(engine, log, bytes, r) {
  if (r.error) return { engine, log, bytes, error: r.error };
  if (r.timedOut) return { engine, log, bytes, timedOut: true };
  const { timesMs, fired } = r.result;
  return {
    engine,
    log,
    bytes,
    fired,
    timeMs: summarize(timesMs),
    MBps: summarize(timesMs.map((t) => bytes / 1e6 / (t / 1000))),
    maxRssMiB: r.maxRssKiB / 1024,
  };
}

/**
 * sizes: { logBytes, bigBytes }; repeats: { ours, slow } (slow = the engines that take seconds
 * per pass). `log(msg)` reports progress on stderr.
 */
export async function runScanning({ logBytes, bigBytes, repeats, log = () => {} }) {
  const dir = tmpdir();
  const files = {
    clean: join(dir, `aorta-bench-clean-${process.pid}.log`),
    dirty: join(dir, `aorta-bench-dirty-${process.pid}.log`),
    big: join(dir, `aorta-bench-big-${process.pid}.log`),
  };
  const rows = [];
  try {
    log(`generating ${(logBytes / 2 ** 20).toFixed(0)} MiB clean and dirty logs in ${dir}`);
    const bytes = {
      clean: writeLog(files.clean, logBytes, { kind: 'clean', seed: 42 }),
      dirty: writeLog(files.dirty, logBytes, { kind: 'dirty', seed: 7 }),
    };
    const pySpec = (file, n) => ({ file, repeats: n, tier4: tier4Sources(), custom: CUSTOM_PATTERNS, vars: SCAN_VARS });
    for (const kind of ['clean', 'dirty']) {
      const file = files[kind];
      const engines = [
        ['ours', () => node({ engine: 'ours', file, repeats: repeats.ours, patterns: 'workload' })],
        [
          'ours, prefilter off',
          () => node({ engine: 'ours-noprefilter', file, repeats: repeats.slow, patterns: 'workload' }),
        ],
        [
          're2-wasm naive (1 MiB windows)',
          () => node({ engine: 're2-naive', file, repeats: repeats.slow, patterns: 'workload' }),
        ],
        ['V8 RegExp (whole text)', () => node({ engine: 'v8', file, repeats: repeats.ours, patterns: 'workload' })],
        ['python3 re (10 MiB windows)', () => python('scan', pySpec(file, repeats.slow))],
      ];
      for (const [name, run] of engines) {
        log(`scan ${kind}: ${name}`);
        rows.push(figures(name, kind, bytes[kind], await attempt(run)));
      }
    }
    log('scan clean: every-line pattern, never-true condition');
    rows.push(
      figures(
        'ours',
        'every line, never-true condition',
        bytes.clean,
        await attempt(() => node({ engine: 'ours', file: files.clean, repeats: repeats.ours, patterns: 'everyline' })),
      ),
    );
    rows.push(
      figures(
        'python3 re.finditer + eval per match',
        'every line, never-true condition',
        bytes.clean,
        await attempt(() =>
          python('everyline', {
            file: files.clean,
            repeats: repeats.slow,
            pattern: EVERY_LINE_PATTERN,
            vars: SCAN_VARS,
          }),
        ),
      ),
    );

    rmSync(files.dirty, { force: true }); // free the disk before the big one
    log(`writing the ${(bigBytes / 2 ** 30).toFixed(2)} GiB log (copies of the clean log)`);
    repeatFile(files.clean, files.big, bigBytes);
    log('scan big: ours');
    rows.push(
      figures(
        'ours',
        'big',
        statSync(files.big).size,
        await attempt(() => node({ engine: 'ours', file: files.big, repeats: repeats.big, patterns: 'workload' })),
      ),
    );
  } finally {
    for (const f of Object.values(files)) rmSync(f, { force: true });
  }
  return rows;
}
