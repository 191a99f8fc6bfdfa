/** The package's own root and version, found by walking up from this module (it runs from src/ or dist/src/). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageInfo {
  readonly root: string | null;
  readonly version: string;
}

let cached: PackageInfo | null = null;

export function packageInfo(): PackageInfo {
  if (cached !== null) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'aorta-probe') {
        cached = { root: dir, version: typeof pkg.version === 'string' ? pkg.version : 'unknown' };
        return cached;
      }
    } catch {
      // no (readable) package.json here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) {
      cached = { root: null, version: 'unknown' };
      return cached;
    }
    dir = parent;
  }
}
