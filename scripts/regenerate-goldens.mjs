#!/usr/bin/env node
/**
 * `npm run goldens`: regenerates every golden file under fixtures/ by running the command its own header names
 * (one fact, one place: the header is where the command lives). Needs python3 (3.11, as the goldens say); the
 * YAML goldens need PyYAML. Commands shared by several goldens run once.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goldenFiles, goldenMeta } from './golden-files.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const commands = new Map();
for (const path of goldenFiles(ROOT)) {
  const meta = goldenMeta(ROOT, path);
  if (meta === null) {
    console.error(`${path}: no header; cannot tell how it was made`);
    process.exitCode = 1;
    continue;
  }
  commands.set(meta.command, [...(commands.get(meta.command) ?? []), path]);
}
for (const [command, paths] of commands) {
  console.log(`$ ${command}   # ${paths.join(', ')}`);
  const t0 = Date.now();
  const r = spawnSync('sh', ['-c', command], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`failed (${r.status ?? r.signal}): ${command}`);
    process.exitCode = 1;
  } else console.log(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
