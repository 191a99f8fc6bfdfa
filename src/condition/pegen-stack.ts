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
 *     (U* O)* U* A '{' (U* O)* [U* B | U+] <tokenizer error: a bracket never closed, or the 201st>
 *
 * with O an open bracket, U a unary operator (`+ - ~`, or `not` where it does not follow one of
 * those), A and B a NUMBER, a NAME that is no hard keyword, or True/False/None.
 * The first pass stops at `A {` without an error. The second pass re-enters every bracket with
 * the invalid rules on, and the `{` after A by way of `invalid_expression`, until fetching the
 * token after the last one raises the tokenizer's error, unless the stack ran out first. Nests
 * with a binary operator, a string, a closing bracket or a second `A {` in them can reach the
 * limit too; they are not modelled (docs/deviations.md).
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

/** A unary operator (`+ - ~ not`) before an operand: one frame (factor or inversion) more. */
const UNARY = 1;
/** A final `+ - ~` (its factor's probes) and a final `not`. */
const FINAL_UNARY = 20;
const FINAL_NOT = 6;

/** Frames below a final open bracket while its first element's token is fetched. */
const FINAL_BRACKET: Readonly<Record<string, number>> = { '(': 28, '[': 29, '{': 29 };
/** The `{` right after A, when it is the last token (one frame fewer than a nested `{`). */
const FINAL_BREAK = 28;
/** A final NUMBER or True/False/None: the token after it is fetched 24 frames down. */
const FINAL_NUMBER = 24;
/** A final NAME: 3 frames down inside a nested `{` (its set/dict probes), 0 elsewhere; after a unary operator, NUMBER's 24. */
const FINAL_NAME_IN_BRACE = 3;

type Kind = 'open' | 'unary' | 'not' | 'number' | 'name';

function kindOf(t: Token): Kind | null {
  if (t.type === 'OP') {
    if (t.text in BRACKET) return 'open';
    return t.text === '+' || t.text === '-' || t.text === '~' ? 'unary' : null;
  }
  if (t.type === 'NUMBER') return 'number';
  if (t.type === 'NAME') return 'name';
  if (t.type !== 'KEYWORD') return null;
  if (t.text === 'not') return 'not';
  // The hard keywords that are atoms take NUMBER's path (a token of their own, no NAME probes).
  return t.text === 'True' || t.text === 'False' || t.text === 'None' ? 'number' : null;
}

function secondPassLevel(tokens: readonly Token[]): number | null {
  // 31 frames a bracket at most: fewer than 193 brackets cannot reach the limit.
  if (tokens.length < 193) return null;
  const end = tokens.findIndex((t) => t.type === 'ERRORTOKEN');
  if (end < 1) return null;
  const error = tokens[end]!.error?.error.msg ?? '';
  if (!(error === 'too many nested parentheses' || error.endsWith(' was never closed'))) return null;
  let level = 0;
  let prev: Kind | 'start' | 'atom' | 'break' = 'start';
  /** Index of the '{' after A that ends the first pass. */
  let brk = -1;
  // The tokenizer's 201st bracket is the ERRORTOKEN, so at most 200 are counted.
  for (let n = 0; n < end; n++) {
    const t = tokens[n]!;
    const k = kindOf(t);
    // `not` after `+`: the first pass fails there, a shape of its own.
    if (k === null || (k === 'not' && !(prev === 'start' || prev === 'open' || prev === 'not' || prev === 'break'))) {
      return null;
    }
    if (k === 'number' || k === 'name') {
      if (brk < 0) {
        const next = tokens[n + 1]!;
        if (next.type !== 'OP' || next.text !== '{') return null;
        prev = 'atom';
        continue;
      }
      if (n + 1 !== end) return null;
    } else if (k === 'open') {
      level += BRACKET[t.text]!;
      if (prev === 'atom') {
        brk = n;
        prev = 'break';
        continue;
      }
    } else level += UNARY;
    prev = k;
  }
  if (brk < 0) return null;
  const last = tokens[end - 1]!;
  const before = tokens[end - 2]!;
  switch (kindOf(last)) {
    case 'open':
      return level - BRACKET[last.text]! + (end - 1 === brk ? FINAL_BREAK : FINAL_BRACKET[last.text]!);
    case 'unary':
      return level - UNARY + FINAL_UNARY;
    case 'not':
      return level - UNARY + FINAL_NOT;
    case 'number':
      return level + FINAL_NUMBER;
    default: {
      const afterUnary = kindOf(before) === 'unary' || kindOf(before) === 'not';
      if (afterUnary) return level + FINAL_NUMBER;
      const inBrace = before.type === 'OP' && before.text === '{' && end - 2 !== brk;
      return level + (inBrace ? FINAL_NAME_IN_BRACE : 0);
    }
  }
}
