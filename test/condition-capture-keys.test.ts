import { describe, expect, it } from 'vitest';
import * as Op from '../assembly/opcodes.js';
import { captureKeysRead, slotKeysOf } from '../src/condition/capture-keys.js';
import { disassemble } from '../src/condition/disasm.js';
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
    // Two lone surrogates are two code points in Python, one character in JS: no capture key equals them.
    ["capture['\\ud800\\udc00'] == 'x'", null],
    ["capture['\\ud800'] == 'x'", ['\ud800']],
  ] as const)('%s → %j', (expr, keys) => {
    expect(keysOf(expr)).toEqual(keys);
  });
});

describe('the program reads those keys as capture slots', () => {
  it('holds the slot count in its header and the keys as its first constants', () => {
    const c = compileCondition("int(capture['a']) > int(capture['b']) or capture['a'] == ''");
    expect([c.program[5], slotKeysOf(c.program)]).toEqual([2, ['a', 'b']]);
    expect(disassemble(c.program).split('\n')[0]).toBe('; 11 instructions, 3 constants, max stack 3, 2 capture slots');
    const dict = compileCondition('len(capture) > 0');
    expect([dict.program[5], slotKeysOf(dict.program)]).toEqual([Op.CAPTURE_AS_DICT, null]);
    expect(slotKeysOf(compileCondition('exit_code == 137').program)).toEqual([]);
  });

  const pick = compileCondition("capture['a'] if exit_code else capture['b']");
  const vars = (capture: Record<string, string> | Map<string, string>, exit_code = 0) => ({
    capture,
    exit_code,
    walltime_sec: 1,
    peak_vram_mib: null,
  });
  it.each([
    ['a later slot after an absent one', { b: 'x' }, 0, { fired: true, value: { type: 'str', repr: "'x'" } }],
    ['an absent slot', { b: 'x' }, 1, { fired: false, error: 'KeyError' }],
    ['an empty value', { a: '', b: 'x' }, 1, { fired: false, value: { type: 'str', repr: "''" } }],
    [
      'a Map',
      new Map([
        ['b', 'y'],
        ['a', 'z'],
      ]),
      1,
      { fired: true, value: { type: 'str', repr: "'z'" } },
    ],
    ['a Map without the key', new Map([['a', 'z']]), 0, { fired: false, error: 'KeyError' }],
  ])('%s', (_name, capture, exit, want) => {
    expect(pick.evaluateDetailed(vars(capture, exit))).toEqual(want);
    expect(pick.evaluateBatchOutcomes([vars(capture, exit)])).toEqual(
      Uint8Array.of('error' in want ? Op.BATCH_RAISED + Op.ERROR_NAMES.indexOf(want.error) : want.fired ? 1 : 0),
    );
  });

  it('a key of two lone surrogates matches no capture, as in Python (the dict form decides it)', () => {
    const c = compileCondition("capture['\\ud800\\udc00']");
    expect(c.evaluateDetailed(vars({ '\u{10000}': 'x' }))).toEqual({ fired: false, error: 'KeyError' });
    expect(c.evaluateBatch([vars({ '\u{10000}': 'x' })])).toEqual([false]);
  });

  it('a capture too big for the single-call area still reads its slots', () => {
    // 100,000 code points: far past the 4,096-word area, so the set takes a buffer of its own.
    const big = 'q'.repeat(100_000);
    // Slot 1 ('b') is read past slot 0's 100,000 code points.
    expect(pick.evaluateDetailed(vars({ a: big, b: 'xy' }, 0))).toEqual({
      fired: true,
      value: { type: 'str', repr: "'xy'" },
    });
    const lengths = compileCondition("len(capture['a']) - len(capture['b'])");
    expect(lengths.evaluateDetailed(vars({ a: big, b: 'xy' }))).toEqual({
      fired: true,
      value: { type: 'int', repr: '99998' },
    });
    expect(lengths.evaluateBatchOutcomes([vars({ a: big, b: 'xy' }), vars({ a: 'xy', b: big })])).toEqual(
      Uint8Array.of(Op.BATCH_TRUTHY, Op.BATCH_TRUTHY),
    );
    expect(compileCondition("len(capture['b']) == 100000").evaluate(vars({ a: 'xy', b: big }))).toBe(true);
  });
});

describe('evaluating through capture slots gives the result of evaluating the dict', () => {
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
    // `len(capture) >= 0` is true and makes the program read capture as a dict: every entry.
    const dict = compileCondition(`(${expr}) and len(capture) >= 0`);
    expect(slotKeysOf(dict.program)).toBeNull();
    for (const capture of captures) {
      const vars = { capture, exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
      const full = dict.evaluateDetailed(vars).fired;
      expect({ capture, fired: c.evaluateDetailed(vars).fired }).toEqual({ capture, fired: full });
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
