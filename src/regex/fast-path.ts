/**
 * A native fast path for a safe subset of patterns: V8's own RegExp, used only where it provably returns what
 * RE2 returns, in time linear in the text. A pass over the regex tree (ast.ts).
 *
 * Why: every re2-wasm call costs 4–5 µs before any matching (embind copies the subject byte by byte, builds the
 * result object property by property), so a pattern that matches every line of a log — each match needs its
 * captures to evaluate a condition — cannot scan faster than ~30 MB/s through re2-wasm. V8's RegExp finds the
 * same matches in ~0.1 µs each.
 *
 * Why it is safe — two properties are checked on the tree, and anything outside the subset stays on RE2, with
 * the rule it breaks (`FastPathRule`, named after the step below):
 *
 *  1. **Same meaning.** The subset is: literal characters, `.`, character classes, the quantifiers
 *     `* + ? {n} {n,} {n,m}` (greedy or lazy) on single characters, one optional pass through a group (`(…)?`,
 *     `(…)??`, written as a choice with an empty alternative in the quantifier's order — leftmost-first in both
 *     engines — and unambiguous for the captures inside: set by the pass or unset); no other quantified group
 *     (1-quantified-group: nested loops, captures of the last pass), capturing / non-capturing / scoped-flag
 *     groups, alternation, `\b \B`, and `^` under MULTILINE (written `(?<![^\n])`: like `\b` it reads only the
 *     code point before it, which a scan window carries as its left context and both engines read from the
 *     text before the search position). No other anchor (1-anchor: they depend on where the subject starts or
 *     ends, which a window's does not show), no class that matches nothing (1-empty-class). Flags need no rule:
 *     the tree holds their effect on each node (IGNORECASE and DOTALL in its sets, MULTILINE in its anchors).
 *     Each character item is written as the explicit code-point class the tree holds for it (members.ts: what
 *     RE2 is given, by translate.ts, to match — IGNORECASE included) and compiled with the `u` flag and
 *     without `i`, so both engines see the same code points. Both engines are
 *     leftmost-first with the same greedy/lazy preferences, and with no looping groups every capture is
 *     unambiguous. A text with a lone surrogate (RE2 reads it as U+FFFD) is left to RE2 (match.ts).
 *  2. **Linear time.** A backtracking engine is slow only when it can re-scan the same text many times. In the
 *     subset: (a) every variable-length item except a final one is followed by a mandatory item whose first
 *     characters it cannot match, so backing off a repetition fails at once, position by position
 *     (2a-backoff; a choice's alternatives must be fixed-length and assertion-free for its first characters
 *     to be known, 2a-choice, and a choice with an empty alternative is not mandatory; `x{0}` outside a choice
 *     is not modelled, 2a-zero-repeat); (b) no
 *     item of that kind can match a character that can start a match (2b-restart), so no attempt starts
 *     inside a run another attempt already scanned, which needs every alternative to start with a mandatory
 *     item (2b-start: not `a*`, not `(?:a)?`); (c) a final variable item always succeeds once reached, and the next search resumes
 *     after the match — only assertions after a repetition could still fail (2c-assertion-after-run);
 *     (d) the alternatives tried at one position are bounded (≤ 16 in product, an optional group counting
 *     two, 2d-branching). So each
 *     character is examined a bounded number of times: linear in the text, whatever the input.
 *
 * The differential test in test/regex-fast-path.test.ts checks (1) against re2-wasm on generated patterns and
 * texts.
 */
import { alternativesOf, itemsOf, type Node, type RegexTree, type Repeat } from './ast.js';
import { intersects, union, type CharSet } from './charset.js';
import { classMembers, dotMembers, literalMembers } from './members.js';

/** Why a pattern stays on RE2: the step of the module comment's proof it cannot be shown to satisfy. */
export type FastPathRule =
  | '1-anchor'
  | '1-quantified-group'
  | '1-empty-class'
  | '2a-backoff'
  | '2a-choice'
  | '2a-zero-repeat'
  | '2b-restart'
  | '2b-start'
  | '2c-assertion-after-run'
  | '2d-branching';

