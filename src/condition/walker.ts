/**
 * The whitelist walker of the original `validate_and_compile`, rule for rule and in its order:
 * nodes are visited in `ast.walk` order (breadth-first, children in `_fields` order) and the first
 * node that fails a rule is reported, so the error names the same node CPython's walker would.
 */
import { type Expression, type Loc, type Node, appendChildNodes } from './ast.js';
import type { SandboxErrorKind } from './errors.js';
import { hintForNode } from './hints.js';
import { unparse, UnparseError } from './unparse.js';

/** Int literals with `abs(value) >= MAX_INT_CONSTANT` are rejected (bool exempt). */
export const MAX_INT_CONSTANT = 1_000_000_000;
const INT_CAP = BigInt(MAX_INT_CONSTANT);

export const ALLOWED_NODES: ReadonlySet<string> = new Set([
  'Expression',
  'BoolOp',
  'BinOp',
  'UnaryOp',
  'Compare',
  'Call',
  'Subscript',
  'Name',
  'Constant',
  'IfExp',
  'And',
  'Or',
  'Not',
  'Eq',
  'NotEq',
  'Lt',
  'LtE',
  'Gt',
  'GtE',
  'Add',
  'Sub',
  'Div',
  'FloorDiv',
  'USub',
  'UAdd',
  'Load',
]);
export const ALLOWED_NAMES: ReadonlySet<string> = new Set([
  'capture',
  'exit_code',
  'walltime_sec',
  'peak_vram_mib',
  'math',
  'float',
  'int',
  'len',
]);
export const ALLOWED_CALLS: ReadonlySet<string> = new Set(['float', 'int', 'len', 'math.isnan', 'math.isinf']);
const ALLOWED_MATH_ATTRS: ReadonlySet<string> = new Set(['isnan', 'isinf']);

export interface Violation {
  kind: SandboxErrorKind;
  detail: string;
  /** CPython class name of the offending node. */
  node: string;
  /** Where it is; for a context node (no position of its own) the nearest ancestor's. */
  loc: Loc | null;
  /** What to write instead, for the constructs authors commonly try (src/condition/hints.ts), or null. */
  hint: string | null;
}

/** Returns the first violation in walk order, or null when the tree is allowed. */
export function findViolation(tree: Expression): Violation | null {
  // Parallel arrays: each node, and the position to report for it (its own, or its parent's).
  const queue: Node[] = [tree];
  const locs: (Loc | null)[] = [null];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    const here = node.loc ?? locs[head]!;
    const before = queue.length;
    appendChildNodes(node, queue);
    for (let i = before; i < queue.length; i++) locs.push(here);
    const detail = checkNode(node);
    if (detail !== null) return { ...detail, node: node.type, loc: here, hint: hintForNode(node) };
  }
  return null;
}

function checkNode(node: Node): { kind: SandboxErrorKind; detail: string } | null {
  if (node.type === 'Attribute') {
    if (node.value.type === 'Name' && node.value.id === 'math' && ALLOWED_MATH_ATTRS.has(node.attr)) return null;
    let text: string;
    try {
      text = unparse(node);
    } catch (e) {
      // The original lets this ValueError escape; the oracle reports it inside the message.
      if (!(e instanceof UnparseError)) throw e;
      text = `<ast.unparse raised ValueError: ${e.message}>`;
    }
    return { kind: 'forbidden-attribute', detail: `condition: forbidden attribute access: ${text}` };
  }
  if (!ALLOWED_NODES.has(node.type)) {
    return { kind: 'forbidden-node', detail: `condition: forbidden AST node: ${node.type}` };
  }
  switch (node.type) {
    case 'Name':
      if (!ALLOWED_NAMES.has(node.id))
        return { kind: 'forbidden-name', detail: `condition: forbidden name: ${node.id}` };
      return null;
    case 'Subscript':
      if (node.value.type === 'Name' && node.value.id === 'capture') return null;
      return { kind: 'forbidden-subscript', detail: 'condition: subscript only allowed on capture[...]' };
    case 'Call': {
      // Compared as unparsed text with the allowed calls, as the original does.
      let target: string;
      try {
        target = unparse(node.func);
      } catch (e) {
        // As the original: a target ast.unparse cannot write is named by its node type.
        if (!(e instanceof UnparseError)) throw e;
        return { kind: 'forbidden-call', detail: `condition: forbidden call target: ${node.func.type}` };
      }
      if (ALLOWED_CALLS.has(target)) return null;
      return { kind: 'forbidden-call', detail: `condition: forbidden call: ${target}` };
    }
    case 'Constant': {
      const v = node.value;
      if (v.kind === 'int') {
        const abs = v.value < 0n ? -v.value : v.value;
        if (abs >= INT_CAP) {
          return {
            kind: 'int-constant',
            detail: `condition: integer constant magnitude ${abs} >= ${MAX_INT_CONSTANT} (rejected to prevent resource exhaustion)`,
          };
        }
      }
      return null;
    }
    default:
      return null;
  }
}
