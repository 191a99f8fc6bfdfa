/**
 * PyYAML's YAML 1.1 scalar types as `yaml` tags: the implicit resolvers of `resolver.py` (which
 * `yaml`'s own 1.1 schema widens) and the `SafeConstructor.construct_yaml_*` functions, which an
 * explicit tag (`!!float 1`, `!!bool YES`, `!!null x`) reaches without the resolver's test.
 * One table serves both, and the non-specific tag `!` (PyYAML resolves `! '1'` as a plain `1`).
 */
import type { CollectionTag, ScalarTag, Tags, YAMLMap, YAMLSeq } from 'yaml';
import { PY_TIMESTAMP, PyTimestamp, TimestampError } from './timestamp.js';

const TAG = 'tag:yaml.org,2002:';
export const MERGE_TAG = `${TAG}merge`;
export const VALUE_TAG = `${TAG}value`;
export const SET_TAG = `${TAG}set`;
export const OMAP_TAG = `${TAG}omap`;
export const PAIRS_TAG = `${TAG}pairs`;

/**
 * A scalar tagged `!!merge` (plain `<<`) or `!!value` (plain `=`): SafeConstructor has no
 * constructor for either, so it is only meaningful as a mapping key (a merge key, or the string
 * `=`); the tree builder decides.
 */
export class UnconstructedScalar {
  constructor(
    readonly tag: string,
    readonly text: string,
  ) {}
}

/** Thrown by a constructor; `yaml` reports it as an error at the scalar. */
class ConstructorError extends Error {}

/** `str.strip()` for what `int()` and `float()` ignore around a number (ASCII whitespace suffices here). */
function strip(s: string): string {
  return s.replace(/^[\s\x1c-\x1f]+|[\s\x1c-\x1f]+$/g, '');
}

/** `value.replace('_', '')`, the sign, and the rest, as construct_yaml_int/float split them. */
function signed(value: string): [sign: 1 | -1, body: string] {
  if (value.length === 0) throw new ConstructorError('IndexError: string index out of range');
  return [value[0] === '-' ? -1 : 1, '+-'.includes(value[0]!) ? value.slice(1) : value];
}

const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-f]+$/i };
const PREFIX: Record<number, RegExp> = { 2: /^0b/i, 8: /^0o/i, 16: /^0x/i };

/** Python `int(s, base)`; `_` was removed by the caller. */
function pyInt(s: string, base: 2 | 8 | 10 | 16): bigint {
  const t = strip(s);
  const neg = t.startsWith('-');
  let body = /^[-+]/.test(t) ? t.slice(1) : t;
  const prefix = PREFIX[base];
  if (prefix !== undefined) body = body.replace(prefix, '');
  if (!DIGITS[base]!.test(body))
    throw new ConstructorError(`ValueError: invalid literal for int() with base ${base}: '${s}'`);
  const v = BigInt({ 2: '0b', 8: '0o', 10: '', 16: '0x' }[base] + body);
  return neg ? -v : v;
}

/** Python `float(s)` (lower-case input, `_` removed). */
function pyFloat(s: string): number {
  const t = strip(s);
  const m = /^([-+]?)(?:((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?)|(inf(?:inity)?)|(nan))$/.exec(t);
  if (m === null) throw new ConstructorError(`ValueError: could not convert string to float: '${s}'`);
  const sign = m[1] === '-' ? -1 : 1;
  if (m[4] !== undefined) return NaN;
  return sign * (m[3] !== undefined ? Infinity : Number(m[2]));
}

/** Sexagesimal `1:30:00`, summed from the last part up as PyYAML does (the float rounding follows). */
function base60Int(body: string): bigint {
  let total = 0n;
  let base = 1n;
  for (const p of body.split(':').reverse()) {
    total += pyInt(p, 10) * base;
    base *= 60n;
  }
  return total;
}

function base60Float(body: string): number {
  let total = 0;
  let base = 1;
  for (const p of body.split(':').reverse()) {
    total += pyFloat(p) * base;
    base *= 60;
  }
  return total;
}

/** `SafeConstructor.construct_yaml_int`. */
export function constructInt(source: string): bigint {
  const [sign, value] = signed(source.replace(/_/g, ''));
  const s = BigInt(sign);
  if (value === '0') return 0n;
  if (value.startsWith('0b')) return s * pyInt(value.slice(2), 2);
  if (value.startsWith('0x')) return s * pyInt(value.slice(2), 16);
  if (value.length === 0) throw new ConstructorError('IndexError: string index out of range');
  if (value[0] === '0') return s * pyInt(value, 8);
  if (value.includes(':')) return s * base60Int(value);
  return s * pyInt(value, 10);
}

/** `SafeConstructor.construct_yaml_float`. */
export function constructFloat(source: string): number {
  const [sign, value] = signed(source.replace(/_/g, '').toLowerCase());
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) return sign * base60Float(value);
  return sign * pyFloat(value);
}

const BOOL_VALUES: Readonly<Record<string, boolean>> = {
  yes: true,
  no: false,
  true: true,
  false: false,
  on: true,
  off: false,
};

/** `SafeConstructor.construct_yaml_bool`: explicit `!!bool` lower-cases, the resolver does not. */
function constructBool(value: string): boolean {
  const b = BOOL_VALUES[value.toLowerCase()];
  if (b === undefined) throw new ConstructorError(`KeyError: '${value.toLowerCase()}'`);
  return b;
}

