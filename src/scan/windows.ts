/**
 * Scan windows: they exist only to bound the size of each RE2 call (re2-wasm copies the whole subject into a fixed
 * 16 MiB heap; the regex module refuses subjects over MAX_SUBJECT_UTF8_BYTES). Windows are measured in **UTF-8
 * bytes** (the unit of that cap), always cut on code-point boundaries, and consecutive windows overlap by
 * `min(4096, window / 2)` bytes, as the original's `_iter_windows` (which counted code points).
 *
 * Every start offset belongs to exactly one window ("owns"): window k owns [start_k, start_{k+1}), the last window
 * owns the rest. A match is reported only by the window that owns its start, so a match inside an overlap is
 * reported once, and every reported match had at least `overlap` bytes of text after its start in view. Each window
 * also carries one code point of left context, so `^`, `\b` and friends see the same character before the search
 * position as in the whole text.
 *
 * Iteration is that of `matchAll` over the whole text (leftmost-first, non-overlapping, an empty match steps one
 * code point): a window resumes where the previous window's last reported match ended. The result equals
 * `matchAll(re, wholeText)` whenever each match is decided within `overlap` bytes of its start — always when the
 * whole text fits in one window.
 *
 * Skipping empty matches (`skipEmptyMatches`, the scanner's empty-match skip; the proof is regex/nonempty.ts E1–E4
 * and scan/scan.ts S1–S4): the matcher then reports exactly the non-empty matches of the iteration above, in order,
 * with the same extents and captures, and counts the empty ones it did not report (`takeSkipped`) where the
 * pattern's empty matches can be counted. Two rules keep it in step with that iteration across windows: the next
 * search never moves back before the end of the last match reported (a match may end past `ownEnd`), and a window
 * in which nothing more is found hands over at its `ownEnd`, where the next window's own positions start.
 */
import {
  compileRegex,
  matchAll,
  MAX_SUBJECT_UTF8_BYTES,
  RegexSyntaxError,
  searchRegexUnchecked,
  utf8ByteLength,
  windowMayMatch,
  type RegexHandle,
  type RegexMatch,
} from '../regex/index.js';

/** Room for the one code point of left context (at most 4 UTF-8 bytes) each window carries. */
const CONTEXT_BYTES = 4;
/**
 * Default window: 60 KiB. RE2 needs no backtracking bound, so the size only trades per-window overhead against
 * allocation: a window's text (≤ 120 KiB even as two-byte characters) stays under V8's 128 KiB large-object
 * threshold, so it is allocated in the young generation, whose pages are reused. Larger windows get fresh
 * mmap'ed pages each, and page faults then dominate a stream scan (measured: 1 MiB windows scan a stream
 * ~30% slower). The largest accepted is the regex module's subject cap minus the context code point.
 */
export const DEFAULT_WINDOW_BYTES = 60 * 1024;
/** Largest accepted window: every RE2 call (window + context) stays within the regex module's cap. */
export const MAX_WINDOW_BYTES = MAX_SUBJECT_UTF8_BYTES - CONTEXT_BYTES;
/** The original's `_WINDOW_OVERLAP_BYTES`. */
export const MAX_OVERLAP_BYTES = 4096;
/** Smallest accepted window (an astral code point is 4 bytes; windows must make progress). */
export const MIN_WINDOW_BYTES = 16;

export interface WindowOptions {
  /** Window size in UTF-8 bytes (default DEFAULT_WINDOW_BYTES). Tests use e.g. 100. */
  windowBytes?: number;
}

export function resolveWindowBytes(options: WindowOptions = {}): number {
  const w = options.windowBytes ?? DEFAULT_WINDOW_BYTES;
  if (!Number.isInteger(w) || w < MIN_WINDOW_BYTES || w > MAX_WINDOW_BYTES) {
    throw new RangeError(`windowBytes must be an integer in [${MIN_WINDOW_BYTES}, ${MAX_WINDOW_BYTES}], got ${w}`);
  }
  return w;
}

export function overlapFor(windowBytes: number): number {
  return Math.min(MAX_OVERLAP_BYTES, Math.floor(windowBytes / 2));
}

