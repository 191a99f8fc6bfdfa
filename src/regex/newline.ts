/**
 * Can a pattern ever match a "\n" character? A pass over the regex tree.
 *
 * If it cannot, every match lies inside one line, so the match functions may hand re2-wasm line-aligned windows
 * instead of the whole remaining subject (see match.ts), which removes both the per-match full copy and the
 * total-size limit. The tree holds each node's exact code points (flags applied), so the answer is exact for
 * the characters a node consumes; assertions consume none.
 */
import { walk, type RegexTree } from './ast.js';
import { contains } from './charset.js';
import { classMembers, dotMembers, literalMembers } from './members.js';

const NL = 0x0a;

export function mayMatchNewline(tree: RegexTree): boolean {
  let nl = false;
  walk(tree.root, (n) => {
    if (n.k === 'dot') nl ||= contains(dotMembers(n), NL);
    else if (n.k === 'literal') nl ||= contains(literalMembers(n), NL);
    else if (n.k === 'class') nl ||= contains(classMembers(n), NL);
  });
  return nl;
}
