/**
 * The "non-empty companion" of a pattern that can match the empty string, and what its empty matches capture: the
 * scanner's empty-match skip (scan/windows.ts, scan/scan.ts).
 *
 * Why: a pattern such as `x*` or `(?P<gap>q*)` matches (emptily) at every position of a log, and each match costs
 * one engine call and one condition evaluation; with a condition that never holds on its empty capture, a 10 MB
 * log took 80 s (88 s with the named group, which the skip used to exclude). Once the empty matches are known not
 * to fire, the scanner only needs the positions where the pattern could match something non-empty, and how many
 * empty matches it stepped over (they count as evaluated). The companion finds those positions in one search.
 *
 * The subset, stated on the tree (a Python pattern P, its leftmost-first matches as RE2 and `re` report them;
 * "path" is one way through P in the engine's priority order, "empty path" one that consumes nothing, so only
 * its assertions can make it fail):
 *
 *  - `emptyMatches(tree)` is non-null only when every empty match of P has the **same capture dict**, and it says
 *    which one: `capture` lists the named groups set to '' (each other named group does not take part). It is
 *    `everywhere` when, moreover, P **matches at every position**: the first empty path in priority order has no
 *    assertion, so it cannot fail. It is computed by `emptyPath`, which returns, for each node, the first empty
 *    path in priority order: `never` (none), `always` (assertion-free; the named groups on it) or `depends` (it
 *    has an assertion). The rules follow backtracking order, which RE2 reproduces for leftmost-first submatches:
 *    a concatenation's first empty path is its items' first empty paths in turn; an alternation's is that of its
 *    first alternative that has one; a named group adds its name to its body's; a repeat that may loop zero times
 *    has the zero-iteration path (no group inside it takes part) unless its body can itself match empty *and*
 *    holds a named group — then which of "zero passes" and "one empty pass" RE2 reports (and whether the group is
 *    set) is the engine's empty-loop rule, so it is `depends`, as is a repeat that must pass an empty body
 *    holding a named group (`(?P<a>)+`); `x{0}` takes no pass. Without a named group that can match empty (the
 *    case before issue 38), every empty match captures `{}` whatever its path: `capture` is [] even where the
 *    path `depends`.
 *
 * Invariants the scanner relies on (each is checked against the engine on generated patterns by
 * test/scan-empty-skip-named.test.ts):
 *
 *  - **E1 (one capture).** If `emptyMatches(P)` is non-null, every empty match of P, wherever the engine reports
 *    it, has the named groups `capture` set to '' and no other. Proof: an empty match is the first *successful*
 *    path of P at its position, and it consumed nothing, so it is the first successful empty path. With
 *    `everywhere`, the first empty path cannot fail, so it is that path, with the names `emptyPath` collected;
 *    without, `capture` is [] and no named group can take part in an empty match at all.
 *  - **E2 (companion).** The companion N is a Python pattern whose matches start at least at every position where
 *    P has a non-empty match (a superset: N ⊇ the non-empty strings of P, read with the same assertions and flags).
 *    Built from the tree: NE(a b c) = NE(a) b c | NE(b) c | NE(c) over the nullable prefix, NE(x*) = NE(x) x*,
 *    NE(a|b) = NE(a)|NE(b); dropping the zero-width prefixes only widens N. Groups lose their names. So on any
 *    subject, P has no non-empty match starting in [pos, N's first match at or after pos).
 *  - **E3 (count, everywhere).** If moreover `everywhere`, then at every position q of such a range P's search
 *    from q returns the empty match at q (P matches at q by `everywhere`, and not non-emptily by E2), so
 *    iterating P over the range, as `matchAll` does (an empty match steps one code point), reports exactly one
 *    empty match per code point boundary in it, each with the capture of E1. Their number is the range's code
 *    points (a lone surrogate counts as one, as the engine steps it), plus one for the end of the subject when
 *    the range reaches it.
 *  - **E4 (count, positions).** In general, in such a range P's search from q returns the first q' ≥ q where
 *    some path of P succeeds, and by E2 that path is empty: iterating P over the range reports one empty match at
 *    each position where an empty path of P succeeds, and nowhere else. An empty path consumes nothing, so it
 *    succeeds at q exactly when its assertions hold at q. `positions` is that condition written as a zero-width
 *    V8 pattern (`zeroWidth`: a concatenation needs each item's assertions, an alternation one alternative's, a
 *    repeat that may loop zero times none, one that must pass its body's — every empty pass reads the same q),
 *    with only the assertions V8 answers as RE2 does on the same text: `\b` and `\B` (both ASCII word characters
 *    with the `u` flag and without `i`; a lone surrogate, U+FFFD to RE2, is no word character to either), and
 *    `^` / `$` under MULTILINE as `(?<![^\n])` / `(?![^\n])`. Both engines read the text around q, the window's
 *    left-context code point included. So its matches in the range, stepping one code point after each, are
 *    P's empty matches there; `everywhere` is the case where it is '' (holds everywhere).
 *
 * So the scanner may replace those empty matches by a count, and evaluate the condition once on the capture of E1
 * instead of on each: the matches it reports, their captures and the number it evaluates are those of iterating
 * P position by position. Patterns outside the subset (null, or `positions` null) are iterated position by
 * position.
 */
