/**
 * The literal prefilter: from a pattern (RE2 syntax, as `translatePythonRegex` produces it) derive
 * clauses of strings — every match contains, for each clause, one of its strings. A window of log
 * text that fails a clause cannot match, so the scanner may skip it without calling RE2. Patterns
 * for which nothing can be proven get `null` and always run.
 *
 * Soundness is what matters (a wrong set would lose matches); a weak set only costs speed. So
 * the analysis is conservative: anything it does not fully understand yields "no guarantee".
 */
import { CASE_INSENSITIVE_I_SOURCE } from './translate.js';

export interface LiteralSet {
  /**
   * Clauses, all of which every match satisfies: a clause is satisfied when the match contains
   * at least one of its (non-empty) strings. `(?i)loss(?: is)? nan|loss=nan` gives
   * [["loss is nan", "loss nan", "loss=nan"]].
   */
  readonly clauses: readonly (readonly string[])[];
  /** Compare case-insensitively (the pattern has `i` somewhere, or was compiled with it). */
  readonly caseInsensitive: boolean;
}

/** Bounds that keep the checks cheaper than RE2 itself; dropping clauses only weakens the filter. */
const MAX_LITERALS_PER_CLAUSE = 16;
const MAX_CLAUSES = 6;

/** A conjunction of clauses (see LiteralSet); [] means "no requirement". */
type Req = readonly (readonly string[])[];

interface Parsed {
  /** The node's required clauses ([] when it guarantees nothing). */
  req: Req;
  /**
   * Every string the node can match, when that set is finite and small (`(?: is)?` → [" is", ""]), else null.
   * Consecutive exact parts multiply out, so `loss(?: is)? NaN` requires one of "loss is NaN", "loss NaN" — a
   * far more selective clause than "loss" and " NaN" apart.
   */
  exact: readonly string[] | null;
}

/** Bound on an exact set (the cross product of consecutive parts grows fast). */
const MAX_EXACT = 16;

function cross(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length * b.length > MAX_EXACT) return null;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return [...out];
}

class LiteralParser {
  private i = 0;
  /** Set when an `i` flag appears anywhere: all literals are then compared case-insensitively. */
  sawCaseInsensitive = false;

  constructor(private readonly p: string) {}

  /** alternation: concat ('|' concat)* — (A1 ∧ A2) ∨ (B1 ∧ B2) distributes to (Ai ∪ Bj) clauses. */
  alternation(): Parsed {
    const first = this.concat();
    let acc: Req = first.req;
    let exact: string[] | null = first.exact === null ? null : [...first.exact];
    while (this.p[this.i] === '|') {
      this.i++;
      const b = this.concat();
      const out: string[][] = [];
      for (const x of acc) {
        for (const y of b.req) {
          const union = [...new Set([...x, ...y])];
          if (union.length <= MAX_LITERALS_PER_CLAUSE) out.push(union);
        }
      }
      acc = best(out);
      exact = exact === null || b.exact === null ? null : [...new Set([...exact, ...b.exact])];
      if (exact !== null && exact.length > MAX_EXACT) exact = null;
    }
    return { req: acc, exact };
  }

