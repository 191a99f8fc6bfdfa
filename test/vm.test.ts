import { describe, expect, it } from 'vitest';
import * as Op from '../assembly/opcodes.js';
import { compileCondition, VerifyError } from '../src/index.js';
import { ConditionVM, vmImports } from '../src/condition/vm-host.js';

const vars = (over: Partial<Parameters<ReturnType<typeof compileCondition>['evaluate']>[0]> = {}) => ({
  capture: {},
  exit_code: 0,
  walltime_sec: 1.0,
  peak_vram_mib: null,
  ...over,
});

function detailed(text: string, v = vars()) {
  return compileCondition(text).evaluateDetailed(v);
}

describe('the spec worked examples and the original seed tests (the original tests/probe/test_sandbox.py (ROCm/aorta))', {
  timeout: 120_000,
}, () => {
  it('loss NaN fires, a number does not', () => {
    const c = compileCondition("math.isnan(float(capture['loss']))");
    expect(c.evaluate(vars({ capture: { loss: 'nan' } }))).toBe(true);
    expect(c.evaluate(vars({ capture: { loss: '1.0' } }))).toBe(false);
    expect(c.evaluate(vars({ capture: {} }))).toBe(false); // KeyError → did not fire
  });

  it('walltime and VRAM', () => {
    const c = compileCondition('walltime_sec > 60 and peak_vram_mib > 0');
    expect(c.evaluate(vars({ walltime_sec: 61, peak_vram_mib: 1 }))).toBe(true);
    expect(c.evaluate(vars({ walltime_sec: 61, peak_vram_mib: null }))).toBe(false);
  });

  it('OOM kill with a message', () => {
    const c = compileCondition("exit_code == 137 and len(capture['msg']) > 0");
    expect(c.evaluate(vars({ exit_code: 137, capture: { msg: 'Killed' } }))).toBe(true);
    expect(c.evaluate(vars({ exit_code: 137, capture: { msg: '' } }))).toBe(false);
  });

  it('int of a capture', () => {
    const c = compileCondition("int(capture['code']) == 137");
    expect(c.evaluate(vars({ capture: { code: '137' } }))).toBe(true);
    expect(c.evaluate(vars({ capture: { code: ' 137\n' } }))).toBe(true);
    expect(c.evaluate(vars({ capture: { code: '137.0' } }))).toBe(false); // ValueError
  });

  it.each([
    ["capture['loss'] == 'nan'", { capture: { loss: 'nan' } }, true],
    ["capture['loss'] == 'nan'", { capture: { loss: 'fine' } }, false],
    ["int(capture['count']) > 10 and len(capture) > 0", { capture: { count: '42', other: 'v' } }, true],
    ["math.isinf(float(capture['x']))", { capture: { x: 'inf' } }, true],
    [
      'exit_code != 0 and walltime_sec > 1.0 and peak_vram_mib > 100',
      { exit_code: 137, walltime_sec: 12.5, peak_vram_mib: 512 },
      true,
    ],
    ['peak_vram_mib > 0', { peak_vram_mib: null }, false],
    ['(1 if exit_code != 0 else 0) or (walltime_sec > 0)', { exit_code: 1, walltime_sec: 0.0 }, true],
    ['exit_code == 999999999', { exit_code: 0 }, false],
    ["float(capture['x'])", { capture: { x: 'nan' } }, true], // bool(nan) is True
  ] as const)('%s with %j → %s', (text, over, fired) => {
    expect(compileCondition(text).evaluate(vars(over))).toBe(fired);
  });
});

