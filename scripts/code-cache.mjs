// Build step (after bundle-cli.mjs): V8 code caches for the bin's chunks (src/cli/code-cache.ts says why and how
// they are used). Runs the bin on the bundled demo with AORTA_PROBE_WRITE_CODE_CACHE=1: each run writes, beside
// every chunk it loaded, the cache of what it compiled (the largest cache of a chunk wins). Caches fit the node
// that runs this script; another node rejects them and compiles as usual.
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI_DIR = join(ROOT, 'dist', 'src', 'cli');
const BIN = join(CLI_DIR, 'main.cjs');
const demo = (f) => join(ROOT, 'fixtures', 'demo', f);

for (const f of readdirSync(CLI_DIR)) if (f.endsWith('.v8cache')) rmSync(join(CLI_DIR, f));
const runs = [
  ['--version'],
  ['eval', "exit_code == 0 and capture.get('x', '') != ''"],
  ['check', demo('recipe.yaml')],
  ['scan', '--recipe', demo('recipe.yaml'), demo('train.log')],
];
for (const args of runs) {
  try {
    execFileSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, AORTA_PROBE_WRITE_CODE_CACHE: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } catch (e) {
    // `scan` of the demo log exits 1 (its verdict is fail): only a crash is a build failure.
    if (typeof e.status !== 'number' || e.status > 1) throw e;
  }
}
const caches = readdirSync(CLI_DIR).filter((f) => f.endsWith('.v8cache'));
if (caches.length < 5) throw new Error(`code-cache: only ${caches.length} caches written`);
