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

  constructor(init: SandboxErrorInit) {
    super(formatMessage(init));
    this.kind = init.kind;
    this.node = init.node;
    this.line = init.line;
    this.col = init.col;
    this.endCol = Math.max(init.endCol ?? init.col + 1, init.col + 1);
    this.detail = init.detail;
  }
}

function formatMessage(init: SandboxErrorInit): string {
  // A syntax error's detail already ends with its position, in the original's wording.
  const where = init.node === null ? `line ${init.line}, col ${init.col}` : `${init.node} at line ${init.line}, col ${init.col}`;
  const head = init.kind === 'syntax' ? init.detail : `${init.detail} (${where})`;
  if (init.source === undefined) return head;
  return `${head}\n${caretExcerpt(init.source, init.line, init.col, init.endCol ?? init.col + 1)}`;
}

/**
 * Shows the offending source line with carets under columns [col, endCol). Columns are code points,
 * so the line is split into code points before padding; control characters are shown as spaces so
 * the caret stays aligned in a terminal.
 */
export function caretExcerpt(source: string, line: number, col: number, endCol: number): string {
  const lines = source.split(/\r\n|\r|\n/);
  const text = Array.from(lines[line - 1] ?? '').map((ch) => (ch < ' ' || ch === '\x7f' ? ' ' : ch));
  const start = Math.min(Math.max(col, 1), text.length + 1);
  const end = Math.min(Math.max(endCol, start + 1), text.length + 2);
  return `  ${text.join('')}\n  ${' '.repeat(start - 1)}${'^'.repeat(end - start)}`;
}