describe('values, reprs and exceptions as CPython reports them', { timeout: 120_000 }, () => {
  it.each([
    ['7/2', 'float', '3.5'],
    ['-5//2', 'int', '-3'],
    ['5.5//2', 'float', '2.0'],
    ['-0.0', 'float', '-0.0'],
    ['1e16', 'float', '1e+16'],
    ['1j + 2', 'complex', '(2+1j)'],
    ['-(0.0+1j)', 'complex', '(-0-1j)'],
    ["b'ab' + b'c'", 'bytes', "b'abc'"],
    ['...', 'ellipsis', 'Ellipsis'],
    ['len', 'builtin_function_or_method', '<built-in function len>'],
    ['float', 'type', "<class 'float'>"],
    ['math', 'module', "<module 'math' (built-in)>"],
    ['math.isnan', 'builtin_function_or_method', '<built-in function isnan>'],
    ["int('1234567890123456789012345678901234567890') + 1", 'int', '1234567890123456789012345678901234567891'],
    ["int('١٢٣')", 'int', '123'],
    ["float(' 1_000.5 ')", 'float', '1000.5'],
    ['1 == 1.0 == True', 'bool', 'True'],
    ["'a' == b'a'", 'bool', 'False'],
    ["len('😀a')", 'int', '2'],
    ["'😀' > '\uffff'", 'bool', 'True'],
    // strs are code points: two lone surrogates stay two, unlike in a JS string.
    ["len('\\ud83d' + '\\ude00')", 'int', '2'],
    ["'\\ud83d\\ude00' == '\\U0001f600'", 'bool', 'False'],
    ["'\\ud83d' + '\\ude00'", 'str', "'\\ud83d\\ude00'"],
    ["'\\ud83d\\ude00' < '\\ufb01'", 'bool', 'True'],
  ])('%s → %s %s', (text, type, repr) => {
    expect(detailed(text)).toMatchObject({ value: { type, repr } });
  });

  it.each([
    ['1/0', 'ZeroDivisionError'],
    ["capture['missing']", 'KeyError'],
    ["'a' < 1", 'TypeError'],
    ["'a' + 1", 'TypeError'],
    ['len(5)', 'TypeError'],
    ["math.isnan('nan')", 'TypeError'],
    ["int('1.5')", 'ValueError'],
    ["float('abc')", 'ValueError'],
    ["int(float('inf'))", 'OverflowError'],
  ])('%s raises %s and does not fire', (text, error) => {
    expect(detailed(text)).toEqual({ fired: false, error });
  });

  it('evaluates a batch in one VM call, errors as not fired', () => {
    const c = compileCondition("int(capture['code']) == 137");
    const list = ['137', '1', 'x', ' 137 ', '١٣٧'].map((code) => vars({ capture: { code } }));
    expect(c.evaluateBatch(list)).toEqual([true, false, false, true, true]);
  });
});

