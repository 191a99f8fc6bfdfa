/**
 * Matching with correct UTF-16 offsets.
 *
 * re2-wasm's `match(input, start, groups)` takes the subject as an embind `std::string`: every call mallocs a
 * buffer in the WASM heap and copies the whole argument into it, and it reports `index` in code points. No exported
 * function accepts a pointer to memory we manage, and the std::string wire type cannot be bypassed from outside the
 * emscripten closure, so **a subject cannot stay resident in WASM between calls**. What this module does instead:
 *
 *  - passes UTF-8 `Uint8Array`s, which embind copies byte-wise: measured 2.7 ms per MiB versus 8.6 ms per MiB
 *    for passing the JS string (embind transcodes UTF-16 → UTF-8 on every call). For a pattern that may match
 *    "\n" the text is encoded once and each call gets a suffix view; line-local windows are encoded per window;
 *  - passes only the part of the text after the search position, starting one code point *before* it, with
 *    start = 1 code point. RE2's empty-width assertions (`^ $ \A \z \b \B`, `(?m)^ $`) look at most one
 *    character behind, and `^`/`\A` cannot match at start > 0, so this is exactly equivalent to searching the full
 *    text from that position (and keeps the C++ side's code-point → byte walk O(1));
 *  - for a pattern that provably cannot match "\n" (`RegexHandle.lineLocal`), passes a *line-aligned window*:
 *    from the context character to the first "\n" at least `windowBytes` units further on, that "\n" included. Every
 *    match starting in the window ends before that "\n", and the assertions at its end see the same characters as
 *    in the full text, so results are identical; an empty match found exactly at the window end is discarded and
 *    searched again in the next window. The per-match copy is then ~windowBytes instead of the whole remaining text,
 *    and the subject-size limit applies per window (only a single over-long line is refused);
 *  - converts code-point indices back to UTF-16 by walking forward from the window start (O(n) in total).
 *    Line-local windows grow 4× while they find nothing, so a sparse scan costs few calls.
 *
 * Remaining cost for patterns that may match "\n": `matchAll` copies the remaining text once per match,
 * O(n × matches) bytes (measured ≈1 ms per match on a 1 MiB text with a match every 47 bytes).
 *
 * Iteration semantics follow RE2/Go `FindAll` and JS `matchAll`: after an empty match the search resumes one code
 * point further on. (Python's `finditer` may additionally report a non-empty match starting where an empty one
 * ended; patterns that can match empty are rare in log scanning.)
 */
import type { RegexHandle } from './compile.js';
import { RegexSubjectTooLargeError } from './errors.js';
import { MAX_SUBJECT_UTF8_BYTES, codePointWidths, utf8ByteLength } from './limits.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export interface RegexMatch {
  /** UTF-16 offset of the match in the text (what `String.prototype.slice` expects). */
  index: number;
  /** UTF-16 offset just past the match. */
  end: number;
  /** `text.slice(index, end)`. */
  match: string;
  /** Positional captures: `groups[k]` is group k+1, undefined if it did not take part. */
  groups: (string | undefined)[];
  /** Named groups that took part in the match (Python's `groupdict()` without the None values). */
  named: Record<string, string>;
}

export interface MatchOptions {
  /** Largest UTF-8 subject handed to one re2-wasm call; default MAX_SUBJECT_UTF8_BYTES. */
  maxSubjectBytes?: number;
  /**
   * Line-local patterns: minimum window, in UTF-16 units, before extending to the next "\n" (default 1024). It grows
   * 4× (up to maxSubjectBytes / 8) after each window without a match and shrinks back after a match.
   */
  windowBytes?: number;
  /**
   * 'auto' (default): a pattern in the fast-path subset (`RegexHandle.fast`) runs on V8's RegExp when the text is
   * well-formed UTF-16; 're2': always re2-wasm (the differential tests compare the two).
   */
  engine?: 'auto' | 're2';
  /**
   * The caller already knows whether `text.isWellFormed()` (the fast path's precondition): set it when searching
   * the same text many times, so each call does not re-check the whole text.
   */
  wellFormed?: boolean;
}

/** The option keys of `matchAll`, `searchRegex` and `testRegex` (text/options.ts). */
export const MATCH_OPTION_KEYS = {
  maxSubjectBytes: OPTION,
  windowBytes: OPTION,
  engine: OPTION,
  wellFormed: OPTION,
} satisfies OptionTable<MatchOptions>;

