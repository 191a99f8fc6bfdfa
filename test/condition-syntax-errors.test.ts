/**
 * CPython 3.11 syntax-error parity: fixtures/conditions/golden-syntax-errors.jsonl holds 20,500
 * conditions CPython's `ast.parse(mode="eval")` rejects, with the oracle's message (which embeds
 * CPython's line and column) and CPython's span (`lineno`, `offset`, `end_lineno`, `end_offset`);
 * the header names the generator command and the Python version. `validateCondition` must give
 * the same message, position included, for every record. End positions are reported, not yet
 * asserted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { SandboxError, validateCondition } from '../src/index.js';

interface SyntaxRecord {
  condition: string;
  kind: string;
  message: string;
  lineno: number | null;
  offset: number | null;
  end_lineno: number | null;
  end_offset: number | null;
}

const lines = readFileSync(new URL('../fixtures/conditions/golden-syntax-errors.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean);
const header = (JSON.parse(lines[0]!) as { meta: { records: number; python: string } }).meta;
const records = lines.slice(1).map((l) => JSON.parse(l) as SyntaxRecord);

function ours(condition: string): SandboxError {
  try {
    validateCondition(condition);
  } catch (e) {
    if (e instanceof SandboxError) return e;
    throw e;
  }
  throw new Error(`accepted: ${JSON.stringify(condition)}`);
}

describe('CPython 3.11 syntax errors (fixtures/conditions/golden-syntax-errors.jsonl)', () => {
  it('holds at least 20,000 CPython syntax errors', () => {
    expect(header.python).toMatch(/^3\.11\./);
    expect(records.length).toBe(header.records);
    expect(records.length).toBeGreaterThanOrEqual(20_000);
    expect(records.every((r) => r.kind === 'syntax')).toBe(true);
  });

  it("gives CPython's message and position for every record", () => {
    const diffs: string[] = [];
    let agree = 0;
    let endAgree = 0;
    for (const rec of records) {
      const e = ours(rec.condition);
      expect(e.kind).toBe('syntax');
      const same = e.detail === rec.message;
      if (same) agree++;
      if (rec.end_lineno === e.line && rec.end_offset === e.endCol) endAgree++;
      if (!same && diffs.length < 20) {
        diffs.push(`${JSON.stringify(rec.condition)}\n    cpython: ${rec.message}\n    ours:    ${e.detail}`);
      }
    }
    console.log(
      `syntax errors: ${agree} of ${records.length} agree on message and position; end positions agree for ${endAgree}`,
    );
    expect(diffs, diffs.join('\n')).toEqual([]);
    expect(agree).toBe(records.length);
  }, 300_000);
});