export type FastPathVerdict =
  | { readonly ok: true; readonly source: string }
  | {
      readonly ok: false;
      readonly rule: FastPathRule;
      /** UTF-16 offset in the pattern of the node that breaks it. */
      readonly at: number;
    };

interface Rejection {
  readonly rule: FastPathRule;
  readonly at: number;
}

const reject = (rule: FastPathRule, at: number): Rejection => ({ rule, at });
const rejected = (x: object): x is Rejection => 'rule' in x;

/** A character item: one set, repeated min..max times. */
interface SetItem {
  readonly k: 'set';
  readonly at: number;
  readonly set: CharSet;
  readonly min: number;
  readonly max: number; // Infinity for unbounded
  readonly lazy: boolean;
}
interface GroupItem {
  readonly k: 'group';
  readonly at: number;
  readonly capture: boolean;
  readonly alts: readonly Seq[];
}
interface AssertItem {
  readonly k: 'assert';
  readonly at: number;
  /** `\b`, `\B`, or `^` under MULTILINE. */
  readonly what: 'word-boundary' | 'not-word-boundary' | 'line-start';
}
type Item = SetItem | GroupItem | AssertItem;
type Seq = readonly Item[];

/** Bound on the alternatives a backtracking engine may try at one position (property 2d). */
const MAX_BRANCHING = 16;

// Step 1: the subset, read off the tree.

/** The set a single-character node matches, or why it is outside the subset. */
function charSet(node: Node): CharSet | Rejection | null {
  switch (node.k) {
    // IGNORECASE and DOTALL are already in the sets: members.ts gives what RE2 is made to match (translate.ts
    // writes these very sets for it, or a fold the corpus test shows to agree), and V8 gets them without `i`.
    case 'literal':
      return literalMembers(node);
    case 'dot':
      return dotMembers(node);
    case 'class': {
      const set = classMembers(node);
      return set.length === 0 ? reject('1-empty-class', node.start) : set;
    }
    default:
      return null;
  }
}

function item(node: Node): Item | Rejection {
  const set = charSet(node);
  if (set !== null) return rejected(set) ? set : { k: 'set', at: node.start, set, min: 1, max: 1, lazy: false };
  switch (node.k) {
    case 'repeat': {
      const sub = charSet(node.sub);
      if (sub === null) return optionalGroup(node);
      if (rejected(sub)) return sub;
      return { k: 'set', at: node.start, set: sub, min: node.min, max: node.max, lazy: node.lazy };
    }
    case 'assert':
      // `^` under MULTILINE looks only at the code point before it, which every scan window carries as its left
      // context (scan/windows.ts) and RE2 reads from the text before the start position: it is decided the same
      // way wherever the search starts. `^` without MULTILINE, `$`, `\A` and `\Z` depend on where the subject
      // ends or starts, which a window is not.
      if (
        node.what === 'word-boundary' ||
        node.what === 'not-word-boundary' ||
        (node.what === 'line-start' && node.multiline)
      )
        return { k: 'assert', at: node.start, what: node.what };
      return reject('1-anchor', node.start);
    case 'group': {
      // A scoped-flag group is a plain group: its flags are in the nodes it holds.
      const alts = alternatives(node.body);
      return rejected(alts) ? alts : { k: 'group', at: node.start, capture: node.index > 0, alts };
    }
    default: {
      // A sequence or alternation in an item's place (the parser nests them only in groups) is a plain group.
      const alts = alternatives(node);
      return rejected(alts) ? alts : { k: 'group', at: node.start, capture: false, alts };
    }
  }
}

/** `f` of each of `xs`, or the first rejection. */
function each<A, B extends object>(xs: readonly A[], f: (x: A) => B | Rejection): B[] | Rejection {
  const out: B[] = [];
  for (const x of xs) {
    const y = f(x);
    if (rejected(y)) return y;
    out.push(y);
  }
  return out;
}

