// Part 1 — condition evaluation: the spec's four worked examples plus three harder ones, on
// ours (batch and single call), the python3 reference (validate_and_compile + the spec's
// evaluate, per call), cel-js and filtrex (the nearest equivalent expressions, written by hand:
// neither speaks Python). Also the compile/validate time per expression for each.
import { compileCondition, validateCondition } from '../../dist/src/index.js';
import { parse as celParse } from '@marcbachmann/cel-js';
import { compileExpression } from 'filtrex';
import { python } from './child.mjs';
import { loopRate, summarize, timePerCall } from './stats.mjs';

const VARS = {
  capture: { loss: 'nan', msg: 'Killed', code: '137', x: '67108864' },
  exit_code: 137,
  walltime_sec: 75.5,
  peak_vram_mib: 1024,
};

/** Each case fires on VARS in every engine (checked before timing). */
export const CASES = [
  {
    name: 'isnan(float(loss))',
    expr: "math.isnan(float(capture['loss']))",
    cel: 'double(capture.loss) != double(capture.loss)', // CEL has no isnan: NaN is the value unequal to itself
    filtrex: 'isnan(float(loss of capture))',
  },
  {
    name: 'walltime and vram',
    expr: 'walltime_sec > 60 and peak_vram_mib > 0',
    cel: 'walltime_sec > 60.0 && peak_vram_mib > 0',
    filtrex: 'walltime_sec > 60 and peak_vram_mib > 0',
  },
  {
    name: 'exit 137 and len(msg)',
    expr: "exit_code == 137 and len(capture['msg']) > 0",
    cel: 'exit_code == 137 && size(capture.msg) > 0',
    filtrex: 'exit_code == 137 and len(msg of capture) > 0',
  },
  {
    name: 'int(code) == 137',
    expr: "int(capture['code']) == 137",
    cel: 'int(capture.code) == 137',
    filtrex: 'int(code of capture) == 137',
  },
  {
    name: 'chained comparison',
    expr: '0 < exit_code < 256 <= peak_vram_mib',
    cel: '0 < exit_code && exit_code < 256 && 256 <= peak_vram_mib',
    filtrex: '0 < exit_code < 256 <= peak_vram_mib',
  },
  {
    name: 'ternary',
    expr: '(walltime_sec / 60 if exit_code == 0 else walltime_sec) > 1',
    cel: '(exit_code == 0 ? walltime_sec / 60.0 : walltime_sec) > 1.0',
    filtrex: '(if exit_code == 0 then walltime_sec / 60 else walltime_sec) > 1',
  },
  {
    name: 'int(x) // 1024 > vram',
    expr: "int(capture['x']) // 1024 > peak_vram_mib",
    cel: 'int(capture.x) / 1024 > peak_vram_mib', // CEL int division truncates: the same as // here
    filtrex: 'floor(int(x of capture) / 1024) > peak_vram_mib',
  },
];

// The functions a filtrex user must supply for these expressions (filtrex has no casts).
const FILTREX_FUNCTIONS = {
  float: Number,
  int: (s) => parseInt(s, 10),
  len: (s) => s.length,
  isnan: Number.isNaN,
  floor: Math.floor,
};
// CEL ints are int64 (BigInt in cel-js): the caller converts once, as it would in real use.
const CEL_VARS = { ...VARS, exit_code: BigInt(VARS.exit_code), peak_vram_mib: BigInt(VARS.peak_vram_mib) };

/**
 * Rates are taken in rounds over the whole part: each round runs the python3 reference once over every case (one
 * child, one timed loop per case), then one timed loop per case of ours (batch, single), cel-js and filtrex. This
 * machine's slow spells last seconds to a minute; taken row after row, one spell once held all seven loops of a row
 * (every engine of it at ~55 % of its rate, and the 10 M/s and 5× python3 targets read as missed). Spread over the
 * part, a spell shorter than half of it moves a minority of each row's samples, which the median leaves out, and
 * python3's samples are taken in the same minutes as ours.
 */
