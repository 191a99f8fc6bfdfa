#!/usr/bin/env node
// npm run bench: the benchmark suite of issue 7. Six parts, every figure a median over repeated
// runs with min and max, ours side by side with the peers a user would pick instead, measured in
// this run on this machine. Prints one markdown table; writes results.json, results.md and
// chart.svg (default: bench/).
//
//   node scripts/bench/run.mjs [--quick] [--only conditions,scanning,cold,adversarial,redaction,patterns] [--out DIR]
//
// --quick: small logs and few repeats, for development on a busy machine (the table says so).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PYTHON } from './child.mjs';
import { renderChart } from './chart.mjs';
import { runAdversarial } from './adversarial.mjs';
import { runColdStart } from './cold-start.mjs';
import { runConditions } from './conditions.mjs';
import { runManyPatterns, SMALL_COUNTS } from './many-patterns.mjs';
import { runRedaction } from './redaction.mjs';
import { runScanning } from './scanning.mjs';
import { chartPanels, renderTable } from './report.mjs';
import { dur } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: 'conditions,scanning,cold,adversarial,redaction,patterns' },
    out: { type: 'string', default: new URL('../../bench/', import.meta.url).pathname },
    // Re-render table and chart from an existing results.json (no measuring).
    'render-only': { type: 'boolean', default: false },
  },
});
const parts = new Set(args.only.split(','));
const MiB = 2 ** 20;

// Full: an estimated 9 minutes on a quiet 2-core machine (the issue's budget is 15);
// --quick: about 4 minutes even with the cores shared (see README "Benchmarks").
const S = args.quick
  ? {
      cond: { runs: 3, ms: 100 },
      scan: { logBytes: 16 * MiB, bigBytes: 128 * MiB, repeats: { ours: 3, slow: 1, big: 1, whole: 3, bigWhole: 1 } },
      coldRuns: 10,
      adv: { runs: 2, capMs: 10_000 },
      redact: { logBytes: 16 * MiB, repeats: 3 },
      many: { repeats: 2, smallRepeats: 3, sweepTrials: 40 },
    }
  : {
      cond: { runs: 9, ms: 200 },
      scan: {
        logBytes: 100 * MiB,
        bigBytes: 1024 * MiB,
        repeats: { ours: 7, slow: 3, big: 2, whole: 15, bigWhole: 5 },
      },
      coldRuns: 15,
      adv: { runs: 5, capMs: 10_000 },
      redact: { logBytes: 100 * MiB, repeats: 5 },
      many: { repeats: 3, smallRepeats: 15, sweepTrials: 200 },
    };

const outDir = resolve(args.out);
if (args['render-only']) {
  writeOutputs(JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')));
  process.exit(0);
}

const log = (m) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);
const t0 = performance.now();
const cpus = os.cpus();
const res = {
  mode: args.quick ? 'quick' : 'full',
  date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  machine: {
    cores: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown CPU',
    memGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    python: spawnSync(PYTHON, ['--version'], { encoding: 'utf8' })
      .stdout.trim()
      .replace(/^Python /, ''),
    loadavg: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  },
  settings: S,
  notes: [],
};

if (parts.has('conditions')) {
  log('part 1: condition evaluation');
  res.conditions = await runConditions(S.cond);
}
if (parts.has('scanning')) {
  log('part 2: log scanning');
  res.scanning = await runScanning({ ...S.scan, log });
}
if (parts.has('cold')) {
  log('part 3: cold start');
  res.coldStart = runColdStart({ runs: S.coldRuns });
}
if (parts.has('adversarial')) {
  log('part 4: adversarial');
  res.adversarial = await runAdversarial(S.adv);
}
if (parts.has('redaction')) {
  log('part 5: redaction');
  res.redaction = await runRedaction({ ...S.redact, log });
}
if (parts.has('patterns')) {
  log('part 6: many patterns, sweep overhead');
  res.manyPatterns = await runManyPatterns({ ...S.many, log });
}
res.durationSec = (performance.now() - t0) / 1000;

