/**
 * When a pattern's RE2 program may be compiled on its first use instead of when the pattern is compiled.
 *
 * Why: an RE2 compile in re2-wasm costs 0.25–2.5 ms (a class such as Python's `\S`, written as its code-point
 * set, is the dear part), and the first re2-wasm instance ~60 ms more to instantiate. A recipe of 1,000 patterns
 * spent ~2.4 s of its `check` compiling, and a scan compiled each pattern again; yet a scan's byte prefilter
 * (literals.ts) rules out most patterns in most windows of a log, and a pattern on the fast path (fast-path.ts)
 * is matched by V8's RegExp and needs RE2 only for a text with a lone surrogate. Deferred, a pattern is compiled
 * only when some window may hold a match of it, and `check` compiles nothing it can prove compiles.
 *
 * Sound only where the compile cannot fail, since an unusable pattern must be reported when its recipe loads
 * (`check` means runnable). RE2 fails a compile for (a) syntax it does not accept, (b) a counted repetition
 * over 1000, (c) nesting deeper than 1000 (its parser's limit), (d) a program over its instruction budget:
 * `max_mem` 8 MiB, of which 2/3 go to the forward program, at 16 bytes per instruction and 1/4 of it usable
 * (re2/compile.cc `Compiler::Setup`) — about 87,000 instructions. For any tree parse.ts accepts:
 *  (a) cannot happen given the two checks made here. translate.ts writes a tree with: literals and class
 *      members as `[A-Za-z0-9_]`, an escaped ASCII punctuation character or `\x{…}` (RE2 takes each as itself);
 *      classes `[…]`/`[^…]` of ascending ranges of those; `.`; `^ $ \A \z \b \B`; groups `(…)`, `(?:…)`,
 *      `(?P<name>…)`, `(?-i:…)` and `(?flags:…)`/`(?flags-flags:…)`/a leading `(?flags)` with flags from "ims"
 *      (parse.ts rejects every other letter, a letter both on and off, and an empty change); `|`; and
 *      `* + ? {n} {n,} {n,m}` (each optionally lazy) on a single item — a literal, a class, `.`, or a group, never
 *      an assertion or another quantifier, which parse.ts rejects ("nothing to repeat", "multiple repeat"). RE2
 *      parses each of these, given that every group name is ASCII `[A-Za-z0-9_]` (RE2 rejects others that
 *      Python accepts, such as `(?P<größe>…)`) and the pattern has no lone surrogate (it reaches RE2 as
 *      UTF-8), both checked here;
 *  (b) is RE2's RepetitionWalker (re2/parse.cc): starting from 1000, each `{n,m}` below a counted repetition
 *      divides by m (by n when unbounded; `{0}` does not divide) and the walk fails at 0. floor(floor(a/b)/c) =
 *      floor(a/(bc)), so it fails exactly when the product of the counts down some path exceeds 1000 — `a{1001}`
 *      and `(?:(?:){40}){40}` alike; checked here (`* + ?` are not counted repetitions in RE2, nor are they
 *      written as braces by translate.ts);
 *  (c), (d) are bounded here: nesting ≤ MAX_DEFERRED_DEPTH, and an over-estimate of the instruction count ≤
 *      MAX_DEFERRED_INSTRUCTIONS, under a quarter of RE2's budget.
 * The over-estimate: a code-point range costs at most 64 instructions as UTF-8 byte ranges (one range splits
 * into at most 4 encoded lengths, each into at most 7 runs of ≤ 4 bytes, plus their alternations: 4·7·2 + 8);
 * a literal under IGNORECASE that RE2 folds itself (translate.ts: ASCII letters other than i, uncased ASCII)
 * is its fold orbit, at most 3 ranges (k K U+212A; s S U+017F); one it does not fold is its Python set; a
 * group 2 (its capture slots), an alternation one per alternative, a repetition {n,m} m copies of its item plus
 * one split each ({n,} counts n + 1 copies), an assertion 1.
 *
 * test/regex-deferred-compile.test.ts compiles patterns at each bound in RE2, and compiles every pattern of the
 * regex corpus and of a random tree generator that this module calls certain; the fast-path differential
 * compiles every generated fast-path pattern. As a last guard a deferred program that RE2 rejects after all is an
 * error on first use (engine.ts), never a silent miss.
 *
 * The catalogue's own patterns (Tier 3, Tier 4) are constants that tests compile in RE2: their callers vouch for
 * them (`CompileOptions.engineVouched`).
 */
