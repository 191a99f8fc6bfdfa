/**
 * Which Chromium the browser tests drive, and with which flags. By default the one that `npm install` brings:
 * `@sparticuz/chromium` ships a brotli-packed headless Chromium inside the npm package, so a fresh clone with
 * only Node and the npm registry can run the browser tests (no apt-get, no root, no system browser).
 * `AORTA_CHROMIUM=/path/to/chromium` selects another one instead.
 *
 * Unpacking takes 10–25 s the first time and is cached: the package unpacks below `os.tmpdir()`, which we point
 * at a folder inside node_modules for the call, so the binary belongs to this install (a `/tmp/chromium` left by
 * another project or another version of the package is never picked up).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Our own flags: a closed network refuses Chromium's background connections, many at a time. */
const QUIET_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface ChromiumChoice {
  executablePath: string;
  args: string[];
  /** Where it came from, for messages. */
  source: string;
}

/** The environment variable the global setup passes the unpacked path on in (test workers inherit it). */
export const RESOLVED_ENV = 'AORTA_CHROMIUM_RESOLVED';

export async function resolveChromium(repoRoot: string): Promise<ChromiumChoice> {
  const chosen = process.env.AORTA_CHROMIUM;
  if (chosen) return { executablePath: chosen, args: QUIET_ARGS, source: `AORTA_CHROMIUM=${chosen}` };
  const { default: packaged } = await import('@sparticuz/chromium');
  const args = [...new Set([...packaged.args, ...QUIET_ARGS])];
  const resolved = process.env[RESOLVED_ENV];
  if (resolved && existsSync(resolved)) return { executablePath: resolved, args, source: '@sparticuz/chromium' };

  // Keyed by the package's version: a cache unpacked by another version would otherwise be used for ever.
  const version = (
    JSON.parse(readFileSync(join(repoRoot, 'node_modules', '@sparticuz', 'chromium', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const cache = join(repoRoot, 'node_modules', '.cache', `aorta-chromium-${version}`);
  const done = join(cache, 'chromium');
  if (!existsSync(done)) {
    // Unpack into a private folder and rename it into place, so a crash or a second process never sees half a binary.
    const partial = `${cache}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = partial;
    try {
      await packaged.executablePath();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    try {
      renameSync(partial, cache);
    } catch {
      // Another process won the race; its copy is complete.
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return { executablePath: done, args, source: '@sparticuz/chromium' };
}
