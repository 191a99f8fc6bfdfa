// Part 4 — adversarial inputs. Conditions: the worst cases the validator still accepts (deepest
// nesting, longest string work, biggest int parse), ours vs the python3 reference. Patterns:
// ReDoS shapes, ours (RE2, linear) vs V8 RegExp and python3 `re` (backtracking), each peer in a
// child process killed at the cap and reported as "> cap".
import { classifyLog, compileCondition, loadRecipe } from '../../dist/src/index.js';
import { HERE, python, runJson } from './child.mjs';
import { recipeYaml } from './patterns.mjs';
import { timePerCall } from './stats.mjs';

const base = { exit_code: 3, walltime_sec: 1.0, peak_vram_mib: null };
const concat19 = `len(${Array(19).fill("capture['a']").join('+')}) > 0`; // 19 terms: all that fits in 256

export const CONDITION_CASES = [
  {
    name: 'deepest nesting: 247 unary minus',
    short: 'deepest nesting\n(247 unary -)',
    expr: `${'-'.repeat(247)}exit_code`,
    vars: { ...base, capture: {} },
  },
  {
    name: 'longest string op: 19-way concat of a 64 KiB capture',
    short: 'concat ×19\nof 64 KiB',
    expr: concat19,
    vars: { ...base, capture: { a: 'x'.repeat(64 << 10) } },
  },
  {
    name: 'longest string op: 19-way concat of a 1 MiB capture',
    short: 'concat ×19\nof 1 MiB',
    expr: concat19,
    vars: { ...base, capture: { a: 'x'.repeat(1 << 20) } },
  },
  {
    name: 'biggest int parse: int() of 4300 digits, // 7',
    short: 'int() of\n4300 digits',
    expr: "int(capture['n']) // 7 > 0",
    vars: { ...base, capture: { n: '9'.repeat(4300) } },
  },
];

export const REDOS_CASES = [
  { name: '(a+)+$ on 30 a + "!"', short: '(a+)+$ on\n30 a + !', regex: '(a+)+$', subjectA: 30, subjectTail: '!' },
  {
    name: '(a+)+$ on 1 MiB of a + "!"',
    short: '(a+)+$ on\n1 MiB a + !',
    regex: '(a+)+$',
    subjectA: 1 << 20,
    subjectTail: '!',
  },
];

/**
 * Issue 12 §3: a pattern that matches the empty string at every position, with a condition that never holds (it
 * took 80 s on 10 MB; the target is ≤ 3 s). Timed against the same scan without the pattern.
 */
export const EMPTY_MATCH_CASE = {
  name: 'x* with condition len(capture) > 5, scan of 10 MB',
  regex: 'x*',
  condition: 'len(capture) > 5',
  mb: 10,
  targetMs: 3000,
};

function runEmptyMatch(runs) {
  const c = EMPTY_MATCH_CASE;
  const line = 'step 123 loss=0.25 lr=0.001 tokens/s=1234 ok\n';
  const log = line.repeat(Math.ceil((c.mb * 1e6) / line.length));
  const recipe = loadRecipe(recipeYaml([{ id: 'empty', regex: c.regex, condition: c.condition }]), 'empty.yaml');
  const vars = { exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
  const time = (r) => {
    const ms = [];
    let verdict = null;
    for (let i = 0; i < Math.max(1, Math.min(runs, 3)); i++) {
      const t = performance.now();
      verdict = classifyLog(r, log, vars).verdict;
      ms.push(performance.now() - t);
    }
    return { ms: median(ms), verdict };
  };
  const withPattern = time(recipe);
  const without = time(null);
  return {
    ...c,
    ms: withPattern.ms,
    verdict: withPattern.verdict,
    msWithout: without.ms,
    ok: withPattern.ms <= c.targetMs,
  };
}

export async function runAdversarial({ runs, capMs }) {
  const conditions = [];
  const py = await python(
    'eval',
    {
      runs,
      ms: 50,
      compile: false,
      budgetMs: 10_000,
      conditions: CONDITION_CASES.map((c) => ({ expr: c.expr, vars: c.vars, inner: 1 })),
    },
    { timeoutMs: capMs * (runs + 2) },
  );
  for (const [i, c] of CONDITION_CASES.entries()) {
    const compiled = compileCondition(c.expr);
    const detail = compiled.evaluateDetailed(c.vars);
    const pyRates = py.timedOut ? null : py.result[i].evalRates;
    conditions.push({
      name: c.name,
      short: c.short,
      exprLength: c.expr.length,
      ours: {
        us: timePerCall(() => compiled.evaluate(c.vars), { runs, ms: 50, budgetMs: 10_000 }),
        result: 'error' in detail ? detail.error : `fired=${detail.fired}`,
      },
      python:
        pyRates === null
          ? { timedOut: true }
          : {
              us: { median: 1e6 / median(pyRates), min: 1e6 / Math.max(...pyRates), max: 1e6 / Math.min(...pyRates) },
              result: `fired=${py.result[i].fired}`,
            },
    });
  }

  const redos = [];
  for (const c of REDOS_CASES) {
    const subject = 'a'.repeat(c.subjectA) + c.subjectTail;
    const recipe = loadRecipe(recipeYaml([{ id: 'redos', regex: c.regex, condition: null }]), 'redos.yaml');
    const vars = { exit_code: 1, walltime_sec: 1, peak_vram_mib: null };
    let fired = null;
    const us = timePerCall(
      () => {
        fired = classifyLog(recipe, subject, vars).failure_detectors_fired.length > 0;
      },
      { runs, ms: 50, budgetMs: 10_000 },
    );
    const v8 = await runJson(process.execPath, [`${HERE}redos-worker.mjs`, JSON.stringify(c)], { timeoutMs: capMs });
    const pyr = await python('search', { regex: c.regex, subject }, { timeoutMs: capMs });
    redos.push({
      name: c.name,
      short: c.short,
      ours: { us, matched: fired },
      v8: v8.timedOut ? { timedOut: true } : { us: v8.result.timeMs * 1000, matched: v8.result.matched },
      python: pyr.timedOut ? { timedOut: true } : { us: pyr.result.timeMs * 1000, matched: pyr.result.matched },
    });
  }
  return { conditions, redos, emptyMatch: runEmptyMatch(runs), capMs };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
