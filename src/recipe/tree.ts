/**
 * YAML → a Python-typed value tree that keeps each value's source range. Mirrors what
 * `yaml.safe_load` (YAML 1.1 resolution) produces, with the hazards turned into positioned errors:
 * alias expansion is capped (billion laughs), recursive aliases, duplicate keys, unhashable keys and
 * excessive nesting are rejected.
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node as YNode,
  type Scalar,
  type ScalarTag,
  type Tags,
} from 'yaml';
import { floatRepr, strRepr } from '../condition/repr.js';
import type { FilePos } from './errors.js';

export type PyKind = 'NoneType' | 'bool' | 'int' | 'float' | 'str' | 'list' | 'dict' | 'other';

export interface PyEntry {
  readonly key: PyNode;
  readonly value: PyNode;
}

export interface PyNode {
  readonly kind: PyKind;
  /** `type(v).__name__`. */
  readonly typeName: string;
  /** Scalar value: null, boolean, bigint (int), number (float), string; otherwise undefined. */
  readonly value: null | boolean | bigint | number | string | Date | Uint8Array | undefined;
  readonly items?: readonly PyNode[];
  /** Dict entries in insertion order (merge keys applied, later explicit keys win). */
  readonly entries?: readonly PyEntry[];
  /** Source offsets (UTF-16) of the value itself: [start, end). */
  readonly start: number;
  readonly end: number;
  /** The yaml node, for scalar position mapping. */
  readonly node: YNode;
}

/** Upper bound on the number of values after alias expansion (billion-laughs guard). */
export const MAX_EXPANDED_NODES = 100_000;
/** Upper bound on collection nesting. */
export const MAX_DEPTH = 200;

export class TreeError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly endOffset: number,
    /** For duplicate keys: where the key was first defined. */
    readonly firstOffset?: number,
  ) {
    super(reason);
  }
}

/** PyYAML's YAML 1.1 booleans: `yaml` also takes `y`/`n`, PyYAML does not. */
const PY_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const PY_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;

/**
 * PyYAML's YAML 1.1 int and float resolvers (`resolver.py`), which `yaml`'s 1.1 schema widens: a
 * float needs a dot and a signed exponent (`1e5`, `1.0e5`, `1e400` are strings), `.5` takes no
 * sign (`-.5` is a string), a leading `0` makes an int octal (`08` is a string), sexagesimal needs
 * a non-zero first digit (`0:0` is a string).
 */
const PY_INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const PY_FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';

/** Splits PyYAML's sign and sexagesimal digits: `-1:30` → [-1, [1, 30]]. */
function sexagesimal(text: string): [number, string[]] {
  const sign = text.startsWith('-') ? -1 : 1;
  return [sign, text.replace(/^[-+]/, '').split(':')];
}

/** `SafeConstructor.construct_yaml_int`. */
function constructInt(source: string): bigint {
  const value = source.replace(/_/g, '');
  const [sign, parts] = sexagesimal(value);
  const body = parts.join(':');
  const s = BigInt(sign);
  if (body === '0') return 0n;
  if (body.startsWith('0b')) return s * BigInt(`0b${body.slice(2) || '0'}`);
  if (body.startsWith('0x')) return s * BigInt(`0x${body.slice(2) || '0'}`);
  if (body.startsWith('0')) return s * BigInt(`0o${body.slice(1) || '0'}`);
  if (parts.length > 1) return s * parts.reduce((acc, d) => acc * 60n + BigInt(d), 0n);
  return s * BigInt(body);
}

/** `SafeConstructor.construct_yaml_float` (explicit `!!float 1` included). */
function constructFloat(source: string): number {
  const value = source.replace(/_/g, '').toLowerCase();
  const [sign, parts] = sexagesimal(value);
  const body = parts.join(':');
  if (body === '.inf') return sign * Infinity;
  if (body === '.nan') return NaN;
  if (parts.length > 1) return sign * parts.reduce((acc, d) => acc * 60 + Number(d), 0);
  const f = Number(body);
  if (Number.isNaN(f) && !/^(?:nan|inf|infinity)$/.test(body))
    throw new Error(`could not convert string to float: '${source}'`);
  return sign * f;
}

