/**
 * Bounds inside one evaluation (issue 12 §4) and the library boundary (§5): the cost budget, the
 * bounded repr, evaluate/evaluateDetailed agreement, memory given back, no stale memory view, typed
 * errors for malformed variables and options, own properties only, and capture order (issue 13 §1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as Op from '../assembly/opcodes.js';
import { compileCondition, DEFAULT_REPR_LIMIT, sharedVmForTest } from '../src/condition/evaluate.js';
import { slotKeysOf } from '../src/condition/capture-keys.js';
import { ConditionVarsError } from '../src/condition/vars.js';
import {
  ConditionVM,
  DEFAULT_HEAP_LIMIT_BYTES,
  encodeVarsForTest,
  RETAINED_MEMORY_BYTES,
  VmOptionError,
} from '../src/condition/vm-host.js';
import { loadRecipe, scanLog } from '../src/index.js';
import { readGoldenJsonl } from './support/goldens.js';

type Vars = Parameters<ReturnType<typeof compileCondition>['evaluate']>[0];
const vars = (over: Partial<Vars> = {}): Vars => ({
  capture: {},
  exit_code: 0,
  walltime_sec: 1,
  peak_vram_mib: null,
  ...over,
});

describe('the cost budget', { timeout: 60_000 }, () => {
  const hexDivision = "int(capture['a'],16) // int(capture['b'],16) > 0";

  it('stops a quadratic big-int division before doing it: BudgetExceeded, not fired', () => {
    // issue 12's repro: 1 MiB / 512 KiB hex captures took 5.8 s warm
    const c = compileCondition(hexDivision);
    const v = vars({ capture: { a: 'f'.repeat(1 << 20), b: '7'.repeat(1 << 19) } });
    expect(c.evaluateDetailed(v)).toEqual({ fired: false, error: 'BudgetExceeded' });
    expect(c.evaluate(v)).toBe(false);
    expect(c.evaluateBatch([v, vars({ capture: { a: 'ff', b: '7' } })])).toEqual([false, true]);
    // what was spent stays within the budget: the division itself was never started
    expect(sharedVmForTest(DEFAULT_HEAP_LIMIT_BYTES).lastCost()).toBeLessThanOrEqual(
      Op.DEFAULT_COST_BUDGET + 4 * 25 * (1 << 20),
    );
  });

  it('is configurable: a larger budget computes the value, a small one refuses ordinary work', () => {
    const v = vars({ capture: { a: 'f'.repeat(1 << 14), b: '7'.repeat(1 << 13) } });
    expect(compileCondition(hexDivision, { costBudget: 1e12 }).evaluateDetailed(v)).toEqual({
      fired: true,
      value: { type: 'bool', repr: 'True' },
    });
    expect(compileCondition(hexDivision, { costBudget: 1000 }).evaluateDetailed(v)).toEqual({
      fired: false,
      error: 'BudgetExceeded',
    });
    // the next condition on the shared VM has the default budget again
    expect(compileCondition(hexDivision).evaluateDetailed(v)).toEqual({
      fired: true,
      value: { type: 'bool', repr: 'True' },
    });
  });

  it.each([
    ["capture['a'] == capture['b']", { a: 'x'.repeat(100_000), b: 'x'.repeat(100_000) }],
    ["capture['a'] <= capture['b']", { a: 'x'.repeat(100_000), b: 'x'.repeat(100_000) }],
    ["capture['a'] + capture['b'] != ''", { a: 'x'.repeat(100_000), b: 'x' }],
    ["float(capture['a']) > 0", { a: ' '.repeat(100_000) + '1' }],
    ["int(capture['a']) > 0", { a: ' '.repeat(100_000) + '1' }],
    ["int(capture['a'], 16) - 1 > 0", { a: 'f'.repeat(100_000) }],
  ])('charges per character or limb: %s', (condition, capture) => {
    expect(compileCondition(condition, { costBudget: 50_000 }).evaluateDetailed(vars({ capture }))).toEqual({
      fired: false,
      error: 'BudgetExceeded',
    });
    expect(compileCondition(condition).evaluateDetailed(vars({ capture }))).toMatchObject({ fired: true });
  });

  it.each([0, -1, 1.5, Number.NaN, Infinity, 2 ** 60])('costBudget %s is a VmOptionError', (costBudget) => {
    expect(() => compileCondition('True', { costBudget })).toThrow(VmOptionError);
  });
});

describe('a bounded repr', { timeout: 60_000 }, () => {
  it('cuts a huge str repr at the limit with an explicit marker', () => {
    const r = compileCondition("capture['']").evaluateDetailed(vars({ capture: { '': 'x'.repeat(5_000_000) } }));
    expect(r).toEqual({
      fired: true,
      value: {
        type: 'str',
        repr: `'${'x'.repeat(DEFAULT_REPR_LIMIT - 1)} … [repr truncated: a str of 5000000 characters]`,
        truncated: true,
      },
    });
  });

  it('cuts a dict repr too, and reprLimit changes the limit', () => {
    const capture = { a: 'y'.repeat(300), b: 'z' };
    const r = compileCondition('capture', { reprLimit: 100 }).evaluateDetailed(vars({ capture }));
    expect(r).toEqual({
      fired: true,
      value: { type: 'dict', repr: `{'a': '${'y'.repeat(93)} … [repr truncated: a dict of 2 items]`, truncated: true },
    });
    expect(compileCondition('capture').evaluateDetailed(vars({ capture }))).toEqual({
      fired: true,
      value: { type: 'dict', repr: `{'a': '${'y'.repeat(300)}', 'b': 'z'}` },
    });
  });

  it('leaves a repr at the limit whole', () => {
    const s = 'q'.repeat(DEFAULT_REPR_LIMIT - 2);
    expect(compileCondition("capture['s']").evaluateDetailed(vars({ capture: { s } }))).toEqual({
      fired: true,
      value: { type: 'str', repr: `'${s}'` },
    });
  });

  it.each([0, 10, 1.5, Number.NaN])('reprLimit %s is refused', (reprLimit) => {
    expect(() => compileCondition('True', { reprLimit })).toThrow(RangeError);
  });
});

describe('one evaluation, one memory', { timeout: 120_000 }, () => {
  it('evaluate and evaluateDetailed agree when an unread capture would not fit the heap', () => {
    // 70 M code points are 280 MB in the VM, past the default 256 MiB arena; the condition cannot read it
    const c = compileCondition("capture['a'] == 'x'");
    const v = vars({ capture: { a: 'x', unread: 'y'.repeat(70_000_000) } });
    expect(c.evaluate(v)).toBe(true);
    expect(c.evaluateDetailed(v)).toEqual({ fired: true, value: { type: 'bool', repr: 'True' } });
  });

  it('both say MemoryError when the condition can read it', () => {
    const c = compileCondition("len(capture) > 0 and capture['a'] == 'x'");
    const v = vars({ capture: { a: 'x', unread: 'y'.repeat(70_000_000) } });
    expect(c.evaluate(v)).toBe(false);
    expect(c.evaluateDetailed(v)).toEqual({ fired: false, error: 'MemoryError' });
  });

  it('gives back memory grown for one evaluation', () => {
    const vm = sharedVmForTest(DEFAULT_HEAP_LIMIT_BYTES);
    const c = compileCondition("len(capture['a']) > 0");
    const n = 30_000_000; // 120 MB of input (4 bytes a character): past what an instance may keep
    expect(4 * n).toBeGreaterThan(RETAINED_MEMORY_BYTES);
    expect(c.evaluate(vars({ capture: { a: 'z'.repeat(n) } }))).toBe(true);
    expect(vm.memoryBytes()).toBeLessThanOrEqual(RETAINED_MEMORY_BYTES);
    expect(c.evaluateDetailed(vars({ capture: { a: 'z' } }))).toEqual({
      fired: true,
      value: { type: 'bool', repr: 'True' },
    });
  });

  it('reads a big-int result after memory grew while formatting it (no stale view)', () => {
    // the padding moves the arena top across a page boundary at some size: the int's decimal text
    // then grows memory, which detached the view the host had taken before
    const c = compileCondition("int(capture['x'])");
    const wrong: number[] = [];
    for (let k = 0; k < 40_000; k += 13) {
      const r = c.evaluateDetailed(vars({ capture: { pad: 'p'.repeat(k), x: '9'.repeat(300) } }));
      if (!('value' in r) || r.value.repr !== '9'.repeat(300)) wrong.push(k);
    }
    expect(wrong).toEqual([]);
  });
});

describe('ConditionVars are checked, never coerced', () => {
  // reads only capture['a'] and capture['b'] (so only they are encoded), and all of capture
  const c = compileCondition("exit_code == 1 and capture['a'] == 'x' or capture['b'] == 'y'");
  const all = compileCondition("exit_code == 1 and capture['a'] == 'x' and len(capture) > 0");
  const ok = vars({ exit_code: 1, capture: { a: 'x' } });

  it.each([
    ['exit_code', { exit_code: 1.5 }],
    ['exit_code', { exit_code: Number.NaN }],
    ['exit_code', { exit_code: undefined }],
    ['exit_code', { exit_code: '137' }],
    ['exit_code', { exit_code: 1e20 }],
    ['exit_code', { exit_code: 2n }],
    ['walltime_sec', { walltime_sec: '1' }],
    ['walltime_sec', { walltime_sec: undefined }],
    ['walltime_sec', { walltime_sec: 1n }],
    ['peak_vram_mib', { peak_vram_mib: 2 ** 64 }],
    ['peak_vram_mib', { peak_vram_mib: undefined }],
    ['peak_vram_mib', { peak_vram_mib: 0.5 }],
    ["capture['a']", { capture: { a: 5 } }],
    ["capture['b']", { capture: { a: 'x', b: null } }],
    [
      "capture['b']",
      {
        capture: new Map<string, unknown>([
          ['a', 'x'],
          ['b', 1],
        ]),
      },
    ],
    ['capture', { capture: null }],
    ['capture', { capture: 'a=x' }],
    ['capture', { capture: ['x'] }],
  ])('%s in %o is a ConditionVarsError naming it', (field, over) => {
    const v = { ...ok, ...over } as unknown as Vars;
    for (const run of [
      () => c.evaluate(v),
      () => c.evaluateDetailed(v),
      () => all.evaluate(v),
      () => all.evaluateDetailed(v),
    ]) {
      expect(run).toThrow(ConditionVarsError);
      expect(run).toThrow(new RegExp(`^condition variable ${field.replace(/[[\]]/g, '\\$&')} `));
    }
    let caught: unknown;
    try {
      c.evaluateBatch([ok, v]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ConditionVarsError);
    expect((caught as ConditionVarsError).field).toBe(`[1].${field}`);
  });

  it('a value the condition cannot read is not inspected (it cannot change the outcome)', () => {
    const v = { ...ok, capture: { a: 'x', other: 5 } } as unknown as Vars;
    expect(c.evaluate(v)).toBe(true);
    expect(() => all.evaluate(v)).toThrow(/^condition variable capture\['other'\] must be a string, got number$/);
  });

  it('a list that is not an array is refused, not read as characters', () => {
    expect(() => c.evaluateBatch('abc' as unknown as Vars[])).toThrow(ConditionVarsError);
    expect(() => c.evaluateBatch({ length: 2 } as unknown as Vars[])).toThrow(ConditionVarsError);
  });

  it('a vars object that is not one is refused', () => {
    expect(() => c.evaluate(null as unknown as Vars)).toThrow(/^condition variable vars must be an object/);
  });

  it('a capture that outgrows the encoding space mid-batch keeps every set whole', () => {
    const big = 'z'.repeat(300_000);
    const cond = compileCondition("capture['b'] == 'y' and len(capture['a']) > 2");
    const set = (a: string) => vars({ capture: { a, b: 'y' } });
    const list = [set('abc'), set(big), set('ab'), set(big + big)];
    expect(cond.evaluateBatch(list)).toEqual([true, true, false, true]);
    // A wrong layout would not show in the results above (a trap falls back to one call a set), so read it.
    // The condition's two capture slots, 'b' then 'a': per set one value a slot, no keys.
    expect(slotKeysOf(cond.program)).toEqual(['b', 'a']);
    const words = encodeVarsForTest(list, slotKeysOf(cond.program));
    const lengths: number[][] = [];
    for (let at = 0; at < words.length; ) {
      const n = words[at + Op.INPUT_CAPTURE_COUNT]!;
      at += Op.INPUT_HEADER_WORDS;
      const set: number[] = [];
      for (let k = 0; k < n; k++) {
        set.push(words[at]!);
        at += 1 + words[at]!;
      }
      lengths.push(set);
      at += at & 1;
    }
    expect(lengths).toEqual([
      [1, 3],
      [1, 300_000],
      [1, 2],
      [1, 600_000],
    ]);
  });

  it('the well-formed set still evaluates', () => {
    expect([c.evaluate(ok), c.evaluateBatch([ok, ok])]).toEqual([true, [true, true]]);
  });
});

describe('own properties only', () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>)['polluted'];
  });

  it('a polluted Object.prototype adds no capture', () => {
    (Object.prototype as Record<string, unknown>)['polluted'] = 'x';
    const v = vars({ capture: { a: '1' } });
    expect(compileCondition('len(capture)').evaluateDetailed(v)).toEqual({
      fired: true,
      value: { type: 'int', repr: '1' },
    });
    expect(compileCondition("capture['polluted']").evaluateDetailed(v)).toEqual({ fired: false, error: 'KeyError' });
    expect(compileCondition("capture['polluted'] == 'x'").evaluate(v)).toBe(false);
    expect(compileCondition('capture').evaluateDetailed(v)).toEqual({
      fired: true,
      value: { type: 'dict', repr: "{'a': '1'}" },
    });
    expect(compileCondition('len(capture) == 1').evaluateBatch([v])).toEqual([true]);
    expect(compileCondition("capture['polluted'] == 'x'").evaluateBatch([v])).toEqual([false]);
    expect(compileCondition("capture['a'] == '1'").evaluateBatch([v])).toEqual([true]);
  });

  it('scanLog does not see inherited keys either', () => {
    const recipe = loadRecipe(
      [
        'custom_patterns:',
        `  - {id: sees_polluted, match: {regex: 'loss=(?P<loss>[0-9.]+)', condition: "capture['polluted'] == 'x'"}}`,
        `  - {id: counts_own, match: {regex: 'loss=(?P<loss>[0-9.]+)', condition: 'len(capture) == 1'}}`,
        '',
      ].join('\n'),
      'r.yaml',
    );
    (Object.prototype as Record<string, unknown>)['polluted'] = 'x';
    const r = scanLog(recipe, 'loss=1.0\n', { exit_code: 0, walltime_sec: 1, peak_vram_mib: null });
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([['custom:counts_own', 'fail']]);
  });
});

describe('heapLimitBytes is checked', () => {
  it.each([0, Number.NaN, 1024, 2 ** 32, -1, 3 * 2 ** 30, 2 ** 20 + 0.5])('%s is a VmOptionError', (heapLimitBytes) => {
    expect(() => compileCondition('True', { heapLimitBytes })).toThrow(VmOptionError);
    expect(() => new ConditionVM({ heapLimitBytes })).toThrow(
      /^heapLimitBytes must be an integer from 1048576 \(1 MiB\) to 1073741824 \(1 GiB\)/,
    );
  });

  it.each([2 ** 20, 2 ** 30])('%s works', (heapLimitBytes) => {
    expect(compileCondition('exit_code + 1', { heapLimitBytes }).evaluateDetailed(vars({ exit_code: 41 }))).toEqual({
      fired: true,
      value: { type: 'int', repr: '42' },
    });
  });
});

describe('repr(capture) keeps insertion order (CPython golden)', () => {
  const { meta, records } = readGoldenJsonl<{ entries?: [string, string][]; repr: string; len: number }>(
    'fixtures/capture/golden-capture-order.jsonl',
  );
  // The regex records are for the CLI's paths (test/capture-order-cli.test.ts).
  const cases = records.flatMap((r) => (r.entries === undefined ? [] : [{ ...r, entries: r.entries }]));

  it('has the generator header and the cases', () => {
    expect(meta).toMatchObject({ generator: 'scripts/gen_capture_order_golden.py' });
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('$repr', ({ entries, repr, len }) => {
    const v = vars({ capture: new Map(entries) });
    expect(compileCondition('capture').evaluateDetailed(v)).toEqual({ fired: len > 0, value: { type: 'dict', repr } });
    expect(compileCondition('len(capture)').evaluateDetailed(v)).toEqual({
      fired: len > 0,
      value: { type: 'int', repr: String(len) },
    });
  });
});
