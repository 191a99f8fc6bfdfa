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

const FINAL = new WeakSet<PySyntaxError>();

/**
 * Marks `e` as placed where CPython reports it, so an enclosing action does not move it to its
 * own position (an f-string field's tokenizer error keeps the column of the field's copy).
 */
export function finalPosition(e: PySyntaxError): PySyntaxError {
  FINAL.add(e);
  return e;
}

export function hasFinalPosition(e: PySyntaxError): boolean {
  return FINAL.has(e);
}

/** UTF-8 length of one code point (CPython's columns are often byte offsets). */
export function utf8Length(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/**
 * The column `_PyPegen_raise_error_known_location` reports for a parser error at `e.pos`. pegen
 * holds the column as a byte offset into its physical line, and turns it into characters by
 * decoding that many bytes (plus one) of `error_line`. When the error is on the tokenizer's
 * current line, `error_line` is `tok->buf`..`tok->inp`, and `buf` is where the current run of
 * lines began: an earlier line when this one was reached by a backslash continuation or inside a
 * string. The column is then counted in the wrong text (CPython 3.11 behaviour; a decode that
 * stops inside a character yields one U+FFFD, a count past the end one NUL).
 *
 * `tokLine` and `bufStart` are the tokenizer's state after the last token the parser fetched.
 */
export function pegenColumn(e: PySyntaxError, src: SourceText, tokLine: number, bufStart: number): PySyntaxError {
  if (e.where !== `line ${e.pos.line}, col ${e.pos.col}` || e.pos.line < tokLine) return e;
  const cps = src.cps;
  const lineStart = bufStart + countToLine(src, bufStart, e.pos.line);
  if (lineStart === bufStart) return e; // `buf` is this line's start: the decode is exact
  let bytes = 1; // pegen's offset is 1-based
  for (let j = lineStart; j < lineStart + e.pos.col - 1 && j < cps.length; j++) bytes += utf8Length(cps[j]!);
  let inp = lineStart;
  while (inp < cps.length && cps[inp] !== 0x0a) inp++;
  if (inp < cps.length) inp++;
  let col = 0;
  let j = bufStart;
  while (bytes > 0) {
    if (j >= inp) {
      col++; // the terminating NUL
      break;
    }
    bytes -= utf8Length(cps[j++]!);
    col++;
  }
  return new PySyntaxError(e.msg, e.pos, e.endCol, `line ${e.pos.line}, col ${col}`);
}

/** Code points from `from` to the start of 1-based `line` (which is at or after `from`'s line). */
function countToLine(src: SourceText, from: number, line: number): number {
  let j = from;
  while (j < src.cps.length && src.posAt(j).line < line) j++;
  return j - from;
}