function pyYamlTags(tags: Tags): Tags {
  const out: Tags = [];
  for (const t of tags) {
    if (typeof t !== 'string' && (t.tag === INT_TAG || t.tag === FLOAT_TAG)) {
      if (t.tag === INT_TAG && t.format === undefined && !out.some((x) => typeof x !== 'string' && x.tag === INT_TAG)) {
        out.push({
          tag: INT_TAG,
          default: true,
          test: PY_INT,
          resolve: (src: string) => constructInt(src),
        } as ScalarTag);
        out.push({
          tag: FLOAT_TAG,
          default: true,
          test: PY_FLOAT,
          resolve: (src: string) => constructFloat(src),
        } as ScalarTag);
      }
      continue;
    }
    if (typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:bool' || !('test' in t) || t.test === undefined) {
      out.push(t);
      continue;
    }
    const wantTrue = t.test.test('true');
    out.push({ ...t, test: wantTrue ? PY_TRUE : PY_FALSE } as ScalarTag);
  }
  return out;
}

/**
 * What PyYAML's reader refuses before parsing: characters outside its printable set, and the line
 * breaks it honours but `yaml` does not (a CR not followed by LF, NEL, LS, PS) — rejected here
 * rather than read differently (docs/deviations-yaml.md).
 */
const PY_UNPRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
const OTHER_BREAK = /\r(?!\n)|[\x85\u2028\u2029]/;

