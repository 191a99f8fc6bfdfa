// Build step (after bundle-cli.mjs): V8 code caches for the bin's chunks (src/cli/code-cache.ts says why and how
// they are used). Runs the bin on the bundled demo with AORTA_PROBE_WRITE_CODE_CACHE=1: each run writes, beside
// every chunk it loaded, the cache of what it compiled (the largest cache of a chunk wins). Caches fit the node
// that runs this script; another node rejects them and compiles as usual.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE_SUFFIX, wrapChunk } from '../dist/src/cli/code-cache.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI_DIR = join(ROOT, 'dist', 'src', 'cli');
const BIN = join(CLI_DIR, 'main.cjs');
const demo = (f) => join(ROOT, 'fixtures', 'demo', f);

for (const f of readdirSync(CLI_DIR)) if (f.endsWith(CACHE_SUFFIX)) rmSync(join(CLI_DIR, f));
// Each with the exit status it must end with (the demo log's verdict is fail: `scan` exits 1).
const runs = [
  [['--version'], 0],
  [['eval', 'exit_code == 0 and walltime_sec < 60'], 0],
  [['check', demo('recipe.yaml')], 0],
  [['scan', '--recipe', demo('recipe.yaml'), demo('train.log')], 1],
];
for (const [args, status] of runs) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, AORTA_PROBE_WRITE_CODE_CACHE: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== status)
    throw new Error(`code-cache: aorta-probe ${args.join(' ')} exited ${r.status}, not ${status}`);
}
const caches = readdirSync(CLI_DIR).filter((f) => f.endsWith(CACHE_SUFFIX));
if (caches.length < 5) throw new Error(`code-cache: only ${caches.length} caches written`);
// Each cached chunk is written as V8 compiled it, inside node's wrapper (code-cache.ts's wrapChunk says why): the
// same text, so its cache still fits.
for (const cache of caches) {
  const chunk = join(CLI_DIR, cache.slice(0, -CACHE_SUFFIX.length));
  writeFileSync(chunk, wrapChunk(readFileSync(chunk, 'utf8')));
}