/** One window of the text. Offsets inside `text`; `base` maps them to the whole text. */
export interface ScanWindow {
  /** The window's text, including the left-context code point (if any). */
  readonly text: string;
  /** UTF-16 offset of `text[0]` in the whole text. */
  readonly base: number;
  /** First index of `text` the window owns (after the context code point). */
  readonly from: number;
  /** Index of `text` just past the owned region (`text.length` for the last window). */
  readonly ownEnd: number;
  readonly last: boolean;
  /**
   * UTF-8 bytes of the owned region `text[from, ownEnd)`, when the windower has them at hand (cut from valid
   * UTF-8 bytes, scan/byte-windows.ts); absent, whoever needs them counts them (scan/position.ts).
   */
  readonly ownBytes?: number;
  /**
   * The window's text as its UTF-8 bytes, when it was cut from valid UTF-8 (scan/byte-windows.ts): a view that is
   * valid only until the windower is given more bytes (a session is fed each window before that).
   */
  readonly bytes?: Uint8Array;
  /** Index in `bytes` where the owned region starts (given with `bytes`). */
  readonly bytesFrom?: number;
  /** Whether `bytes` are all ASCII (given with `bytes`). */
  readonly ascii?: boolean;
}

/** UTF-8 bytes and UTF-16 units of the code point at `i`. A lone surrogate counts as U+FFFD (3 bytes). */
function cpAt(s: string, i: number): [units: number, bytes: number] {
  const c = s.charCodeAt(i);
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [1, 2];
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return [2, 4];
  }
  return [1, 3];
}

/** UTF-8 bytes and UTF-16 units of the code point ending just before `i` (i > 0). */
function cpBefore(s: string, i: number): [units: number, bytes: number] {
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return [2, 4];
  }
  return cpAt(s, i - 1);
}

/** Furthest code-point boundary `e` with bytes(text[from, e)) ≤ budget; at least one code point past `from`. */
export function advanceBytes(s: string, from: number, budget: number): number {
  // ASCII runs (one byte per unit) are found with a RegExp scan over the budget's span instead
  // of a loop per character: this function walks every character of the log, so it bounds the
  // scan speed. (substring is O(1) in V8: a slice of the same string.)
  let i = from;
  let used = 0;
  const n = s.length;
  // Most logs are ASCII: one native byte count proves the whole budget's span is (bytes = units).
  const span0 = Math.min(n - from, budget);
  if (span0 > 0 && utf8ByteLength(s.substring(from, from + span0)) === span0) {
    i += span0;
    used = span0;
    if (used >= budget || i >= n) return i;
  }
  while (i < n) {
    const room = budget - used;
    const span = Math.min(n - i, Math.max(room, 1));
    const m = NON_ASCII.exec(s.substring(i, i + span));
    const run = m === null ? span : m.index;
    if (run > 0) {
      if (run > room) return i > from ? i : from + 1; // only when room <= 0: one code point minimum
      used += run;
      i += run;
      if (m === null) {
        if (used >= budget) return i;
        continue; // the end of the text
      }
    }
    const c = s.charCodeAt(i);
    let u = 1;
    let b: number;
    if (c < 0x800) b = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      u = 2;
      b = 4;
    } else b = 3;
    if (used + b > budget && i > from) break;
    used += b;
    i += u;
  }
  return i;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Smallest code-point boundary `b` ≥ floor with bytes(text[b, to)) ≤ budget. */
export function retreatBytes(s: string, to: number, budget: number, floor: number): number {
  let i = to;
  let used = 0;
  while (i > floor) {
    const [u, b] = cpBefore(s, i);
    if (used + b > budget) break;
    used += b;
    i -= u;
  }
  return i;
}

/** The windows over a whole text (a single window, even for "", when it fits). */
export function* iterWindows(text: string, options: WindowOptions = {}): Generator<ScanWindow> {
  const windowBytes = resolveWindowBytes(options);
  // Cheap exit: 3 bytes per UTF-16 unit is the worst case.
  if (text.length * 3 <= windowBytes || utf8ByteLength(text) <= windowBytes) {
    yield { text, base: 0, from: 0, ownEnd: text.length, last: true };
    return;
  }
  const overlap = overlapFor(windowBytes);
  let start = 0;
  for (;;) {
    const end = advanceBytes(text, start, windowBytes);
    const last = end >= text.length;
    const ctx = start > 0 ? start - cpBefore(text, start)[0] : 0;
    let next = end;
    if (!last) {
      next = retreatBytes(text, end, overlap, start);
      if (next <= start) next = end; // cannot happen for windowBytes ≥ MIN_WINDOW_BYTES; guarantees progress
    }
    yield { text: text.slice(ctx, end), base: ctx, from: start - ctx, ownEnd: next - ctx, last };
    if (last) return;
    start = next;
  }
}

