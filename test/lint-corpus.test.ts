/**
 * Soundness of the linter over the conformance corpora: it must never claim "never fires",
 * "raises whenever evaluated" or "always False/True" for something that, on some input, does
 * otherwise.
 *
 * - golden-eval.jsonl: CPython 3.11's own result of each condition on each record is the witness
 *   for whole-condition claims ("never fires", "constant"). A claim about a sub-expression is
 *   checked by evaluating that sub-expression on the record's variables in the VM (itself held
 *   to CPython by test/condition-eval-conformance.test.ts). The regex is modelled as "its named groups are
 *   exactly the record's capture keys", so key claims are checked too.
 * - golden-validate.jsonl: every accepted condition, on a handful of varied trials, in the VM.
 */
import { describe, expect, it } from 'vitest';
import { validateCondition, type CheckedCondition } from '../src/condition/validate.js';
import type { ConditionVars } from '../src/condition/vm-host.js';
import { analyzeCondition, type CaptureModel, type ConditionLint } from '../src/lint/analyze.js';
import { evaluateTree } from '../src/lint/fold.js';
import { goldenLines, type GoldenEval } from './support/goldens.js';
import { rng } from './support/rng.js';

const model = (names: readonly string[]): CaptureModel => ({ names, optional: new Map(), nameGroupHint: null });

/** Every claim of `lint` checked against one trial; returns the violations. */
function violations(
  lint: ConditionLint,
  checked: CheckedCondition,
  vars: ConditionVars,
  golden?: GoldenEval,
): string[] {
  const out: string[] = [];
  const whole =
    golden !== undefined
      ? golden.error !== undefined
        ? { ok: false as const, error: golden.error }
        : { ok: true as const, truthy: golden.fired! }
      : (() => {
          const o = evaluateTree(checked.tree.body, vars);
          return o.ok ? { ok: true as const, truthy: o.truthy } : { ok: false as const, error: o.error };
        })();
  if (lint.neverFires && whole.ok && whole.truthy) out.push('claims never fires, but it fired');
  for (const f of lint.findings) {
    const at = `${f.code} at ${f.loc.line}:${f.loc.col}`;
    switch (f.claim.kind) {
      case 'raises': {
        const o = evaluateTree(f.expr, vars);
        if (o.ok) out.push(`${at}: claims it raises ${f.claim.error}, but it evaluated`);
        break;
      }
      case 'value': {
        const o = evaluateTree(f.expr, vars);
        if (o.ok && o.truthy !== f.claim.truthy)
          out.push(`${at}: claims it is always ${f.claim.truthy}, but it was not`);
        break;
      }
      case 'constant': {
        const c = f.claim.outcome;
        const same = c.ok ? whole.ok && whole.truthy === c.truthy : !whole.ok && whole.error === c.error;
        if (!same) out.push(`${at}: claims a constant outcome, but this trial differs`);
        break;
      }
      case 'may-raise':
        break;
    }
  }
  return out;
}

describe('lint soundness over the CPython evaluation goldens (golden-eval.jsonl)', () => {
  const records = goldenLines<GoldenEval>('golden-eval.jsonl').filter((r) => r.valid);

  it('never contradicts what CPython computed', () => {
    const checkedByText = new Map<string, CheckedCondition>();
    const lintByKey = new Map<string, ConditionLint>();
    const failures: string[] = [];
    let claims = 0;
    let neverFires = 0;
    for (const r of records) {
      let checked = checkedByText.get(r.condition);
      if (checked === undefined) {
        checked = validateCondition(r.condition);
        checkedByText.set(r.condition, checked);
      }
      const names = Object.keys(r.capture).sort();
      const key = JSON.stringify([r.condition, names]);
      let lint = lintByKey.get(key);
      if (lint === undefined) {
        lint = analyzeCondition(checked, model(names));
        lintByKey.set(key, lint);
      }
      claims += lint.findings.length;
      if (lint.neverFires) neverFires++;
      for (const v of violations(lint, checked, r, r))
        failures.push(`${JSON.stringify(r.condition)} ${JSON.stringify(r.capture)}: ${v}`);
    }
    expect(failures.slice(0, 20)).toEqual([]);
    // The corpus does exercise the claims (not a vacuous pass).
    expect(claims).toBeGreaterThan(5_000);
    expect(neverFires).toBeGreaterThan(5_000);
  }, 300_000);
});

