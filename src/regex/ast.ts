/**
 * The regex syntax tree: a Python-`re` pattern parsed once (src/regex/parse.ts), with its meaning resolved.
 *
 * Every analysis is a pass over this tree — translation to RE2 (translate.ts), its notes (syntax.ts), newline
 * analysis (newline.ts), the literal prefilter (literals.ts), the fast path (fast-path.ts), the lint's group
 * analysis (src/lint/regex-groups.ts) — so none of them re-reads pattern text, nor the translated RE2 text. Nodes carry
 * UTF-16 offsets into the pattern as written (`start` inclusive, `end` exclusive) for messages and the lint.
 *
 * Meaning is resolved at parse time: a character class holds the code points Python matches (its escapes,
 * ranges and negation applied, case-sensitively), and each node that IGNORECASE affects records whether it
 * is in force there (`ci`), so a pass never tracks flags itself.
 */
import type { CharSet } from './charset.js';

export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Matches nothing, always succeeds (an empty alternative or group body). */
export interface Empty extends Span {
  readonly k: 'empty';
}

/** One code point, as written (`a`, `\.`, `\x41`, `\u00e9`, `\101`). */
export interface Literal extends Span {
  readonly k: 'literal';
  readonly cp: number;
  /** IGNORECASE is in force here. */
  readonly ci: boolean;
}

/** `.`: any code point but "\n", or any at all under DOTALL. */
export interface Dot extends Span {
  readonly k: 'dot';
  readonly dotAll: boolean;
}

/** A set `[…]` or a class escape `\d \D \w \W \s \S`, as the code points Python matches case-sensitively. */
export interface Class extends Span {
  readonly k: 'class';
  /**
   * The members written as characters and ranges, before any negation (`[^a-z]` → a-z); under IGNORECASE Python
   * folds these, then negates.
   */
  readonly positive: CharSet;
  /**
   * The members of the class escapes in it (`\d \s \w \D \S \W`, alone or in a set), before any negation. Never
   * folded: Python tests them on the character (on its lower case beside a cased member, the same answer for every
   * ASCII character), so `(?i)\W` matches no letter although the complement of `\w` holds U+212A KELVIN SIGN.
   */
  readonly categories: CharSet;
  readonly negated: boolean;
  readonly ci: boolean;
  /** It contains `\w` or `\W`, which stay ASCII-only here (see CLASS_ESCAPE in charset.ts). */
  readonly usesAsciiWord: boolean;
}

export type AssertionKind =
  | 'line-start' // ^
  | 'line-end' // $
  | 'text-start' // \A
  | 'text-end' // \Z
  | 'word-boundary' // \b
  | 'not-word-boundary'; // \B

export interface Assertion extends Span {
  readonly k: 'assert';
  readonly what: AssertionKind;
  /** MULTILINE is in force here (it changes ^ and $ only). */
  readonly multiline: boolean;
}

/** Which of the flags RE2 shares with Python a group turns on and off. */
export interface FlagChange {
  readonly on: string;
  readonly off: string;
}

/** `(…)`, `(?P<name>…)`, `(?:…)` or a scoped-flag group `(?i:…)`. */
export interface Group extends Span {
  readonly k: 'group';
  /** 1-based group number for a capturing group, 0 otherwise. */
  readonly index: number;
  readonly name: string | null;
  /** Flags of a scoped-flag group `(?i-s:…)`, else null. */
  readonly flags: FlagChange | null;
  /** Offset just past the opening (`(`, `(?P<name>`), where the body starts. */
  readonly bodyStart: number;
  readonly body: Node;
}

/** A global flag group `(?i)` at the start of the pattern (Python allows it nowhere else). */
export interface GlobalFlags extends Span {
  readonly k: 'global-flags';
  readonly on: string;
}

/** `x*`, `x+?`, `x{2,5}`… */
export interface Repeat extends Span {
  readonly k: 'repeat';
  readonly min: number;
  /** Infinity for an unbounded repeat. */
  readonly max: number;
  readonly lazy: boolean;
  /** Offset of the quantifier itself (so `pattern.slice(opStart, end)` is `*?`, `{0,3}`…). */
  readonly opStart: number;
  readonly sub: Node;
}

export interface Concat extends Span {
  readonly k: 'concat';
  readonly items: readonly Node[];
}

export interface Alternation extends Span {
  readonly k: 'alt';
  readonly alts: readonly Node[];
}

export type Node = Empty | Literal | Dot | Class | Assertion | Group | GlobalFlags | Repeat | Concat | Alternation;

export interface RegexTree {
  readonly pattern: string;
  readonly root: Node;
  /** Capturing groups in number order (group k is `groups[k - 1]`). */
  readonly groups: readonly Group[];
  /** Some flag group turns MULTILINE on (the lint's end-of-text `$` list is then left empty, conservatively). */
  readonly setsMultiline: boolean;
}

/** The alternatives of a node in an alternative's place: an alternation's, or the node alone. */
export function alternativesOf(node: Node): readonly Node[] {
  return node.k === 'alt' ? node.alts : [node];
}

/** The items of an alternative: a concatenation's, none for an empty one, or the node alone. */
export function itemsOf(node: Node): readonly Node[] {
  return node.k === 'concat' ? node.items : node.k === 'empty' ? [] : [node];
}

/** Calls `visit` on `node` and every node under it, parents first. */
export function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  switch (node.k) {
    case 'group':
      walk(node.body, visit);
      break;
    case 'repeat':
      walk(node.sub, visit);
      break;
    case 'concat':
      for (const n of node.items) walk(n, visit);
      break;
    case 'alt':
      for (const n of node.alts) walk(n, visit);
      break;
    default:
  }
}
