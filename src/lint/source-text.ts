/**
 * The text of a checked condition addressed by AST positions, to quote sub-expressions in
 * messages and to build suggestions from the author's own spelling (quotes, spacing) rather
 * than a normalised unparse.
 */
import type { Loc } from '../condition/ast.js';
import { fromCodePoints, toCodePoints, translateNewlines } from '../condition/source.js';

/** A half-open range of code-point indices into the (newline-translated) condition. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export class ConditionText {
  private readonly cps: readonly number[];
  /** Index of the first code point of each line. */
  private readonly lineStarts: readonly number[];

  /** `source` is the stripped condition the tree was parsed from. */
  constructor(source: string) {
    this.cps = toCodePoints(translateNewlines(source));
    const starts = [0];
    this.cps.forEach((c, i) => {
      if (c === 0x0a) starts.push(i + 1);
    });
    this.lineStarts = starts;
  }

  private index(line: number, col: number): number {
    const start = this.lineStarts[line - 1] ?? this.cps.length;
    return Math.min(start + col - 1, this.cps.length);
  }

  span(loc: Loc): Span {
    return { start: this.index(loc.line, loc.col), end: this.index(loc.endLine, loc.endCol) };
  }

  /** The span as a Loc (1-based line, code-point columns, exclusive end). */
  loc(span: Span): Loc {
    const at = (i: number): { line: number; col: number } => {
      let line = 1;
      while (line < this.lineStarts.length && this.lineStarts[line]! <= i) line++;
      return { line, col: i - this.lineStarts[line - 1]! + 1 };
    };
    const a = at(span.start);
    const b = at(span.end);
    return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }

  text(span: Span): string {
    return fromCodePoints(this.cps, span.start, span.end);
  }

  /** The text on one line (whitespace runs with a line break collapse to a space), for messages. */
  quote(span: Span): string {
    return this.text(span).replace(/\s*\n\s*/g, ' ');
  }

  /**
   * Widens a node's span over the parentheses written around it: CPython's positions exclude
   * them (`(a) > 1` has `a` at col 2), but a replacement must include them to stay balanced. A
   * `(` just before a balanced span and a `)` just after it always match each other.
   */
  parenthesized(span: Span): Span {
    let { start, end } = span;
    for (;;) {
      let a = start - 1;
      while (a >= 0 && isBlank(this.cps[a]!)) a--;
      let b = end;
      while (b < this.cps.length && isBlank(this.cps[b]!)) b++;
      if (a < 0 || b >= this.cps.length || this.cps[a] !== 0x28 || this.cps[b] !== 0x29) return { start, end };
      start = a;
      end = b + 1;
    }
  }

  /** The text of `outer` with each inner span replaced (spans must nest in `outer` and not overlap). */
  replace(outer: Span, edits: readonly { span: Span; text: string }[]): string {
    const sorted = [...edits].sort((x, y) => x.span.start - y.span.start);
    let out = '';
    let at = outer.start;
    for (const e of sorted) {
      out += fromCodePoints(this.cps, at, e.span.start) + e.text;
      at = e.span.end;
    }
    return out + fromCodePoints(this.cps, at, outer.end);
  }
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0c || c === 0x0a || c === 0x5c; // backslash: line continuation
}