import type { Node, RegexTree } from './ast.js';

/** N can never match: P only ever matches the empty string. Python's `[^\s\S]`, a set of nothing. */
export const MATCHES_NOTHING = '[^\\s\\S]';

/** Past this, the companion is not worth it (NE of a long concatenation of optional items grows quadratically). */
const MAX_COMPANION_CHARS = 4096;

/** True when `node` can match the empty string (somewhere: assertions are assumed to hold). */
export function nullable(node: Node): boolean {
  switch (node.k) {
    case 'empty':
    case 'assert':
    case 'global-flags':
      return true;
    case 'literal':
    case 'dot':
    case 'class':
      return false;
    case 'group':
      return nullable(node.body);
    case 'repeat':
      return node.min === 0 || nullable(node.sub);
    case 'concat':
      return node.items.every(nullable);
    case 'alt':
      return node.alts.some(nullable);
  }
}

/** What every empty match of a pattern captures (invariant E1), and whether it matches everywhere (E3). */
export interface EmptyMatches {
  /** The named groups every empty match sets to '' (in group order); no other named group takes part. */
  readonly capture: readonly string[];
  /** The pattern matches at every position: emptily wherever it has no non-empty match (E3). */
  readonly everywhere: boolean;
  /**
   * A V8 RegExp source (flags `u`), zero-width, that matches exactly at the positions where the pattern matches
   * emptily in a range where it has no non-empty match (E4): '' when `everywhere`; null when it cannot be written
   * (an anchor other than `\b`, `\B`, and `^` / `$` under MULTILINE on an empty path).
   */
  readonly positions: string | null;
}

/** The first empty path of a node in priority order (see the module comment). */
type EmptyPath =
  | { readonly k: 'never' }
  | { readonly k: 'always'; readonly names: readonly string[] }
  | { readonly k: 'depends' };

const NEVER: EmptyPath = { k: 'never' };
const DEPENDS: EmptyPath = { k: 'depends' };
const ALWAYS_NONE: EmptyPath = { k: 'always', names: [] };

/** True when a named group lies in `node`. */
function holdsNamedGroup(node: Node): boolean {
  switch (node.k) {
    case 'group':
      return node.name !== null || holdsNamedGroup(node.body);
    case 'repeat':
      return holdsNamedGroup(node.sub);
    case 'concat':
      return node.items.some(holdsNamedGroup);
    case 'alt':
      return node.alts.some(holdsNamedGroup);
    default:
      return false;
  }
}