const NO_OPTIONS: MatchOptions = {};

const DEFAULT_WINDOW_BYTES = 1024;
const encoder = new TextEncoder();

/** Snap an index that falls inside a surrogate pair back to the pair's start, and clamp to [0, length]. */
function normaliseFrom(text: string, fromIndex: number): number {
  let i = Math.min(Math.max(0, Math.trunc(fromIndex) || 0), text.length);
  if (i > 0 && i < text.length) {
    const lo = text.charCodeAt(i);
    const hi = text.charCodeAt(i - 1);
    if (lo >= 0xdc00 && lo <= 0xdfff && hi >= 0xd800 && hi <= 0xdbff) i--;
  }
  return i;
}

/** UTF-16 width and UTF-8 bytes of the code point that ends just before index `i` (i > 0). */
function prevCodePoint(text: string, i: number): { units: number; bytes: number } {
  const lo = text.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return { units: 2, bytes: 4 };
  }
  return codePointWidths(text, i - 1);
}

/**
 * All non-overlapping matches of `regex` in `text` from UTF-16 offset `fromIndex`, lazily.
 * Throws `RegexSubjectTooLargeError` immediately (not on the first `next()`) if the pattern is not line-local and
 * the text from `fromIndex` is larger than the limit; for a line-local pattern it is thrown lazily, when a single
 * line is too long. Throws `RegexDisposedError` if the handle is (or becomes) disposed.
 */
export function matchAll(
  regex: RegexHandle,
  text: string,
  fromIndex = 0,
  options?: MatchOptions,
): IterableIterator<RegexMatch> {
  // Checked only when given: the scanner calls these once a line or a match, mostly without options.
  if (options !== undefined) checkOptions('matchAll', options, MATCH_OPTION_KEYS);
  return start(regex, text, fromIndex, options ?? NO_OPTIONS, true);
}

/** The first match at or after `fromIndex`, or null. */
export function searchRegex(
  regex: RegexHandle,
  text: string,
  fromIndex = 0,
  options?: MatchOptions,
): RegexMatch | null {
  if (options !== undefined) checkOptions('searchRegex', options, MATCH_OPTION_KEYS);
  return searchRegexUnchecked(regex, text, fromIndex, options ?? NO_OPTIONS);
}

/** `searchRegex` without the check of `options`, for the scanner's searches with options it built (scan/windows.ts). */
export function searchRegexUnchecked(
  regex: RegexHandle,
  text: string,
  fromIndex: number,
  options: MatchOptions,
): RegexMatch | null {
  const r = start(regex, text, fromIndex, options, true).next();
  return r.done ? null : r.value;
}

/** Whether `regex` matches anywhere in `text` at or after `fromIndex` (captures are not extracted). */
export function testRegex(regex: RegexHandle, text: string, fromIndex = 0, options?: MatchOptions): boolean {
  if (options !== undefined) checkOptions('testRegex', options, MATCH_OPTION_KEYS);
  return !start(regex, text, fromIndex, options ?? NO_OPTIONS, false).next().done;
}

function start(
  regex: RegexHandle,
  text: string,
  fromIndex: number,
  options: MatchOptions,
  withGroups: boolean,
): Generator<RegexMatch> {
  const from = normaliseFrom(text, fromIndex);
  const fast = regex.fast;
  // A lone surrogate reads as U+FFFD in RE2 but as itself in V8: such texts stay on RE2.
  if (fast !== null && options.engine !== 're2' && (options.wellFormed ?? text.isWellFormed())) {
    regex.raw(); // fail fast if disposed
    return iterateFast(regex, fast, text, from, withGroups);
  }
  const limit = options.maxSubjectBytes ?? MAX_SUBJECT_UTF8_BYTES;
  regex.raw(); // fail fast if disposed
  if (!regex.lineLocal) {
    // What is copied starts one code point before `from` (the context character).
    const base = from > 0 ? from - prevCodePoint(text, from).units : 0;
    const bytes = utf8ByteLength(base === 0 ? text : text.slice(base));
    if (bytes > limit) throw new RegexSubjectTooLargeError(bytes, limit);
  }
  const window = regex.lineLocal ? Math.max(1, Math.min(options.windowBytes ?? DEFAULT_WINDOW_BYTES, limit)) : Infinity;
  return iterate(regex, text, from, withGroups, limit, window);
}

