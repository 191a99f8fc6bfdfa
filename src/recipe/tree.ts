/**
 * YAML → a Python-typed value tree that keeps each value's source range. Mirrors what
 * `yaml.safe_load` (YAML 1.1 resolution) produces, with the hazards turned into positioned errors:
 * alias expansion is capped (billion laughs), recursive aliases, duplicate keys, unhashable keys and
 * excessive nesting are rejected.
 */
import {
  Composer,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Schema,
  type CST,
  type Document,
  type Node as YNode,
  type Pair,
  type Scalar,
} from 'yaml';
import { floatRepr, strRepr } from '../condition/repr.js';
import type { FilePos } from './errors.js';
import {
  MERGE_TAG,
  OMAP_TAG,
  PAIRS_TAG,
  pyYamlTags,
  resolvePlain,
  SET_TAG,
  UnconstructedScalar,
  type PyScalar,
} from './pyyaml-scalars.js';
import { SyntaxDifference, pyYamlCst } from './pyyaml-syntax.js';
import { PyTimestamp } from './timestamp.js';

export type PyKind = 'NoneType' | 'bool' | 'int' | 'float' | 'str' | 'list' | 'dict' | 'other';

export interface PyEntry {
  readonly key: PyNode;
  readonly value: PyNode;
}

export interface PyNode {
  readonly kind: PyKind;
  /** `type(v).__name__`. */
  readonly typeName: string;
  /** Scalar value: null, boolean, bigint (int), number (float), string, date/datetime, bytes; otherwise undefined. */
  readonly value: null | boolean | bigint | number | string | PyTimestamp | Uint8Array | undefined;
  /** List items; a tuple's two items (`!!omap`, `!!pairs`). */
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

/**
 * What PyYAML's reader refuses before parsing: characters outside its printable set, and the line
 * breaks LS and PS, which it keeps in values where it folds LF — rejected here rather than read
 * differently (docs/deviations-yaml.md). CR alone and NEL are line breaks that PyYAML reads as LF
 * everywhere, so `pyYamlText` turns them into LF.
 */
const PY_UNPRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
const OTHER_BREAK = /[\u2028\u2029]/;

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
    throw new TreeError(
      `unsupported line break (U+${br[0].charCodeAt(0).toString(16).toUpperCase()}): PyYAML reads it as a line break but keeps it in values; use LF or CRLF`,
      br.index,
      br.index + 1,
    );
  }
}

/**
 * The recipe text with CR alone and NEL as LF, which is how PyYAML's scanner reads them. Each is
 * one UTF-16 unit for one, so offsets, lines and columns are those of the original text.
 */
export function pyYamlText(text: string): string {
  return /\r(?!\n)|\x85/.test(text) ? text.replace(/\r(?!\n)|\x85/g, '\n') : text;
}

export interface ParsedYaml {
  readonly root: PyNode | null;
  readonly lineCounter: LineCounter;
  /** The text that offsets and the line counter refer to (`pyYamlText` of a YAML input). */
  readonly text: string;
}

const PARSE_OPTIONS = {
  intAsBigInt: true,
  uniqueKeys: false,
  merge: false,
  keepSourceTokens: true,
  prettyErrors: false,
  strict: true,
} as const;

/** PyYAML's types on `yaml`'s 1.1 schema, built once: building a schema costs more than parsing a small file. */
const PY_SCHEMA = new Schema({ schema: 'yaml-1.1', customTags: pyYamlTags, resolveKnownTags: false });

/** `yaml`'s composer over the CST as PyYAML reads it (`pyyaml-syntax.ts`), with PyYAML's scalar types. */
function composePyYaml(text: string, lineCounter: LineCounter): Document.Parsed {
  const composer = new Composer({ ...PARSE_OPTIONS, version: '1.1', schema: PY_SCHEMA });
  let doc: Document.Parsed | undefined;
  let second: Document.Parsed | undefined;
  for (const d of composer.compose(pyYamlCst(text, lineCounter.addNewLine), true, text.length)) {
    if (doc === undefined) doc = d;
    else second ??= d;
  }
  // The first document's own errors come first, as PyYAML composes it before looking further.
  if (second !== undefined && doc!.errors.length === 0)
    throw new TreeError(
      'expected a single document in the stream, but found another document',
      second.range[0],
      second.range[0] + 1,
    );
  return doc!;
}

/**
 * The last successful parse: `check` parses a recipe's text once to load it and the lint's passes ask for the same
 * tree again (one parsed tree, many passes); a 1,000-pattern recipe took ~180 ms a parse. Callers only read it.
 */
let lastParse: { input: string; json: boolean; parsed: ParsedYaml } | undefined;

