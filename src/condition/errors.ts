/**
 * Error classes shared by the recipe loader and the condition sandbox.
 *
 * The hierarchy mirrors the original system (`SandboxError(RecipeSchemaError(ValueError))`) so a
 * caller that catches `RecipeSchemaError` also catches every condition rejection.
 */

import { RecipeSchemaError } from '../errors.js';

export { RecipeSchemaError };

/** Why a condition was rejected; lets callers branch without parsing messages. */
export type SandboxErrorKind =
  | 'not-a-string'
  | 'empty'
  | 'too-long'
  | 'syntax'
  | 'forbidden-node'
  | 'forbidden-attribute'
  | 'forbidden-name'
  | 'forbidden-subscript'
  | 'forbidden-call'
  | 'int-constant';

export interface SandboxErrorInit {
  kind: SandboxErrorKind;
  /** The first-line message, in the original system's wording (e.g. `condition: forbidden AST node: Pow`). */
  detail: string;
  /** CPython class name of the first offending node in `ast.walk` order; null for length/empty/syntax errors. */
  node: string | null;
  /** 1-based line of the offending node or syntax error inside the (stripped) expression. */
  line: number;
  /** 1-based column, counted in code points. */
  col: number;
  /** 1-based exclusive end column on `line`, for the caret; defaults to col + 1. */
  endCol?: number;
  /** The stripped expression, used to draw the caret excerpt; omitted for non-string input. */
  source?: string;
  /** What to write instead (see `SandboxError.hint`); omitted or null when there is nothing to add. */
  hint?: string | null;
}

export class SandboxError extends RecipeSchemaError {
  override name = 'SandboxError';
  readonly kind: SandboxErrorKind;
  readonly node: string | null;
  override readonly line: number;
  override readonly col: number;
  override readonly endCol: number;
  /** The one-line reason without the excerpt, for JSON output and lint marks. */
  readonly detail: string;
  /**
   * One line saying what to write instead, for the constructs authors commonly try (`in` → put the substring in
   * the regex, `.lower()` → `(?i)`, f-strings, comprehensions, …; src/condition/hints.ts), or null. It is never
   * part of `detail`, `reason` or `message`, which keep the original's wording: a caller shows it as its own line
   * after the excerpt (`withHint`).
   */
  readonly hint: string | null;

  constructor(init: SandboxErrorInit) {
    super(formatMessage(init));
    this.kind = init.kind;
    this.node = init.node;
    this.line = init.line;
    this.col = init.col;
    this.endCol = Math.max(init.endCol ?? init.col + 1, init.col + 1);
    this.detail = init.detail;
    this.hint = init.hint ?? null;
  }
}

/**
 * `err.message`, then its hint as a last line (`  hint: …`, indented like the caret excerpt) when it has one:
 * what a terminal shows for a rejected condition.
 */
export function withHint(err: SandboxError): string {
  return err.hint === null ? err.message : `${err.message}\n  hint: ${err.hint}`;
}

function formatMessage(init: SandboxErrorInit): string {
  // A syntax error's detail already ends with its position, in the original's wording.
  const where =
    init.node === null ? `line ${init.line}, col ${init.col}` : `${init.node} at line ${init.line}, col ${init.col}`;
  const head = init.kind === 'syntax' ? init.detail : `${init.detail} (${where})`;
  if (init.source === undefined) return head;
  return `${head}\n${caretExcerpt(init.source, init.line, init.col, init.endCol ?? init.col + 1)}`;
}

/** Longest excerpt line shown, in code points; a longer line is cut around the caret with `…`. */
export const MAX_EXCERPT_CPS = 200;
/** Code points kept before the caret when a long line is cut. */
const EXCERPT_LEAD = 80;

/**
 * Shows the offending source line with carets under columns [col, endCol). Columns are code points,
 * so the line is walked by code point; control characters are shown as spaces so the caret stays
 * aligned in a terminal. The excerpt is bounded: only the one line is visited, and a line longer
 * than MAX_EXCERPT_CPS is shown as a window around the caret, so a 30 MB condition or recipe line
 * gives a message of a few hundred characters.
 */
export function caretExcerpt(source: string, line: number, col: number, endCol: number): string {
  const [from, to] = lineBounds(source, line);
  let length = 0;
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (source.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    length++;
  }
  const start = Math.min(Math.max(col, 1), length + 1);
  const end = Math.min(Math.max(endCol, start + 1), length + 2);
  const first =
    length <= MAX_EXCERPT_CPS ? 0 : Math.max(0, Math.min(start - 1 - EXCERPT_LEAD, length - MAX_EXCERPT_CPS));
  const last = length <= MAX_EXCERPT_CPS ? length : first + MAX_EXCERPT_CPS;
  let text = first > 0 ? '…' : '';
  let k = 0;
  for (const ch of source.slice(from, to)) {
    if (k >= last) break;
    if (k >= first) text += ch < ' ' || ch === '\x7f' ? ' ' : ch;
    k++;
  }
  if (last < length) text += '…';
  const lead = start - 1 - first + (first > 0 ? 1 : 0);
  const carets = Math.max(1, Math.min(end, last + 2) - start);
  return `  ${text}\n  ${' '.repeat(lead)}${'^'.repeat(carets)}`;
}

/** UTF-16 bounds [from, to) of 1-based `line`, lines split at \r\n, \r or \n; past the end: empty. */
function lineBounds(source: string, line: number): [number, number] {
  let from = 0;
  for (let l = 1; l < line; l++) {
    const nl = nextBreak(source, from);
    if (nl === source.length) return [source.length, source.length];
    from = nl + (source.charCodeAt(nl) === 0x0d && source.charCodeAt(nl + 1) === 0x0a ? 2 : 1);
  }
  return [from, nextBreak(source, from)];
}

function nextBreak(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return i;
  }
  return source.length;
}
