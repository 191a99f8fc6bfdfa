/**
 * A native fast path for a safe subset of patterns: V8's own RegExp, used only where it provably returns what
 * RE2 returns, in time linear in the text.
 *
 * Why: every re2-wasm call costs 4–5 µs before any matching (embind copies the subject byte by byte, builds the
 * result object property by property), so a pattern that matches every line of a log — each match needs its
 * captures to evaluate a condition — cannot scan faster than ~30 MB/s through re2-wasm. V8's RegExp finds the
 * same matches in ~0.1 µs each.
 *
 * Why it is safe — two properties are checked on the pattern's syntax, and anything outside the subset (or
 * anything this parser does not understand) stays on RE2:
 *
 *  1. **Same meaning.** The subset is: literal characters, `.`, character classes (ranges, `\d \w \s` and their
 *     negations, escapes), the quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy) on single characters only,
 *     capturing / non-capturing groups without quantifiers, alternation, and `\b \B`. No flags, no anchors, no
 *     Unicode classes. Each is translated to an explicit code-point class (`.` becomes `[^\n]`; `\d \w \s` become
 *     RE2's ASCII sets) and compiled with the `u` flag, so both engines see the same code points. Both engines
 *     are leftmost-first with the same greedy/lazy preferences, and with no quantified groups every capture is
 *     unambiguous. A text with a lone surrogate (RE2 reads it as U+FFFD) is left to RE2.
 *  2. **Linear time.** A backtracking engine is slow only when it can re-scan the same text many times. In the
 *     subset: (a) every variable-length item except a final one is followed by a mandatory item whose first
 *     characters it cannot match, so backing off a repetition fails at once, position by position; (b) no item
 *     of that kind can match a character that can start a match, so no attempt starts inside a run another
 *     attempt already scanned; (c) a final variable item always succeeds once reached, and the next search
 *     resumes after the match; (d) the alternatives tried at one position are bounded (≤ 16 in product).
 *     So each character is examined a bounded number of times: linear in the text, whatever the input.
 *
 * The differential test in test/regex-fast-path.test.ts checks (1) against re2-wasm on generated patterns and
 * texts.
 */

/** Inclusive code-point ranges, sorted, non-overlapping, non-adjacent. */
type CharSet = readonly (readonly [number, number])[];

interface SetItem {
  readonly k: 'set';
  readonly set: CharSet;
  readonly min: number;
  readonly max: number; // Infinity for unbounded
  readonly lazy: boolean;
}
interface GroupItem {
  readonly k: 'group';
  readonly capture: boolean;
  readonly alts: readonly Seq[];
}
interface AssertItem {
  readonly k: 'assert';
  readonly word: boolean; // \b (true) or \B
}
type Item = SetItem | GroupItem | AssertItem;
type Seq = readonly Item[];

/** Thrown inside the parser for "not in the subset"; never escapes this module. */
class Unsupported extends Error {}

const MAX_CP = 0x10ffff;
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: CharSet = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
]; // RE2's \s: [\t\n\f\r ]
const NOT_NEWLINE: CharSet = [
  [0, 9],
  [11, MAX_CP],
];
/** Bound on the alternatives a backtracking engine may try at one position (property 2d). */
const MAX_BRANCHING = 16;

function normalise(ranges: readonly (readonly [number, number])[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

const union = (a: CharSet, b: CharSet): CharSet => normalise([...a, ...b]);

function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x[1] < y[0]) i++;
    else if (y[1] < x[0]) j++;
    else return true;
  }
  return false;
}

/** Recursive-descent parser for the subset, over RE2 syntax (the translated source). */
class Parser {
  i = 0;
  readonly cps: number[];

  constructor(source: string) {
    this.cps = Array.from(source, (c) => c.codePointAt(0)!);
  }

  peek(): number | undefined {
    return this.cps[this.i];
  }

  parseAlts(): Seq[] {
    const alts: Seq[] = [this.parseSeq()];
    while (this.peek() === 0x7c /* | */) {
      this.i++;
      alts.push(this.parseSeq());
    }
    return alts;
  }