/** A UTF-16 surrogate pair: one code point in two units. */
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;
const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Code points in `s[from, to)` (both on code-point boundaries), a lone surrogate counting as one, as `cpAt`. */
function codePoints(s: string, from: number, to: number): number {
  const pairs = s.substring(from, to).match(SURROGATE_PAIRS);
  return to - from - (pairs === null ? 0 : pairs.length);
}

/**
 * The positions q in [from, to) where the zero-width `re` (flags `gu`) holds, reading the whole of `s` around q:
 * one search per position found, stepping one code point after each, as `matchAll` steps after an empty match.
 * V8 may report a place between the two halves of a surrogate pair (even with the `u` flag, a lookbehind is
 * tried there); that is no position (RE2 reads code points) and is not counted.
 */
function countPositions(re: RegExp, s: string, from: number, to: number): number {
  let n = 0;
  let q = from;
  while (q < to) {
    re.lastIndex = q;
    const m = re.exec(s);
    if (m === null || m.index >= to) break;
    const i = m.index;
    if (i > 0 && (s.charCodeAt(i) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800) {
      q = i + 1; // inside a pair: the next position is after it
      continue;
    }
    n++;
    if (i >= s.length) break;
    q = i + cpAt(s, i)[0];
  }
  return n;
}

/** Match options for a search expected to end on its first line (line-local patterns get the shortest subject). */
const ONE_LINE = { windowBytes: 1 } as const;

/** A match with offsets in the whole text. */
export interface AbsoluteMatch extends RegexMatch {}

/**
 * One regex's progress through a sequence of windows: yields each match once, in text order, with absolute
 * UTF-16 offsets. Feed it the windows in order.
 */
export class WindowedMatcher {
  /**
   * Whether windows without any of a pattern's required literals are skipped. Only the
   * differential test turns it off, to prove that skipping changes no result.
   */
  static prefilter = true;
  /** Whether `skipEmptyMatches()` may take effect; only the differential test turns it off. */
  static emptySkip = true;
  /** Absolute UTF-16 offset where the next search starts. */
  #next = 0;
  /** The pattern's non-empty companion once empty matches are skipped (see `skipEmptyMatches`), else null. */
  #companion: RegexHandle | null = null;
  /** Empty matches stepped over since the last match reported (counted where they can be: nonempty.ts E3, E4). */
  #skipped = 0;
  /** The V8 RegExp of `regex.emptyMatches.positions` (E4), made at first use; null when there is none. */
  #positionsRe: RegExp | null | undefined;

  /** The pattern's empty-match positions as a RegExp (E4), for one that does not match everywhere. */
  #positions(): RegExp | null {
    if (this.#positionsRe === undefined) {
      const source = this.regex.emptyMatches?.positions ?? null;
      this.#positionsRe = source === null ? null : new RegExp(source, 'gu');
    }
    return this.#positionsRe;
  }

  constructor(readonly regex: RegexHandle) {}

  /**
   * From now on, empty matches are not reported: the caller knows their capture dict (always the same one, see
   * `RegexHandle.emptyMatches`) cannot change its result. After an empty match the search jumps to the next
   * position where the pattern can match something non-empty, found by the companion in one search, instead of
   * one engine call per position. Returns false (and changes nothing) when the pattern has no companion.
   */
  skipEmptyMatches(): boolean {
    if (this.#companion !== null) return true;
    const source = this.regex.nonEmptyCompanion;
    if (source === null || !WindowedMatcher.emptySkip) return false;
    try {
      this.#companion = compileRegex(source, this.regex.flags);
    } catch (err) {
      if (!(err instanceof RegexSyntaxError)) throw err;
      return false; // e.g. too large for the engine: keep stepping one position at a time
    }
    return true;
  }

  /**
   * How many empty matches were stepped over (not reported) since the last match reported, or since the start;
   * resets the count. Exact for a pattern whose empty matches can be counted (`regex.emptyMatches.positions` is
   * not null; nonempty.ts E3, E4): the empty matches `matchAll` reports there and this matcher does not. Always 0
   * for other patterns.
   * Take it when a match is reported (the empty matches before it), and once more after the last window.
   */
  takeSkipped(): number {
    const n = this.#skipped;
    this.#skipped = 0;
    return n;
  }

  /**
   * The matches in `w` past the last one reported. `literalsFound`: the caller knows the window holds the pattern's
   * literals (the byte pass found them), so looking for them again in its text would only cost time.
   */
  *matchesIn(w: ScanWindow, literalsFound = false): Generator<AbsoluteMatch> {
    const from = Math.max(w.from, this.#next - w.base);
    if (from > w.text.length) return;
    if (!w.last && from >= w.ownEnd) return;
    // The prefilter: a window holding none of the pattern's literals cannot match; skip RE2.
    const literals = this.regex.literals;
    if (WindowedMatcher.prefilter && literals !== null && !literalsFound && !windowMayMatch(literals, w.text, from))
      return;
    if (this.#companion !== null) {
      yield* this.#nonEmptyMatchesIn(w, from, this.#companion);
      return;
    }
    for (const m of matchAll(this.regex, w.text, from)) {
      if (!w.last && m.index >= w.ownEnd) return; // the next window owns it (and sees more of what follows)
      this.#advance(w, m);
      yield m;
    }
  }

  /** Moves the next search past `m` and makes its offsets absolute (m is ours: matchAll makes a fresh object). */
  #advance(w: ScanWindow, m: AbsoluteMatch): void {
    const step = m.end > m.index ? 0 : m.end < w.text.length ? cpAt(w.text, m.end)[0] : 1;
    this.#next = w.base + m.end + step;
    m.index += w.base;
    m.end += w.base;
  }

  /**
   * The non-empty matches, as iterating every position would find them: the companion finds the next position
   * where the pattern can match something non-empty; the pattern is asked only there (an empty match there is
   * stepped over like any other). Between two such positions the pattern matches only emptily (nonempty.ts E2), so
   * each match it reports here is one that `matchAll` reports too, with the same extent and captures. The empty
   * matches of each range it steps over are counted where they can be: for a pattern that matches everywhere, one
   * per code point boundary in the range (E3), else one per position where `emptyMatches.positions` holds (E4);
   * the last window's range includes the end of its text.
   */
  *#nonEmptyMatchesIn(w: ScanWindow, from: number, companion: RegexHandle): Generator<AbsoluteMatch> {
    let pos = from;
    const whole = { wellFormed: w.text.isWellFormed() }; // checked once per window, not per search
    const line = { ...ONE_LINE, ...whole };
    const empties = this.regex.emptyMatches;
    const everywhere = empties?.everywhere === true;
    const count = everywhere || this.#positions() !== null;
    const pairs = everywhere && w.ascii !== true && SURROGATE_PAIR.test(w.text); // else code points = UTF-16 units
    /** Counts the empty matches at the positions of [pos, to), and at `to` too when `end` (E3, E4). */
    const skip = (to: number, end = false): void => {
      if (!count) return;
      if (everywhere) {
        if (to > pos) this.#skipped += pairs ? codePoints(w.text, pos, to) : to - pos;
        if (end) this.#skipped++;
      } else this.#skipped += countPositions(this.#positions()!, w.text, pos, end ? to + 1 : to);
    };
    while (pos <= w.text.length) {
      const n = searchRegexUnchecked(companion, w.text, pos, whole);
      if (n === null || (!w.last && n.index >= w.ownEnd)) {
        // Only empty matches up to the end of what this window owns: the next window starts there. The last
        // window owns the end of the text, where the pattern may match emptily too.
        if (w.last) skip(w.text.length, true);
        else skip(w.ownEnd);
        this.#rest(w);
        return;
      }
      skip(n.index);
      // The match starts at n.index (or soon after): a line-local pattern needs only the rest of that line.
      const m = searchRegexUnchecked(this.regex, w.text, n.index, line);
      if (m === null || (!w.last && m.index >= w.ownEnd)) {
        this.#rest(w);
        return;
      }
      const empty = m.end === m.index;
      this.#advance(w, m);
      pos = this.#next - w.base;
      if (!empty) yield m;
      else if (count) this.#skipped++;
    }
  }

  /**
   * Nothing more to report in `w`: the next search starts at the next window's first owned position, or past the
   * end of the last window, never before where the last match reported ended (it may end past `ownEnd`).
   */
  #rest(w: ScanWindow): void {
    this.#next = w.last ? w.base + w.text.length + 1 : Math.max(this.#next, w.base + w.ownEnd);
  }

  /** Releases the companion (the pattern itself belongs to the caller). */
  dispose(): void {
    this.#companion?.dispose();
    this.#companion = null;
  }
}

/** Every match of `regex` in `text`, window by window, each once, with absolute offsets. */
export function* windowedMatches(
  regex: RegexHandle,
  text: string,
  options: WindowOptions = {},
): Generator<AbsoluteMatch> {
  const matcher = new WindowedMatcher(regex);
  for (const w of iterWindows(text, options)) yield* matcher.matchesIn(w);
}
