/**
 * The one regex difference the loader cannot reject without rejecting most real patterns: `$` without MULTILINE.
 * Python's `$` also matches just before a final "\n"; RE2's only at the very end. A log almost always ends with
 * "\n", so a pattern anchored to the log's last line (`done$`), which fired under the original, never fires here.
 * The linter says so at the `$` itself, with `(?m:$)` (end of any line) as the fix.
 */
import { isScalar } from 'yaml';
import { mapScalarValue } from '../recipe/scalar-map.js';
import { translatePythonRegex } from '../regex/syntax.js';
import { offsetToPos } from '../recipe/tree.js';
import { matchFields, type FileSpan } from './position.js';

/**
 * Code-point indexes (into the regex as written) of each `$` that means end of text, from the same translation of
 * the pattern that the regex module compiles (`translatePythonRegex`); [] when it cannot be read.
 */
export function endOfTextDollars(regex: string): number[] {
  let offsets: number[];
  try {
    offsets = translatePythonRegex(regex).endOfTextDollars;
  } catch {
    return []; // the loader rejects such a pattern before any lint runs
  }
  return offsets.map((off) => Array.from(regex.slice(0, off)).length);
}

/** For each custom_patterns entry: maps a code-point index of its `match.regex` value to a file span (or null). */
export function regexLocators(text: string, fileName: string): (((index: number) => FileSpan | null) | null)[] {
  const fields = matchFields(text, fileName, 'regex');
  if (fields === null) return [];
  const { lc } = fields;
  return fields.nodes.map((node) => {
    if (node === undefined || node.kind !== 'str' || !isScalar(node.node)) return null;
    const scalar = node.node;
    // Mapped on first use: most patterns have no `$` to locate.
    let map: ReturnType<typeof mapScalarValue> | undefined;
    return (index: number) => {
      map ??= mapScalarValue(text, scalar);
      if (map === null) return null;
      const off = map.offsets[index];
      const len = map.lengths[index];
      if (off === undefined || len === undefined) return null;
      const a = offsetToPos(text, lc, off);
      const b = offsetToPos(text, lc, off + len);
      return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
    };
  });
}
