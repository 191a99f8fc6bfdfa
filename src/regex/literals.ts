/**
 * The literal prefilter: a pass over the regex tree (ast.ts) that derives clauses of strings — every match
 * contains, for each clause, one of its strings. A window of log text that fails a clause cannot match, so
 * the scanner may skip it without calling RE2. Patterns for which nothing can be proven get `null` and
 * always run.
 *
 * Soundness is what matters (a wrong set would lose matches); a weak set only costs speed. So
 * the analysis is conservative: anything it does not fully understand yields "no guarantee".
 */
import { alternativesOf, itemsOf, walk, type Class, type Literal, type Node, type RegexTree } from './ast.js';
import { caseEquivalents, hasCased, isCased, isSubset } from './charset.js';
import { classMembers, literalMembers } from './members.js';
import { parsePythonRegex } from './parse.js';

export interface LiteralSet {
  /**
   * Clauses, all of which every match satisfies: a clause is satisfied when the match contains
   * at least one of its (non-empty) strings. `(?i)loss(?: is)? nan|loss=nan` gives
   * [["loss is nan", "loss nan", "loss=nan"]].
   */
  readonly clauses: readonly (readonly string[])[];
  /** Compare case-insensitively (IGNORECASE changes what some character or class of the pattern matches). */
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

/** A node that guarantees no literal and matches no known string (`.`, most classes, assertions, a flag group). */
const NOTHING: Parsed = { req: [], exact: null };

/** How a quantifier bounds its atom's repetitions, as far as required literals care. */
type Times = 'one' | 'at-least-one' | 'zero-or-one' | 'optional';

function times(min: number, max: number): Times {
  if (min === 1 && max === 1) return 'one';
  if (min === 0 && max === 1) return 'zero-or-one';
  return min >= 1 ? 'at-least-one' : 'optional';
}

/** alternation: (A1 ∧ A2) ∨ (B1 ∧ B2) distributes to (Ai ∪ Bj) clauses. */
function alternation(node: Node): Parsed {
  const [head, ...rest] = alternativesOf(node);
  const first = concat(head!);
  let acc: Req = first.req;
  let exact: string[] | null = first.exact === null ? null : [...first.exact];
  for (const alt of rest) {
    const b = concat(alt);
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

/** concat: every required part's clauses; runs of exact parts multiply out. */
function concat(node: Node): Parsed {
  const clauses: (readonly string[])[] = [];
  let run: string[] = [''];
  let whole = true; // the run covers the whole concatenation so far (its exact set is `run`)
  const flush = () => {
    // A string containing another of the clause is redundant: drop it ("x" covers "xyz").
    if (run.every((x) => x !== '')) clauses.push(run.filter((x) => !run.some((y) => y !== x && x.includes(y))));
    run = [''];
  };
  for (const n of itemsOf(node)) {
    const [sub, q] = n.k === 'repeat' ? [atom(n.sub), times(n.min, n.max)] : [atom(n), 'one' as const];
    const part = sub.exact === null ? null : q === 'one' ? sub.exact : q === 'zero-or-one' ? [...sub.exact, ''] : null;
    const grown = part === null ? null : cross(run, part);
    if (grown !== null) {
      run = grown;
      continue;
    }
    flush();
    whole = false;
    // A quantifier with a minimum of one keeps the atom's requirements; zero loses them.
    if (q === 'one' || q === 'at-least-one') clauses.push(...sub.req);
    if (part !== null) run = [...part]; // a part too big to multiply starts the next run
  }
  const exact = whole ? run : null;
  flush();
  return { req: best(clauses), exact };
}

/**
 * The string a one-character node stands for in a clause, or null. A node matching one code point is that
 * character. Under IGNORECASE the set is checked with simple case folding (windowMayMatch), which covers
 * Python's equivalents only for ASCII letters (and, by clauseRegex, `İ ı` for `i`): so a case-insensitive node
 * counts when its members are the equivalents of an ASCII letter (`(?i)ı` and `(?i)[İ]` count as `i`, `ſ` as
 * `s`, the Kelvin sign as `k`); `(?i)é` does not.
 */
function nodeString(node: Literal | Class): string | null {
  const members = node.k === 'literal' ? literalMembers(node) : classMembers(node);
  const [lo, hi] = members[0] ?? [-1, -1];
  if (members.length === 1 && lo === hi) return String.fromCodePoint(lo);
  if (!node.ci) return null;
  if (node.k === 'literal' && node.cp < 0x80) return String.fromCodePoint(node.cp);
  return lo >= 0 && lo < 0x80 && isSubset(members, caseEquivalents(lo)) ? String.fromCodePoint(lo).toLowerCase() : null;
}

/** Whether IGNORECASE changes what the node matches (then the set must be compared case-insensitively). */
function needsCaseFolding(node: Node): boolean {
  if (node.k === 'literal') return node.ci && isCased(node.cp);
  return node.k === 'class' && node.ci && hasCased(node.positive);
}

function atom(node: Node): Parsed {
  switch (node.k) {
    case 'literal':
    case 'class': {
      const c = nodeString(node);
      return c === null ? NOTHING : { req: [[c]], exact: [c] };
    }
    case 'group':
      return alternation(node.body);
    case 'concat':
    case 'alt':
    case 'empty':
      return alternation(node); // only inside groups, in practice
    default:
      // A repeat here would be a repeated repeat, which Python rejects; `.`, assertions and a global flag group
      // (which ends an exact run: it changes what the following characters match) match no known string.
      return NOTHING;
  }
}

/** How selective a clause is: its shortest literal's length (longer is rarer in a log). */
function score(clause: readonly string[]): number {
  let min = Infinity;
  for (const s of clause) min = Math.min(min, s.length);
  return min;
}

/**
 * At most MAX_CLAUSES clauses, the most selective first; no duplicates. When some must go, a clause with
 * fewer strings beats one with as short a shortest string (["s"] is rarer than ["a", "k", "s"]).
 */
function best(clauses: readonly (readonly string[])[]): Req {
  const seen = new Set<string>();
  const unique = clauses.filter((c) => {
    const key = [...c].sort().join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const ranked = unique.sort((a, b) => score(b) - score(a));
  if (ranked.length <= MAX_CLAUSES) return ranked;
  const keep = new Set([...ranked].sort((a, b) => score(b) - score(a) || a.length - b.length).slice(0, MAX_CLAUSES));
  return ranked.filter((c) => keep.has(c));
}

/**
 * The required literals of a parsed pattern (the pass `compileRegex` runs: `RegexHandle.literals`), or null when
 * none can be proven. The set is case-insensitive when IGNORECASE (compile flag, global or scoped flag group)
 * changes what some character or class matches.
 */
export function literalsOf(tree: RegexTree): LiteralSet | null {
  let caseInsensitive = false;
  walk(tree.root, (n) => {
    caseInsensitive ||= needsCaseFolding(n);
  });
  // A clause that could be satisfied by an empty string, or that a case-insensitive compare
  // cannot check soundly, is dropped (a weaker filter, never a wrong one).
  const clauses = alternation(tree.root).req.filter(
    (c) => c.length > 0 && c.every((s) => s.length > 0 && (!caseInsensitive || foldsSafely(s))),
  );
  return clauses.length === 0 ? null : { clauses, caseInsensitive };
}

/**
 * The required literals of `pattern` (Python `re` syntax) compiled with `flags` (letters from "ims"), or null when
 * none can be proven; throws `RegexSyntaxError` for a pattern `compileRegex` rejects at parse time.
 */
export function requiredLiterals(pattern: string, flags = ''): LiteralSet | null {
  return literalsOf(parsePythonRegex(pattern, flags));
}

/**
 * Case-insensitive clauses are tested with a JS RegExp with flags `iu`, whose simple case folding
 * covers Python's for ASCII literals but i: the only non-ASCII partners of ASCII letters are the Kelvin
 * sign (k) and U+017F (s), which both fold, and İ / ı (i), which clauseRegex adds. Non-ASCII literals
 * get no prefilter.
 */
export function foldsSafely(s: string): boolean {
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