  parseSeq(): Seq {
    const items: Item[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) return items;
      items.push(this.parseItem());
    }
  }

  parseItem(): Item {
    const c = this.cps[this.i++]!;
    let set: CharSet;
    switch (c) {
      case 0x28: {
        // (
        let capture = true;
        if (this.peek() === 0x3f /* ? */) {
          const next = this.cps[this.i + 1];
          if (next === 0x3a /* : */) {
            capture = false;
            this.i += 2;
          } else if (next === 0x50 /* P */ && this.cps[this.i + 2] === 0x3c /* < */) {
            const close = this.cps.indexOf(0x3e /* > */, this.i + 3);
            if (close < 0) throw new Unsupported();
            this.i = close + 1;
          } else throw new Unsupported(); // inline flags and anything else
        }
        const alts = this.parseAlts();
        if (this.cps[this.i++] !== 0x29) throw new Unsupported();
        if (this.isQuantifier()) throw new Unsupported(); // quantified groups: ambiguous captures, nested loops
        return { k: 'group', capture, alts };
      }
      case 0x2e: // .
        set = NOT_NEWLINE;
        break;
      case 0x5b: // [
        set = this.parseClass();
        break;
      case 0x5c: {
        // backslash
        const d = this.cps[this.i];
        if (d === 0x62 /* b */ || d === 0x42 /* B */) {
          this.i++;
          if (this.isQuantifier()) throw new Unsupported();
          return { k: 'assert', word: d === 0x62 };
        }
        set = this.parseEscape();
        break;
      }
      case 0x5e:
      case 0x24:
      case 0x29:
      case 0x5d:
      case 0x7b:
      case 0x7d:
      case 0x2a:
      case 0x2b:
      case 0x3f:
        throw new Unsupported(); // anchors, stray brackets and quantifiers
      default:
        set = [[c, c]];
    }
    if (set.length === 0) throw new Unsupported(); // a class that matches nothing
    return this.parseQuantifier(set);
  }

  isQuantifier(): boolean {
    const c = this.peek();
    return c === 0x2a || c === 0x2b || c === 0x3f || c === 0x7b;
  }

  parseQuantifier(set: CharSet): SetItem {
    let min = 1;
    let max = 1;
    const c = this.peek();
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b) {
      const rest = String.fromCodePoint(...this.cps.slice(this.i, this.i + 16));
      const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(rest);
      if (m === null) throw new Unsupported(); // RE2 would read "{" literally; keep that case on RE2
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return { k: 'set', set, min, max, lazy: false };
    this.i++;
    let lazy = false;
    if (this.peek() === 0x3f) {
      lazy = true;
      this.i++;
    }
    if (this.isQuantifier()) throw new Unsupported();
    return { k: 'set', set, min, max, lazy };
  }

  /** After a backslash: a single character or one of the \d \w \s families (\b is handled by the caller). */
  parseEscape(): CharSet {
    const d = this.cps[this.i++];
    if (d === undefined) throw new Unsupported();
    switch (d) {
      case 0x64:
        return DIGIT; // d
      case 0x44:
        return complement(DIGIT);
      case 0x77:
        return WORD; // w
      case 0x57:
        return complement(WORD);
      case 0x73:
        return SPACE; // s
      case 0x53:
        return complement(SPACE);
      case 0x6e:
        return [[10, 10]]; // n
      case 0x74:
        return [[9, 9]]; // t
      case 0x72:
        return [[13, 13]]; // r
      case 0x66:
        return [[12, 12]]; // f
      case 0x76:
        return [[11, 11]]; // v
      case 0x61:
        return [[7, 7]]; // a
      case 0x78: {
        // x
        const rest = String.fromCodePoint(...this.cps.slice(this.i, this.i + 10));
        const m = /^(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/.exec(rest);
        if (m === null) throw new Unsupported();
        const cp = parseInt((m[1] ?? m[2])!, 16);
        if (cp > MAX_CP) throw new Unsupported();
        this.i += m[0].length;
        return [[cp, cp]];
      }
      default:
        // Escaped punctuation is the character itself; letters and digits mean something else (or nothing).
        if (d < 0x80 && !/[0-9A-Za-z]/.test(String.fromCharCode(d))) return [[d, d]];
        throw new Unsupported();
    }
  }

  parseClass(): CharSet {
    let negated = false;
    if (this.peek() === 0x5e) {
      negated = true;
      this.i++;
    }
    const ranges: (readonly [number, number])[] = [];
    let first = true;
    for (;;) {
      const c = this.cps[this.i];
      if (c === undefined) throw new Unsupported();
      if (c === 0x5d && !first) {
        this.i++;
        break;
      }
      first = false;
      if (c === 0x5b && this.cps[this.i + 1] === 0x3a) throw new Unsupported(); // [:posix:]
      const lo = this.classAtom();
      if (this.peek() === 0x2d /* - */ && this.cps[this.i + 1] !== 0x5d && this.cps[this.i + 1] !== undefined) {
        if (lo.length !== 1 || lo[0]![0] !== lo[0]![1]) throw new Unsupported(); // `\d-z`
        this.i++;
        const hi = this.classAtom();
        if (hi.length !== 1 || hi[0]![0] !== hi[0]![1] || hi[0]![0] < lo[0]![0]) throw new Unsupported();
        ranges.push([lo[0]![0], hi[0]![0]]);
      } else ranges.push(...lo);
    }
    const set = normalise(ranges);
    return negated ? complement(set) : set;
  }

  classAtom(): CharSet {
    const c = this.cps[this.i++]!;
    if (c === 0x5c) return this.parseEscape();
    return [[c, c]];
  }
}

