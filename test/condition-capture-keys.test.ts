import { describe, expect, it } from 'vitest';
import { captureKeysRead } from '../src/condition/capture-keys.js';
import { compileCondition } from '../src/condition/evaluate.js';
import { validateCondition } from '../src/condition/validate.js';

const keysOf = (expr: string) => captureKeysRead(validateCondition(expr).tree);

describe('captureKeysRead: which capture entries a condition can read', () => {
  it.each([
    ["math.isnan(float(capture['loss']))", ['loss']],
    ["int(capture['a']) > int(capture['b']) or capture['a'] == ''", ['a', 'b']],
    ['exit_code == 137', []],
    ['len(capture) > 0', null],
    ["capture[capture['k']] == 'x'", null],
    ["capture[1] == 'x'", null],
    ['capture == capture', null],
  ] as const)('%s → %j', (expr, keys) => {
    expect(keysOf(expr)).toEqual(keys);
  });
});

describe('evaluating with only the keys read gives the result of evaluating with all of them', () => {
  const captures: Record<string, string>[] = [
    { loss: 'nan', other: 'x', code: '137' },
    { other: 'x' },
    {},
    JSON.parse('{"__proto__": "nan", "constructor": "1"}') as Record<string, string>,
    { toString: '5', loss: '1e309' },
  ];
  const conditions = [
    "math.isnan(float(capture['loss']))",
    "math.isinf(float(capture['loss']))",
    "int(capture['code']) == 137",
    "float(capture['__proto__']) != 0.0",
    "int(capture['constructor']) == 1",
    "int(capture['toString']) == 5",
    'len(capture) == 2',
  ];
  it.each(conditions)('%s', (expr) => {
    const c = compileCondition(expr);
    for (const capture of captures) {
      const vars = { capture, exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
      const full = c.evaluateDetailed(vars).fired;
      expect({ capture, fired: c.evaluate(vars) }).toEqual({ capture, fired: full });
      expect(c.evaluateBatch([vars, vars])).toEqual([full, full]);
    }
  });

  it('the cases above include both outcomes', () => {
    const vars = (capture: Record<string, string>) => ({ capture, exit_code: 0, walltime_sec: 1, peak_vram_mib: null });
    expect(compileCondition("math.isnan(float(capture['loss']))").evaluate(vars(captures[0]!))).toBe(true);
    expect(compileCondition("float(capture['__proto__']) != 0.0").evaluate(vars(captures[3]!))).toBe(true);
    expect(compileCondition("int(capture['constructor']) == 1").evaluate(vars(captures[0]!))).toBe(false);
  });
});