describe('what the compiler and the host do for speed keeps CPython semantics', { timeout: 120_000 }, () => {
  // The compiler fuses comparisons with a literal, swaps a literal left of a variable, and turns a
  // chain whose middle operands are literals or variables into `and`s (src/condition/compile.ts):
  // CPython 3.11's answers for the cases where that could go wrong.
  it.each([
    ['0 < walltime_sec', { walltime_sec: NaN }, 'False'],
    ['0 != walltime_sec', { walltime_sec: NaN }, 'True'],
    ['0 == walltime_sec', { walltime_sec: -0 }, 'True'],
    ["'a' == capture", {}, 'False'],
    ["1 < exit_code < 'a'", { exit_code: 0 }, 'False'],
    ['0 < exit_code < 256 <= peak_vram_mib', { exit_code: 137, peak_vram_mib: 256 }, 'True'],
    ['0 < exit_code < 256 <= peak_vram_mib', { exit_code: 256, peak_vram_mib: 256 }, 'False'],
    ['0 < exit_code < 256 <= peak_vram_mib', { exit_code: 137, peak_vram_mib: null }, 'False'],
  ])('%s with %j is %s', (text, over, repr) => {
    const v = vars(over);
    expect(detailed(text, v)).toEqual({ fired: repr === 'True', value: { type: 'bool', repr } });
    expect(compileCondition(text).evaluate(v)).toBe(repr === 'True');
  });

  // The VM runs the branch or RETURN that follows an inline comparison in the comparison's own
  // dispatch (assembly/vm.ts, as CPython's PREDICT), and the compiler compares inside the arms of
  // a conditional expression: python3's answers for each branch taken and not taken.
  it.each([
    ['exit_code == 0 or walltime_sec', { exit_code: 1, walltime_sec: 2.5 }, 'float', '2.5'],
    ['exit_code == 0 or walltime_sec', { exit_code: 0, walltime_sec: 2.5 }, 'bool', 'True'],
    ['exit_code == 0 and walltime_sec', { exit_code: 0, walltime_sec: 2.5 }, 'float', '2.5'],
    ['exit_code == 0 and walltime_sec', { exit_code: 1, walltime_sec: 2.5 }, 'bool', 'False'],
    [
      '(walltime_sec / 60 if exit_code == 0 else walltime_sec) > 1',
      { exit_code: 0, walltime_sec: 75.5 },
      'bool',
      'True',
    ],
    [
      '(walltime_sec / 60 if exit_code == 0 else walltime_sec) > 1',
      { exit_code: 137, walltime_sec: 0.5 },
      'bool',
      'False',
    ],
    ["(1 / exit_code if exit_code else 'a') > 1", { exit_code: 2 }, 'bool', 'False'],
  ])('%s with %j is %s %s', (text, over, type, repr) => {
    const v = vars(over);
    expect(detailed(text, v)).toEqual({ fired: repr !== 'False', value: { type, repr } });
    expect(compileCondition(text).evaluateBatch([v, v])).toEqual([repr !== 'False', repr !== 'False']);
  });

  it.each([
    ['1 < capture', {}],
    ["1 < exit_code < 'a'", { exit_code: 2 }],
    ["(1 / exit_code if exit_code else 'a') > 1", { exit_code: 0 }],
    ['1 < (exit_code if walltime_sec > 0 else capture)', { walltime_sec: 0.0 }],
  ])('%s with %j raises TypeError', (text, over) => {
    expect(detailed(text, vars(over))).toEqual({ fired: false, error: 'TypeError' });
  });

  it('a batch of sets of every length keeps each set aligned and its own', () => {
    // Sets of odd and even lengths, growing the host's scratch space past its first size.
    const list = Array.from({ length: 600 }, (_, i) =>
      vars({
        exit_code: i,
        walltime_sec: i / 2,
        peak_vram_mib: i % 3 === 0 ? null : -i,
        capture: { v: 'x'.repeat(i) },
      }),
    );
    const c = compileCondition(
      "len(capture['v']) == exit_code and walltime_sec + walltime_sec == exit_code and exit_code // 7 == (exit_code + 6) // 7",
    );
    expect(c.evaluateBatch(list)).toEqual(list.map((_, i) => i % 7 === 0));
    const scalars = compileCondition('walltime_sec + walltime_sec == exit_code == -peak_vram_mib');
    expect(scalars.evaluateBatch(list)).toEqual(list.map((_, i) => i % 3 !== 0 || i === 0));
    // a Map's entries are checked even when the program reads none
    const bad = vars({ capture: new Map([['k', 5 as unknown as string]]) });
    expect(() => scalars.evaluateBatch([list[1]!, bad])).toThrow(
      "condition variable [1].capture['k'] must be a string",
    );
  });

  it('a single evaluation whose captures outgrow the single-call area gives the same results', () => {
    // The area holds 4096 words: 2 length words, then one word per code point of key and value.
    const fits = 'x'.repeat(4096 - 2 - 1);
    const spills = 'y'.repeat(4096);
    const c = compileCondition("len(capture['v']) + len(capture)");
    const all = compileCondition('capture');
    for (const value of [fits, spills, '😀'.repeat(3000), 'short', spills]) {
      const v = vars({ capture: { v: value } });
      const n = [...value].length;
      expect(c.evaluate(v)).toBe(true);
      expect(c.evaluateDetailed(v)).toEqual({ fired: true, value: { type: 'int', repr: String(n + 1) } });
      expect(c.evaluateBatch([v])).toEqual([true]);
      expect(all.evaluateDetailed(v)).toMatchObject({ fired: true, value: { type: 'dict' } });
    }
    expect(() => c.evaluate(vars({ capture: { v: spills, w: 5 as unknown as string } }))).toThrow(
      "condition variable capture['w'] must be a string, got number",
    );
  });
});

