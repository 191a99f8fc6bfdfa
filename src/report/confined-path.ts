/**
 * A path a record names (its `log.file`) resolved under the record's own directory, never outside it: the record's
 * author chose the string, and `report` must not become a way to print a line of any file its user can read.
 */
import { lstatSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';

const SEPARATORS = sep === '\\' ? /[\\/]/ : /\//;

/** The components of `rel`, or null when it is absolute, empty, holds a NUL, or has a `..` component. */
function components(rel: string): string[] | null {
  if (rel === '' || isAbsolute(rel) || rel.includes('\0')) return null;
  const out: string[] = [];
  for (const c of rel.split(SEPARATORS)) {
    if (c === '..') return null;
    if (c !== '' && c !== '.') out.push(c);
  }
  return out.length === 0 ? null : out;
}

/** Whether `rel` stays below the directory it is relative to, as a string (no file system access). */
export function isConfinedRelative(rel: string): boolean {
  return components(rel) !== null;
}

/**
 * `base`/`rel` when every directory on the way is a real directory (not a symbolic link), else null. The last
 * component is not looked at: open it with trial/safe-read.ts, which refuses a link, a FIFO or a device there.
 */
export function confinedPath(base: string, rel: string): string | null {
  const parts = components(rel);
  if (parts === null) return null;
  let p = base;
  for (let i = 0; i < parts.length - 1; i++) {
    p = join(p, parts[i]!);
    try {
      if (!lstatSync(p).isDirectory()) return null;
    } catch {
      return null;
    }
  }
  return join(p, parts[parts.length - 1]!);
}
