/**
 * Plain `npm pack` / `npm publish` (package.json `prepack` and `postpack`, scripts/pack.mjs): the packed package.json
 * has no install-time scripts, and the repository's comes back byte for byte. And what the package ships: each
 * embedded WebAssembly module once (scripts/bundle-cli.mjs reads it from the library's module).
 *
 * Nothing here builds or touches the repository's package.json: the pack runs in a copy whose `build` is a no-op
 * (the real one is `npm run build`, minutes), and the shipped files are npm's own selection (`--ignore-scripts`)
 * of the dist/ already built.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without type declarations
import { publishedManifest as published } from '../scripts/pack.mjs';
import { REPO_ROOT } from './support/browser.js';
import { requireBuiltDist } from './support/consumer.js';

/** scripts/pack.mjs's manifest transform: the repository's package.json text → the published one. */
const publishedManifest = published as (text: string) => string;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
const repoPackageJson = readFileSync(join(REPO_ROOT, 'package.json'), 'utf8');
const scripts = (JSON.parse(repoPackageJson) as { scripts: Record<string, string> }).scripts;

describe('the published manifest', () => {
  it("is the repository's without scripts or devDependencies; everything else as written", () => {
    const pkg = JSON.parse(repoPackageJson) as Record<string, unknown>;
    const published = JSON.parse(publishedManifest(repoPackageJson)) as Record<string, unknown>;
    expect(published.scripts).toBeUndefined();
    expect(published.devDependencies).toBeUndefined();
    const { scripts: _s, devDependencies: _d, ...rest } = pkg;
    expect(published).toEqual(rest);
    expect(Object.keys(published)).toEqual(Object.keys(rest));
  });

  it('is what plain npm pack packs: prepack builds and strips, postpack restores; nothing refuses a publish', () => {
    expect(scripts.prepack).toBe('npm run build && node scripts/pack.mjs --prepack');
    expect(scripts.postpack).toBe('node scripts/pack.mjs --postpack');
    expect(scripts.prepublishOnly).toBeUndefined();
    // A clone's `npm install` still builds and links the bin.
    expect(scripts.prepare).toBe('node scripts/link-self-bin.mjs --build');
  });
});

describe('plain npm pack, in a copy of the package with a no-op build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-npm-pack-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(REPO_ROOT, 'scripts', 'pack.mjs'), join(dir, 'scripts', 'pack.mjs'));
  copyFileSync(join(REPO_ROOT, 'LICENSE'), join(dir, 'LICENSE'));
  const pkg = JSON.parse(repoPackageJson) as { scripts: Record<string, string> };
  pkg.scripts.build = "node -e \"require('fs').writeFileSync('built', '')\"";
  const original = `${JSON.stringify(pkg, null, 2)}\n`;
  writeFileSync(join(dir, 'package.json'), original);
  const saved = join(dir, 'node_modules', '.cache', 'aorta-probe-pack', 'package.json');

  it('packs a package.json with no install-time scripts and puts the original back', () => {
    const out = execFileSync(NPM, ['pack', '--json', '--loglevel', 'warn', '--pack-destination', dir], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [record] = JSON.parse(out.slice(out.indexOf('[\n'))) as { filename: string }[];
    expect(existsSync(join(dir, 'built')), 'prepack ran the build').toBe(true);
    const packed = execFileSync('tar', ['-xOzf', join(dir, record!.filename), 'package/package.json'], {
      encoding: 'utf8',
    });
    expect(packed).toBe(publishedManifest(original));
    const packedScripts = (JSON.parse(packed) as { scripts?: Record<string, string> }).scripts ?? {};
    expect(INSTALL_SCRIPTS.filter((s) => s in packedScripts)).toEqual([]);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(original);
    expect(existsSync(saved)).toBe(false);
  }, 60_000);

  it('--postpack with nothing saved, or after package.json changed mid-pack: a message, exit 1, no clobbering', () => {
    const pack = (flag: string) =>
      spawnSync(process.execPath, [join(dir, 'scripts', 'pack.mjs'), flag], { cwd: dir, encoding: 'utf8' });
    let r = pack('--postpack');
    expect([r.status, r.stderr]).toEqual([
      1,
      `pack: nothing to restore (${saved} is missing): package.json was not stripped\n`,
    ]);
    r = pack('--prepack');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(publishedManifest(original));
    // A second --prepack would save the stripped file over the original: refused.
    r = pack('--prepack');
    expect([r.status, r.stderr]).toEqual([
      1,
      'pack: package.json is still stripped by an interrupted pack: run node scripts/pack.mjs --postpack first\n',
    ]);
    const edited = `${publishedManifest(original).trimEnd()}\n\n`;
    writeFileSync(join(dir, 'package.json'), edited);
    r = pack('--postpack');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('package.json changed while it was packed; left as it is');
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(edited);
    writeFileSync(join(dir, 'package.json'), publishedManifest(original));
    r = pack('--postpack');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(original);
  });
});

describe('what the package ships', () => {
  requireBuiltDist();
  const listing = execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel', 'warn'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  const files = (JSON.parse(listing) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  const shipped = new Map(files.map((f) => [f, readFileSync(join(REPO_ROOT, f), 'latin1')]));

  /** The base64 literal of a module scripts/embed-wasm.mjs wrote, as tsc emitted it. */
  function embedded(module: string): string {
    const m = /^export const \w+ = '([A-Za-z0-9+/=]+)';$/m.exec(shipped.get(module) ?? '');
    expect(m, module).not.toBeNull();
    return m![1]!;
  }

  function occurrences(needle: string): Record<string, number> {
    const found: Record<string, number> = {};
    for (const [path, text] of shipped) {
      let n = 0;
      for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
      if (n > 0) found[path] = n;
    }
    return found;
  }

  it.each([
    ['the condition VM', 'dist/src/condition/vm-wasm.generated.js', 'build/vm.wasm'],
    ['the byte scanner', 'dist/src/scan/bytescan-wasm.generated.js', 'build/bytescan.wasm'],
  ])('%s: its base64 once, in the library module the bin reads too', (_name, module, wasm) => {
    const base64 = embedded(module);
    expect(Buffer.from(base64, 'base64')).toEqual(readFileSync(join(REPO_ROOT, wasm)));
    const found = occurrences(base64);
    // The playground page (dist/playground, a Vite bundle served as static files) has its own copy in its worker.
    const playground = Object.keys(found).filter((p) => p.startsWith('dist/playground/'));
    expect(playground.length).toBeLessThanOrEqual(1);
    for (const p of playground) delete found[p];
    expect(found).toEqual({ [module]: 1 });
  });

  it('the bin evaluates a condition and scans with the modules read from the library files', () => {
    const bin = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
    expect(execFileSync(process.execPath, [bin, 'eval', '1 + 1 == 2'], { encoding: 'utf8' })).toBe(
      'value: True\ntype:  bool\nfired: yes\n',
    );
    const demo = (f: string) => join(REPO_ROOT, 'fixtures', 'demo', f);
    const r = spawnSync(process.execPath, [bin, 'scan', '--recipe', demo('recipe.yaml'), demo('train.log')], {
      encoding: 'utf8',
    });
    expect([r.status, r.stderr]).toEqual([1, '']);
    expect(r.stdout).toMatch(/^verdict: fail$/m);
  });
});
