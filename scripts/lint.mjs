#!/usr/bin/env node
/**
 * `npm run lint` / `npm run format`: Biome over the tree (see biome.json), plus the AssemblyScript sources that
 * Biome cannot parse. AssemblyScript puts decorators on functions and variables (`@inline function f`,
 * `@global @unsafe`, `@lazy let x`), which TypeScript's grammar — and so Biome's parser — rejects. Those files are
 * listed as excluded in biome.json; here each decorator is masked by a comment of the same length (`@inline` →
 * `/*@in*\/`), so every line and column Biome reports is the real file's, and the masks are put back after
 * formatting. Usage: `node scripts/lint.mjs [--write]`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');
const write = process.argv.includes('--write');

/** The AssemblyScript files biome.json leaves out because they carry decorators Biome cannot parse. */
const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8'));
const masked = config.files.includes.filter((p) => p.startsWith('!assembly/')).map((p) => p.slice(1));

const DECORATOR = /(^|[ \t])@([A-Za-z_]\w*)(?=[ \t\r\n])/gm;
const MASK = /\/\*@\w*\*\//g;

function mask(text) {
  const found = [];
  const out = text.replace(DECORATOR, (_all, lead, name) => {
    const deco = `@${name}`;
    if (deco.length < 5) throw new Error(`decorator ${deco} is too short to mask in place`);
    found.push(deco);
    return `${lead}/*@${name.slice(0, deco.length - 5)}*/`;
  });
  return { out, found };
}

function unmask(text, found) {
  let i = 0;
  const out = text.replace(MASK, () => found[i++] ?? '');
  if (i !== found.length) throw new Error(`expected ${found.length} decorator masks, found ${i}`);
  return out;
}

const COLORS = process.stdout.isTTY ? [] : ['--colors=off'];

function biome(args, cwd) {
  args = [...args, ...COLORS];
  return spawnSync(process.execPath, [BIOME, ...args], { cwd, encoding: 'utf8' });
}

let failed = false;
const main = biome([write ? 'check' : 'ci', ...(write ? ['--write'] : []), '.'], ROOT);
process.stdout.write(main.stdout);
process.stderr.write(main.stderr);
if (main.status !== 0) failed = true;

const work = mkdtempSync(join(tmpdir(), 'aorta-lint-'));
try {
  const cfg = structuredClone(config);
  cfg.$schema = undefined;
  cfg.vcs = { enabled: false };
  cfg.files.includes = ['assembly/**/*.ts'];
  writeFileSync(join(work, 'biome.json'), JSON.stringify(cfg));
  const decorators = new Map();
  for (const rel of masked) {
    const { out, found } = mask(readFileSync(join(ROOT, rel), 'utf8'));
    decorators.set(rel, found);
    mkdirSync(dirname(join(work, rel)), { recursive: true });
    writeFileSync(join(work, rel), out);
  }
  const r = biome([write ? 'check' : 'ci', ...(write ? ['--write'] : []), ...masked], work);
  process.stdout.write(r.stdout.replaceAll(work, ROOT));
  process.stderr.write(r.stderr.replaceAll(work, ROOT));
  if (r.status !== 0) failed = true;
  if (write) {
    for (const rel of masked) {
      const formatted = unmask(readFileSync(join(work, rel), 'utf8'), decorators.get(rel));
      if (formatted !== readFileSync(join(ROOT, rel), 'utf8')) writeFileSync(join(ROOT, rel), formatted);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
