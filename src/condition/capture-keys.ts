/**
 * Which `capture` keys a condition can read, so evaluation encodes only those into the VM.
 *
 * Why: a regex with several named groups puts every group in `capture`, and encoding every key and value (as
 * code points) for every match costs more than running most conditions. When the condition's only use of
 * `capture` is `capture['<constant>']` (the spec's own examples), no other entry can change its result: a key
 * that is absent stays absent (KeyError), and dict order is never observed.
 */
import { walk, type Expression } from './ast.js';

/** The constant keys read by `capture['…']`, or null when `capture` is used any other way (all keys needed). */
export function captureKeysRead(tree: Expression): string[] | null {
  const keys = new Set<string>();
  let subscripted = 0;
  let named = 0;
  for (const node of walk(tree)) {
    if (node.type === 'Name' && node.id === 'capture') named++;
    else if (
      node.type === 'Subscript' &&
      node.value.type === 'Name' &&
      node.value.id === 'capture' &&
      node.slice.type === 'Constant' &&
      node.slice.value.kind === 'str'
    ) {
      subscripted++;
      keys.add(node.slice.value.value);
    }
  }
  return subscripted === named ? [...keys] : null;
}