/**
 * `(…)?` and `(…)??`: one optional pass through a group is a choice between it and nothing, in the order the
 * quantifier prefers (leftmost-first in both engines), so `(?:X)?` is written `(?:X|)` and `(?:X)??` `(?:|X)`.
 * With at most one pass a capture inside is unambiguous: set by the pass, or unset. Any other quantified group
 * may loop (nested repetitions, captures from the last pass).
 */
function optionalGroup(node: Repeat): Item | Rejection {
  if (node.min !== 0 || node.max !== 1) return reject('1-quantified-group', node.start);
  const sub = item(node.sub);
  if (rejected(sub)) return sub;
  return { k: 'group', at: node.start, capture: false, alts: node.lazy ? [[], [sub]] : [[sub], []] };
}

/** A global flag group `(?i)` matches nothing: its flags are in the nodes, so it is no item. */
const alternatives = (node: Node): Seq[] | Rejection =>
  each(alternativesOf(node), (alt): Seq | Rejection =>
    each(
      itemsOf(alt).filter((n) => n.k !== 'global-flags'),
      item,
    ),
  );

// Step 2: linear time.

/** An item as the linear-time analysis sees it, after inlining single-alternative groups. */
type Flat =
  | { readonly k: 'var' | 'fixed'; readonly at: number; readonly set: CharSet; readonly min: number }
  | {
      readonly k: 'choice';
      readonly at: number;
      /** The first characters of its non-empty alternatives. */
      readonly first: CharSet;
      /** It has an empty alternative (`(?:X)?`), so it may consume nothing: `first` is not mandatory. */
      readonly optional: boolean;
      readonly branches: number;
    }
  | { readonly k: 'assert'; readonly at: number };

/** What a choice's alternatives start with: a mandatory first set unless one of them is empty. */
interface ChoiceFirst {
  readonly first: CharSet;
  readonly optional: boolean;
}

/**
 * The first set of a choice's alternative, which must be fixed-length (2a-choice), or 'empty' for an
 * alternative with no items.
 */
function fixedFirst(seq: Seq, at: number): CharSet | 'empty' | Rejection {
  if (seq.length === 0) return 'empty';
  let first: CharSet | null = null;
  for (const it of seq) {
    if (it.k === 'assert') return reject('2a-choice', it.at);
    if (it.k === 'set') {
      if (it.min !== it.max) return reject('2a-choice', it.at);
      if (first === null && it.min > 0) first = it.set;
    } else {
      const firsts = choiceFirst(it.alts, it.at);
      if (rejected(firsts)) return firsts;
      // An optional group first: the alternative's first characters are its or what follows; not modelled.
      if (first === null && firsts.optional) return reject('2a-choice', it.at);
      if (first === null) first = firsts.first;
    }
  }
  // Items that all match nothing (`x{0}`): the alternative is empty in effect; not modelled.
  return first ?? reject('2a-choice', at);
}

function choiceFirst(alts: readonly Seq[], at: number): ChoiceFirst | Rejection {
  let first: CharSet = [];
  let optional = false;
  for (const alt of alts) {
    const f = fixedFirst(alt, at);
    if (f === 'empty') optional = true;
    else if (rejected(f)) return f;
    else first = union(first, f);
  }
  return { first, optional };
}

function branchesOf(seq: Seq): number {
  let n = 1;
  for (const it of seq) if (it.k === 'group') n *= it.alts.reduce((s, a) => s + branchesOf(a), 0);
  return n;
}

