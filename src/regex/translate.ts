/**
 * The RE2 spelling of a parsed Python pattern: a pass over the regex tree that writes each node so RE2 gives
 * it Python's meaning.
 *
 * - Classes (`[…]`, `\d \w \s` and negations) are written as the explicit code-point sets Python matches
 *   (Unicode-aware, Python 3.11's Unicode 14.0), not as RE2's ASCII-only `\d \w \s` or its own Unicode tables.
 * - IGNORECASE: RE2 folds with Unicode simple case folding, Python with its own lower-case rules, and they
 *   differ (Python's `(?i)i` also matches `İ` and `ı`). Where they agree — ASCII letters other than i, and
 *   uncased characters — the node is written as is and RE2 folds it; elsewhere the node becomes the exact set
 *   Python matches inside `(?-i:…)`, so RE2 does not fold it again.
 * - `\Z` (end of text) is RE2's `\z`; `^ $ .` and the flag groups are written as is (RE2 gives them Python's
 *   meaning, except `$` without MULTILINE: see `notes`).
 */
import type { Assertion, Class, Group, Literal, Node, RegexTree, Repeat } from './ast.js';
import { complement, isCased, MAX_CP, type CharSet } from './charset.js';
import { classMembers, literalMembers } from './members.js';

/** ASCII letters whose IGNORECASE partners are the same in RE2 and in Python (checked by the corpus test). */
const RE2_FOLDS_LIKE_PYTHON = /^[A-HJ-Za-hj-z]$/;

const hex = (cp: number): string => `\\x{${cp.toString(16)}}`;

function spellChar(cp: number): string {
  const c = String.fromCodePoint(cp);
  if (/^[A-Za-z0-9_]$/.test(c)) return c;
  if (/^[ -~]$/.test(c)) return `\\${c}`; // ASCII punctuation: RE2 accepts every escaped one as itself
  return hex(cp);
}
/** Patterns are mostly ASCII: each of those spelled once. */
const asciiSpelling: (string | undefined)[] = [];
const charSource = (cp: number): string => (cp < 0x80 ? (asciiSpelling[cp] ??= spellChar(cp)) : spellChar(cp));

function setSource(set: CharSet): string {
  if (set.length === 0) return `[^${hex(0)}-${hex(MAX_CP)}]`;
  // The complement is often far shorter (\D, [^a]); it denotes the same set.
  const other = complement(set);
  const [body, negate] = other.length > 0 && other.length < set.length ? [other, '^'] : [set, ''];
  const parts = body.map(([lo, hi]) => (lo === hi ? charSource(lo) : `${charSource(lo)}-${charSource(hi)}`));
  return `[${negate}${parts.join('')}]`;
}

function literalSource(node: Literal): string {
  if (!node.ci) return charSource(node.cp);
  const c = String.fromCodePoint(node.cp);
  // Outside ASCII, RE2's folding may relate characters Python keeps apart (and vice versa), cased or not.
  const re2Agrees = node.cp < 0x80 && (!isCased(node.cp) || RE2_FOLDS_LIKE_PYTHON.test(c));
  if (re2Agrees) return charSource(node.cp);
  return `(?-i:${setSource(literalMembers(node))})`;
}

function classSource(node: Class): string {
  const members = classMembers(node);
  let set = setSources.get(members);
  if (set === undefined) {
    set = setSource(members);
    setSources.set(members, set);
  }
  return node.ci ? `(?-i:${set})` : set;
}
/**
 * The spelling of each class's set, by the set: an escape alone (`\S`) has one shared set (members.ts), which a
 * catalogue of many patterns repeats.
 */
const setSources = new WeakMap<CharSet, string>();

/** RE2 gives each assertion Python's meaning; only end of text is spelled differently. */
const ASSERTION_SOURCE: Readonly<Record<Assertion['what'], string>> = {
  'line-start': '^',
  'line-end': '$',
  'text-start': '\\A',
  'text-end': '\\z',
  'word-boundary': '\\b',
  'not-word-boundary': '\\B',
};

function groupSource(node: Group): string {
  let open = '(?:';
  if (node.name !== null) open = `(?P<${node.name}>`;
  else if (node.index > 0) open = '(';
  else if (node.flags !== null) open = `(?${node.flags.on}${node.flags.off === '' ? '' : `-${node.flags.off}`}:`;
  return `${open}${source(node.body)})`;
}

function repeatSource(node: Repeat): string {
  const { min, max } = node;
  let op: string;
  if (min === 0 && max === Infinity) op = '*';
  else if (min === 1 && max === Infinity) op = '+';
  else if (min === 0 && max === 1) op = '?';
  else if (max === Infinity) op = `{${min},}`;
  else op = min === max ? `{${min}}` : `{${min},${max}}`;
  return `${source(node.sub)}${op}${node.lazy ? '?' : ''}`;
}

/** One writer per node kind. */
function source(node: Node): string {
  switch (node.k) {
    case 'empty':
      return '';
    case 'literal':
      return literalSource(node);
    case 'dot':
      return '.';
    case 'class':
      return classSource(node);
    case 'assert':
      return ASSERTION_SOURCE[node.what];
    case 'global-flags':
      return `(?${node.on})`;
    case 'group':
      return groupSource(node);
    case 'repeat':
      return repeatSource(node);
    case 'concat':
      return node.items.map(source).join('');
    case 'alt':
      return node.alts.map(source).join('|');
  }
}

/** The pattern as handed to RE2. */
export function re2Source(tree: RegexTree): string {
  return source(tree.root);
}
