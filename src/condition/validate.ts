/**
 * `validateCondition`: the original `validate_and_compile` front half — type, strip, emptiness and
 * length checks, `ast.parse(..., mode="eval")`, then the whitelist walk — every rejection a
 * `SandboxError` that names the offending node and points at it.
 */
import type { Expression } from './ast.js';
import { MAX_EXCERPT_CPS, SandboxError } from './errors.js';
import { hintForSyntax, HINTS } from './hints.js';
import { parseExpression } from './parser.js';
import { codePointPrefix, pyLen, pyStrip, toCodePoints, translateNewlines, makeSource } from './source.js';
import { PySyntaxError } from './syntax-error.js';
import { findViolation } from './walker.js';

export { MAX_INT_CONSTANT } from './walker.js';

/** Longest accepted expression, in code points after `str.strip()`. */
export const MAX_EXPR_LEN = 256;

export interface CheckedCondition {
  /** The stripped expression text that was parsed. */
  readonly source: string;
  readonly tree: Expression;
}

export function validateCondition(text: unknown): CheckedCondition {
  if (typeof text !== 'string') {
    throw new SandboxError({
      kind: 'not-a-string',
      detail: `condition: must be a string, got ${pyTypeName(text)}`,
      node: null,
      line: 1,
      col: 1,
      hint: HINTS.notAString,
    });
  }
  const source = pyStrip(text);
  if (source.length === 0) {
    throw new SandboxError({
      kind: 'empty',
      detail: 'condition: expression must be non-empty',
      node: null,
      line: 1,
      col: 1,
    });
  }
  // The cap is checked before any other work on the text: a 30 MB condition costs one count of
  // its code points, and only a bounded prefix is translated, positioned and quoted.
  const length = pyLen(source);
  if (length > MAX_EXPR_LEN) {
    // Point at the first character past the cap. A CRLF counts twice here and once for the
    // tokenizer, so twice the cap is always enough text to find that character's line and column.
    const prefix = codePointPrefix(source, 2 * (MAX_EXPR_LEN + 1) + MAX_EXCERPT_CPS);
    const shown = translateNewlines(prefix) + (prefix.length < source.length ? '…' : '');
    const pos = makeSource(toCodePoints(shown)).posAt(MAX_EXPR_LEN);
    throw new SandboxError({
      kind: 'too-long',
      detail: `condition: expression length ${length} exceeds the ${MAX_EXPR_LEN}-character cap (rejected before ast.parse to bound parse-time work)`,
      node: null,
      line: pos.line,
      col: pos.col,
      source: shown,
    });
  }
  let tree: Expression;
  try {
    tree = parseExpression(source);
  } catch (e) {
    if (!(e instanceof PySyntaxError)) throw e;
    throw new SandboxError({
      kind: 'syntax',
      detail: `condition: syntax error: ${e.msg} (${e.where})`,
      node: null,
      line: e.pos.line,
      col: e.pos.col,
      endCol: e.endCol,
      source: displaySource(source),
      hint: hintForSyntax(source),
    });
  }
  const violation = findViolation(tree);
  if (violation !== null) {
    const loc = violation.loc ?? { line: 1, col: 1, endLine: 1, endCol: 2 };
    throw new SandboxError({
      kind: violation.kind,
      detail: violation.detail,
      node: violation.node,
      line: loc.line,
      col: loc.col,
      endCol: loc.endLine === loc.line ? loc.endCol : undefined,
      source: displaySource(source),
      hint: violation.hint,
    });
  }
  return { source, tree };
}

/** The text the caret excerpt is drawn on: lines as the tokenizer counted them. */
function displaySource(source: string): string {
  return translateNewlines(source).replace(/\0/g, ' ');
}

/** `type(value).__name__` for the JSON-ish values a recipe can hold. */
function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'bigint') return 'int';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  return typeof value;
}