/** Python's `groupdict()` without the None values: the named groups that took part. */
function setNamed(
  named: Record<string, string>,
  names: readonly (string | undefined)[],
  groups: readonly (string | undefined)[],
): void {
  for (let k = 0; k < names.length; k++) {
    const name = names[k];
    const v = groups[k];
    if (name === undefined || v === undefined) continue;
    // A group named __proto__ must be a key like any other: assignment would set the prototype.
    if (name === '__proto__')
      Object.defineProperty(named, name, { value: v, enumerable: true, writable: true, configurable: true });
    else named[name] = v;
  }
}

/** Matches on V8's RegExp (fast-path.ts proves they are RE2's, and never empty). */
function* iterateFast(
  regex: RegexHandle,
  re: RegExp,
  text: string,
  from: number,
  withGroups: boolean,
): Generator<RegexMatch> {
  let pos = from;
  for (;;) {
    regex.raw(); // the handle may be disposed while iterating
    re.lastIndex = pos; // the RegExp is shared by every lease: set before each exec
    const m = re.exec(text);
    if (m === null) return;
    const index = m.index;
    const end = index + m[0].length;
    const groups: (string | undefined)[] = [];
    const named: Record<string, string> = {};
    if (withGroups) {
      for (let k = 1; k < m.length; k++) groups.push(m[k]);
      setNamed(named, regex.groupNames, groups);
    }
    yield { index, end, match: m[0], groups, named };
    pos = end;
  }
}

function* iterate(
  regex: RegexHandle,
  text: string,
  from: number,
  withGroups: boolean,
  limit: number,
  window: number,
): Generator<RegexMatch> {
  const lineLocal = window !== Infinity;
  // Not line-local: the text from the first context character is encoded once; each call passes a suffix view.
  let whole: Uint8Array | null = null;
  let cur16 = 0; // cursor into `whole`: a UTF-16 position and its UTF-8 offset (walked forward only)
  let curByte = 0;
  // Line-local: the window grows 4× after each window without a match, and shrinks back after a match.
  const maxWindow = Math.max(window, Math.floor(limit / 8));
  let curWindow = window;
  let search16 = from;

  for (;;) {
    const raw = regex.raw(); // re-checked each step: the handle may be disposed while iterating
    let ctx16 = search16;
    let startCp = 0;
    if (search16 > 0) {
      ctx16 -= prevCodePoint(text, search16).units;
      startCp = 1;
    }
    let sub: Uint8Array;
    let end16: number;
    if (!lineLocal) {
      if (whole === null) {
        whole = encoder.encode(ctx16 === 0 ? text : text.slice(ctx16));
        cur16 = ctx16;
      }
      while (cur16 < ctx16) {
        const w = codePointWidths(text, cur16);
        cur16 += w.units;
        curByte += w.bytes;
      }
      sub = curByte === 0 ? whole : whole.subarray(curByte);
      end16 = text.length;
    } else {
      const nl = text.indexOf('\n', Math.max(search16, ctx16 + curWindow));
      end16 = nl < 0 ? text.length : nl + 1;
      sub = encoder.encode(text.slice(ctx16, end16));
    }
    if (sub.length > limit) {
      if (lineLocal && curWindow > window) {
        curWindow = window; // a grown window overshot: retry with the minimum one
        continue;
      }
      throw new RegexSubjectTooLargeError(sub.length, limit);
    }
    const r = raw.match(sub, startCp, withGroups);

    // Walk r.index code points from the context start to the match's UTF-16 index.
    let index = ctx16;
    for (let k = 0; k < r.index; k++) index += codePointWidths(text, index).units;
    if (r.index < 0 || (index >= end16 && end16 < text.length)) {
      // No match in this window (or only an empty one at its very end, which the next window re-examines).
      if (end16 >= text.length) return;
      search16 = end16;
      curWindow = Math.min(curWindow * 4, maxWindow);
      continue;
    }
    curWindow = window;

    // The decoded match has the same UTF-16 length as the original span (a lone surrogate ↔ U+FFFD, both 1 unit).
    const end = index + r.match.length;
    const groups = withGroups ? r.groups.slice() : [];
    const named: Record<string, string> = {};
    if (withGroups) {
      setNamed(named, regex.groupNames, groups);
    }
    yield { index, end, match: text.slice(index, end), groups, named };

    // Next search position; after an empty match step over one code point.
    if (end === index) {
      if (end >= text.length) return;
      search16 = end + codePointWidths(text, end).units;
    } else {
      search16 = end;
    }
  }
}
