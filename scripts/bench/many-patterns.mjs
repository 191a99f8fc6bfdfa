// Part 6 — recipes of many patterns (issue 38): a catalogue of N failure signatures, each
// `(?i)<word> <word> error code <i>: (?P<msg>\S+) at (?P<where>\S+)`, as Build Failure Analyzer-style databases
// hold, N from 2 to 3,200. Whole processes, spawned round-robin (so a load spike hits every engine alike): our
// `check` and `scan` of a 1 MiB clean log, beside python3 (`yaml.safe_load` + `re.compile` of every pattern — the
// original's load; and that plus `re.search` of each pattern over the log) and `rg -f patterns.txt` over the log.
// Peak RSS from wait4 (whole_process.py). Then the sweep overhead: `sweep --parallel 2` over 200 trials of `true`
// against `xargs -P 2` running 200 `aorta-probe run -- true` and 200 bare `true`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, PYTHON, ROOT, runJson } from './child.mjs';
import { writeLog } from './logs.mjs';
import { ensureRg } from './rg.mjs';
import { summarize } from './stats.mjs';

export const PATTERN_COUNTS = [2, 10, 30, 100, 400, 1000, 1600, 3200];

/** Issue 38's targets, whole process on the 2-core machine. */
export const MANY_TARGETS = {
  check: { 1000: 1000, 3200: 2000 },
  scan: { 1000: 1500, 3200: 3000 },
  checkVsPython: 2,
  rssMiB: 200,
  thirtyOverTwoMs: 30,
  sweepOverheadMs: 60,
};

const WORDS = ['cuda', 'nccl', 'hip', 'rocm', 'kernel', 'device', 'memory', 'launch', 'timeout', 'driver'];

function regexOf(i) {
  return `(?i)${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} error code ${i}: (?P<msg>\\S+) at (?P<where>\\S+)`;
}

function catalogue(n) {
  const lines = ['custom_patterns:'];
  for (let i = 0; i < n; i++)
    lines.push(`  - id: sig${i}`, '    match:', `      regex: '${regexOf(i)}'`, '    on_match: fail');
  return `${lines.join('\n')}\n`;
}

const PY_LOAD =
  'import re, sys, yaml\nd = yaml.safe_load(open(sys.argv[1], "rb"))\nps = [re.compile(p["match"]["regex"]) for p in d["custom_patterns"]]\n';
const PY_SCAN = `${PY_LOAD}t = open(sys.argv[2], encoding="utf-8", errors="replace").read()\nprint(sum(1 for p in ps if p.search(t)))\n`;

async function whole(cmd, args, repeats, ok = [0]) {
  const { result } = await runJson(PYTHON, ['whole_process.py'], {
    input: JSON.stringify({ cmd: [cmd, ...args], cwd: ROOT, repeats, ok }),
  });
  return result;
}

/**
 * The counts whose spawns are interleaved with each other, many times: the target "30 patterns add ≤ 30 ms over 2"
 * is a difference of two medians of ~200 ms processes, and this machine's slow spells last a few spawns — measured
 * one count after the other, 3 spawns each, a spell over the 30-pattern ones alone read as +66 ms (2026-12-06 23:49).
 */
export const SMALL_COUNTS = PATTERN_COUNTS.filter((n) => n <= 30);