// Footnotes: what each peer is, and anything this run found that a reader must know.
const N = res.notes;
if (process.env.AORTA_BENCH_BIN)
  N.push(`The whole-process rows ran AORTA_BENCH_BIN=${process.env.AORTA_BENCH_BIN}, not this tree's bin.`);
N.push(
  'python3 reference (`scripts/bench/reference.py`): the spec\'s `validate_and_compile` (strip, 256-character cap, `ast.parse`, the default-deny `ast.walk` walker, 10⁹ int cap, `compile`) and its `evaluate` (`eval` with `{"__builtins__": {}, math, float, int, len}`, the four variables as locals, `bool()`, any exception → not fired), called once per evaluation. Run with the interpreter itself, not a version-manager shim.',
);
N.push(
  'cel-js and filtrex run the nearest equivalent expressions (listed above): CEL has no `isnan` (x != x instead), no chained comparisons (&&) and int64 ints (BigInt, converted once per context); filtrex needs the casts supplied as `extraFunctions` and has no `//` (floor of /). Neither checks what our validator checks (the walker, the caps), and neither has Python semantics (arbitrary-precision ints, CPython float repr).',
);
N.push(
  '"ours batch" is `evaluateBatch` over a list of 4096 variable sets (one VM call per 512); "ours single" is one `evaluate` call per evaluation. Compile = validate + lower to bytecode; ours keeps one shared VM, so compile time excludes VM start-up.',
);
if (res.scanning) {
  N.push(
    'Scanning workload (issue 4): the 7 Tier 4 patterns + 3 custom patterns that rarely match (`FATAL: (?P<why>.+)`, `exit status (?P<code>\\d+)` if `int(capture[\'code\']) != 0`, `out of memory \\(oom_kill` if `exit_code == 137`). Logs are generated, seeded (`scripts/bench/logs.mjs`): "clean" matches nothing, "dirty" has failure lines about every 4,000 lines, but 5 of the 10 patterns never fire there, so every engine reads to the end. The big log is copies of the clean log (generating 1 GiB afresh takes about a minute). Files live in the OS temp dir and are deleted after.',
  );
  N.push(
    "Engines: ours = `scanFile` (`scanStream` over reads into a reused buffer), as `aorta-probe scan`; prefilter off = the same with `WindowedMatcher.prefilter = false`; re2-wasm naive = `new RE2(src, 'gu')` per pattern, first match per 1 MiB window (its 16 MiB heap cannot take 10 MiB); V8 RegExp = each pattern over the whole text (`(?P<` → `(?<`); python3 re = the original's loop (10 MiB windows, 4096 overlap, Tier 4 then Tier 5, first match per window). Ours and V8 get one untimed warm-up pass in their process (JIT tier-up, fresh heap pages), as part 1 warms every engine; the slow engines are timed from their first pass. Each engine runs in its own process; peak RSS is that process's `maxRSS` (node) / `ru_maxrss` (python), which includes the runtime itself and, for the whole-text peers, the whole log in memory.",
  );
  N.push(
    "The every-line row: one custom pattern matching the timestamp that starts every line, with a condition that never holds (`len(capture['ts']) > 100`), so every match is extracted and evaluated; Tier 4 runs too (scanLog always runs it). Its python3 peer is `re.finditer` + `evaluate` per match (our firing semantics; the original would evaluate only the first match per window).",
  );
  const fired = new Map();
  for (const r of res.scanning) {
    if ((r.log !== 'clean' && r.log !== 'dirty') || r.error || !Array.isArray(r.fired)) continue; // rg counts lines
    const key = JSON.stringify(r.fired);
    if (!fired.has(r.log)) fired.set(r.log, key);
    else if (fired.get(r.log) !== key)
      N.push(`**Engines disagree on what fired in the ${r.log} log** (${r.engine}: ${key}); see results.json.`);
  }
}
if (res.coldStart)
  N.push(
    `Cold start: ${S.coldRuns} spawns per command, wall time from spawn to exit. The python3 recipe check is ${res.coldStart.pythonRecipeLoader} + the custom_patterns checks of the original's tier5_custom.py (ROCm/aorta) (re.compile, the walker) — the original's loader minus the rest of its recipe schema; ours is the full \`aorta-probe check\` (YAML with positions, schema, conditions, regexes on RE2).`,
  );