  /** concat: (atom quantifier?)* — every required part's clauses; runs of exact parts multiply out. */
  private concat(): Parsed {
    const clauses: (readonly string[])[] = [];
    let run: string[] = [''];
    let whole = true; // the run covers the whole concatenation so far (its exact set is `run`)
    const flush = () => {
      // A string containing another of the clause is redundant: drop it ("x" covers "xyz").
      if (run.every((x) => x !== '')) clauses.push(run.filter((x) => !run.some((y) => y !== x && x.includes(y))));
      run = [''];
    };
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.atom();
      const q = this.quantifier();
      const part =
        atom.exact === null ? null : q === 'one' ? atom.exact : q === 'zero-or-one' ? [...atom.exact, ''] : null;
      const grown = part === null ? null : cross(run, part);
      if (grown !== null) {
        run = grown;
        continue;
      }
      flush();
      whole = false;
      // A quantifier with a minimum of one keeps the atom's requirements; zero loses them.
      if (q === 'one' || q === 'at-least-one') clauses.push(...atom.req);
      if (part !== null) run = [...part]; // a part too big to multiply starts the next run
    }
    const exact = whole ? run : null;
    flush();
    return { req: best(clauses), exact };
  }

  /** Returns 'one' (no quantifier), 'at-least-one', 'zero-or-one' (`?`) or 'optional' (minimum 0). */
  private quantifier(): 'one' | 'at-least-one' | 'zero-or-one' | 'optional' {
    const c = this.p[this.i];
    let kind: 'one' | 'at-least-one' | 'zero-or-one' | 'optional' = 'one';
    if (c === '*' || c === '?') {
      kind = c === '?' ? 'zero-or-one' : 'optional';
      this.i++;
    } else if (c === '+') {
      kind = 'at-least-one';
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d*)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (m === null || m[1] === '') return 'one'; // RE2 reads a malformed brace as a literal '{'
      this.i += m[0].length;
      kind = Number(m[1]) >= 1 ? 'at-least-one' : 'optional';
      if (kind === 'at-least-one' && m[2] === undefined && m[1] === '1') kind = 'one'; // {1}
    } else {
      return 'one';
    }
    if (this.p[this.i] === '?' || this.p[this.i] === '+') this.i++; // lazy (RE2 has no possessive)
    return kind;
  }

  private atom(): Parsed {
    const c = this.p[this.i]!;
    if (c === '(') return this.group();
    if (c === '[') {
      this.skipClass();
      return { req: [], exact: null };
    }
    if (c === '\\') return this.escape();
    this.i++;
    if (c === '.' || c === '^' || c === '$') return { req: [], exact: null };
    // A plain character, possibly astral (two UTF-16 units).
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff && this.i < this.p.length) {
      const pair = c + this.p[this.i]!;
      this.i++;
      return { req: [[pair]], exact: [pair] };
    }
    return { req: [[c]], exact: [c] };
  }

  private group(): Parsed {
    if (this.p.startsWith(CASE_INSENSITIVE_I_SOURCE, this.i)) {
      // The translator's spelling of a case-insensitive i (Python's (?i)i also matches İ and ı): the literal
      // "i", compared case-insensitively with those two added (see clauseRegex).
      this.i += CASE_INSENSITIVE_I_SOURCE.length;
      this.sawCaseInsensitive = true;
      return { req: [['i']], exact: ['i'] };
    }
    this.i++; // (
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i);
      const named = /^\?P<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
      const flags = /^\?([imsU-]*)(:|\))/.exec(rest);
      if (named !== null) {
        this.i += named[0].length;
      } else if (flags !== null) {
        if (flags[1]!.includes('i')) this.sawCaseInsensitive = true;
        this.i += flags[0].length;
        // `(?i)` alone sets flags for the rest of the group; it matches nothing itself (and ends an exact run,
        // as the flag changes what the following characters match).
        if (flags[2] === ')') return { req: [], exact: null };
      } else {
        throw new Unsupported();
      }
    }
    const inner = this.alternation();
    if (this.p[this.i] !== ')') throw new Unsupported();
    this.i++;
    return inner;
  }

  private escape(): Parsed {
    this.i++; // backslash
    const c = this.p[this.i];
    if (c === undefined) throw new Unsupported();
    this.i++;
    // Classes, anchors and Unicode properties guarantee no literal.
    if ('dDwWsSbBAzC'.includes(c)) return { req: [], exact: null };
    if (c === 'p' || c === 'P') {
      if (this.p[this.i] === '{') this.skipTo('}');
      else this.i++;
      return { req: [], exact: null };
    }
    if (c === 'x') {
      let hex: string;
      if (this.p[this.i] === '{') {
        const end = this.p.indexOf('}', this.i);
        if (end < 0) throw new Unsupported();
        hex = this.p.slice(this.i + 1, end);
        this.i = end + 1;
      } else {
        hex = this.p.slice(this.i, this.i + 2);
        this.i += 2;
      }
      if (!/^[0-9A-Fa-f]+$/.test(hex)) throw new Unsupported();
      const ch = String.fromCodePoint(parseInt(hex, 16));
      return { req: [[ch]], exact: [ch] };
    }
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07' };
    if (simple[c] !== undefined) return { req: [[simple[c]!]], exact: [simple[c]!] };
    if (/[0-9]/.test(c)) throw new Unsupported(); // octal: rare, not worth modelling
    if (/[A-Za-z]/.test(c)) throw new Unsupported(); // an escape we do not model
    return { req: [[c]], exact: [c] }; // an escaped punctuation character is itself
  }

  /** Skips a character class, `]` first and `[:name:]` included. */
  private skipClass(): void {
    this.i++; // [
    if (this.p[this.i] === '^') this.i++;
    if (this.p[this.i] === ']') this.i++;
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      if (this.p[this.i] === '\\') this.i += 2;
      else if (this.p.startsWith('[:', this.i)) {
        const end = this.p.indexOf(':]', this.i + 2);
        this.i = end < 0 ? this.i + 1 : end + 2;
      } else this.i++;
    }
    if (this.i >= this.p.length) throw new Unsupported();
    this.i++;
  }

  private skipTo(ch: string): void {
    const end = this.p.indexOf(ch, this.i);
    if (end < 0) throw new Unsupported();
    this.i = end + 1;
  }

  atEnd(): boolean {
    return this.i >= this.p.length;
  }
}

class Unsupported extends Error {}

/** How selective a clause is: its shortest literal's length (longer is rarer in a log). */
function score(clause: readonly string[]): number {
  let min = Infinity;
  for (const s of clause) min = Math.min(min, s.length);
  return min;
}