import type { Node, RegexTree } from './ast.js';
import { classMembers, dotMembers, literalMembers } from './members.js';

export const MAX_DEFERRED_INSTRUCTIONS = 20_000;
export const MAX_DEFERRED_DEPTH = 100;

const PER_RANGE = 64;

/** RE2's bound on a counted repetition, and on the product of nested ones (re2/parse.cc `kMaxRepeat`). */
export const MAX_REPEAT_PRODUCT = 1000;

/** True when RE2 certainly compiles the tree (as translate.ts writes it): the program may then be compiled on first use. */
export function compileIsCertain(tree: RegexTree): boolean {
  return (
    tree.groups.every((g) => g.name === null || RE2_GROUP_NAME.test(g.name)) &&
    !LONE_SURROGATE.test(tree.pattern) &&
    repeatProduct(tree.root, 0) <= MAX_REPEAT_PRODUCT &&
    estimate(tree.root, 0) <= MAX_DEFERRED_INSTRUCTIONS
  );
}

const RE2_GROUP_NAME = /^[A-Za-z0-9_]+$/;
const LONE_SURROGATE = /\p{Surrogate}/u;

/** An over-estimate of the node's RE2 instructions; Infinity beyond the depth bound. */
function estimate(node: Node, depth: number): number {
  if (depth > MAX_DEFERRED_DEPTH) return Number.POSITIVE_INFINITY;
  switch (node.k) {
    case 'empty':
    case 'global-flags':
      return 0;
    case 'assert':
      return 1;
    case 'literal':
      // RE2 folds an ASCII letter into at most 3 ranges; otherwise translate.ts writes the Python set.
      return node.ci ? PER_RANGE * Math.max(3, literalMembers(node).length) : PER_RANGE;
    case 'dot':
      return PER_RANGE * dotMembers(node).length;
    case 'class':
      return PER_RANGE * Math.max(1, classMembers(node).length);
    case 'group':
      return 2 + estimate(node.body, depth + 1);
    case 'concat':
      return node.items.reduce((n, item) => n + estimate(item, depth + 1), 0);
    case 'alt':
      return node.alts.reduce((n, alt) => n + 1 + estimate(alt, depth + 1), 0);
    case 'repeat': {
      const copies = Number.isFinite(node.max) ? Math.max(node.max, 1) : node.min + 1;
      return copies * (1 + estimate(node.sub, depth + 1));
    }
  }
}

/**
 * The largest product of counted-repetition counts down any path of the tree, as RE2's RepetitionWalker divides
 * them (m, or n when unbounded; 0 does not count); Infinity beyond the depth bound. `* + ?` (written so by
 * translate.ts: {0,}, {1,}, {0,1}) are not counted repetitions in RE2.
 */
function repeatProduct(node: Node, depth: number): number {
  if (depth > MAX_DEFERRED_DEPTH) return Number.POSITIVE_INFINITY;
  switch (node.k) {
    case 'group':
      return repeatProduct(node.body, depth + 1);
    case 'concat':
      return node.items.reduce((m, item) => Math.max(m, repeatProduct(item, depth + 1)), 1);
    case 'alt':
      return node.alts.reduce((m, alt) => Math.max(m, repeatProduct(alt, depth + 1)), 1);
    case 'repeat': {
      const { min, max } = node;
      const braces = !((min === 0 || min === 1) && max === Infinity) && !(min === 0 && max === 1);
      const count = Number.isFinite(max) ? max : min;
      return (braces && count > 0 ? count : 1) * repeatProduct(node.sub, depth + 1);
    }
    default:
      return 1;
  }
}
