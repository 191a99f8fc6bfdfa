/**
 * Deep nesting parses deterministically: a condition nested as deep as the 256-character cap and
 * the tokenizer's 200-bracket limit allow gets CPython's answer, never the JS-stack fallback
 * ("too many nested expressions (parser stack overflow)"), whatever V8's tier. The expected
 * messages are CPython 3.11's (`python3 scripts/cpython_oracle.py`, checked by hand). The parser
 * spends about 2.5 KB of stack per nesting level in V8's interpreter (its largest frames), so the
 * worst case here needs 500–600 KB of node's default 984 KB; the child process proves that with
 * `--jitless --stack-size=600` (docs/parity.md, "Deep nesting").
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { SandboxError, validateCondition } from '../src/index.js';

const CASES: readonly (readonly [string, string])[] = [
  ['('.repeat(200) + 'x', "condition: syntax error: '(' was never closed (line 1, col 200)"],
  ['['.repeat(201), 'condition: syntax error: too many nested parentheses (line 1, col 201)'],
  ['{'.repeat(200) + '1', "condition: syntax error: '{' was never closed (line 1, col 200)"],
  ['([{'.repeat(66) + '(1', "condition: syntax error: '(' was never closed (line 1, col 199)"],
  [
    `${'('.repeat(127)}x 1${')'.repeat(126)}`,
    'condition: syntax error: invalid syntax. Perhaps you forgot a comma? (line 1, col 128)',
  ],
  [
    `${'['.repeat(126)}x 1${']'.repeat(126)}`,
    'condition: syntax error: invalid syntax. Perhaps you forgot a comma? (line 1, col 127)',
  ],
  [
    `${'{'.repeat(126)}1 2${'}'.repeat(126)}`,
    'condition: syntax error: invalid syntax. Perhaps you forgot a comma? (line 1, col 127)',
  ],
  [`${'f('.repeat(127)}1`, "condition: syntax error: '(' was never closed (line 1, col 254)"],
  [`${'a['.repeat(127)}1`, "condition: syntax error: '[' was never closed (line 1, col 254)"],
  [`${'-'.repeat(255)}1`, 'ok'],
  [
    `${'('.repeat(60)}f'{${'('.repeat(60)}x 1${')'.repeat(60)}}'${')'.repeat(60)}`,
    'condition: syntax error: f-string: invalid syntax. Perhaps you forgot a comma? (line 1, col 62)',
  ],
  [
    `${'('.repeat(60)}f'{${'('.repeat(60)}x${')'.repeat(60)}}'${')'.repeat(60)}`,
    'condition: forbidden AST node: JoinedStr',
  ],
];

function answer(condition: string): string {
  try {
    validateCondition(condition);
    return 'ok';
  } catch (e) {
    if (e instanceof SandboxError) return e.detail;
    throw e;
  }
}

describe('deep nesting', () => {
  it.each(CASES.map(([c, m]) => [c.length, c.slice(0, 12), c, m] as const))(
    "%i characters starting %j: CPython's answer",
    (_len, _head, condition, message) => {
      expect(condition.length).toBeLessThanOrEqual(256);
      expect(answer(condition)).toBe(message);
    },
  );

  it("gives the same answers in V8's interpreter with 600 KB of stack (the built package)", () => {
    const script = `
      const { validateCondition } = await import(${JSON.stringify(new URL('../dist/src/index.js', import.meta.url).href)});
      const out = [];
      for (const c of JSON.parse(process.argv[1])) {
        try { validateCondition(c); out.push('ok'); } catch (e) { out.push(e.detail ?? String(e)); }
      }
      process.stdout.write(JSON.stringify(out));`;
    const stdout = execFileSync(
      process.execPath,
      ['--jitless', '--stack-size=600', '--input-type=module', '-e', script, JSON.stringify(CASES.map(([c]) => c))],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    expect(JSON.parse(stdout)).toEqual(CASES.map(([, m]) => m));
  }, 60_000);
});
