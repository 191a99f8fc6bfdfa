/** Encodes a recipe YAML value tree the way scripts/gen_yaml_corpus.py encodes PyYAML's values. */
import { floatRepr } from '../../src/condition/repr.js';
import { PyTimestamp } from '../../src/recipe/timestamp.js';
import type { PyNode } from '../../src/recipe/tree.js';

export type Tagged = readonly unknown[];

export function encodeNode(n: PyNode): Tagged {
  switch (n.kind) {
    case 'NoneType':
      return ['None'];
    case 'bool':
      return ['bool', n.value];
    case 'int':
      return ['int', (n.value as bigint).toString()];
    case 'float':
      return ['float', floatRepr(n.value as number)];
    case 'str':
      return ['str', n.value];
    case 'list':
      return ['list', n.items!.map(encodeNode)];
    case 'dict':
      return ['dict', n.entries!.map((e) => [encodeNode(e.key), encodeNode(e.value)])];
    default:
      break;
  }
  if (n.typeName === 'set')
    return [
      'set',
      n.entries!.map((e) => encodeNode(e.key)).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    ];
  if (n.typeName === 'tuple') return ['tuple', n.items!.map(encodeNode)];
  if (n.value instanceof Uint8Array) return ['bytes', Buffer.from(n.value).toString('hex')];
  if (n.value instanceof PyTimestamp) return [n.typeName, n.value.isoformat()];
  return ['other', n.typeName];
}
