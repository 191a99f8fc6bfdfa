/**
 * The one regex difference the loader cannot reject without rejecting most real patterns: `$` without MULTILINE.
 * Python's `$` also matches just before a final "\n"; RE2's only at the very end. A log almost always ends with
 * "\n", so a pattern anchored to the log's last line (`done$`), which fired under the original, never fires here.
 * The linter says so at the `$` itself, with `(?m:$)` (end of any line) as the fix.
 */
import { isScalar } from 'yaml';
import { mapScalarValue } from '../recipe/scalar-map.js';
import { offsetToPos } from '../recipe/tree.js';
import { matchFields, type FileSpan } from './position.js';

/** Code-point indexes of each `$` anchor outside a class; [] when any inline flag group sets `m`. */
export function endOfTextDollars(regex: string): number[] {
  const cps = Array.from(regex);
  const out: number[] = [];
  let inClass = false;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (cps[i + 1] === '^') i++;
      if (cps[i + 1] === ']') i++; // a ']' first in a class is a literal
      continue;
    }
    // (?m), (?im), (?m:…): multiline somewhere; telling which `$` it covers is not worth a parser here.
    if (c === '(' && cps[i + 1] === '?') {
      const flags = /^\(\?([a-zA-Z-]*)[:)]/.exec(cps.slice(i, i + 12).join(''));
      if (flags !== null && flags[1]!.split('-')[0]!.includes('m')) return [];
    }
    if (c === '$') out.push(i);
  }
  return out;
}

/** For each custom_patterns entry: maps a code-point index of its `match.regex` value to a file span (or null). */
export function regexLocators(text: string, fileName: string): (((index: number) => FileSpan | null) | null)[] {
  const fields = matchFields(text, fileName, 'regex');
  if (fields === null) return [];
  const { lc } = fields;
  return fields.nodes.map((node) => {
    if (node === undefined || node.kind !== 'str' || !isScalar(node.node)) return null;
    const map = mapScalarValue(text, node.node);
    if (map === null) return null;
    return (index: number) => {
      const off = map.offsets[index];
      const len = map.lengths[index];
      if (off === undefined || len === undefined) return null;
      const a = offsetToPos(text, lc, off);
      const b = offsetToPos(text, lc, off + len);
      return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
    };
  });
}