function checkCharacters(text: string): void {
  const bad = PY_UNPRINTABLE.exec(text);
  if (bad !== null) {
    const cp = bad[0].codePointAt(0)!;
    throw new TreeError(
      `unacceptable character #x${cp.toString(16).padStart(4, '0')}: special characters are not allowed`,
      bad.index,
      bad.index + 1,
    );
  }
  const br = OTHER_BREAK.exec(text);
  if (br !== null) {
    const name =
      br[0] === '\r' ? 'a CR without LF' : `U+${br[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw new TreeError(
      `unsupported line break (${name}): PyYAML reads it as a line break, use LF or CRLF`,
      br.index,
      br.index + 1,
    );
  }
}

export interface ParsedYaml {
  readonly root: PyNode | null;
  readonly lineCounter: LineCounter;
}

/** Parses one YAML document (PyYAML `safe_load` rejects streams of several). */
export function parseYaml(text: string, json: boolean): ParsedYaml {
  const lineCounter = new LineCounter();
  if (!json) checkCharacters(text);
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, {
      version: json ? '1.2' : '1.1',
      schema: json ? 'core' : 'yaml-1.1',
      customTags: json ? undefined : pyYamlTags,
      intAsBigInt: true,
      uniqueKeys: false,
      merge: false,
      keepSourceTokens: true,
      lineCounter,
      prettyErrors: false,
      strict: true,
    });
  } catch (e) {
    if (e instanceof RangeError) throw new TreeError('document nesting too deep', 0, 1);
    throw e;
  }
  const err = doc.errors[0];
  if (err !== undefined && /Maximum call stack size exceeded/.test(err.message)) {
    // `yaml` composes nested collections recursively and reports the overflow as a parse error.
    throw new TreeError(`nesting deeper than ${MAX_DEPTH} levels`, err.pos[0], err.pos[1]);
  }
  if (err !== undefined) {
    throw new TreeError(err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), err.pos[0], err.pos[1]);
  }
  // `safe_load` has no constructor for unknown tags (`!!python/object:...`, `!foo`): reject them.
  const tagWarning = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tagWarning !== undefined) {
    const tag = /Unresolved tag: (\S+)/.exec(tagWarning.message)?.[1] ?? '?';
    throw new TreeError(`could not determine a constructor for the tag '${tag}'`, tagWarning.pos[0], tagWarning.pos[1]);
  }
  if (doc.contents === null) return { root: null, lineCounter };
  const builder = new Builder();
  return { root: builder.build(doc.contents as YNode, 0), lineCounter };
}

class Builder {
  private readonly done = new Map<YNode, PyNode>();
  private readonly inProgress = new Set<YNode>();
  private readonly sizes = new Map<PyNode, number>();
  /**
   * Anchors defined so far, in document order: an alias names the latest one before it, as in
   * PyYAML's composer. Kept here because `yaml`'s `Alias.resolve` searches the whole document for
   * each alias (quadratic for a file of many anchors and aliases).
   */
  private readonly anchors = new Map<string, YNode>();
  /** Values added by alias expansion so far: what the billion-laughs cap bounds. */
  private expanded = 0;

  build(node: YNode, depth: number): PyNode {
    if (depth > MAX_DEPTH)
      throw new TreeError(`nesting deeper than ${MAX_DEPTH} levels`, rangeOf(node)[0], rangeOf(node)[1]);
    if (isAlias(node)) {
      const target = this.anchors.get(node.source);
      const [s, e] = rangeOf(node);
      if (target === undefined) throw new TreeError(`found undefined alias ${node.source}`, s, e);
      if (this.inProgress.has(target)) throw new TreeError(`recursive alias *${node.source} is not supported`, s, e);
      const built = this.done.get(target) ?? this.build(target, depth);
      // A file's own values are bounded by its size; only the copies an alias stands for can blow up.
      this.expanded += this.size(built);
      if (this.expanded > MAX_EXPANDED_NODES) {
        throw new TreeError(
          `document expands to more than ${MAX_EXPANDED_NODES} values through aliases (alias bomb?)`,
          s,
          e,
        );
      }
      return built;
    }
    const cached = this.done.get(node);
    if (cached !== undefined) return cached;
    if (node.anchor) this.anchors.set(node.anchor, node);
    this.inProgress.add(node);
    const out = this.buildNew(node, depth);
    this.inProgress.delete(node);
    this.done.set(node, out);
    return out;
  }

  /** Values in `n` once aliases are expanded, memoised; iterative, so a long list costs no stack. */
  private size(n: PyNode): number {
    const known = this.sizes.get(n);
    if (known !== undefined) return known;
    let s = 1;
    for (const c of n.items ?? []) s += this.sizes.get(c) ?? this.size(c);
    for (const en of n.entries ?? [])
      s += (this.sizes.get(en.key) ?? this.size(en.key)) + (this.sizes.get(en.value) ?? this.size(en.value));
    this.sizes.set(n, s);
    return s;
  }

  private buildNew(node: YNode, depth: number): PyNode {
    const [start, end] = rangeOf(node);
    if (isScalar(node)) return scalarNode(node, start, end);
    if (isSeq(node)) {
      const items = node.items.map((it) => this.build(it as YNode, depth + 1));
      return { kind: 'list', typeName: 'list', value: undefined, items, start, end, node };
    }
    if (isMap(node)) {
      const explicit: PyEntry[] = [];
      const merged: PyEntry[] = [];
      const seen = new Map<string, PyNode>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = (pair.key ?? null) as YNode | null;
        const valueNode = (pair.value ?? null) as YNode | null;
        const isMerge =
          keyNode !== null &&
          isScalar(keyNode) &&
          keyNode.type === 'PLAIN' &&
          keyNode.source === '<<' &&
          node.tag !== '!!set';
        if (isMerge) {
          const value = valueNode === null ? nullNode(rangeOf(keyNode)[1], node) : this.build(valueNode, depth + 1);
          for (const src of value.kind === 'list' ? value.items! : [value]) {
            if (src.kind !== 'dict')
              throw new TreeError(`expected a mapping for merging, but found ${src.typeName}`, src.start, src.end);
            for (const en of src.entries!) merged.push(en);
          }
          continue;
        }
        const key = keyNode === null ? nullNode(start, node) : this.build(keyNode, depth + 1);
        const value = valueNode === null ? nullNode(key.end, node) : this.build(valueNode, depth + 1);
        const id = hashKey(key);
        const prev = seen.get(id);
        if (prev !== undefined) {
          throw new TreeError(`duplicate key ${reprNode(key)}`, key.start, key.end, prev.start);
        }
        seen.set(id, key);
        explicit.push({ key, value });
      }
      const entries: PyEntry[] = [];
      for (const en of merged)
        if (!seen.has(hashKey(en.key))) {
          seen.set(hashKey(en.key), en.key);
          entries.push(en);
        }
      for (const en of explicit) entries.push(en);
      const isSet = node.tag === 'tag:yaml.org,2002:set';
      return isSet
        ? { kind: 'other', typeName: 'set', value: undefined, entries, start, end, node }
        : { kind: 'dict', typeName: 'dict', value: undefined, entries, start, end, node };
    }
    throw new TreeError('unsupported YAML node', start, end);
  }
}

function rangeOf(node: YNode): [number, number] {
  const r = node.range;
  return r ? [r[0], Math.max(r[1], r[0])] : [0, 0];
}

function nullNode(at: number, node: YNode): PyNode {
  return { kind: 'NoneType', typeName: 'NoneType', value: null, start: at, end: at, node };
}

function scalarNode(node: Scalar, start: number, end: number): PyNode {
  const v = node.value;
  // PyYAML resolves plain `=` and `<<` (outside a merge key) to tags SafeLoader cannot construct.
  if (node.type === 'PLAIN' && node.tag === undefined && (v === '=' || v === '<<')) {
    const tag = v === '=' ? 'value' : 'merge';
    throw new TreeError(`could not determine a constructor for the tag 'tag:yaml.org,2002:${tag}'`, start, end);
  }
  const base = { start, end, node };
  if (v === null || v === undefined) return { ...base, kind: 'NoneType', typeName: 'NoneType', value: null };
  if (typeof v === 'boolean') return { ...base, kind: 'bool', typeName: 'bool', value: v };
  if (typeof v === 'bigint') return { ...base, kind: 'int', typeName: 'int', value: v };
  if (typeof v === 'number') {
    // With intAsBigInt every int (hex, octal, sexagesimal too) is a bigint, so a number is a float.
    return { ...base, kind: 'float', typeName: 'float', value: v };
  }
  if (typeof v === 'string') return { ...base, kind: 'str', typeName: 'str', value: v };
  if (v instanceof Date) {
    const dateOnly = /^\d{4}-\d\d?-\d\d?$/.test(String(node.source ?? '').trim());
    return { ...base, kind: 'other', typeName: dateOnly ? 'date' : 'datetime', value: v };
  }
  if (v instanceof Uint8Array) return { ...base, kind: 'other', typeName: 'bytes', value: v };
  return { ...base, kind: 'other', typeName: typeof v, value: undefined };
}

/** Python dict-key identity: `1`, `1.0` and `True` are one key. */
function hashKey(k: PyNode): string {
  switch (k.kind) {
    case 'NoneType':
      return 'None';
    case 'bool':
      return `n:${k.value ? 1 : 0}`;
    case 'int':
      return `n:${(k.value as bigint).toString()}`;
    case 'float': {
      const f = k.value as number;
      return Number.isInteger(f) && Number.isFinite(f) ? `n:${BigInt(f).toString()}` : `f:${String(f)}`;
    }
    case 'str':
      return `s:${k.value as string}`;
    case 'other':
      if (k.value instanceof Date) return `d:${k.value.toISOString()}`;
      break;
    default:
      break;
  }
  throw new TreeError(`found unhashable key (${k.typeName})`, k.start, k.end);
}

/** Python `repr()` of a value, bounded in length. */
export function reprNode(n: PyNode, budget = { left: 2000 }): string {
  if (budget.left <= 0) return '...';
  let out: string;
  switch (n.kind) {
    case 'NoneType':
      out = 'None';
      break;
    case 'bool':
      out = n.value ? 'True' : 'False';
      break;
    case 'int':
      out = (n.value as bigint).toString();
      break;
    case 'float':
      out = floatRepr(n.value as number);
      break;
    case 'str':
      out = strRepr(n.value as string);
      break;
    case 'list':
      out = `[${n.items!.map((c) => reprNode(c, budget)).join(', ')}]`;
      break;
    case 'dict':
      out = `{${n.entries!.map((e) => `${reprNode(e.key, budget)}: ${reprNode(e.value, budget)}`).join(', ')}}`;
      break;
    default:
      if (n.typeName === 'set')
        out = n.entries!.length === 0 ? 'set()' : `{${n.entries!.map((e) => reprNode(e.key, budget)).join(', ')}}`;
      else if (n.value instanceof Date) out = dateRepr(n.value, n.typeName);
      else out = `<${n.typeName}>`;
  }
  budget.left -= out.length;
  return out;
}

function dateRepr(d: Date, typeName: string): string {
  const parts = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
  if (typeName === 'date') return `datetime.date(${parts.join(', ')})`;
  parts.push(d.getUTCHours(), d.getUTCMinutes());
  if (d.getUTCSeconds() || d.getUTCMilliseconds()) parts.push(d.getUTCSeconds());
  if (d.getUTCMilliseconds()) parts.push(d.getUTCMilliseconds() * 1000);
  return `datetime.datetime(${parts.join(', ')})`;
}

/** Offset → 1-based line and code-point column. */
export function offsetToPos(text: string, lc: LineCounter, offset: number): { line: number; col: number } {
  const o = Math.max(0, Math.min(offset, text.length));
  const { line } = lc.linePos(o);
  const lineStart = lc.lineStarts[line - 1] ?? 0;
  let col = 1;
  for (let i = lineStart; i < o; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < o) i++;
    col++;
  }
  return { line, col };
}

/** A file span for an error: the value's start, caret to its end if on the same line. */
export function spanPos(text: string, lc: LineCounter, start: number, end: number): FilePos {
  const a = offsetToPos(text, lc, start);
  const b = offsetToPos(text, lc, end);
  return { line: a.line, col: a.col, endCol: b.line === a.line && b.col > a.col ? b.col : a.col + 1 };
}
