import type { Pos, SourceText } from './source.js';

/**
 * A syntax error as CPython would raise it from `ast.parse`: its message and the 1-based position
 * (code-point column) it points at. Internal to the front end; `validateCondition` turns it into a
 * `SandboxError`. Made only by `syntaxError` / `syntaxErrorAt`, so every site spans its range the
 * same way (acorn's `pp.raise` model: one error path from an offset to a position).
 */
export class PySyntaxError extends Error {
  override name = 'PySyntaxError';
  constructor(
    readonly msg: string,
    readonly pos: Pos,
    /** Exclusive end column on `pos.line`; a span ending on a later line is shown as one column. */
    readonly endCol: number,
    /**
     * The position as CPython's message writes it, when that is not `pos` (no position at all,
     * or column 0 at the end of input); the caret still uses `pos`.
     */
    readonly where = `line ${pos.line}, col ${pos.col}`,
  ) {
    super(`${msg} (${where})`);
  }
}

/** An error CPython raises before tokenizing, without a position (`lineno` is None). */
export function unpositionedError(msg: string, at: Pos): PySyntaxError {
  return new PySyntaxError(msg, at, at.col + 1, 'line None, col None');
}

/** The generic error at the end of input: CPython's offset there is 0 (the implicit NEWLINE has none). */
export function atEndOfInput(e: PySyntaxError): PySyntaxError {
  return new PySyntaxError(e.msg, e.pos, e.endCol, `line ${e.pos.line}, col 0`);
}

/** The error for the span [start, end); without `end`, or when it ends on a later line, one column. */
export function syntaxError(msg: string, start: Pos, end?: Pos): PySyntaxError {
  const endCol = end !== undefined && end.line === start.line ? Math.max(end.col, start.col + 1) : start.col + 1;
  return new PySyntaxError(msg, start, endCol);
}

/** The error for code points [index, endIndex) of `src`. */
export function syntaxErrorAt(src: SourceText, msg: string, index: number, endIndex = index + 1): PySyntaxError {
  return syntaxError(msg, src.posAt(index), src.posAt(Math.max(endIndex, index + 1)));
}

/** The same error with a new message (an f-string field's error gains the `f-string: ` prefix). */
export function withMessage(e: PySyntaxError, msg: string): PySyntaxError {
  return new PySyntaxError(msg, e.pos, e.endCol);
}