describe('the sandbox', { timeout: 120_000 }, () => {
  it('imports nothing but env.abort', () => {
    expect(vmImports()).toEqual([{ module: 'env', name: 'abort', kind: 'function' }]);
  });

  it('a condition that outgrows the bounded heap gets MemoryError, and the VM stays usable', () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    // The 256-character cap allows 21 terms; with a 4 MiB capture that needs ~3.7 GB, far past
    // the default 256 MiB arena.
    // (the cost budget would stop it first: lifted here, so that the arena limit is what is tested)
    const greedy = compileCondition(Array(21).fill("capture['']").join('+'), { costBudget: Number.MAX_SAFE_INTEGER });
    expect(greedy.source.length).toBeLessThanOrEqual(256);
    expect(greedy.evaluateDetailed(vars({ capture: { '': big } }))).toEqual({ fired: false, error: 'MemoryError' });
    // The same compiled condition, and another one, still evaluate correctly afterwards.
    expect(greedy.evaluateDetailed(vars({ capture: { '': 'ab' } }))).toMatchObject({
      value: { type: 'str', repr: `'${'ab'.repeat(21)}'` },
    });
    expect(compileCondition('exit_code + 1').evaluateDetailed(vars({ exit_code: 41 }))).toMatchObject({
      value: { repr: '42' },
    });
  });

  function program(code: number[], consts: number[][] = [], maxStack = 4, slots = Op.CAPTURE_AS_DICT): Int32Array {
    const words = [
      Op.PROGRAM_MAGIC,
      Op.PROGRAM_VERSION,
      code.length,
      consts.length,
      maxStack,
      slots,
      ...code,
      ...consts.flat(),
    ];
    return Int32Array.from(words);
  }
  const INT1 = [Op.CONST_INT, 1, 0];
  const STR_A = [Op.CONST_STR, 1, 0x61];

  it.each([
    ['bad magic', Int32Array.from([0, Op.PROGRAM_VERSION, 2, 0, 1, -1, Op.OP_RETURN, 0]), Op.V_HEADER],
    ['truncated header', Int32Array.from([Op.PROGRAM_MAGIC, Op.PROGRAM_VERSION]), Op.V_TRUNCATED],
    ['unknown opcode', program([99, 0, Op.OP_RETURN, 0]), Op.V_OPCODE],
    ['constant index out of range', program([Op.OP_LOAD_CONST, 5, Op.OP_RETURN, 0], [INT1]), Op.V_ARGUMENT],
    ['huge variable index', program([Op.OP_LOAD_VAR, 0x7fffffff, Op.OP_RETURN, 0]), Op.V_ARGUMENT],
    ['negative builtin index', program([Op.OP_LOAD_BUILTIN, -1, Op.OP_RETURN, 0]), Op.V_ARGUMENT],
    [
      'a fused comparison with its constant out of range',
      program([Op.OP_LOAD_CONST, 0, Op.OP_COMPARE_CONST, Op.CMP_LT | (1 << Op.CMP_BITS), Op.OP_RETURN, 0], [INT1]),
      Op.V_ARGUMENT,
    ],
    [
      'a fused comparison with an unknown operator',
      program([Op.OP_LOAD_CONST, 0, Op.OP_COMPARE_CONST, Op.CMP_COUNT, Op.OP_RETURN, 0], [INT1]),
      Op.V_ARGUMENT,
    ],
    [
      'a fused load with a negative argument',
      program([Op.OP_LOAD_VAR_COMPARE_CONST, -1, Op.OP_RETURN, 0], [INT1]),
      Op.V_ARGUMENT,
    ],
    [
      'a fused load with its constant out of range',
      program([Op.OP_LOAD_VAR_COMPARE_CONST, 1 << (Op.CMP_BITS + Op.VAR_BITS), Op.OP_RETURN, 0], [INT1]),
      Op.V_ARGUMENT,
    ],
    [
      'a fused capture read with its key out of range',
      program([Op.OP_LOAD_CAPTURE_CONST, 1, Op.OP_RETURN, 0], [INT1]),
      Op.V_ARGUMENT,
    ],
    [
      'a fused comparison with nothing to compare',
      program([Op.OP_COMPARE_CONST, 0, Op.OP_RETURN, 0], [INT1]),
      Op.V_STACK,
    ],
    ['stack underflow', program([Op.OP_BINARY, 0, Op.OP_RETURN, 0]), Op.V_STACK],
    ['return with an empty stack', program([Op.OP_RETURN, 0]), Op.V_STACK],
    ['backward jump (a loop)', program([Op.OP_LOAD_CONST, 0, Op.OP_JUMP, 0, Op.OP_RETURN, 0], [INT1]), Op.V_JUMP],
    ['jump past the end', program([Op.OP_LOAD_CONST, 0, Op.OP_JUMP, 9, Op.OP_RETURN, 0], [INT1]), Op.V_JUMP],
    ['falling off the end', program([Op.OP_LOAD_CONST, 0], [INT1]), Op.V_TRUNCATED],
    [
      'stack above the declared maximum',
      program([Op.OP_LOAD_CONST, 0, Op.OP_LOAD_CONST, 0, Op.OP_BINARY, 0, Op.OP_RETURN, 0], [INT1], 1),
      Op.V_STACK,
    ],
    [
      'truncated constant pool',
      Int32Array.from([
        Op.PROGRAM_MAGIC,
        Op.PROGRAM_VERSION,
        4,
        1,
        1,
        Op.CAPTURE_AS_DICT,
        Op.OP_LOAD_CONST,
        0,
        Op.OP_RETURN,
        0,
        Op.CONST_STR,
        10,
      ]),
      Op.V_TRUNCATED,
    ],
    ['unknown constant tag', program([Op.OP_LOAD_CONST, 0, Op.OP_RETURN, 0], [[77]]), Op.V_CONST],
    [
      'a capture slot out of range',
      program([Op.OP_LOAD_CAPTURE_SLOT, 1, Op.OP_RETURN, 0], [STR_A], 4, 1),
      Op.V_ARGUMENT,
    ],
    [
      'a slot read in a program that reads capture as a dict',
      program([Op.OP_LOAD_CAPTURE_SLOT, 0, Op.OP_RETURN, 0], [STR_A]),
      Op.V_ARGUMENT,
    ],
    [
      'capture loaded as a dict in a program with capture slots',
      program([Op.OP_LOAD_VAR, Op.VAR_CAPTURE, Op.OP_RETURN, 0], [STR_A], 4, 1),
      Op.V_ARGUMENT,
    ],
    [
      'capture read by key in a program with capture slots',
      program([Op.OP_LOAD_CAPTURE_CONST, 0, Op.OP_RETURN, 0], [STR_A], 4, 1),
      Op.V_ARGUMENT,
    ],
    [
      'capture compared as a dict in a program with capture slots',
      program(
        [Op.OP_LOAD_VAR_COMPARE_CONST, Op.CMP_EQ | (Op.VAR_CAPTURE << Op.CMP_BITS), Op.OP_RETURN, 0],
        [STR_A],
        4,
        1,
      ),
      Op.V_ARGUMENT,
    ],
    [
      'more capture slots than constants',
      program([Op.OP_LOAD_CAPTURE_SLOT, 0, Op.OP_RETURN, 0], [STR_A], 4, 2),
      Op.V_HEADER,
    ],
    ['a capture-slot count below -1', program([Op.OP_LOAD_CONST, 0, Op.OP_RETURN, 0], [STR_A], 4, -2), Op.V_HEADER],
    [
      'a capture slot whose key is not a str',
      program([Op.OP_LOAD_CAPTURE_SLOT, 0, Op.OP_RETURN, 0], [INT1], 4, 1),
      Op.V_CONST,
    ],
    [
      'odd code length',
      Int32Array.from([Op.PROGRAM_MAGIC, Op.PROGRAM_VERSION, 3, 0, 1, -1, Op.OP_RETURN, 0, 0]),
      Op.V_HEADER,
    ],
  ])('rejects a program with %s before running it', (_name, words, code) => {
    let caught: unknown;
    try {
      new ConditionVM().load(words);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(VerifyError);
    expect((caught as VerifyError).code).toBe(code);
  });

  it('random programs are rejected or run to a value or an exception, never anything else', () => {
    let seed = 12345;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    // Mostly plausible instructions (small arguments, a final RETURN) so that many programs pass
    // the verifier and run; the rest exercise its refusals.
    const plausible: [number, number][] = [
      [Op.OP_LOAD_CONST, 3],
      [Op.OP_LOAD_VAR, 4],
      [Op.OP_LOAD_BUILTIN, 6],
      [Op.OP_BINARY, 4],
      [Op.OP_UNARY, 3],
      [Op.OP_COMPARE, 6],
      // packed: an operator below 8 (6 exist), a variable below 4, a constant index below 4 (3 exist)
      [Op.OP_COMPARE_CONST, 32],
      [Op.OP_LOAD_VAR_COMPARE_CONST, 128],
      [Op.OP_LOAD_CAPTURE_CONST, 3],
      [Op.OP_LOAD_CAPTURE_SLOT, 2], // slot 0 or one past the last
      [Op.OP_SUBSCRIPT, 1],
      [Op.OP_CALL, 3],
      [Op.OP_DUP_TOP, 1],
      [Op.OP_ROT_TWO, 1],
      [Op.OP_ROT_THREE, 1],
      [Op.OP_POP_TOP, 1],
      [Op.OP_JUMP_IF_FALSE_OR_POP, 0],
      [Op.OP_JUMP_IF_TRUE_OR_POP, 0],
      [Op.OP_POP_JUMP_IF_FALSE, 0],
      [Op.OP_JUMP, 0],
    ];
    const vm = new ConditionVM();
    let verified = 0;
    let slotReads = 0;
    // A program with slots holds no dict read (the verifier refuses one), so its plausible draws read capture
    // by slot and load another variable in place of capture.
    const asSlotted = (op: number, arg: number): [number, number] => {
      if (op === Op.OP_LOAD_CAPTURE_CONST) return [Op.OP_LOAD_CAPTURE_SLOT, arg & 1]; // slot 0, or 1: out of range
      if (op === Op.OP_LOAD_VAR && arg === Op.VAR_CAPTURE) return [op, Op.VAR_EXIT_CODE];
      if (op === Op.OP_LOAD_VAR_COMPARE_CONST && ((arg >> Op.CMP_BITS) & ((1 << Op.VAR_BITS) - 1)) === Op.VAR_CAPTURE)
        return [op, arg | (Op.VAR_EXIT_CODE << Op.CMP_BITS)];
      return [op, arg];
    };
    for (let i = 0; i < 6000; i++) {
      // Half the programs read capture through one slot (its key, 'a', is constant 0), half as a dict.
      const slotted = next(2) !== 0;
      const n = 1 + next(10);
      const code: number[] = [];
      for (let k = 0; k < n; k++) {
        if (next(10) === 0) {
          code.push(next(Op.OP_COUNT + 2) - 1, next(3) === 0 ? next(0x7fffffff) : next(n + 2));
          continue;
        }
        const [op, range] = plausible[next(plausible.length)]!;
        const arg = range === 0 ? k + 1 + next(n - k + 1) : next(range);
        code.push(...(slotted ? asSlotted(op, arg) : [op, arg]));
      }
      code.push(Op.OP_RETURN, 0);
      const words = slotted
        ? program(code, [STR_A, INT1, [Op.CONST_FLOAT, 0, 0x7ff80000]], 1 + next(4), 1)
        : program(code, [INT1, STR_A, [Op.CONST_FLOAT, 0, 0x7ff80000]], 1 + next(4));
      try {
        vm.load(words);
      } catch (e) {
        expect(e).toBeInstanceOf(VerifyError);
        continue;
      }
      verified++;
      if (slotted && code.some((word, at) => at % 2 === 0 && word === Op.OP_LOAD_CAPTURE_SLOT)) slotReads++;
      const r = vm.evaluate(words, vars({ capture: { a: '1' } }));
      // A random RAISE may name any exception (even SystemError); anything else must be a Python error.
      const raised = code.flatMap((word, at) =>
        at % 2 === 0 && word === Op.OP_RAISE ? [Op.ERROR_NAMES[code[at + 1]!] ?? ''] : [],
      );
      if (!r.ok)
        expect(['TypeError', 'ValueError', 'ZeroDivisionError', 'KeyError', 'OverflowError', ...raised]).toContain(
          r.error,
        );
    }
    // Many random programs pass verification, slot readers among them; they must still only compute.
    expect(verified).toBeGreaterThan(100);
    expect(slotReads).toBeGreaterThan(50);
  });
});