/** Parses one YAML document (PyYAML `safe_load` rejects streams of several). The tree is shared: do not mutate it. */
export function parseYaml(input: string, json: boolean): ParsedYaml {
  if (lastParse !== undefined && lastParse.json === json && lastParse.input === input) return lastParse.parsed;
  const parsed = parseYamlOnce(input, json);
  lastParse = { input, json, parsed };
  return parsed;
}

function parseYamlOnce(input: string, json: boolean): ParsedYaml {
  const lineCounter = new LineCounter();
  const text = json ? input : pyYamlText(input);
  if (!json) checkCharacters(text);
  let doc: Document.Parsed;
  try {
    doc = json
      ? parseDocument(text, { ...PARSE_OPTIONS, version: '1.2', schema: 'core', lineCounter })
      : composePyYaml(text, lineCounter);
  } catch (e) {
    if (e instanceof SyntaxDifference) throw new TreeError(e.reason, e.offset, e.endOffset);
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
  if (doc.contents === null) return { root: null, lineCounter, text };
  const builder = new Builder(text);
  return { root: builder.build(doc.contents as YNode, 0), lineCounter, text };
}

class Builder {
  constructor(private readonly text: string) {}

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
    if (node.anchor) {
      const first = this.anchors.get(node.anchor);
      if (first !== undefined) {
        const at = this.anchorOffset(node, node.anchor);
        throw new TreeError(
          `found duplicate anchor '${node.anchor}'`,
          at,
          at + node.anchor.length + 1,
          this.anchorOffset(first, node.anchor),
        );
      }
      this.anchors.set(node.anchor, node);
    }
    this.inProgress.add(node);
    const out = this.buildNew(node, depth);
    this.inProgress.delete(node);
    this.done.set(node, out);
    return out;
  }

  /** Where `&name` is written: before the node, perhaps with a tag between (PyYAML points there). */
  private anchorOffset(node: YNode, name: string): number {
    const start = rangeOf(node)[0];
    const at = this.text.lastIndexOf(`&${name}`, start);
    return at < 0 ? start : at;
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
      if (node.tag === OMAP_TAG || node.tag === PAIRS_TAG) return this.buildPairs(node.items as YNode[], node, depth);
      const items = node.items.map((it) => this.build(it as YNode, depth + 1));
      return { kind: 'list', typeName: 'list', value: undefined, items, start, end, node };
    }
    if (isMap(node)) {
      const entries = this.buildMapping(node.items as Pair<YNode | null, YNode | null>[], node, depth);
      return node.tag === SET_TAG
        ? { kind: 'other', typeName: 'set', value: undefined, entries, start, end, node }
        : { kind: 'dict', typeName: 'dict', value: undefined, entries, start, end, node };
    }
    throw new TreeError('unsupported YAML node', start, end);
  }

  /**
   * `SafeConstructor.flatten_mapping` + `construct_mapping`: merged entries (`<<: *x`, a list
   * merging in reverse) go first, then the mapping's own; a later value for an equal key replaces
   * the earlier one but the key keeps its first place, as in a Python dict.
   */
  private buildMapping(pairs: readonly Pair<YNode | null, YNode | null>[], node: YNode, depth: number): PyEntry[] {
    const [start] = rangeOf(node);
    const merged: PyEntry[] = [];
    const explicit: PyEntry[] = [];
    const seen = new Map<string, PyNode>();
    for (const pair of pairs) {
      const keyNode = pair.key;
      const valueNode = pair.value;
      checkEmptyKey(pair);
      const special = keyNode !== null && isScalar(keyNode) ? scalarValue(keyNode, rangeOf(keyNode)) : undefined;
      if (special instanceof UnconstructedScalar && special.tag === MERGE_TAG) {
        const at = rangeOf(keyNode!)[1];
        const value = valueNode === null ? nullNode(at, node) : this.build(valueNode, depth + 1);
        const sources = value.kind === 'list' ? [...value.items!].reverse() : [value];
        for (const src of sources) {
          if (src.kind !== 'dict' && src.typeName !== 'set')
            throw new TreeError(`expected a mapping for merging, but found ${src.typeName}`, src.start, src.end);
          merged.push(...src.entries!);
        }
        continue;
      }
      const key =
        keyNode === null
          ? nullNode(start, node)
          : special instanceof UnconstructedScalar // `=` as a key is the string '=' (flatten_mapping)
            ? {
                kind: 'str' as const,
                typeName: 'str',
                value: special.text,
                start: rangeOf(keyNode)[0],
                end: rangeOf(keyNode)[1],
                node: keyNode,
              }
            : this.build(keyNode, depth + 1);
      const value = valueNode === null ? nullNode(key.end, node) : this.build(valueNode, depth + 1);
      const id = hashKey(key);
      const prev = seen.get(id);
      if (prev !== undefined) throw new TreeError(`duplicate key ${reprNode(key)}`, key.start, key.end, prev.start);
      seen.set(id, key);
      explicit.push({ key, value });
    }
    if (merged.length === 0) return explicit;
    const dict = new Map<string, PyEntry>();
    for (const en of [...merged, ...explicit]) {
      const id = hashKey(en.key);
      const prev = dict.get(id);
      dict.set(id, prev === undefined ? en : { key: prev.key, value: en.value });
    }
    return [...dict.values()];
  }

  /** `construct_yaml_omap` / `construct_yaml_pairs`: a list of (key, value) tuples, keys unchecked. */
  private buildPairs(items: readonly YNode[], node: YNode, depth: number): PyNode {
    const [start, end] = rangeOf(node);
    const tuples = items.map((it): PyNode => {
      const [s, e] = rangeOf(it);
      if (!isMap(it) || it.items.length !== 1) {
        const found = isMap(it) ? 'a mapping of length 1' : 'a mapping';
        throw new TreeError(`while constructing an ordered map, expected ${found}`, s, e);
      }
      const pair = it.items[0] as Pair<YNode | null, YNode | null>;
      const k = pair.key === null ? nullNode(s, it) : this.build(pair.key, depth + 2);
      const v = pair.value === null ? nullNode(k.end, it) : this.build(pair.value, depth + 2);
      return { kind: 'other', typeName: 'tuple', value: undefined, items: [k, v], start: s, end: e, node: it };
    });
    return { kind: 'list', typeName: 'list', value: undefined, items: tuples, start, end, node };
  }
}