/** The node's first empty path in priority order: `never`, `always` (assertion-free, its named groups) or `depends`. */
function emptyPath(node: Node): EmptyPath {
  switch (node.k) {
    case 'empty':
    case 'global-flags':
      return ALWAYS_NONE;
    case 'literal':
    case 'dot':
    case 'class':
      return NEVER;
    case 'assert':
      return DEPENDS;
    case 'group': {
      const body = emptyPath(node.body);
      return body.k === 'always' && node.name !== null ? { k: 'always', names: [...body.names, node.name] } : body;
    }
    case 'repeat': {
      if (node.max === 0) return ALWAYS_NONE; // no pass: nothing inside takes part
      const sub = emptyPath(node.sub);
      if (sub.k === 'never') return node.min === 0 ? ALWAYS_NONE : NEVER;
      // The body can match empty: with a named group inside, whether an empty pass is reported is RE2's rule.
      if (holdsNamedGroup(node.sub)) return DEPENDS;
      return node.min === 0 || sub.k === 'always' ? ALWAYS_NONE : DEPENDS;
    }
    case 'concat': {
      const names: string[] = [];
      let depends = false;
      for (const item of node.items) {
        const p = emptyPath(item);
        if (p.k === 'never') return NEVER;
        if (p.k === 'depends') depends = true;
        else names.push(...p.names);
      }
      return depends ? DEPENDS : { k: 'always', names };
    }
    case 'alt': {
      for (const alt of node.alts) {
        const p = emptyPath(alt);
        if (p.k !== 'never') return p;
      }
      return NEVER;
    }
  }
}

/**
 * What the empty matches of the pattern capture (E1) and whether it matches everywhere (E3); null when it cannot
 * match empty or its empty matches may capture different dicts.
 */
export function emptyMatches(tree: RegexTree): EmptyMatches | null {
  if (!nullable(tree.root)) return null;
  const path = emptyPath(tree.root);
  if (path.k === 'always') {
    // In group order, as captures are reported.
    const set = new Set(path.names);
    const capture = tree.groups.flatMap((g) => (g.name !== null && set.has(g.name) ? [g.name] : []));
    return { capture, everywhere: true, positions: '' };
  }
  if (tree.groups.some((g) => g.name !== null && nullable(g.body))) return null;
  let positions: string | null = null;
  try {
    positions = zeroWidth(tree.root);
  } catch (err) {
    if (err !== UNWRITABLE) throw err;
  }
  return { capture: [], everywhere: false, positions };
}

/** Thrown by `zeroWidth` for an assertion it cannot write for V8 with the engine's meaning. */
const UNWRITABLE = new Error('no V8 equivalent');

/**
 * The assertions V8 answers as RE2 does on the same text (fast-path.ts shows it for `\b`, `\B` and MULTILINE `^`;
 * MULTILINE `$` is its mirror: before "\n" or at the end). Others depend on where the engine was told the subject
 * starts or ends.
 */
function assertionSource(node: Extract<Node, { k: 'assert' }>): string {
  if (node.what === 'word-boundary') return '\\b';
  if (node.what === 'not-word-boundary') return '\\B';
  if (node.multiline && node.what === 'line-start') return '(?<![^\\n])';
  if (node.multiline && node.what === 'line-end') return '(?![^\\n])';
  throw UNWRITABLE;
}

/**
 * E4: a zero-width V8 pattern that holds at q exactly when some empty path of `node` succeeds at q (null: none
 * can). An empty path consumes nothing, so only its assertions decide, all read at q: a concatenation needs each
 * item's, an alternation one alternative's, a repeat that may loop zero times nothing, one that must pass its
 * body's (each empty pass reads the same q). Throws UNWRITABLE.
 */
function zeroWidth(node: Node): string | null {
  switch (node.k) {
    case 'empty':
    case 'global-flags':
      return '';
    case 'literal':
    case 'dot':
    case 'class':
      return null;
    case 'assert':
      return assertionSource(node);
    case 'group':
      return zeroWidth(node.body);
    case 'repeat':
      return node.min === 0 ? '' : zeroWidth(node.sub);
    case 'concat': {
      let out = '';
      for (const item of node.items) {
        const z = zeroWidth(item);
        if (z === null) return null;
        out += z === '' ? '' : `(?:${z})`;
      }
      return out;
    }
    case 'alt': {
      const alts: string[] = [];
      for (const alt of node.alts) {
        const z = zeroWidth(alt);
        if (z === '') return ''; // this alternative always holds
        if (z !== null) alts.push(z);
      }
      return alts.length === 0 ? null : alts.join('|');
    }
  }
}

