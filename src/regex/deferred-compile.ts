/**
 * When a pattern's RE2 program may be compiled on its first use instead of when the pattern is compiled.
 *
 * Why: the first re2-wasm instance costs ~60 ms to instantiate, and its first compile ~40 ms more while V8
 * lazily compiles the wasm functions RE2's compiler runs. A pattern on the fast path (fast-path.ts) is matched
 * by V8's RegExp and needs RE2 only for a text with a lone surrogate; a scan's prefilter (literals.ts) may rule
 * out every window of a clean log. `check` of a recipe whose patterns all run on the fast path, and a scan that
 * never needs the engine, then never start it.
 *
 * Sound only where the compile cannot fail, since an unusable pattern must be reported when its recipe loads
 * (`check` means runnable). RE2 fails a compile for (a) syntax it does not accept, (b) a counted repetition
 * over 1000, (c) nesting deeper than 1000 (its parser's limit), (d) a program over its instruction budget:
 * `max_mem` 8 MiB, of which 2/3 go to the forward program, at 16 bytes per instruction and 1/4 of it usable
 * (re2/compile.cc `Compiler::Setup`) — about 87,000 instructions. For a tree in the fast path's subset:
 *  (a) cannot happen: translate.ts spells such a tree with literals, classes, `* + ? {n,m}` on one item,
 *      groups, alternation, `\b \B` and `(?m)^` only, each of which RE2 parses — given that every group name is
 *      ASCII `[A-Za-z0-9_]` (RE2 rejects others that Python accepts, such as `(?P<größe>…)`) and the pattern
 *      has no lone surrogate (it reaches RE2 as UTF-8), both checked here;
 *  (b) translate.ts already rejects (it is a RegexSyntaxError at compile time, deferred or not);
 *  (c), (d) are bounded here: nesting ≤ MAX_DEFERRED_DEPTH, and an over-estimate of the instruction count ≤
 *      MAX_DEFERRED_INSTRUCTIONS, under a quarter of RE2's budget.
 * The over-estimate: a code-point range costs at most 64 instructions as UTF-8 byte ranges (one range splits
 * into at most 4 encoded lengths, each into at most 7 runs of ≤ 4 bytes, plus their alternations: 4·7·2 + 8);
 * a group 2 (its capture slots), an alternation one per alternative, a repetition {n,m} m copies of its item
 * plus one split each ({n,} counts n + 1 copies), an assertion 1. test/regex-deferred-compile.test.ts compiles
 * patterns at the bound in RE2, and the fast-path differential compiles every generated fast-path pattern.
 *
 * The catalogue's own patterns (Tier 3, Tier 4) are constants that tests compile in RE2: their callers vouch for
 * them (`CompileOptions.engineVouched`).
 */
import type { Node, RegexTree } from './ast.js';
import { classMembers, dotMembers } from './members.js';

export const MAX_DEFERRED_INSTRUCTIONS = 20_000;
export const MAX_DEFERRED_DEPTH = 100;

const PER_RANGE = 64;

/**
 * True when RE2 certainly compiles the tree, which must be in the fast path's subset (fast-path.ts accepted
 * it): the program may then be compiled on first use.
 */
export function compileIsCertain(tree: RegexTree): boolean {
  return (
    tree.groups.every((g) => g.name === null || RE2_GROUP_NAME.test(g.name)) &&
    !LONE_SURROGATE.test(tree.pattern) &&
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
      // A literal under IGNORECASE is outside the fast path; one code point is one range.
      return PER_RANGE;
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