describe('lint soundness over every accepted condition of golden-validate.jsonl', () => {
  const accepted = goldenLines<{ condition: unknown; valid: boolean }>('golden-validate.jsonl').filter((r) => r.valid);
  const rich = { loss: 'nan', code: '137', msg: 'Killed', x: '12', a: '', b: '2.5', g: 'inf', step: '-3' };
  const trials: ConditionVars[] = [
    { capture: {}, exit_code: 0, walltime_sec: 0, peak_vram_mib: null },
    { capture: rich, exit_code: 137, walltime_sec: 61.5, peak_vram_mib: 512 },
    { capture: { loss: '0.25', code: '0', msg: 'ok', x: 'abc' }, exit_code: -9, walltime_sec: 1e-3, peak_vram_mib: 0 },
    { capture: rich, exit_code: 1, walltime_sec: Number.NaN, peak_vram_mib: 80_000 },
  ];

  it('never contradicts an evaluation, with the regex unknown or known', () => {
    const failures: string[] = [];
    for (const r of accepted) {
      const checked = validateCondition(r.condition);
      const unknownRegex = analyzeCondition(checked, null);
      for (const t of trials) {
        for (const v of violations(unknownRegex, checked, t))
          failures.push(`${JSON.stringify(r.condition)} (regex unknown): ${v}`);
      }
      const knownRegex = analyzeCondition(checked, model(Object.keys(rich)));
      for (const t of [trials[1]!, trials[3]!]) {
        for (const v of violations(knownRegex, checked, t))
          failures.push(`${JSON.stringify(r.condition)} (groups ${Object.keys(rich)}): ${v}`);
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);
});

/**
 * Random conditions over the allowed grammar, biased toward the linter's subject (captures,
 * mixed types, conversions, short-circuits, chains), each linted with a regex whose groups are a
 * random subset of names and checked on random trials whose captures are exactly those groups.
 */
describe('lint soundness on random conditions (seeded)', () => {
  const NAMES = ['loss', 'code', 'g', 'msg'];
  const VALUES = ['1', '0', 'nan', 'inf', '', 'abc', '2.5', '-3', '137', ' 7 '];

  function generate(next: () => number, groups: readonly string[]): string {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const expr = (depth: number): string => {
      const r = next();
      if (depth <= 0 || r < 0.3) {
        return pick([
          () => `capture[${JSON.stringify(pick([...groups, ...NAMES, 'los']))}]`.replace(/"/g, "'"),
          () => pick(['exit_code', 'walltime_sec', 'peak_vram_mib', 'capture']),
          () => pick(['0', '1', '137', '2.5', '0.0', "'x'", "''", "'1'", 'True', 'False', 'None', '1j', "b'x'", '...']),
        ])();
      }
      return pick([
        () => `${pick(['float', 'int', 'len', 'math.isnan', 'math.isinf'])}(${expr(depth - 1)})`,
        () => `int(${expr(depth - 1)}, ${pick(['10', '0', '16', expr(depth - 1)])})`,
        () => `(${expr(depth - 1)} ${pick(['+', '-', '/', '//'])} ${expr(depth - 1)})`,
        () => `(${pick(['-', '+', 'not '])}${expr(depth - 1)})`,
        () => `(${expr(depth - 1)} ${pick(['==', '!=', '<', '<=', '>', '>='])} ${expr(depth - 1)})`,
        () => `(${expr(depth - 1)} ${pick(['<', '=='])} ${expr(depth - 1)} ${pick(['<', '!='])} ${expr(depth - 1)})`,
        () => `(${expr(depth - 1)} ${pick(['and', 'or'])} ${expr(depth - 1)})`,
        () => `(${expr(depth - 1)} if ${expr(depth - 1)} else ${expr(depth - 1)})`,
      ])();
    };
    return expr(3);
  }

  it('never contradicts an evaluation (10,000 conditions)', () => {
    const next = rng(8);
    const failures: string[] = [];
    let claims = 0;
    for (let n = 0; n < 10_000; n++) {
      const groups = NAMES.filter(() => next() < 0.6);
      const text = generate(next, groups);
      let checked: CheckedCondition;
      try {
        checked = validateCondition(text);
      } catch {
        continue; // over the length cap
      }
      const lint = analyzeCondition(checked, model(groups));
      claims += lint.findings.length;
      for (let t = 0; t < 3; t++) {
        const capture = Object.fromEntries(groups.map((g) => [g, VALUES[Math.floor(next() * VALUES.length)]!]));
        const vars: ConditionVars = {
          capture,
          exit_code: [0, 1, 137, -9][t + (next() < 0.5 ? 0 : 1)]!,
          walltime_sec: [0, 2.5, 61.5, Number.NaN][Math.floor(next() * 4)]!,
          peak_vram_mib: [null, 0, 512][Math.floor(next() * 3)]!,
        };
        for (const v of violations(lint, checked, vars))
          failures.push(`${JSON.stringify(text)} groups ${groups}: ${v}`);
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(claims).toBeGreaterThan(2_500);
  }, 300_000);
});
