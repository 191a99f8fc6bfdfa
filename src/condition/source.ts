/**
 * Source text as CPython's tokenizer sees it: a sequence of code points (not UTF-16 units), with
 * `\r\n` and `\r` already translated to `\n`, and positions as 1-based line and code-point column.
 */
import { isPySpace } from './unicode-tables.js';

export interface Pos {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in code points. */
  readonly col: number;
}

/** Source code points plus the position of each index (the index one past the end included). */
export interface SourceText {
  readonly cps: readonly number[];
  posAt(index: number): Pos;
  /** Text of code points [start, end). */
  slice(start: number, end: number): string;
}

export function toCodePoints(text: string): number[] {
  const cps: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cps.push(0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
        i++;
        continue;
      }
    }
    cps.push(c);
  }
  return cps;
}

export function fromCodePoints(cps: readonly number[], start = 0, end = cps.length): string {
  if (end - start > 64) {
    // Long runs in chunks: spreading a huge array into one call would exceed the argument limit.
    let out = '';
    for (let i = start; i < end; i += 4096) out += String.fromCodePoint(...cps.slice(i, Math.min(end, i + 4096)));
    return out;
  }
  // Tokens are short: appending characters beats allocating a slice and spreading it.
  let out = '';
  for (let i = start; i < end; i++) {
    const c = cps[i]!;
    out += c < 0x10000 ? String.fromCharCode(c) : String.fromCodePoint(c);
  }
  return out;
}

/** CPython's `translate_newlines`: the tokenizer never sees a carriage return. */
export function translateNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** A source whose lines are split at `\n`. */
export function makeSource(cps: readonly number[], text?: string): SourceText {
  const lineStarts = [0];
  for (let i = 0; i < cps.length; i++) if (cps[i] === 0x0a) lineStarts.push(i + 1);
  // When every code point is one UTF-16 unit, slices of the original text are the token texts.
  const bmp = text !== undefined && text.length === cps.length ? text : undefined;
  return {
    cps,
    slice: bmp !== undefined ? (start, end) => bmp.slice(start, end) : (start, end) => fromCodePoints(cps, start, end),
    posAt(index: number): Pos {
      if (lineStarts.length === 1) return { line: 1, col: index + 1 };
      // Binary search for the last line start <= index.
      let lo = 0;
      let hi = lineStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (lineStarts[mid]! <= index) lo = mid;
        else hi = mid - 1;
      }
      return { line: lo + 1, col: index - lineStarts[lo]! + 1 };
    },
  };
}

/**
 * Python's `str.strip()` with no argument: strips what `str.isspace()` calls whitespace. Every
 * such character is in the BMP, so the ends are scanned by UTF-16 unit (a surrogate is never
 * whitespace) and only the stripped ends are visited: the cost does not grow with the text.
 */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text.charCodeAt(start))) start++;
  while (end > start && isPySpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The first `n` code points of `text` (all of it when shorter), without visiting the rest. */
export function codePointPrefix(text: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n && i < text.length; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, i);
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Length in code points, as Python's `len(str)`. */
export function pyLen(text: string): number {
  // The regex scan is native (instant on one-byte strings): only text with surrogates is walked.
  if (!HAS_SURROGATE.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