/** An item as the linear-time analysis sees it, after inlining single-alternative groups. */
type Flat =
  | { readonly k: 'var' | 'fixed'; readonly set: CharSet; readonly min: number }
  | { readonly k: 'choice'; readonly first: CharSet; readonly branches: number }
  | { readonly k: 'assert' };

/** Items of a group alternative that must be fixed-length (used inside a choice); returns its first set. */
function fixedFirst(seq: Seq): CharSet {
  let first: CharSet | null = null;
  for (const it of seq) {
    if (it.k === 'assert') throw new Unsupported();
    if (it.k === 'set') {
      if (it.min !== it.max) throw new Unsupported();
      if (first === null && it.min > 0) first = it.set;
    } else {
      const firsts = it.alts.map(fixedFirst);
      if (first === null) first = firsts.reduce(union);
    }
  }
  if (first === null) throw new Unsupported(); // an empty alternative would make the group optional
  return first;
}

function branchesOf(seq: Seq): number {
  let n = 1;
  for (const it of seq) if (it.k === 'group') n *= it.alts.reduce((s, a) => s + branchesOf(a), 0);
  return n;
}

function flatten(seq: Seq, out: Flat[]): void {
  for (const it of seq) {
    if (it.k === 'assert') out.push({ k: 'assert' });
    else if (it.k === 'set') {
      if (it.max === 0) throw new Unsupported(); // `x{0}` matches nothing; keep it simple
      out.push({ k: it.min === it.max ? 'fixed' : 'var', set: it.set, min: it.min });
    } else if (it.alts.length === 1) flatten(it.alts[0]!, out);
    else
      out.push({
        k: 'choice',
        first: it.alts.map(fixedFirst).reduce(union),
        branches: it.alts.reduce((s, a) => s + branchesOf(a), 0),
      });
  }
}

/** Checks property 2 of the module comment; throws Unsupported when it cannot be shown. */
function checkLinear(alts: readonly Seq[]): void {
  let starts: CharSet = [];
  let backedOff: CharSet = [];
  let branching = 0;
  for (const alt of alts) {
    const flat: Flat[] = [];
    flatten(alt, flat);
    branching += branchesOf(alt);
    const consuming = flat.filter((f) => f.k !== 'assert');
    const head = consuming[0];
    if (head === undefined) throw new Unsupported();
    if (head.k === 'choice') starts = union(starts, head.first);
    else if (head.min >= 1) starts = union(starts, head.set);
    else throw new Unsupported(); // an optional first item: matches could start anywhere
    for (let i = 0; i < flat.length; i++) {
      const f = flat[i]!;
      if (f.k !== 'var') continue;
      if (i === flat.length - 1) continue; // (c): a final repetition always succeeds once reached
      let j = i + 1;
      while (j < flat.length && flat[j]!.k === 'assert') j++;
      const next = flat[j];
      if (next === undefined) throw new Unsupported(); // only assertions follow: they may fail after the run
      const nextFirst = next.k === 'choice' ? next.first : next.k !== 'assert' && next.min >= 1 ? next.set : null;
      if (nextFirst === null || intersects(f.set, nextFirst)) throw new Unsupported(); // (a)
      backedOff = union(backedOff, f.set);
    }
  }
  if (intersects(starts, backedOff)) throw new Unsupported(); // (b)
  if (branching > MAX_BRANCHING) throw new Unsupported(); // (d)
}

function classSource(set: CharSet): string {
  const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
  return `[${set.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

function seqSource(seq: Seq): string {
  let s = '';
  for (const it of seq) {
    if (it.k === 'assert') s += it.word ? '\\b' : '\\B';
    else if (it.k === 'group') s += `(${it.capture ? '' : '?:'}${it.alts.map(seqSource).join('|')})`;
    else {
      s += classSource(it.set);
      if (it.min !== 1 || it.max !== 1) {
        s += it.max === Infinity ? `{${it.min},}` : it.min === it.max ? `{${it.min}}` : `{${it.min},${it.max}}`;
        if (it.lazy) s += '?';
      }
    }
  }
  return s;
}

/**
 * The JS source (for the `u` flag) of an RE2 pattern that is in the safe subset, or null. `source` is the pattern
 * as handed to RE2 (after translation from Python syntax), `flags` the normalised RE2 flags.
 */
export function fastPathSource(source: string, flags: string): string | null {
  if (flags !== '') return null;
  try {
    const p = new Parser(source);
    const alts = p.parseAlts();
    if (p.i !== p.cps.length) return null;
    checkLinear(alts);
    return alts.map(seqSource).join('|');
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

/** `fastPathSource` compiled with the `g` and `u` flags, or null. */
export function fastPathRegExp(source: string, flags: string): RegExp | null {
  const js = fastPathSource(source, flags);
  return js === null ? null : new RegExp(js, 'gu');
}
