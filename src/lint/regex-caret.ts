/**
 * `^` without MULTILINE: in Python's `re` (and here) it matches only at the start of the text, which for a custom
 * pattern is the start of the whole log, so `^ERROR` fires only when the log's first line is an error. Authors
 * mostly mean the start of any line; the linter says so at the `^` itself, with `(?m:^)` as the fix.
 *
 * Read from the one parsed tree of the pattern: MULTILINE is resolved per node there (a `(?m)` at the start, a
 * scoped `(?m:…)`, the pattern's own flags), and `\^` or a `^` inside a set are not assertions at all.
 */
import { walk } from '../regex/ast.js';
import { translatePythonRegex } from '../regex/syntax.js';

/**
 * Code-point indexes (into the regex as written) of each `^` that means start of text (no MULTILINE in force
 * there), in pattern order; [] when the pattern cannot be read.
 */
export function startOfTextCarets(regex: string, flags = ''): number[] {
  const offsets: number[] = [];
  try {
    walk(translatePythonRegex(regex, flags).tree.root, (n) => {
      if (n.k === 'assert' && n.what === 'line-start' && !n.multiline) offsets.push(n.start);
    });
  } catch {
    return []; // the loader rejects such a pattern before any lint runs
  }
  return offsets.sort((a, b) => a - b).map((off) => Array.from(regex.slice(0, off)).length);
}
