/** Tier 1's core-file look-up (the only part of Tier 1 that touches the file system). */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The original's glob: any entry `core.*` (directories too), or a regular file named exactly `core`. */
export function hasCoreFile(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  for (const n of names) {
    if (n.startsWith('core.')) return true;
    if (n === 'core') {
      try {
        if (statSync(join(dir, n)).isFile()) return true;
      } catch {
        // vanished meanwhile
      }
    }
  }
  return false;
}