if (res.adversarial) {
  N.push(
    'Adversarial conditions are the worst the validator accepts within 256 characters; ours runs them in its bounded VM heap (256 MiB default), where CPython would allocate freely — so "MemoryError" is our documented deviation, not a crash. int() stops at 4300 digits in both (CPython 3.11\'s limit).',
  );
  const seam = res.adversarial.redos.find((r) => r.ours.matched && r.name.includes('MiB'));
  if (seam)
    N.push(
      `Finding: \`${seam.name}\` — ours reports a match although the subject ends in "!": the subject is longer than one scan window, and \`$\` matches at the window seam (the original's windows have the same property); that pass is also slow (${dur(seam.ours.us.median)}).`,
    );
}
if (res.redaction) {
  N.push(
    "Redaction: ours is what `aorta-probe bundle` does to a text artifact (`scripts/bench/redact-worker.mjs`: the bundle's own `scrubbedText` — 4 MiB reads decoded 32 KiB at a time, U+FFFD for bad bytes, ASCII pieces copied, the original's windows as line pieces, `TextScrubber.scrubWindow`, UTF-8 out); python3 is the original's newest path and IP regexes and order (`scripts/bench/redact_reference.py`, the same `scrub` the goldens come from) over its streamed windows. The original has no credential rules (its issue #420): the last column's counts show what each found.",
  );
  for (const r of res.redaction.rows)
    if (!r.agrees) N.push(`**Redaction counts disagree with python3's**: ${r.engine} ${JSON.stringify(r.counts)}.`);
}
if (res.manyPatterns)
  N.push(
    `Many patterns: pattern i is \`(?i)<word> <word> error code i: (?P<msg>\\S+) at (?P<where>\\S+)\` (\`scripts/bench/many-patterns.mjs\`), none of which occurs in the 1 MiB clean log; ${S.many.repeats} spawns of each command per count, round-robin (for ${SMALL_COUNTS.join(', ')} patterns ${S.many.smallRepeats}, those counts' spawns interleaved, so the 30-over-2 difference compares medians taken in the same minutes); wall time from spawn to exit and peak RSS from wait4. python3 loads with PyYAML's \`safe_load\` (the pure-Python SafeLoader the original calls) and \`re.compile\`s every pattern (the original's load); its scan adds one \`re.search\` per pattern over the whole log. rg gets the same regexes in a file (\`rg -c -f\`). Sweep overhead per trial = (sweep wall − bare \`true\` wall) / trials, both 2 at a time.`,
  );
N.push(
  `This ${res.mode} run took ${(res.durationSec / 60).toFixed(1)} minutes.${res.mode === 'quick' ? ' Quick mode: small logs and few repeats, on a busy machine — indicative only; `npm run bench` is the full run.' : ''}`,
);

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(res, null, 2)}\n`);
writeOutputs(res);
log(`wrote ${join(outDir, 'results.json')}, results.md and chart.svg`);

function writeOutputs(r) {
  const table = renderTable(r);
  writeFileSync(join(outDir, 'results.md'), table);
  writeFileSync(
    join(outDir, 'chart.svg'),
    renderChart(
      `aorta-probe benchmarks — ${r.mode} run, ${r.date}; ${r.machine.cores} cores, ${r.machine.cpu}, Node ${r.machine.node}, Python ${r.machine.python}`,
      chartPanels(r),
    ),
  );
  process.stdout.write(table);
}