function constructTimestamp(value: string): PyTimestamp {
  try {
    return PyTimestamp.construct(value);
  } catch (e) {
    if (e instanceof TimestampError) throw new ConstructorError(`invalid timestamp '${value}': ${e.message}`);
    throw e;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * `SafeConstructor.construct_yaml_binary`: ASCII only, then `base64.decodebytes`, i.e.
 * `binascii.a2b_base64` in its non-strict mode: characters outside the alphabet are skipped,
 * input ends at the first complete pad, and a partial quad is an error.
 */
function constructBinary(value: string): Uint8Array {
  const nonAscii = /[^\x00-\x7f]/.exec(value);
  if (nonAscii !== null) {
    throw new ConstructorError(
      `failed to convert base64 data into ascii: 'ascii' codec can't encode character in position ${nonAscii.index}`,
    );
  }
  const out: number[] = [];
  let quad = 0; // characters of the current group of four
  let bits = 0; // pending bits, at most 6 + 6
  let pads = 0;
  for (const ch of value) {
    if (ch === '=') {
      if (quad >= 2 && quad + ++pads >= 4) return Uint8Array.from(out);
      continue;
    }
    const v = B64.indexOf(ch);
    if (v < 0) continue;
    bits = ((bits << 6) | v) & 0xfff;
    if (quad > 0) out.push((bits >> (6 - 2 * quad)) & 0xff);
    quad = (quad + 1) % 4;
  }
  if (quad === 1) {
    throw new ConstructorError(
      `failed to decode base64 data: Invalid base64-encoded string: number of data characters (${Math.floor(out.length / 3) * 4 + 1}) cannot be 1 more than a multiple of 4`,
    );
  }
  if (quad !== 0) throw new ConstructorError('failed to decode base64 data: Incorrect padding');
  return Uint8Array.from(out);
}

export type PyScalar = null | boolean | bigint | number | string | PyTimestamp | Uint8Array | UnconstructedScalar;

interface PyType {
  readonly tag: string;
  /** The implicit resolver's pattern (PyYAML `resolver.py`); none for explicit-only tags. */
  readonly implicit?: RegExp;
  readonly construct: (value: string) => PyScalar;
}

/** In `Resolver`'s registration order, which is the order PyYAML tries them in. */
const PY_TYPES: readonly PyType[] = [
  {
    tag: `${TAG}bool`,
    implicit: /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
    construct: constructBool,
  },
  {
    // A float needs a dot and a signed exponent (`1e5` and `1e400` are strings), `.5` takes no sign.
    tag: `${TAG}float`,
    implicit:
      /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
    construct: constructFloat,
  },
  {
    // A leading `0` means octal (`08` is a string); sexagesimal starts with 1-9 (`0:0` is a string).
    tag: `${TAG}int`,
    implicit:
      /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/,
    construct: constructInt,
  },
  { tag: MERGE_TAG, implicit: /^<<$/, construct: (v) => new UnconstructedScalar(MERGE_TAG, v) },
  { tag: `${TAG}null`, implicit: /^(?:~|null|Null|NULL|)$/, construct: () => null },
  { tag: `${TAG}timestamp`, implicit: PY_TIMESTAMP, construct: constructTimestamp },
  { tag: VALUE_TAG, implicit: /^=$/, construct: (v) => new UnconstructedScalar(VALUE_TAG, v) },
  { tag: `${TAG}binary`, construct: constructBinary },
];

/** Python's `re.match(...$)`: `$` also matches before a final newline. */
function pyFullMatch(re: RegExp, s: string): boolean {
  return re.test(s) || (s.endsWith('\n') && re.test(s.slice(0, -1)));
}

/** What a plain scalar (or one tagged `!`) with this text is, as PyYAML resolves and constructs it. */
export function resolvePlain(value: string): PyScalar {
  for (const t of PY_TYPES) if (t.implicit !== undefined && pyFullMatch(t.implicit, value)) return t.construct(value);
  return value;
}

/** Collections whose checks and shape the tree builder does the PyYAML way (`yaml`'s are stricter). */
const PASS_THROUGH: readonly [string, 'map' | 'seq'][] = [
  [SET_TAG, 'map'],
  [OMAP_TAG, 'seq'],
  [PAIRS_TAG, 'seq'],
];

/** `customTags` for `yaml`'s 1.1 schema: its map, seq and str tags, then PyYAML's types. */
export function pyYamlTags(tags: Tags): Tags {
  const out: (ScalarTag | CollectionTag)[] = [];
  for (const t of tags)
    if (typeof t !== 'string' && [`${TAG}map`, `${TAG}seq`, `${TAG}str`].includes(t.tag)) out.push(t);
  for (const t of PY_TYPES) {
    const resolve = (src: string): PyScalar => t.construct(src);
    // The implicit entry is found by its test; the explicit one (no test) by its name.
    if (t.implicit !== undefined) out.push({ tag: t.tag, default: true, test: t.implicit, resolve });
    out.push({ tag: t.tag, resolve });
  }
  for (const [tag, collection] of PASS_THROUGH)
    out.push({ tag, collection, resolve: (node: YAMLMap.Parsed | YAMLSeq.Parsed) => node });
  return out;
}