/** At most MAX_CLAUSES clauses, the most selective first; no duplicates. */
function best(clauses: readonly (readonly string[])[]): Req {
  const seen = new Set<string>();
  const unique = clauses.filter((c) => {
    const key = [...c].sort().join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort((a, b) => score(b) - score(a)).slice(0, MAX_CLAUSES);
}

/**
 * The required literals of a pattern in RE2 syntax, or null when none can be proven.
 * `flags` are the compile flags (an `i` makes the set case-insensitive).
 */
export function requiredLiterals(re2Pattern: string, flags = ''): LiteralSet | null {
  try {
    const parser = new LiteralParser(re2Pattern);
    let clauses = parser.alternation().req;
    if (!parser.atEnd()) return null;
    const caseInsensitive = flags.includes('i') || parser.sawCaseInsensitive;
    // A clause that could be satisfied by an empty string, or that a case-insensitive compare
    // cannot check soundly, is dropped (a weaker filter, never a wrong one).
    clauses = clauses.filter(
      (c) => c.length > 0 && c.every((s) => s.length > 0 && (!caseInsensitive || foldsSafely(s))),
    );
    if (clauses.length === 0) return null;
    return { clauses, caseInsensitive };
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

/**
 * Case-insensitive clauses are tested with a JS RegExp with flags `iu`, whose simple case folding
 * covers Python's for ASCII literals but i: the only non-ASCII partners of ASCII letters are the Kelvin
 * sign (k) and U+017F (s), which both fold, and İ / ı (i), which clauseRegex adds. Non-ASCII literals
 * get no prefilter.
 */
function foldsSafely(s: string): boolean {
  return /^[\x00-\x7f]*$/.test(s);
}

const clauseRegexes = new WeakMap<readonly string[], RegExp>();

function clauseRegex(clause: readonly string[]): RegExp {
  let re = clauseRegexes.get(clause);
  if (re === undefined) {
    // Syntax characters only are escaped (u mode rejects other escapes); i also stands for Python's İ and ı.
    const source = clause
      .map((lit) => lit.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&').replace(/[iI]/g, '[i\\u0130\\u0131]'))
      .join('|');
    re = new RegExp(source, 'iu');
    clauseRegexes.set(clause, re);
  }
  return re;
}

/**
 * How one literal is searched for: by a short piece that starts at its rarest character, then verified.
 *
 * Why: V8's `indexOf` runs a memchr on the first character for needles under 7 units (tens of GB/s when that
 * character is rare) but switches to Boyer–Moore–Horspool for longer ones, ~2.5 GB/s on log text. With ten
 * patterns and a dozen literals, that difference is most of a clean log's scan time.
 */
interface Probe {
  readonly lit: string;
  /** `lit.slice(offset, offset + PIECE)`. */
  readonly piece: string;
  readonly offset: number;
}

/** Longest needle V8 still searches with memchr on its first character. */
const PIECE = 6;
/** Characters sampled from the first window a set sees, to rank characters by frequency in this log. */
const SAMPLE = 1 << 16;

const plans = new WeakMap<LiteralSet, readonly (readonly Probe[])[]>();

function planFor(set: LiteralSet, window: string): readonly (readonly Probe[])[] {
  let plan = plans.get(set);
  if (plan === undefined) {
    const freq = new Uint32Array(128); // non-ASCII characters count as rare
    const n = Math.min(window.length, SAMPLE);
    for (let i = 0; i < n; i++) {
      const c = window.charCodeAt(i);
      if (c < 128) freq[c]!++;
    }
    const rarity = (c: number) => (c < 128 ? freq[c]! : 0);
    plan = set.clauses.map((clause) =>
      clause.map((lit) => {
        let offset = 0;
        for (let i = 1; i < lit.length; i++) if (rarity(lit.charCodeAt(i)) < rarity(lit.charCodeAt(offset))) offset = i;
        return { lit, piece: lit.slice(offset, offset + PIECE), offset };
      }),
    );
    plans.set(set, plan);
  }
  return plan;
}

/** Whether `lit` occurs in `window` at or after `from`. */
function contains(window: string, probe: Probe, from: number): boolean {
  const { lit, piece, offset } = probe;
  if (offset === 0 && lit.length <= PIECE) return window.indexOf(lit, from) !== -1;
  for (let i = window.indexOf(piece, from + offset); i !== -1; i = window.indexOf(piece, i + 1)) {
    if (window.startsWith(lit, i - offset)) return true;
  }
  return false;
}

/**
 * Whether `window` (from UTF-16 offset `from`) satisfies every clause: if not, no match can lie
 * there. A case-insensitive check looks at the whole window (a superset: never a missed match).
 */
export function windowMayMatch(set: LiteralSet, window: string, from = 0): boolean {
  if (set.caseInsensitive) return set.clauses.every((clause) => clauseRegex(clause).test(window));
  return planFor(set, window).every((clause) => clause.some((probe) => contains(window, probe, from)));
}
