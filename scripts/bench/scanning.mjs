// Part 2 — log scanning. Each engine runs in its own child process (peak RSS is per engine);
// every time is end to end from a page-cached file (read + decode + scan).
//
// Two kinds of rows: "whole process" — `aorta-probe scan` spawned cold, as a CLI user runs it, next to ripgrep
// with the same patterns (the headline figures); and "warm" — the library in a process that has already done one
// untimed pass (what a long-lived process gets), next to the in-process peers.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncToDisk, writeLog } from './logs.mjs';
import { BIN, PYTHON, ROOT, python, runJson } from './child.mjs';
import { CUSTOM_PATTERNS, EVERY_LINE_PATTERN, SCAN_VARS, logFailures, recipeYaml, tier4Sources } from './patterns.mjs';
import { ensureRg, rgArgs, shellLine } from './rg.mjs';
import { summarize } from './stats.mjs';

const node = (spec) => runJson(process.execPath, ['scan-worker.mjs', JSON.stringify(spec)]);
/** One spawn of `cmd` through whole_process.py: wall time and the child's own peak RSS. */
const spawnOnce = (cmd, ok) =>
  runJson(PYTHON, ['whole_process.py'], { input: JSON.stringify({ cmd, cwd: ROOT, repeats: 1, ok }) });

/** The scan command line for a log: the bench's 3 custom patterns as a recipe, the warm rows' variables. */
function scanCommand(recipeFile, file) {
  return [
    BIN,
    'scan',
    '--recipe',
    recipeFile,
    '--exit-code',
    String(SCAN_VARS.exit_code),
    '--walltime',
    String(SCAN_VARS.walltime_sec),
    '--peak-vram',
    String(SCAN_VARS.peak_vram_mib),
    '--format',
    'json',
    file,
  ];
}

/**
 * Whole-process rows for one log: ours and rg spawned alternately `repeats` times (so a load spike on this
 * shared machine hits both), each spawn timed from start to exit.
 */
async function wholeProcessRows(logName, file, bytes, repeats, recipeFile, rg) {
  const ours = { engine: 'ours: aorta-probe scan (whole process)', cmd: scanCommand(recipeFile, file), ok: [0, 1] };
  const peers = [ours];
  if (!rg.unavailable)
    peers.push({
      engine: `rg ${rg.version.replace(/^ripgrep /, '')} (whole process)`,
      cmd: [rg.bin, ...rgArgs([...tier4Sources(), ...CUSTOM_PATTERNS], file)],
      ok: [0, 1],
    });
  const runs = peers.map(() => ({ timesMs: [], rss: [], stdout: '', error: null }));
  for (let i = 0; i < repeats; i++) {
    for (const [k, p] of peers.entries()) {
      if (runs[k].error) continue;
      try {
        const r = (await spawnOnce(p.cmd, p.ok)).result;
        runs[k].timesMs.push(r.timesMs[0]);
        runs[k].rss.push(r.maxRssKiB[0]);
        runs[k].stdout = r.stdout;
      } catch (e) {
        runs[k].error = String(e.message ?? e)
          .split('\n')[0]
          .slice(0, 300);
      }
    }
  }
  const rows = peers.map((p, k) => {
    const base = {
      kind: 'whole',
      engine: p.engine,
      log: logName,
      bytes,
      command: shellLine(p.cmd[0] === BIN ? 'aorta-probe' : p.cmd[0], p.cmd.slice(1)).replaceAll(ROOT, ''),
    };
    const r = runs[k];
    if (r.error) return { ...base, error: r.error };
    let fired;
    if (p === ours) {
      try {
        fired = logFailures(JSON.parse(r.stdout).detectors);
      } catch {
        fired = 'unreadable --format json output';
      }
    } else fired = `${r.stdout.trim() === '' ? 0 : Number(r.stdout.trim())} matching lines`;
    return {
      ...base,
      fired,
      timeMs: summarize(r.timesMs),
      MBps: summarize(r.timesMs.map((t) => bytes / 1e6 / (t / 1000))),
      maxRssMiB: Math.max(...r.rss) / 1024,
    };
  });
  if (rg.unavailable)
    rows.push({
      kind: 'whole',
      engine: 'rg (whole process)',
      log: logName,
      bytes,
      error: `rg unavailable: ${rg.unavailable}`,
    });
  return rows;
}

/** Copies of `src` up to exactly `bytes` bytes (the big log: generating 1 GiB afresh takes a minute). */
function repeatFile(src, dst, bytes) {
  const data = readFileSync(src);
  const fd = openSync(dst, 'w');
  try {
    for (let left = bytes; left > 0; left -= data.length) writeSync(fd, data, 0, Math.min(left, data.length));
    syncToDisk(fd);
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
  if (r.error) return { kind: 'warm', engine, log, bytes, error: r.error };
  if (r.timedOut) return { kind: 'warm', engine, log, bytes, timedOut: true };
  const { timesMs, fired } = r.result;
  return {
    kind: 'warm',
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
    recipe: join(dir, `aorta-bench-recipe-${process.pid}.yaml`),
  };
  const rows = [];
  try {
    log(`generating ${(logBytes / 2 ** 20).toFixed(0)} MiB clean and dirty logs in ${dir}`);
    const bytes = {
      clean: writeLog(files.clean, logBytes, { kind: 'clean', seed: 42 }),
      dirty: writeLog(files.dirty, logBytes, { kind: 'dirty', seed: 7 }),
    };
    writeFileSync(files.recipe, recipeYaml(CUSTOM_PATTERNS));
    const rg = ensureRg(log);
    for (const kind of ['clean', 'dirty']) {
      log(`scan ${kind}: whole process, ours and rg`);
      rows.push(...(await wholeProcessRows(kind, files[kind], bytes[kind], repeats.whole, files.recipe, rg)));
    }
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
    log('scan big: whole process, ours and rg');
    rows.push(
      ...(await wholeProcessRows('big', files.big, statSync(files.big).size, repeats.bigWhole, files.recipe, rg)),
    );
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