export async function runConditions({ runs, ms, batchSize = 4096 }) {
  const conditions = CASES.map((c) => ({ expr: c.expr, vars: VARS }));
  warmUp(batchSize);
  const engines = CASES.map((c) => {
    const ours = compileCondition(c.expr);
    const cel = celParse(c.cel);
    const fx = compileExpression(c.filtrex, { extraFunctions: FILTREX_FUNCTIONS });
    const checks = { ours: ours.evaluate(VARS), cel: cel(CEL_VARS), filtrex: fx(VARS) };
    for (const [k, v] of Object.entries(checks))
      if (v !== true) throw new Error(`${k} does not fire on "${c.name}": ${v}`);
    // Distinct variable objects, as a batch of real matches would be.
    const batch = Array.from({ length: batchSize }, () => ({ ...VARS, capture: { ...VARS.capture } }));
    const inner = 1000;
    const loop = (f) => () => {
      for (let k = 0; k < inner; k++) f();
      return inner;
    };
    return {
      'ours batch': () => ours.evaluateBatch(batch).length,
      'ours single': loop(() => ours.evaluate(VARS)),
      'cel-js': loop(() => cel(CEL_VARS)),
      filtrex: loop(() => fx(VARS)),
    };
  });
  const samples = engines.map((fns) => Object.fromEntries(Object.keys(fns).map((k) => [k, []])));
  const pySamples = CASES.map(() => []);
  for (let r = 0; r < runs; r++) {
    const py = await python('eval', { runs: 1, ms, compile: false, conditions });
    for (const [i, c] of CASES.entries()) {
      if (py.result[i].fired !== true) throw new Error(`python does not fire on "${c.name}": ${py.result[i].fired}`);
      pySamples[i].push(...py.result[i].evalRates);
    }
    for (const [i, fns] of engines.entries())
      for (const [k, fn] of Object.entries(fns)) samples[i][k].push(loopRate(fn, ms));
  }
  // Compile times are not a target: python3's are taken in one child after the rounds.
  const pyCompile = await python('eval', { runs, ms, evaluate: false, conditions });
  return CASES.map((c, i) => ({
    name: c.name,
    expr: c.expr,
    cel: c.cel,
    filtrex: c.filtrex,
    evalsPerSec: tableOrder(
      Object.fromEntries(Object.entries(samples[i]).map(([k, xs]) => [k, summarize(xs)])),
      summarize(pySamples[i]),
    ),
    compileUs: {
      'ours compileCondition': timePerCall(() => compileCondition(c.expr), { runs, ms }),
      'ours validateCondition': timePerCall(() => validateCondition(c.expr), { runs, ms }),
      'python3 validate_and_compile': invert(summarize(pyCompile.result[i].compileRates)),
      'cel-js parse': timePerCall(() => celParse(c.cel), { runs, ms }),
      'filtrex compileExpression': timePerCall(
        () => compileExpression(c.filtrex, { extraFunctions: FILTREX_FUNCTIONS }),
        { runs, ms },
      ),
    },
  }));
}

/** The columns in the table's order (report.mjs takes them from the keys). */
function tableOrder(timed, python) {
  return {
    'ours batch': timed['ours batch'],
    'ours single': timed['ours single'],
    'python3 reference': python,
    'cel-js': timed['cel-js'],
    filtrex: timed.filtrex,
  };
}

/**
 * Every engine compiles and evaluates every case untimed first, so the first row is measured in
 * the same JIT steady state as the last (otherwise the first case pays for tiering up).
 */
function warmUp(batchSize) {
  const batch = Array.from({ length: batchSize }, () => ({ ...VARS, capture: { ...VARS.capture } }));
  for (let round = 0; round < 3; round++) {
    for (const c of CASES) {
      for (let k = 0; k < 200; k++) {
        validateCondition(c.expr);
        compileCondition(c.expr);
        celParse(c.cel);
        compileExpression(c.filtrex, { extraFunctions: FILTREX_FUNCTIONS });
      }
      const ours = compileCondition(c.expr);
      const cel = celParse(c.cel);
      const fx = compileExpression(c.filtrex, { extraFunctions: FILTREX_FUNCTIONS });
      ours.evaluateBatch(batch);
      for (let k = 0; k < 5000; k++) {
        ours.evaluate(VARS);
        cel(CEL_VARS);
        fx(VARS);
      }
    }
  }
}

/** Rates (per second) → microseconds per call. */
function invert(s) {
  return { median: 1e6 / s.median, min: 1e6 / s.max, max: 1e6 / s.min, n: s.n };
}
