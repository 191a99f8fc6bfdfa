/**
 * Maps a position inside a YAML string scalar's *value* back to an offset in the recipe file.
 *
 * The scalar's source (from its start up to its value end) is cut into units — one per source
 * character, except that `''` in a single-quoted scalar and each backslash escape in a
 * double-quoted scalar are one unit whose text is the character they stand for. The decoded value is
 * then aligned against the units in order: every non-whitespace value character must match the next
 * unit with the same text (skipping indentation, line breaks, quotes and escaped line breaks, which
 * produce no non-whitespace characters). Whitespace value characters — folded line breaks, spaces —
 * match the next unit only when it is the same character, and otherwise point at the next unit.
 * If any non-whitespace character fails to align, the mapping is reported as unavailable and callers
 * fall back to the scalar's start.
 */
import type { Scalar } from 'yaml';

interface Unit {
  readonly text: string;
  readonly off: number;
  readonly len: number;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_LEN: Record<string, number> = { x: 2, u: 4, U: 8 };

function isWs(ch: string): boolean {
  return /^\s$/u.test(ch);
}

function units(text: string, scalar: Scalar): Unit[] | null {
  const range = scalar.range;
  if (!range) return null;
  let i = range[0];
  const end = Math.min(range[1], text.length);
  const out: Unit[] = [];
  const type = scalar.type;
  if (type === 'QUOTE_SINGLE' || type === 'QUOTE_DOUBLE') i++;
  if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') {
    // Skip the header line (`|2-  # comment`).
    const nl = text.indexOf('\n', i);
    if (nl < 0 || nl >= end) return out;
    i = nl + 1;
  }
  while (i < end) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (type === 'QUOTE_SINGLE' && ch === "'") {
      if (text[i + 1] === "'") {
        out.push({ text: "'", off: i, len: 2 });
        i += 2;
        continue;
      }
      break; // closing quote
    }
    if (type === 'QUOTE_DOUBLE' && ch === '"') break;
    if (type === 'QUOTE_DOUBLE' && ch === '\\') {
      const e = text[i + 1] ?? '';
      if (e === '\n' || e === '\r') {
        // Escaped line break: produces nothing.
        const len = e === '\r' && text[i + 2] === '\n' ? 3 : 2;
        out.push({ text: '', off: i, len });
        i += len;
        continue;
      }
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        out.push({ text: simple, off: i, len: 2 });
        i += 2;
        continue;
      }
      const hl = HEX_LEN[e];
      if (hl !== undefined) {
        const hex = text.slice(i + 2, i + 2 + hl);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== hl) return null;
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) return null;
        out.push({ text: String.fromCodePoint(code), off: i, len: 2 + hl });
        i += 2 + hl;
        continue;
      }
      return null;
    }
    out.push({ text: ch, off: i, len: ch.length });
    i += ch.length;
  }
  return out;
}

export interface ValueMap {
  /** Source offset of each value code point (index = code-point index in the value). */
  readonly offsets: readonly number[];
  /** Source length of the unit each value code point came from. */
  readonly lengths: readonly number[];
  /** Offset just past the last unit, for positions at the end of the value. */
  readonly endOffset: number;
}

/** Aligns `scalar.value` (a string) with its source; null when the alignment fails. */
export function mapScalarValue(text: string, scalar: Scalar): ValueMap | null {
  if (typeof scalar.value !== 'string') return null;
  const us = units(text, scalar);
  if (us === null) return null;
  const value = Array.from(scalar.value);
  const offsets: number[] = [];
  const lengths: number[] = [];
  let p = 0;
  for (const ch of value) {
    if (isWs(ch)) {
      const u = us[p];
      if (u !== undefined && u.text === ch) {
        offsets.push(u.off);
        lengths.push(u.len);
        p++;
      } else {
        offsets.push(u?.off ?? (us.length ? us[us.length - 1]!.off : (scalar.range?.[0] ?? 0)));
        lengths.push(1);
      }
      continue;
    }
    while (p < us.length && us[p]!.text !== ch) p++;
    const u = us[p];
    if (u === undefined) return null;
    offsets.push(u.off);
    lengths.push(u.len);
    p++;
  }
  const last = us[us.length - 1];
  return { offsets, lengths, endOffset: last ? last.off + last.len : (scalar.range?.[0] ?? 0) };
}
