/** Paths in reports: relative to the current directory when inside it, as the user would type them. */
import { isAbsolute, relative } from 'node:path';

export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
