/**
 * The "non-empty companion" of a pattern that can match the empty string, for the scanner's empty-match skip.
 *
 * Why: a pattern such as `x*` matches (emptily) at every position of a log, and each match costs one engine call;
 * with a condition that never holds on its empty capture, a 10 MB log took 80 s. Every empty match of such a
 * pattern has the same capture dict `{}` when no *named* group can match empty (a named group that takes part in
 * a match consumes at least one character), so once `{}` is known not to fire, the scanner only needs the
 * positions where the pattern could match something non-empty. The companion finds them in one search.
 *
 * The companion N is a Python pattern whose matches start at least at every position where the pattern P has a
 * non-empty match (a superset: N ⊇ the non-empty strings of P, read with the same assertions and flags). So
 * between the last position searched and N's next match, P can only match empty (or not at all), and P's
 * iteration resumed at N's match gives the same matches as iterating P over every position. Built from the tree:
 * NE(a b c) = NE(a) b c | NE(b) c | NE(c) over the nullable prefix, NE(x*) = NE(x) x*, NE(a|b) = NE(a)|NE(b);
 * dropping the zero-width prefixes only widens N. Groups lose their names (N has no captures that matter).
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

/**
 * The companion pattern (Python syntax, to compile with the same flags), or null when there is none to use:
 * the pattern cannot match empty (nothing to skip), a named group can match empty (then empty matches may carry
 * different capture dicts), or the companion would be too large.
 */
export function nonEmptyCompanion(tree: RegexTree): string | null {
  if (!nullable(tree.root)) return null;
  if (tree.groups.some((g) => g.name !== null && nullable(g.body))) return null;
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