/**
 * A block-mapping entry with neither a key nor `?` (`: 1`): PyYAML's scanner finds a value
 * indicator with no key before it, "expected <block end>, but found ':'". (`? : 1` and `&a : 1`
 * have a key: empty, or an anchored empty node.)
 */
function checkEmptyKey(pair: Pair<YNode | null, YNode | null>): void {
  const item = pair.srcToken as CST.CollectionItem | undefined;
  if (item === undefined || (item.key !== null && item.key !== undefined)) return;
  if (item.start.some((t) => t.type === 'explicit-key-ind' || t.type === 'anchor' || t.type === 'tag')) return;
  const colon = item.sep?.find((t) => t.type === 'map-value-ind');
  if (colon === undefined) return;
  throw new TreeError(
    "expected a mapping key before ':' (PyYAML: expected <block end>, but found ':')",
    colon.offset,
    colon.offset + 1,
  );
}

function rangeOf(node: YNode): [number, number] {
  const r = node.range;
  return r ? [r[0], Math.max(r[1], r[0])] : [0, 0];
}

function nullNode(at: number, node: YNode): PyNode {
  return { kind: 'NoneType', typeName: 'NoneType', value: null, start: at, end: at, node };
}

/** The scalar's Python value: `!` resolves the text as if it were plain (PyYAML's composer). */
function scalarValue(node: Scalar, [start, end]: [number, number]): unknown {
  if (node.tag !== '!' || typeof node.value !== 'string') return node.value;
  try {
    return resolvePlain(node.value);
  } catch (e) {
    throw new TreeError(e instanceof Error ? e.message : String(e), start, end);
  }
}

function scalarNode(node: Scalar, start: number, end: number): PyNode {
  const v = scalarValue(node, [start, end]) as PyScalar;
  // `<<` and `=` (plain, or tagged !!merge / !!value) outside a mapping key: SafeLoader has no constructor.
  if (v instanceof UnconstructedScalar)
    throw new TreeError(`could not determine a constructor for the tag '${v.tag}'`, start, end);
  const base = { start, end, node };
  if (v === null || v === undefined) return { ...base, kind: 'NoneType', typeName: 'NoneType', value: null };
  if (typeof v === 'boolean') return { ...base, kind: 'bool', typeName: 'bool', value: v };
  if (typeof v === 'bigint') return { ...base, kind: 'int', typeName: 'int', value: v };
  if (typeof v === 'number') {
    // With intAsBigInt every int (hex, octal, sexagesimal too) is a bigint, so a number is a float.
    return { ...base, kind: 'float', typeName: 'float', value: v };
  }
  if (typeof v === 'string') return { ...base, kind: 'str', typeName: 'str', value: v };
  if (v instanceof PyTimestamp) return { ...base, kind: 'other', typeName: v.typeName, value: v };
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
      if (k.value instanceof PyTimestamp) return k.value.hashKey();
      if (k.value instanceof Uint8Array)
        return `b:${Array.from(k.value, (b) => b.toString(16).padStart(2, '0')).join('')}`;
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
      else if (n.typeName === 'tuple') out = `(${n.items!.map((c) => reprNode(c, budget)).join(', ')})`;
      else if (n.value instanceof PyTimestamp) out = n.value.repr();
      else if (n.value instanceof Uint8Array) out = `b${strRepr(Array.from(n.value), true)}`;
      else out = `<${n.typeName}>`;
  }
  budget.left -= out.length;
  return out;
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
