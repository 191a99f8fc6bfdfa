/**
 * Positions of condition sub-expressions in the recipe file, mapped the way the loader maps a
 * `SandboxError` (`conditionFilePos` in src/recipe/load.ts): skip the whitespace `str.strip()`
 * removed, walk to the line (a `\r\n` counts once, as the tokenizer's newline translation does),
 * add the column, and look the value index up in the scalar's value→source map
 * (src/recipe/scalar-map.ts), which handles plain, quoted (with escapes) and block scalars.
 * Whatever cannot be mapped exactly falls back to the scalar's start.
 */
import { isScalar, type LineCounter } from 'yaml';
import type { Loc } from '../condition/ast.js';
import { caretExcerpt } from '../condition/errors.js';
import { isPySpace } from '../condition/unicode-tables.js';
import { mapScalarValue, type ValueMap } from '../recipe/scalar-map.js';
import { offsetToPos, parseYaml, type PyNode } from '../recipe/tree.js';

export interface FileSpan {
  readonly line: number;
  readonly col: number;
  readonly endLine: number;
  readonly endCol: number;
}

/** Maps positions inside one pattern's condition to the file. */
export interface ConditionLocator {
  span(loc: Loc): FileSpan;
  /** The file line of the span with carets under it (to the line's end for a multi-line span). */
  excerpt(span: FileSpan): string;
}

function get(d: PyNode | undefined, key: string): PyNode | undefined {
  for (const e of d?.entries ?? []) if (e.key.kind === 'str' && e.key.value === key) return e.value;
  return undefined;
}

/** Each `custom_patterns` entry's `match.<field>` node (undefined where absent), with the line counter; null if the text does not parse. */
export function matchFields(
  text: string,
  fileName: string,
  field: 'condition' | 'regex',
): { nodes: (PyNode | undefined)[]; lc: LineCounter } | null {
  let root: PyNode | null;
  let lc: LineCounter;
  try {
    ({ root, lineCounter: lc } = parseYaml(text, fileName.toLowerCase().endsWith('.json')));
  } catch {
    return null;
  }
  const items = get(root ?? undefined, 'custom_patterns')?.items ?? [];
  return { nodes: items.map((entry) => get(get(entry, 'match'), field)), lc };
}

/** Locators for each `custom_patterns` entry of a recipe's text (null where there is no condition). */
export function conditionLocators(text: string, fileName: string): (ConditionLocator | null)[] {
  const fields = matchFields(text, fileName, 'condition');
  if (fields === null) return [];
  return fields.nodes.map((node) =>
    node === undefined || node.kind !== 'str' ? null : new ScalarLocator(text, fields.lc, node),
  );
}

class ScalarLocator implements ConditionLocator {
  private readonly map: ValueMap | null;
  private readonly cps: string[];
  /** Index of the first value code point after the whitespace `str.strip()` removed. */
  private readonly first: number;

  constructor(
    private readonly text: string,
    private readonly lc: LineCounter,
    private readonly node: PyNode,
  ) {
    this.map = isScalar(node.node) ? mapScalarValue(text, node.node) : null;
    this.cps = Array.from(node.value as string);
    let idx = 0;
    while (idx < this.cps.length && isPySpace(this.cps[idx]!.codePointAt(0)!)) idx++;
    this.first = idx;
  }

  /** Value index of a (line, col) of the stripped condition, or null. */
  private index(line: number, col: number): number | null {
    let idx = this.first;
    let at = 1;
    while (at < line && idx < this.cps.length) {
      const c = this.cps[idx++];
      if (c === '\r' && this.cps[idx] === '\n') idx++;
      if (c === '\n' || c === '\r') at++;
    }
    return at < line ? null : idx + col - 1;
  }

  private offset(idx: number | null, end: boolean): number | null {
    const map = this.map;
    if (map === null || idx === null) return null;
    if (end) {
      // Just past the last code point of the span.
      const last = idx - 1;
      if (last < 0 || last >= map.offsets.length) return map.endOffset;
      return map.offsets[last]! + map.lengths[last]!;
    }
    return idx < map.offsets.length ? map.offsets[idx]! : map.endOffset;
  }

  span(loc: Loc): FileSpan {
    const start = this.offset(this.index(loc.line, loc.col), false);
    const end = this.offset(this.index(loc.endLine, loc.endCol), true);
    if (start === null || end === null || end <= start) {
      const a = offsetToPos(this.text, this.lc, this.node.start);
      return { line: a.line, col: a.col, endLine: a.line, endCol: a.col + 1 };
    }
    const a = offsetToPos(this.text, this.lc, start);
    const b = offsetToPos(this.text, this.lc, end);
    return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }

  excerpt(span: FileSpan): string {
    return fileExcerpt(this.text, span);
  }
}

export function fileExcerpt(text: string, span: FileSpan): string {
  // A span that goes on to later lines is underlined to the end of its first line.
  const lineLength = Array.from(text.split(/\r\n|\r|\n/)[span.line - 1] ?? '').length;
  const endCol = span.endLine === span.line ? span.endCol : lineLength + 1;
  return caretExcerpt(text, span.line, span.col, endCol);
}
