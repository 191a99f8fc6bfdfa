/**
 * The code points each consuming node of the regex tree matches in Python, IGNORECASE and DOTALL applied.
 *
 * The one place a node's meaning becomes a character set: translation writes these sets for RE2, the fast
 * path for V8, newline analysis asks whether "\n" is in them. The set algebra and Python's tables are
 * charset.ts's.
 */
import type { Class, Dot, Literal } from './ast.js';
import { caseClosure, caseEquivalents, complement, hasCased, MAX_CP, single, union, type CharSet } from './charset.js';

const NL = 0x0a;
const ANY: CharSet = [[0, MAX_CP]];
const NOT_NEWLINE: CharSet = complement(single(NL));

/** The code points a literal node matches in Python, IGNORECASE applied. */
export function literalMembers(node: Literal): CharSet {
  return node.ci ? caseEquivalents(node.cp) : single(node.cp);
}

/** The code points a class node matches in Python, IGNORECASE applied. */
export function classMembers(node: Class): CharSet {
  let members = classMemo.get(node);
  if (members === undefined) {
    const written = node.ci && hasCased(node.positive) ? caseClosure(node.positive) : node.positive;
    // Escapes alone (`\S`) keep the parser's set, one object per escape letter: the passes that memoise per set
    // (translate.ts) then meet the same one in every pattern. (Both are normalised: a union would copy it.)
    const positive =
      node.categories.length === 0 ? written : written.length === 0 ? node.categories : union(written, node.categories);
    members = node.negated ? complement(positive) : positive;
    classMemo.set(node, members);
  }
  return members;
}

/** Each pass over a tree (translation, literals, fast path, size estimate) asks for the same classes. */
const classMemo = new WeakMap<Class, CharSet>();

/** The code points `.` matches: all but "\n", or all under DOTALL. */
export function dotMembers(node: Dot): CharSet {
  return node.dotAll ? ANY : NOT_NEWLINE;
}
