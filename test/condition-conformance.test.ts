/**
 * CPython 3.11 conformance: every record of fixtures/conditions/golden-validate.jsonl carries the
 * verdict of the original `validate_and_compile` (computed by scripts/cpython_oracle.py, regenerated
 * with `npm run golden:conditions`). `validateCondition` must agree on `valid` and on `node` (the
 * CPython class name of the first offending node in `ast.walk` order, null for length/empty/syntax).
 * No python is needed here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { SandboxError, validateCondition } from '../src/index.js';

interface GoldenRecord {
  condition: string;
  origin: string;
  valid: boolean;
  kind: string;
  node: string | null;
  message: string;
}

const GOLDEN = new URL('../fixtures/conditions/golden-validate.jsonl', import.meta.url);
const WALKER_KINDS = new Set([
  'forbidden-node',
  'forbidden-attribute',
  'forbidden-name',
  'forbidden-subscript',
  'forbidden-call',
  'int-constant',
]);
const OTHER_KINDS = new Set(['not-a-string', 'empty', 'too-long', 'syntax']);
const SHOW = 30;

function loadGolden(): GoldenRecord[] {
  const text = readFileSync(GOLDEN, 'utf8');
  const out: GoldenRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    if (i === 0 && line.startsWith('{"meta":')) return; // the header: where the golden comes from
    const rec = JSON.parse(line) as GoldenRecord;
    if (typeof rec.condition !== 'string' || typeof rec.valid !== 'boolean' || typeof rec.kind !== 'string') {
      throw new Error(`golden-validate.jsonl line ${i + 1}: malformed record`);
    }
    out.push(rec);
  });
  return out;
}

/** JSON with every non-ASCII code unit escaped, so invisible characters and lone surrogates show. */
function jsonAscii(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface Ours {
  valid: boolean;
  node: string | null;
  /** Our kind (`ok`, a SandboxErrorKind, or `THREW`) plus node, for grouping. */
  key: string;
  text: string;
  crashed: boolean;
}

function runOurs(condition: string): Ours {
  try {
    validateCondition(condition);
    return { valid: true, node: null, key: 'ok', text: 'ok', crashed: false };
  } catch (err) {
    if (err instanceof SandboxError) {
      const key = err.node === null ? err.kind : `${err.kind}/${err.node}`;
      return { valid: false, node: err.node, key, text: `${err.kind}: ${err.detail}`, crashed: false };
    }
    const e = err as { name?: unknown; message?: unknown } | null;
    const desc = e !== null && typeof e === 'object' ? `${String(e.name)}: ${String(e.message)}` : String(err);
    return {
      valid: false,
      node: null,
      key: 'THREW',
      text: `THREW (not a SandboxError) ${desc.split('\n')[0]}`,
      crashed: true,
    };
  }
}

describe('CPython 3.11 conformance (fixtures/conditions/golden-validate.jsonl)', () => {
  const records = loadGolden();

  it('holds >= 20,000 consistent records with >= 25% valid and >= 25% walker rejections', () => {
    expect(records.length).toBeGreaterThanOrEqual(20_000);
    const valid = records.filter((r) => r.valid).length;
    const walker = records.filter((r) => WALKER_KINDS.has(r.kind)).length;
    expect(valid / records.length).toBeGreaterThanOrEqual(0.25);
    expect(walker / records.length).toBeGreaterThanOrEqual(0.25);
    for (const r of records) {
      if (r.valid) expect([r.kind, r.node]).toEqual(['ok', null]);
      else if (WALKER_KINDS.has(r.kind)) expect(typeof r.node).toBe('string');
      else {
        expect(OTHER_KINDS.has(r.kind)).toBe(true);
        expect(r.node).toBeNull();
      }
    }
  });

  it('agrees with CPython on `valid` and `node` for every record', () => {
    const failures: string[] = [];
    const byKind = new Map<string, number>();
    let crashes = 0;
    records.forEach((rec, i) => {
      const ours = runOurs(rec.condition);
      if (!ours.crashed && ours.valid === rec.valid && ours.node === rec.node) return;
      if (ours.crashed) crashes++;
      const key = `${rec.kind}${rec.node ? `/${rec.node}` : ''} -> ${ours.key}`;
      byKind.set(key, (byKind.get(key) ?? 0) + 1);
      if (failures.length < SHOW) {
        failures.push(
          [
            `#${failures.length + 1} line ${i + 1} [${rec.origin}] input=${jsonAscii(rec.condition)}`,
            `    cpython: valid=${rec.valid} node=${rec.node ?? 'null'} (${rec.kind}) ${rec.message}`,
            `    ours:    valid=${ours.valid} node=${ours.node ?? 'null'} ${ours.text}`,
          ].join('\n'),
        );
      }
    });
    const total = [...byKind.values()].reduce((a, b) => a + b, 0);
    if (total > 0) {
      const groups = [...byKind.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 25)
        .map(([k, n]) => `    ${String(n).padStart(6)}  ${k}`)
        .join('\n');
      throw new Error(
        `${total} of ${records.length} golden records disagree with CPython (${crashes} threw a non-SandboxError).\n` +
          `Most common (cpython kind/node -> ours):\n${groups}\n\n` +
          `First ${failures.length}:\n${failures.join('\n')}\n`,
      );
    }
  }, 180_000);

  it("gives CPython's message (ast.unparse text included) for every rejection outside the parser", () => {
    const failures: string[] = [];
    let checked = 0;
    records.forEach((rec, i) => {
      if (rec.valid || rec.kind === 'syntax') return;
      checked++;
      let detail: string;
      try {
        validateCondition(rec.condition);
        detail = 'ok';
      } catch (err) {
        detail = err instanceof SandboxError ? err.detail : `THREW ${String(err)}`;
      }
      if (detail !== rec.message && failures.length < SHOW) {
        failures.push(
          `line ${i + 1} input=${jsonAscii(rec.condition)}\n    cpython: ${rec.message}\n    ours:    ${detail}`,
        );
      }
    });
    expect(checked).toBeGreaterThan(9_000);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);
});