/**
 * The companion pattern (Python syntax, to compile with the same flags), or null when there is none to use:
 * the pattern cannot match empty (nothing to skip), its empty matches may capture different dicts
 * (`emptyMatches` is null), or the companion would be too large.
 */
export function nonEmptyCompanion(tree: RegexTree): string | null {
  if (emptyMatches(tree) === null) return null;
  const pattern = tree.pattern;
  const printer = new Printer(pattern);
  const ne = printer.nonEmpty(tree.root);
  const prefix = printer.globalFlags(tree.root);
  const out = `${prefix}${ne ?? MATCHES_NOTHING}`;
  return out.length > MAX_COMPANION_CHARS ? null : out;
}

/** One character: printed without a group around it. */
const atom = (node: Node): boolean => node.k === 'literal' || node.k === 'dot' || node.k === 'class';

class Printer {
  constructor(readonly pattern: string) {}

  /** `(?i)`-style global flags at the start of the pattern (they must stay first). */
  globalFlags(root: Node): string {
    const first = root.k === 'concat' ? root.items[0] : root;
    return first?.k === 'global-flags' ? `(?${first.on})` : '';
  }

  /** The node as a Python pattern, groups without names or numbers. */
  plain(node: Node): string {
    switch (node.k) {
      case 'empty':
      case 'global-flags':
        return '';
      case 'literal':
        // By code point: a slice such as `{` could read differently next to new neighbours.
        return `\\U${node.cp.toString(16).padStart(8, '0')}`;
      case 'dot':
      case 'class':
      case 'assert':
        return this.pattern.slice(node.start, node.end);
      case 'group':
        return `${this.open(node)}${this.plain(node.body)})`;
      case 'repeat':
        return `${atom(node.sub) ? this.plain(node.sub) : `(?:${this.plain(node.sub)})`}${this.pattern.slice(node.opStart, node.end)}`;
      case 'concat':
        return node.items.map((n) => this.plain(n)).join('');
      case 'alt':
        return node.alts.map((n) => this.plain(n)).join('|');
    }
  }

  /** A pattern matching (a superset of) the non-empty matches of `node`, or null when it has none. */
  nonEmpty(node: Node): string | null {
    switch (node.k) {
      case 'empty':
      case 'global-flags':
      case 'assert':
        return null;
      case 'literal':
      case 'dot':
      case 'class':
        return this.plain(node);
      case 'group': {
        const body = this.nonEmpty(node.body);
        return body === null ? null : `${this.open(node)}${body})`;
      }
      case 'repeat': {
        if (node.max === 0) return null;
        const sub = this.nonEmpty(node.sub);
        if (sub === null) return null;
        // The first non-empty iteration, then any number of further ones (the count bounds only narrow it).
        return atom(node.sub) ? `${sub}${sub}*` : `(?:${sub})(?:${this.plain(node.sub)})*`;
      }
      case 'concat': {
        // Every result of nonEmpty is an atom, a group or a concatenation: it can be followed as it is.
        const alts: string[] = [];
        for (let i = 0; i < node.items.length; i++) {
          const item = node.items[i]!;
          const ne = this.nonEmpty(item);
          if (ne !== null)
            alts.push(
              `${ne}${node.items
                .slice(i + 1)
                .map((n) => this.plain(n))
                .join('')}`,
            );
          if (!nullable(item)) break; // later items can only start a match after this one consumed something
        }
        return alts.length === 0 ? null : alts.length === 1 ? alts[0]! : `(?:${alts.join('|')})`;
      }
      case 'alt': {
        const alts = node.alts.map((n) => this.nonEmpty(n)).filter((s): s is string => s !== null);
        return alts.length === 0 ? null : `(?:${alts.join('|')})`;
      }
    }
  }

  /** A group's opening without its capture: scoped flags kept (`(?i:`), else `(?:`. */
  open(node: Extract<Node, { k: 'group' }>): string {
    if (node.flags === null) return '(?:';
    return `(?${node.flags.on}${node.flags.off === '' ? '' : `-${node.flags.off}`}:`;
  }
}
