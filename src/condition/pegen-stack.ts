import type { Token } from './tokenizer.js';

/**
 * Whether CPython's parser would stop with `MemoryError` (pegen's MAXSTACK: a rule function entered
 * at `p->level == 6000`) before reaching the answer our parser gives.
 *
 * A condition is at most 256 characters and the tokenizer refuses a 201st open bracket, so the
 * limit is reachable only in pegen's second pass, which costs about 30 rule frames per bracket
 * (the first pass costs 28–29, so 200 brackets stay under 6,000). The second pass runs only when
 * the first failed without an error. This decides one shape of nest, the one whose frames are a
 * plain sum; for anything else the answer is `null` (our parser's answer stands):
 *
 *     O* A '{' O* [B] <tokenizer error: a bracket never closed, or the 201st bracket>
 *
 * with O an open bracket, A and B a NUMBER, a NAME that is no hard keyword, or True/False/None.
 * The first pass stops at `A {` without an error. The second pass re-enters every bracket with
 * the invalid rules on, and the `{` after A by way of `invalid_expression`, until fetching the
 * token after the last one raises the tokenizer's error, unless the stack ran out first. Nests
 * with an operator, a string, a closing bracket or a second `A {` in them can reach the limit
 * too; they are not modelled (docs/deviations.md).
 *
 * The frame counts are CPython 3.11's, read off `python3.11-dbg -d` traces (the trace's indent
 * is `p->level`), and the limit is where python3 switches to MemoryError. The level at that
 * fetch is the sum of `BRACKET` over every bracket but a final one, plus `FINAL` for the last
 * token. `scripts/gen_pegen_stack_corpus.py` checks the model against python3 on generated nests
 * near the limit, and `fixtures/conditions/golden-pegen-stack.jsonl` holds its answers.
 */
export function exceedsPegenStack(tokens: readonly Token[]): boolean | null {
  const level = secondPassLevel(tokens);
  return level === null ? null : level >= PEGEN_MAXSTACK_LEVEL;
}

/** The deepest `p->level` a rule reaches once MAXSTACK (6000) is hit: it is entered at 6000. */
const PEGEN_MAXSTACK_LEVEL = 6001;

/** Frames per open bracket in the second pass (atom → tuple/list/dict → … → expression). */
const BRACKET: Readonly<Record<string, number>> = { '(': 30, '[': 31, '{': 30 };

/** Frames below a final open bracket while its first element's token is fetched. */
const FINAL_BRACKET: Readonly<Record<string, number>> = { '(': 28, '[': 29, '{': 29 };
/** The `{` right after A, when it is the last token (one frame fewer than a nested `{`). */
const FINAL_BREAK = 28;
/** A final NUMBER or True/False/None: the token after it is fetched 24 frames down. */
const FINAL_NUMBER = 24;
/** A final NAME: 3 frames down inside a nested `{` (its set/dict probes), 0 elsewhere. */
const FINAL_NAME_IN_BRACE = 3;

type Kind = 'open' | 'number' | 'name';

function kindOf(t: Token): Kind | null {
  if (t.type === 'OP') return t.text in BRACKET ? 'open' : null;
  if (t.type === 'NUMBER') return 'number';
  if (t.type === 'NAME') return 'name';
  // The hard keywords that are atoms take NUMBER's path (a token of their own, no NAME probes).
  if (t.type === 'KEYWORD' && (t.text === 'True' || t.text === 'False' || t.text === 'None')) return 'number';
  return null;
}

function secondPassLevel(tokens: readonly Token[]): number | null {
  // 31 frames a bracket at most: fewer than 193 brackets cannot reach the limit.
  if (tokens.length < 193) return null;
  const end = tokens.findIndex((t) => t.type === 'ERRORTOKEN');
  if (end < 0) return null;
  const error = tokens[end]!.error?.error.msg ?? '';
  if (!(error === 'too many nested parentheses' || error.endsWith(' was never closed'))) return null;
  let k = 0;
  while (k < end && kindOf(tokens[k]!) === 'open') k++;
  // A, then the '{' that ends the first pass.
  if (k + 1 >= end || kindOf(tokens[k]!) === null) return null;
  const brk = tokens[k + 1]!;
  if (brk.type !== 'OP' || brk.text !== '{') return null;
  let i = k + 2;
  while (i < end && kindOf(tokens[i]!) === 'open') i++;
  const inner = i - (k + 2);
  if (i < end) {
    const b = kindOf(tokens[i]!);
    if (b === null || b === 'open' || i + 1 !== end) return null;
  }
  let level = 0;
  for (let j = 0; j < end; j++) {
    const t = tokens[j]!;
    // The tokenizer's 201st bracket is the ERRORTOKEN, so at most 200 are counted.
    if (kindOf(t) === 'open') level += BRACKET[t.text]!;
  }
  const last = tokens[end - 1]!;
  const lastKind = kindOf(last);
  if (lastKind === 'open') {
    return level - BRACKET[last.text]! + (inner === 0 ? FINAL_BREAK : FINAL_BRACKET[last.text]!);
  }
  if (lastKind === 'number') return level + FINAL_NUMBER;
  const before = tokens[end - 2]!;
  return level + (inner > 0 && before.type === 'OP' && before.text === '{' ? FINAL_NAME_IN_BRACE : 0);
}