export async function runManyPatterns({ repeats, smallRepeats = repeats, sweepTrials, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-bench-many-'));
  const logPath = join(dir, 'clean.log');
  const logBytes = writeLog(logPath, 2 ** 20, { kind: 'clean', seed: 38 });
  const rg = ensureRg(log);
  try {
    const setups = PATTERN_COUNTS.map((n) => {
      const recipe = join(dir, `r${n}.yaml`);
      writeFileSync(recipe, catalogue(n));
      const pats = join(dir, `p${n}.txt`);
      // rg joins the file's lines into one alternation, where a group name may appear once: groups unnamed.
      writeFileSync(
        pats,
        `${Array.from({ length: n }, (_, i) => regexOf(i).replace(/\(\?P<\w+>/g, '(')).join('\n')}\n`,
      );
      const engines = [
        ['ours: check', BIN, ['check', recipe], [0]],
        ['python3: safe_load + re.compile', PYTHON, ['-c', PY_LOAD, recipe], [0]],
        ['ours: scan 1 MiB', BIN, ['scan', '--recipe', recipe, logPath], [0]],
        ['python3: + re.search each', PYTHON, ['-c', PY_SCAN, recipe, logPath], [0]],
        ...(rg.bin ? [['rg -f patterns.txt', rg.bin, ['-c', '-f', pats, logPath], [0, 1]]] : []),
      ];
      return { n, engines, times: engines.map(() => []), rss: engines.map(() => []) };
    });
    /** Round-robin over `group`'s counts and their engines, one spawn each per round. */
    const measure = async (group, rounds) => {
      for (let k = 0; k < rounds; k++)
        for (const c of group)
          for (const [i, [, cmd, args, ok]] of c.engines.entries()) {
            const r = await whole(cmd, args, 1, ok);
            if (!ok.includes(r.status)) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
            c.times[i].push(r.timesMs[0]);
            c.rss[i].push(r.maxRssKiB[0] / 1024);
          }
      for (const c of group) log?.(`many patterns: ${c.n} done`);
    };
    await measure(
      setups.filter((c) => SMALL_COUNTS.includes(c.n)),
      smallRepeats,
    );
    for (const c of setups) if (!SMALL_COUNTS.includes(c.n)) await measure([c], repeats);
    const rows = setups.map((c) => ({
      patterns: c.n,
      recipeBytes: catalogue(c.n).length,
      engines: c.engines.map(([name], i) => ({
        name,
        ms: summarize(c.times[i]),
        maxRssMiB: summarize(c.rss[i]).median,
      })),
    }));
    const sweep = await sweepOverhead(dir, sweepTrials, log);
    return { logBytes, rg: rg.version ?? `unavailable (${rg.unavailable})`, targets: MANY_TARGETS, rows, sweep };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of the three ways to run `trials` trials of `true`, 2 at a time; each twice, in turn. */
async function sweepOverhead(dir, trials, log) {
  const recipe = join(dir, 'sweep.yaml');
  writeFileSync(
    recipe,
    `schema_version: 1\nmode: probe\nticket: OVERHEAD\ntrials: ${trials}\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n`,
  );
  const ways = [
    [
      'ours: sweep --parallel 2',
      'sh',
      ['-c', `rm -rf "$0" && "${BIN}" sweep --recipe "${recipe}" --out "$0" --parallel 2 -- true`, join(dir, 'sw')],
    ],
    [
      'xargs -P 2: aorta-probe run -- true',
      'sh',
      ['-c', `rm -rf "$0" && seq 1 ${trials} | xargs -P 2 -I{} "${BIN}" run --out "$0/t{}" -- true`, join(dir, 'xa')],
    ],
    ['xargs -P 2: true', 'sh', ['-c', `seq 1 ${trials} | xargs -P 2 -I{} true`]],
  ];
  const ms = ways.map(() => []);
  for (let k = 0; k < 2; k++)
    for (const [i, [, cmd, args]] of ways.entries()) {
      const r = await whole(cmd, args, 1);
      if (r.status !== 0) throw new Error(`${args[1]} exited ${r.status}`);
      ms[i].push(r.timesMs[0]);
    }
  log?.('sweep overhead done');
  const s = ways.map(([name], i) => ({ name, ms: summarize(ms[i]) }));
  const bare = s[2].ms.median;
  return {
    trials,
    ways: s,
    perTrialMs: { sweep: (s[0].ms.median - bare) / trials, xargsRun: (s[1].ms.median - bare) / trials },
  };
}
