/**
 * The capturing groups of a pattern's regex, and which of them may not participate in a match.
 *
 * A condition sees only the named groups that participated in the match (`src/regex/match.ts`),
 * so `capture['k']` raises KeyError when `k` is not a named group at all, and also when its group
 * sits in a part of the regex a match can skip: an alternative of `|`, or anything under a
 * quantifier whose minimum is 0 (`?`, `*`, `{0,n}`).
 *
 * The names come from RE2 itself (the compiled program's group names), so they are exactly what
 * the scanner will produce. Optionality is a pass over the regex tree (`translatePythonRegex(…).tree`), the same
 * parse the regex module compiles. If the tree disagrees with RE2 on the named groups, optionality is
 * reported as unknown and no optional-group warning is made — never a wrong one.
 */
import { compileRegex, translatePythonRegex, type RegexNode, type RegexTree } from '../regex/index.js';
import { contains } from '../regex/charset.js';
import { classMembers, dotMembers, literalMembers } from '../regex/members.js';
import type { CaptureModel } from './analyze.js';

export interface RegexGroup {
  /** 1-based group number, in order of the opening parenthesis (as RE2 numbers them). */
  readonly index: number;
  /** The `(?P<name>…)` name, or null for a plain `(…)`. */
  readonly name: string | null;
  /** Offsets in the pattern (UTF-16): the `(` and just past the `)`. */
  readonly start: number;
  readonly end: number;
  /** Offset just past the group's opening (`(`, `(?P<name>`), where its body starts. */
  readonly bodyStart: number;
  /**
   * Why a match may leave the group unset: 'quantifier' when the only reason is the group's own
   * quantifier (`(?P<x>…)?`), 'context' when an enclosing `|` or optional quantifier is involved
   * (possibly as well), null when the group participates in every match.
   */
  readonly optional: 'quantifier' | 'context' | null;
  /** The group's own quantifier as written (`?`, `*`, `{0,3}?`), with its end offset; null if none. */
  readonly quantifier: { readonly text: string; readonly end: number } | null;
}

export interface RegexGroups {
  /** Named groups, in group-number order, exactly as RE2 reports them. */
  readonly names: readonly string[];
  /** Every capturing group, named or not, from the structural parse; null when that parse was not trusted. */
  readonly groups: readonly RegexGroup[] | null;
}

/**
 * Groups of `pattern` (Python `re` syntax, as written in the recipe), or null when the pattern
 * does not compile on RE2 (a loader configured without the RE2 check may hand us one).
 */
export function regexGroups(pattern: string, flags = ''): RegexGroups | null {
  let rawNames: readonly (string | undefined)[];
  try {
    const handle = compileRegex(pattern, flags);
    rawNames = handle.groupNames;
    handle.dispose();
  } catch {
    return null;
  }
  const names = rawNames.filter((n): n is string => n !== undefined);
  let groups: RegexGroup[] | null;
  try {
    groups = treeGroups(translatePythonRegex(pattern, flags).tree);
  } catch {
    groups = null;
  }
  // Trust the tree only when it numbers and names the groups exactly as RE2 does.
  if (groups !== null) {
    const same = groups.length === rawNames.length && groups.every((g, k) => g.name === (rawNames[k] ?? null));
    if (!same) groups = null;
  }
  return { names, groups };
}

/**
 * Every capturing group of the tree, with why a match may skip it: a quantifier with minimum 0 on the
 * group itself ('quantifier'), or an enclosing `|` or optional quantifier ('context').
 */
function treeGroups(tree: RegexTree): RegexGroup[] {
  const out: RegexGroup[] = [];
  type Own = { text: string; end: number; optional: boolean } | null;
  const visit = (n: RegexNode, inOptionalContext: boolean, own: Own): void => {
    switch (n.k) {
      case 'group':
        if (n.index > 0) {
          out.push({
            index: n.index,
            name: n.name,
            start: n.start,
            end: n.end,
            bodyStart: n.bodyStart,
            optional: inOptionalContext ? 'context' : own?.optional ? 'quantifier' : null,
            quantifier: own === null ? null : { text: own.text, end: own.end },
          });
        }
        // Groups nested inside a group a match may skip are skipped along with it.
        visit(n.body, inOptionalContext || (own?.optional ?? false), null);
        break;
      case 'repeat': {
        const q = { text: tree.pattern.slice(n.opStart, n.end), end: n.end, optional: n.min === 0 };
        if (n.sub.k === 'group') visit(n.sub, inOptionalContext, q);
        else visit(n.sub, inOptionalContext || q.optional, null);
        break;
      }
      case 'concat':
        for (const item of n.items) visit(item, inOptionalContext, null);
        break;
      case 'alt':
        // With two or more alternatives, a match takes only one of them.
        for (const alt of n.alts) visit(alt, true, null);
        break;
      default:
    }
  };
  visit(tree.root, false, null);
  return out.sort((x, y) => x.index - y.index);
}

