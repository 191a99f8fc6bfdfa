// Checks assembly/bigint.ts (arbitrary-precision Python int) against the golden corpus written by
// scripts/gen_bigint_corpus.py, where every expectation comes from CPython 3.11 itself.
// The test entry assembly/testing/bigint-entry.ts is compiled here with the AssemblyScript JS API,
// once with the `stub` runtime in 16 fixed pages and once with the VM's own arena runtime
// (assembly/rt/arena.ts, which hands back unzeroed memory); python3 is not needed.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGoldenJsonl } from './support/goldens.js';
// @ts-expect-error: plain ESM helper shared with scripts/check-bigint-live.mjs
import { compileBigint, instantiateBigint, runCases } from '../scripts/bigint-harness.mjs';

type Case = [string, string, string, string];
type Runtime = 'stub' | 'arena';

const cases: Case[] = readGoldenJsonl<Case>('fixtures/bigint/golden-bigint.jsonl').records;

const hasArena = existsSync(new URL('../assembly/rt/arena.ts', import.meta.url));
const modules = new Map<Runtime, WebAssembly.Module>();

beforeAll(async () => {
  for (const runtime of ['stub', 'arena'] as Runtime[]) {
    if (runtime === 'arena' && !hasArena) continue;
    const c = await compileBigint({ runtime });
    expect(c.size).toBeGreaterThan(0);
    modules.set(runtime, c.module);
  }
}, 60_000);

function checkGolden(runtime: Runtime) {
  const { failures, failed, count } = runCases(modules.get(runtime)!, cases, 30);
  if (failed > 0) {
    console.error(
      `[${runtime}] ${failed}/${count} bigint cases failed; first ${failures.length}:\n${failures.join('\n')}`,
    );
  }
  expect(failures).toEqual([]);
}

describe('bigint (CPython 3.11 int semantics)', { timeout: 120_000 }, () => {
  it('golden corpus covers every operation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30_000);
    const ops = new Set(cases.map((c) => c[0]));
    for (const op of [
      'add',
      'sub',
      'mul',
      'floordiv',
      'mod',
      'pow',
      'neg',
      'abs',
      'cmp',
      'sign',
      'i64',
      'fromi64',
      'truediv',
      'tof64',
      'fromf64',
      'cmpf64',
      'repr',
      'parse',
      'fmt',
    ]) {
      expect(ops.has(op), op).toBe(true);
    }
  });

  it('agrees with CPython on every golden case (stub runtime)', () => checkGolden('stub'));

  it.skipIf(!hasArena)('agrees with CPython on every golden case (VM arena runtime, unzeroed memory)', () =>
    checkGolden('arena'),
  );

  it('stays within a fixed 1 MiB stub arena for 15,000-digit operands and resets between cases', () => {
    const { run } = instantiateBigint(modules.get('stub')!);
    const a = 10n ** 15000n - 1n;
    const b = 7n ** 8875n + 12345n; // 7,500 digits
    const hx = (v: bigint) => (v < 0n ? '-0x' + (-v).toString(16) : '0x' + v.toString(16));
    const q = hx(-(a / b) - 1n);
    const r = hx(a % b);
    for (let i = 0; i < 50; i++) {
      expect(run('floordiv', hx(a), hx(-b))).toBe(q);
      expect(run('mod', hx(a), hx(b))).toBe(r);
    }
    expect(run('mul', hx(a), hx(b))).toBe(hx(a * b));
    expect(run('repr', hx(a), '')).toBe('LIMIT');
    expect(run('repr', hx(10n ** 4299n), '')).toBe('1' + '0'.repeat(4299));
    expect(run('parse', '9'.repeat(4300), '10')).toBe(hx(10n ** 4300n - 1n));
    expect(run('parse', '9'.repeat(4301), '10')).toBe('LIMIT 4301');
  });
});
