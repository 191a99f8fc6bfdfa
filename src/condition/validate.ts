import type { Expression } from './ast.js';
import { SandboxError } from './errors.js';

export const MAX_EXPR_LEN = 256;
export const MAX_INT_CONSTANT = 1_000_000_000n;

export interface CheckedCondition {
  /** The stripped expression text that was parsed. */
  readonly source: string;
  readonly tree: Expression;
}

export function validateCondition(text: unknown): CheckedCondition {
  // Filled in by the parser/walker commit.
  throw new SandboxError({ kind: 'syntax', detail: 'condition: not implemented yet', node: null, line: 1, col: 1 });
}
