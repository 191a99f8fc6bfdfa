import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as Op from '../assembly/opcodes.js';
import { stackEffect } from '../src/condition/compile.js';
import { disassemble } from '../src/condition/disasm.js';
import { compileCondition } from '../src/condition/evaluate.js';
import { ConditionVM, vmExportsForTest } from '../src/condition/vm-host.js';
import { cliInProcess } from './support/run-cli.js';

const vars = { capture: {}, exit_code: 0, walltime_sec: 1, peak_vram_mib: null };

/** fixtures/bytecode/golden-listings.txt as (condition, listing) pairs. */
function listings(): [string, string][] {
  const text = readFileSync(new URL('../fixtures/bytecode/golden-listings.txt', import.meta.url), 'utf8');
  return text
    .split('\n== ')
    .slice(1)
    .map((entry) => {
      const nl = entry.indexOf('\n');
      return [entry.slice(0, nl), entry.slice(nl + 1).replace(/\n+$/, '\n')];
    });
}

describe('the compiler–VM contract is one set of facts (assembly/opcodes.ts)', () => {
  const ex = vmExportsForTest();

  it('every scalar of the contract has the same value in the compiled wasm', () => {
    const scalars = Object.entries(Op).filter((e): e is [string, number] => typeof e[1] === 'number');
    expect(scalars.length).toBeGreaterThan(100);
    const mismatched = scalars.filter(([name, value]) => (ex[name] as WebAssembly.Global | undefined)?.value !== value);
    expect(mismatched).toEqual([]);
  });

  it('every table of the contract reads the same in the compiled wasm', () => {
    expect(ex.contractTableCount()).toBe(Op.CONTRACT_TABLES.length);
    Op.CONTRACT_TABLES.forEach((table, t) => {
      expect(ex.contractTableLength(t)).toBe(table.length);
      expect(table.map((_, i) => ex.contractTable(t, i))).toEqual(table);
    });
  });

  it('the per-opcode tables cover every opcode and the name tables every id', () => {
    for (const table of [Op.OP_NAMES, Op.OP_ARG_KINDS, Op.OP_POPS, Op.OP_PUSHES, Op.OP_JUMP_PUSHES, Op.OP_FLOWS]) {
      expect(table).toHaveLength(Op.OP_COUNT);
    }
    expect(Op.VAR_NAMES).toHaveLength(Op.VAR_COUNT);
    for (const t of [Op.BUILTIN_NAMES, Op.BUILTIN_OWNERS, Op.BUILTIN_KINDS, Op.BUILTIN_MIN_ARGS, Op.BUILTIN_MAX_ARGS])
      expect(t).toHaveLength(Op.BUILTIN_COUNT);
    expect(Op.BIN_NAMES).toHaveLength(Op.BIN_COUNT);
    expect(Op.UNARY_NAMES).toHaveLength(Op.UNARY_COUNT);
    expect(Op.CMP_NAMES).toHaveLength(Op.CMP_COUNT);
    expect(Op.ERROR_NAMES).toHaveLength(Op.E_COUNT);
    expect(Op.VERIFY_MESSAGES).toHaveLength(Op.V_COUNT);
    // the packed arguments of the fused comparisons hold every operator, variable and constant index
    expect(Op.CMP_COUNT).toBeLessThanOrEqual(1 << Op.CMP_BITS);
    expect(Op.VAR_COUNT).toBeLessThanOrEqual(1 << Op.VAR_BITS);
    expect(Op.MAX_CONSTS * 2 ** (Op.CMP_BITS + Op.VAR_BITS)).toBeLessThanOrEqual(2 ** 31);
    // a call the VM's CALL cannot take must be one no builtin accepts, or RAISE TypeError would be wrong
    expect(Math.max(...Op.BUILTIN_MAX_ARGS)).toBeLessThan(Op.MAX_CALL_ARGS);
  });

  it('stackEffect is the table: CALL pops its arguments, a kept jump value stays on the jump path', () => {
    expect(stackEffect(Op.OP_CALL, 3, false)).toBe(-3);
    expect(stackEffect(Op.OP_JUMP_IF_FALSE_OR_POP, 0, false)).toBe(-1);
    expect(stackEffect(Op.OP_JUMP_IF_FALSE_OR_POP, 0, true)).toBe(0);
    expect(stackEffect(Op.OP_POP_JUMP_IF_FALSE, 0, true)).toBe(-1);
    expect(stackEffect(Op.OP_DUP_TOP, 0, false)).toBe(1);
    expect(stackEffect(Op.OP_RAISE, Op.E_TYPE, false)).toBe(1);
  });

  it("the verifier's stack depth equals the compiler's for every listed condition", () => {
    const vm = new ConditionVM();
    for (const [condition] of listings()) {
      const program = compileCondition(condition).program;
      vm.load(program);
      expect({ condition, depth: vm.verifiedDepth() }).toEqual({ condition, depth: program[4] });
    }
  });
});

describe('calls with more arguments than the VM takes', () => {
  it.each([
    ['len(1,1,1,1,1,1,1,1,1)', { error: 'TypeError' }],
    [`float(${Array(40).fill('1').join(',')})`, { error: 'TypeError' }],
    ['math.isnan(1,2,3,4,5,6,7,8,9,10)', { error: 'TypeError' }],
    // CPython evaluates the arguments first: their exceptions come before the TypeError
    ['len(1,1,1,1,1,1,1,1,1/0)', { error: 'ZeroDivisionError' }],
    ["len(1,1,1,1,1,1,1,1,capture['missing'])", { error: 'KeyError' }],
    ['len(1,1,1,1,1,1,1,1,1) or True', { error: 'TypeError' }],
    ['exit_code != 0 and len(1,1,1,1,1,1,1,1,1)', { fired: false, value: { type: 'bool', repr: 'False' } }],
    ['int(1,2,3)', { error: 'TypeError' }],
    ['len()', { error: 'TypeError' }],
  ])('%s → %j', (condition, outcome) => {
    expect(compileCondition(condition).evaluateDetailed(vars)).toEqual({ fired: false, ...outcome });
  });
});

describe('the disassembler', () => {
  it.each(listings())('%s', (condition, listing) => {
    expect(disassemble(compileCondition(condition).program)).toBe(listing);
  });

  it('has a few dozen listings', () => {
    expect(listings().length).toBeGreaterThanOrEqual(36);
  });

  it('aorta-probe eval --disasm EXPR prints the listing', async () => {
    const r = await cliInProcess(['eval', '--disasm', 'exit_code == 137']);
    expect(r).toMatchObject({
      code: 0,
      out: [
        '; 2 instructions, 1 constant, max stack 1',
        '0000   0  LOAD_VAR_COMPARE_CONST    8  exit_code Eq 137',
        '0001   1  RETURN                    0',
        '',
      ].join('\n'),
    });
  });

  it('eval --disasm refuses variable options and --jsonl', async () => {
    expect((await cliInProcess(['eval', '--disasm', 'exit_code', '--exit-code', '1'])).code).toBe(2);
    expect((await cliInProcess(['eval', '--disasm', '--jsonl'])).code).toBe(2);
  });
});
