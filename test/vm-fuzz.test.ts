/**
 * Any condition the sandbox accepts evaluates to a value or a documented outcome (issue 12 §4):
 * generated conditions — calls with many arguments included — never throw out of the library and
 * never end in an internal error, and evaluate / evaluateDetailed / evaluateBatch agree.
 */
import { describe, expect, it } from 'vitest';
import { SandboxError } from '../src/condition/errors.js';
import { type CompiledCondition, compileCondition } from '../src/condition/evaluate.js';
import { rng } from './support/rng.js';

/** The outcomes docs/bytecode.md lists: CPython's exceptions, plus the two resource bounds. */
const DOCUMENTED = [
  'TypeError',
  'ValueError',
  'ZeroDivisionError',
  'KeyError',
  'OverflowError',
  'MemoryError',
  'BudgetExceeded',
];

function generator(seed: number): () => string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const atoms = [
    '0',
    '1',
    '-1',
    '7',
    '999999999',
    '0.5',
    '1e308',
    '-0.0',
    '2j',
    "'a'",
    "''",
    "'١٢'",
    "' 12 '",
    "'nan'",
    "'inf'",
    "b'x'",
    'None',
    'True',
    'False',
    '...',
    'exit_code',
    'walltime_sec',
    'peak_vram_mib',
    "capture['a']",
    "capture['n']",
    "capture['big']",
    "capture['missing']",
    'capture',
    'len',
    'float',
    'int',
    'math',
    'math.isnan',
    'math.isinf',
  ];
  const callees = ['len', 'float', 'int', 'math.isnan', 'math.isinf'];
  const binops = ['+', '-', '/', '//'];
  const cmps = ['==', '!=', '<', '<=', '>', '>='];
  const expr = (depth: number): string => {
    if (depth <= 0 || r() < 0.25) return pick(atoms);
    switch (Math.floor(r() * 8)) {
      case 0: {
        // many-argument calls included: up to 12, past the VM's 8
        const n = r() < 0.2 ? 9 + Math.floor(r() * 4) : Math.floor(r() * 3);
        return `${pick(callees)}(${Array.from({ length: n }, () => expr(depth - 2)).join(', ')})`;
      }
      case 1:
        return `(${expr(depth - 1)} ${pick(binops)} ${expr(depth - 1)})`;
      case 2:
        return `(${pick(['-', '+', 'not '])}${expr(depth - 1)})`;
      case 3:
        return `(${expr(depth - 1)} ${pick(cmps)} ${expr(depth - 1)}${r() < 0.3 ? ` ${pick(cmps)} ${expr(depth - 1)}` : ''})`;
      case 4:
        return `(${expr(depth - 1)} ${pick(['and', 'or'])} ${expr(depth - 1)})`;
      case 5:
        return `(${expr(depth - 1)} if ${expr(depth - 1)} else ${expr(depth - 1)})`;
      case 6:
        return `capture[${expr(depth - 1)}]`;
      default:
        return `int(${expr(depth - 1)}, ${pick(['0', '2', '16', '36', '1', "'x'"])})`;
    }
  };
  return () => expr(4);
}

describe('generated conditions', { timeout: 300_000 }, () => {
  it('evaluate to a value or a documented outcome, the same through every entry point', () => {
    const next = generator(20261201);
    const vars = {
      capture: { a: '12', n: 'nan', big: '9'.repeat(5000) },
      exit_code: 3,
      walltime_sec: 1.5,
      peak_vram_mib: null,
    };
    let accepted = 0;
    let manyArgs = 0;
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const text = next();
      let c: CompiledCondition;
      try {
        c = compileCondition(text);
      } catch (e) {
        expect(e).toBeInstanceOf(SandboxError); // too long, or too large an int: a rejection, not a crash
        continue;
      }
      accepted++;
      if (/\((?:[^()]*,){8}/.test(text)) manyArgs++;
      const detailed = c.evaluateDetailed(vars);
      if ('error' in detailed) {
        expect({ text, error: detailed.error }).toEqual({ text, error: expect.toBeOneOf(DOCUMENTED) });
        seen.add(detailed.error);
      } else {
        expect(typeof detailed.value.type).toBe('string');
        seen.add('value');
      }
      const fired = 'error' in detailed ? false : detailed.fired;
      expect({ text, fired: c.evaluate(vars) }).toEqual({ text, fired });
      expect({ text, batch: c.evaluateBatch([vars, vars]) }).toEqual({ text, batch: [fired, fired] });
    }
    expect(accepted).toBeGreaterThan(1500);
    expect(manyArgs).toBeGreaterThan(20);
    expect(seen).toContain('value');
    expect(seen).toContain('TypeError');
  });
});