function flatten(seq: Seq, out: Flat[]): Rejection | null {
  for (const it of seq) {
    if (it.k === 'assert') out.push({ k: 'assert', at: it.at });
    else if (it.k === 'set') {
      if (it.max === 0) return reject('2a-zero-repeat', it.at); // `x{0}` matches nothing; keep it simple
      out.push({ k: it.min === it.max ? 'fixed' : 'var', at: it.at, set: it.set, min: it.min });
    } else if (it.alts.length === 1) {
      const r = flatten(it.alts[0]!, out);
      if (r !== null) return r;
    } else {
      const c = choiceFirst(it.alts, it.at);
      if (rejected(c)) return c;
      const branches = it.alts.reduce((s, a) => s + branchesOf(a), 0);
      out.push({ k: 'choice', at: it.at, first: c.first, optional: c.optional, branches });
    }
  }
  return null;
}

/** The characters an item must start with when it is reached, or null if it may consume nothing. */
function mandatoryFirst(f: Flat): CharSet | null {
  if (f.k === 'assert') return null;
  if (f.k === 'choice') return f.optional ? null : f.first;
  return f.min >= 1 ? f.set : null;
}

/** Property 2 of the module comment, or the first step that cannot be shown. */
function checkLinear(alts: readonly Seq[], at: number): Rejection | null {
  let starts: CharSet = [];
  let backedOff: CharSet = [];
  let branching = 0;
  for (const alt of alts) {
    const flat: Flat[] = [];
    const r = flatten(alt, flat);
    if (r !== null) return r;
    branching += branchesOf(alt);
    const head = flat.find((f) => f.k !== 'assert');
    if (head === undefined) return reject('2b-start', alt[0]?.at ?? at);
    // An optional first item (`a*`, `(?:a)?`): matches could start anywhere.
    const headFirst = mandatoryFirst(head);
    if (headFirst === null) return reject('2b-start', head.at);
    starts = union(starts, headFirst);
    for (let i = 0; i < flat.length; i++) {
      const f = flat[i]!;
      if (f.k !== 'var') continue;
      if (i === flat.length - 1) continue; // (c): a final repetition always succeeds once reached
      let j = i + 1;
      while (j < flat.length && flat[j]!.k === 'assert') j++;
      const next = flat[j];
      if (next === undefined) return reject('2c-assertion-after-run', f.at); // they may fail after the run
      // The next item must be mandatory; an optional one (`a*(?:b)?c`) would let the run back off onto what follows.
      const nextFirst = mandatoryFirst(next);
      if (nextFirst === null || intersects(f.set, nextFirst)) return reject('2a-backoff', f.at);
      backedOff = union(backedOff, f.set);
    }
  }
  if (intersects(starts, backedOff)) return reject('2b-restart', at);
  if (branching > MAX_BRANCHING) return reject('2d-branching', at);
  return null;
}

// The JS spelling.

/** `^` under MULTILINE is "at the start, or after \n" (Python and RE2 alike; not after \r): no code point but \n before. */
const ASSERT_SOURCE: Record<AssertItem['what'], string> = {
  'word-boundary': '\\b',
  'not-word-boundary': '\\B',
  'line-start': '(?<![^\\n])',
};

function classSource(set: CharSet): string {
  const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
  return `[${set.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

function seqSource(seq: Seq): string {
  let s = '';
  for (const it of seq) {
    if (it.k === 'assert') s += ASSERT_SOURCE[it.what];
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

/** Whether the parsed pattern is in the safe subset: its JS source (for the `u` flag), or the rule it breaks. */
export function fastPathVerdict(tree: RegexTree): FastPathVerdict {
  const alts = alternatives(tree.root);
  const r = rejected(alts) ? alts : checkLinear(alts, tree.root.start);
  if (r !== null) return { ok: false, rule: r.rule, at: r.at };
  return { ok: true, source: (alts as Seq[]).map(seqSource).join('|') };
}

/** The JS source (for the `u` flag) of a parsed pattern in the safe subset, or null. */
export function fastPathSource(tree: RegexTree): string | null {
  const v = fastPathVerdict(tree);
  return v.ok ? v.source : null;
}

/** `fastPathSource` compiled with the `g` and `u` flags, or null. */
export function fastPathRegExp(tree: RegexTree): RegExp | null {
  const js = fastPathSource(tree);
  return js === null ? null : new RegExp(js, 'gu');
}