/**
 * Whether the text of named group `name` can contain the code point `cp` (a leaf under the group's body matches it),
 * or null when that is not known (the tree was not trusted, or a node such as a backreference copies other text).
 */
function groupCanHold(tree: RegexTree, name: string, cp: number): boolean | null {
  let unknown = false;
  const holds = (n: RegexNode): boolean => {
    switch (n.k) {
      case 'literal':
        return contains(literalMembers(n), cp);
      case 'class':
        return contains(classMembers(n), cp);
      case 'dot':
        return contains(dotMembers(n), cp);
      case 'group':
        return holds(n.body);
      case 'repeat':
        return n.max > 0 && holds(n.sub);
      case 'concat':
        return n.items.some(holds);
      case 'alt':
        return n.alts.some(holds);
      case 'empty':
      case 'assert':
      case 'global-flags':
        return false;
      default:
        unknown = true;
        return false;
    }
  };
  const find = (n: RegexNode): RegexNode | null => {
    if (n.k === 'group' && n.name === name) return n;
    const kids: readonly RegexNode[] =
      n.k === 'group'
        ? [n.body]
        : n.k === 'repeat'
          ? [n.sub]
          : n.k === 'concat'
            ? n.items
            : n.k === 'alt'
              ? n.alts
              : [];
    for (const k of kids) {
      const hit = find(k);
      if (hit !== null) return hit;
    }
    return null;
  };
  const group = find(tree.root);
  if (group === null) return null;
  const result = holds(group);
  return unknown ? null : result;
}

/**
 * What `capture` can hold for this regex. Optional groups get an explanation; when the group is
 * optional only through its own `?`, the fix is to move the `?` inside (`(?P<x>(?:…)?)`): the group
 * then always participates, as '' when the part is absent.
 */
export function captureModel(pattern: string, flags = ''): CaptureModel | null {
  const info = regexGroups(pattern, flags);
  if (info === null) return null;
  let tree: RegexTree | null = null;
  if (info.groups !== null) {
    try {
      tree = translatePythonRegex(pattern, flags).tree;
    } catch {
      tree = null;
    }
  }
  const canHold = (name: string, cp: number): boolean | null => (tree === null ? null : groupCanHold(tree, name, cp));
  const optional = new Map<string, string>();
  for (const g of info.groups ?? []) {
    if (g.name === null || g.optional === null) continue;
    const groupText = pattern.slice(g.start, g.quantifier?.end ?? g.end);
    let why: string;
    if (g.optional === 'quantifier' && g.quantifier !== null && /^\?\??$/.test(g.quantifier.text)) {
      const open = pattern.slice(g.start, g.bodyStart);
      const body = pattern.slice(g.bodyStart, g.end - 1);
      why = `${groupText} is optional in the regex; write ${open}(?:${body})${g.quantifier.text}) so it always participates ('' when absent)`;
    } else if (g.optional === 'quantifier') {
      why = `${groupText} may be repeated zero times`;
    } else {
      why = `${groupText} sits in an alternative (|) or an optional part of the regex`;
    }
    optional.set(g.name, why);
  }
  let nameGroupHint: ((key: string) => string) | null = null;
  const firstPlain = info.names.length === 0 ? info.groups?.find((g) => g.name === null) : undefined;
  if (firstPlain !== undefined) {
    nameGroupHint = (key) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
        ? `${pattern.slice(0, firstPlain.start)}(?P<${key}>${pattern.slice(firstPlain.bodyStart)}`
        : `(?P<name>…)`;
  }
  return { names: info.names, optional, nameGroupHint, canHold };
}
