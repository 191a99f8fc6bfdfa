import { describe, expect, it } from 'vitest';
import { compileCondition, SandboxError, type CompiledCondition, type ConditionVars } from '../src/index.js';
import { BatchOutcome, raisedName } from '../src/condition/evaluate.js';
import { goldenLines, type GoldenEval } from './support/goldens.js';

const records = goldenLines<GoldenEval>('golden-eval.jsonl');
/** The VM's inline fast paths at their edges (scripts/gen_fast_path_corpus.py). */
const fastPath = goldenLines<GoldenEval>('golden-eval-fast-path.jsonl');

/**
 * CPython's `repr(math)` names the extension module's file on the machine that made the golden
 * (`<module 'math' from '/…/math.cpython-311-….so'>`); we print the built-in form on purpose.
 */
function expectedRepr(repr: string | null): string | null {
  return repr?.startsWith("<module 'math' from ") ? "<module 'math' (built-in)>" : repr;
}

describe('CPython evaluation conformance (golden-eval.jsonl)', () => {
  it('holds at least 50,000 cases covering values and every exception class', () => {
    expect(records.length).toBeGreaterThanOrEqual(50_000);
    const errors = new Set(records.filter((r) => r.error !== undefined).map((r) => r.error));
    expect([...errors].sort()).toEqual(['KeyError', 'OverflowError', 'TypeError', 'ValueError', 'ZeroDivisionError']);
    const types = new Set(records.filter((r) => r.value !== undefined).map((r) => r.value!.type));
    for (const t of [
      'bool',
      'int',
      'float',
      'complex',
      'str',
      'bytes',
      'NoneType',
      'ellipsis',
      'dict',
      'type',
      'module',
      'builtin_function_or_method',
    ]) {
      expect(types.has(t), t).toBe(true);
    }
  });
});

/** What CPython says of a record, in the shape `outcome` gives ours. */
function expected(r: GoldenEval): unknown {
  if (!r.valid) return { valid: false };
  if (r.error !== undefined) return { valid: true, fired: false, error: r.error };
  return { valid: true, fired: r.fired, value: { type: r.value!.type, repr: expectedRepr(r.value!.repr) } };
}

/** A record's variables as the API takes them. */
function varsOf(r: GoldenEval): ConditionVars {
  return { capture: r.capture, exit_code: r.exit_code, walltime_sec: r.walltime_sec, peak_vram_mib: r.peak_vram_mib };
}

/** Compiles each condition once (null: refused by the walker). */
function compiler(): (text: string) => CompiledCondition | null {
  const compiled = new Map<string, CompiledCondition | null>();
  return (text) => {
    let c = compiled.get(text);
    if (c === undefined) {
      try {
        c = compileCondition(text);
      } catch (e) {
        if (!(e instanceof SandboxError)) throw e;
        c = null;
      }
      compiled.set(text, c);
    }
    return c;
  };
}

/** Every record's disagreement with CPython, evaluated one at a time. */
function singleFailures(list: readonly GoldenEval[]): string[] {
  const compile = compiler();
  const failures: string[] = [];
  for (const r of list) {
    const c = compile(r.condition);
    let got: unknown;
    if (c === null) got = { valid: false };
    else {
      const d = c.evaluateDetailed(varsOf(r));
      got =
        'error' in d ? { valid: true, fired: false, error: d.error } : { valid: true, fired: d.fired, value: d.value };
    }
    const want = expected(r);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      failures.push(
        `${JSON.stringify(r.condition)} capture=${JSON.stringify(r.capture).slice(0, 120)}\n    cpython ${JSON.stringify(want)}\n    ours    ${JSON.stringify(got)}`,
      );
    }
  }
  return failures;
}

describe.each([
  ['golden-eval.jsonl', records],
  ['golden-eval-fast-path.jsonl', fastPath],
])('CPython evaluation conformance: %s', (_name, list) => {
  it('agrees with CPython on every record: validity, fired, type and repr, or the exception class', () => {
    const failures = singleFailures(list);
    expect(failures.length, failures.slice(0, 30).join('\n')).toBe(0);
  }, 120_000);
});

describe('the fast paths in a batch (golden-eval-fast-path.jsonl)', () => {
  it('covers every path it names: int + - // pairs, the compare, float words and literals', () => {
    expect(fastPath.filter((r) => !r.valid).map((r) => r.condition)).toEqual([]);
    const origins = new Map<string, number>();
    for (const r of fastPath) origins.set(r.origin, (origins.get(r.origin) ?? 0) + 1);
    expect(Object.fromEntries(origins)).toEqual({
      'fast:int-pair': 21 * 21 * 3,
      'fast:int-compare': 21,
      'fast:float-word': 34 * 4,
      'fast:float-literal': 25,
    });
    // The pairs reach both sides of each path: i64 results and big-int ones, and ZeroDivisionError.
    const pairs = fastPath.filter((r) => r.origin === 'fast:int-pair');
    expect(pairs.filter((r) => r.error === 'ZeroDivisionError').length).toBe(21);
    const ints = pairs.filter((r) => r.value !== undefined).map((r) => BigInt(r.value!.repr!));
    expect([ints.filter((v) => v > 2n ** 63n - 1n).length, ints.filter((v) => v < -(2n ** 63n)).length]).toEqual([
      112, 104,
    ]);
  });

  it('fires and raises in evaluateBatchOutcomes as each record says (the batch loop runs the same paths)', () => {
    const compile = compiler();
    const byCondition = new Map<string, GoldenEval[]>();
    for (const r of fastPath) byCondition.set(r.condition, [...(byCondition.get(r.condition) ?? []), r]);
    const failures: string[] = [];
    for (const [text, group] of byCondition) {
      const c = compile(text)!;
      const outcomes = c.evaluateBatchOutcomes(group.map(varsOf));
      group.forEach((r, i) => {
        const got = { fired: outcomes[i] === BatchOutcome.truthy, error: raisedName(outcomes[i]!) };
        const want = { fired: r.fired === true, error: r.error ?? null };
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(
            `${text} capture=${JSON.stringify(r.capture)}: cpython ${JSON.stringify(want)}, ours ${JSON.stringify(got)}`,
          );
      });
    }
    expect(failures.length, failures.slice(0, 30).join('\n')).toBe(0);
  });
});
