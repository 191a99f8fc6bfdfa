/**
 * Which `capture` keys a condition can read, so evaluation encodes only those into the VM, as capture slots.
 *
 * Why: a regex with several named groups puts every group in `capture`, and encoding every key and value (as
 * code points) for every match costs more than running most conditions. When the condition's only use of
 * `capture` is `capture['<constant>']` (the spec's own examples), no other entry can change its result: a key
 * that is absent stays absent (KeyError), and dict order is never observed. Such a program reads each key
 * as a slot (assembly/opcodes.ts, captureSlots): the host looks the keys up and writes the values alone.
 *
 * The compiler decides the slots from the tree (captureKeysRead); the host reads them back from the program
 * (slotKeysOf), so the two cannot disagree on their order.
 */
import * as Op from '../../assembly/opcodes.js';
import { walk, type Expression } from './ast.js';
import { fromCodePoints, toCodePoints } from './source.js';

/**
 * The constant keys read by `capture['…']`, or null when `capture` is used any other way (all keys needed).
 * Also null when a key is not the JS string it looks up: two lone surrogates written as escapes are two
 * code points in Python but one character in JS (a capture key never equals them; the dict form says so).
 */
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
      const key = node.slice.value;
      if (toCodePoints(key.value).length !== key.codePoints.length) return null;
      keys.add(key.value);
    }
  }
  return subscripted === named ? [...keys] : null;
}

/**
 * The capture slots of a program, as its header and constants 0..n-1 say (the compiler wrote them from
 * captureKeysRead), or null when it reads capture as a dict. For a program the VM has verified: slot
 * keys are str constants.
 */
export function slotKeysOf(program: Int32Array): string[] | null {
  const n = program[5]!;
  if (n === Op.CAPTURE_AS_DICT) return null;
  const keys: string[] = [];
  let at = Op.HEADER_WORDS + program[2]!;
  for (let k = 0; k < n; k++) {
    const len = program[at + 1]!; // after the CONST_STR tag
    keys.push(fromCodePoints(Array.from(program.subarray(at + 2, at + 2 + len))));
    at += 2 + len;
  }
  return keys;
}
