/**
 * pegen's MAXSTACK in deep bracket nests: fixtures/conditions/golden-pegen-stack.jsonl holds CPython
 * 3.11's verdict for nests of the one shape src/condition/pegen-stack.ts models (its header names
 * the generator command), about half of them MemoryError and a third within 15 frames of the limit.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { SandboxError, validateCondition } from '../src/index.js';

interface StackRecord {
  condition: string;
  message: string;
  level: number;
}

const lines = readFileSync(new URL('../fixtures/conditions/golden-pegen-stack.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean);
const meta = (JSON.parse(lines[0]!) as { meta: { records: number; python: string; memory_errors: number } }).meta;
const records = lines.slice(1).map((l) => JSON.parse(l) as StackRecord);

function detail(condition: string): string {
  try {
    validateCondition(condition);
  } catch (e) {
    if (e instanceof SandboxError) return e.detail;
    throw e;
  }
  return 'accepted';
}

describe("CPython 3.11's MemoryError at pegen's MAXSTACK (fixtures/conditions/golden-pegen-stack.jsonl)", () => {
  it('holds CPython verdicts on both sides of the limit', () => {
    expect(meta.python).toMatch(/^3\.11\./);
    expect(records.length).toBe(meta.records);
    expect(meta.memory_errors).toBeGreaterThan(records.length / 4);
    expect(meta.memory_errors).toBeLessThan((records.length * 3) / 4);
  });

  it("gives CPython's verdict for every nest", () => {
    const diffs = records
      .filter((r) => detail(r.condition) !== r.message)
      .map(
        (r) =>
          `${JSON.stringify(r.condition)} (level ${r.level})\n  cpython: ${r.message}\n  ours:    ${detail(r.condition)}`,
      );
    expect(diffs.slice(0, 10).join('\n')).toBe('');
  });

  it('reports the limit as CPython does: MemoryError, without a position', () => {
    const s = `${'['.repeat(7)}${'{'.repeat(93)}x{${'{'.repeat(98)}1`;
    expect(detail(s)).toBe('condition: syntax error: MemoryError:  (line None, col None)');
    // Six '[' instead of seven: one frame under the limit, and the tokenizer's error stands.
    expect(detail(`${'['.repeat(6)}${'{'.repeat(94)}x{${'{'.repeat(98)}1`)).toBe(
      "condition: syntax error: '{' was never closed (line 1, col 200)",
    );
  });
});
