/**
 * package.json's `prepare` (scripts/link-self-bin.mjs --build): `npm install` in a clone builds and links the bin;
 * the `prepare` that `npx` (npm exec) runs when it links the clone into its cache does not build again.
 * In a small package of the same shape (a build that leaves a mark, one bin), so that nothing here builds for real.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

describe.skipIf(process.platform === 'win32')('scripts/link-self-bin.mjs --build (prepare)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-self-bin-'));
  const cache = mkdtempSync(join(tmpdir(), 'aorta-self-bin-cache-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(REPO_ROOT, 'scripts', 'link-self-bin.mjs'), join(dir, 'scripts', 'link-self-bin.mjs'));
  // The build counts its runs in builds.txt and writes the bin.
  const build =
    "const f=require('fs');f.appendFileSync('builds.txt','x');f.writeFileSync('bin.cjs','#!/usr/bin/env node\\nconsole.log(\\'self-bin ran\\')\\n',{mode:0o755})";
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'self-bin',
        version: '1.0.0',
        bin: { 'self-bin': 'bin.cjs' },
        scripts: { build: `node -e "${build}"`, prepare: 'node scripts/link-self-bin.mjs --build' },
      },
      null,
      2,
    )}\n`,
  );
  const builds = () => (existsSync(join(dir, 'builds.txt')) ? readFileSync(join(dir, 'builds.txt'), 'utf8').length : 0);
  const env = { ...process.env, npm_config_cache: cache };

  it('npm install (prepare): builds, then links the bin into node_modules/.bin', () => {
    const r = spawnSync(NPM, ['install', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    expect(builds()).toBe(1);
    expect(readlinkSync(join(dir, 'node_modules', '.bin', 'self-bin'))).toBe(join('..', '..', 'bin.cjs'));
  }, 60_000);

  it('npx in the package: npm exec links it into the npx cache and runs its prepare, which does not build', () => {
    const r = spawnSync(NPX, ['--offline', '--yes', 'self-bin'], { cwd: dir, encoding: 'utf8', env });
    expect([r.status, r.stdout], r.stderr).toEqual([0, 'self-bin ran\n']);
    expect(builds()).toBe(1);
    // It did run there (npm exec installs the package into its cache as a link).
    expect(readdirNpx(cache)).toHaveLength(1);
  }, 60_000);

  it('npx where the bin is missing (an --ignore-scripts install): that prepare builds', () => {
    rmSync(join(dir, 'bin.cjs'));
    rmSync(join(cache, '_npx'), { recursive: true, force: true });
    const r = spawnSync(NPX, ['--offline', '--yes', 'self-bin'], { cwd: dir, encoding: 'utf8', env });
    expect([r.status, r.stdout], r.stderr).toEqual([0, 'self-bin ran\n']);
    expect(builds()).toBe(2);
  }, 60_000);
});

function readdirNpx(cache: string): string[] {
  const npx = join(cache, '_npx');
  return existsSync(npx) ? spawnSync('ls', [npx], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean) : [];
}
