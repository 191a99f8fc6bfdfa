import { describe, expect, it } from 'vitest';
import { compileCondition, SandboxError, type CompiledCondition } from '../src/index.js';
import { goldenLines, type GoldenEval } from './support/goldens.js';

const records = goldenLines<GoldenEval>('golden-eval.jsonl');

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

  it('agrees with CPython on every record: validity, fired, type and repr, or the exception class', () => {
    const compiled = new Map<string, CompiledCondition | null>();
    const failures: string[] = [];
    for (const r of records) {
      let c = compiled.get(r.condition);
      if (c === undefined) {
        try {
          c = compileCondition(r.condition);
        } catch (e) {
          if (!(e instanceof SandboxError)) throw e;
          c = null;
        }
        compiled.set(r.condition, c);
      }
      const expected = !r.valid
        ? { valid: false }
        : r.error !== undefined
          ? { valid: true, fired: false, error: r.error }
          : { valid: true, fired: r.fired, value: { type: r.value!.type, repr: expectedRepr(r.value!.repr) } };
      let got: unknown;
      if (c === null) got = { valid: false };
      else {
        const d = c.evaluateDetailed({
          capture: r.capture,
          exit_code: r.exit_code,
          walltime_sec: r.walltime_sec,
          peak_vram_mib: r.peak_vram_mib,
        });
        got =
          'error' in d
            ? { valid: true, fired: false, error: d.error }
            : { valid: true, fired: d.fired, value: d.value };
      }
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        failures.push(
          `${JSON.stringify(r.condition)} capture=${JSON.stringify(r.capture).slice(0, 120)}\n    cpython ${JSON.stringify(expected)}\n    ours    ${JSON.stringify(got)}`,
        );
      }
    }
    expect(failures.length, failures.slice(0, 30).join('\n')).toBe(0);
  }, 120_000);
});
