/**
 * The README's commands and outputs, checked in a clone (test/consumer.test.ts checks them from an install): the
 * 5-minute tour run as shown, and the set-up commands naming scripts this package.json has.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';
import { fencedBlocks } from './support/consumer.js';
import { matchesShown, runTour, tourSteps } from './support/readme-tour.js';

const README = join(REPO_ROOT, 'README.md');
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('README', () => {
  mkdirSync(join(REPO_ROOT, 'test-artifacts'), { recursive: true });
  // Inside the clone, as a reader following the tour there would be: npx finds the clone's own bin link.
  const dir = mkdtempSync(join(REPO_ROOT, 'test-artifacts', 'readme-tour-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with the title and one paragraph, then the set-up commands', () => {
    const text = readFileSync(README, 'utf8');
    expect(text.startsWith('# aorta-probe\n\n**aorta-probe classifies GPU test trials.**')).toBe(true);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      scripts: Record<string, string>;
    };
    const tarball = `${pkg.name}-${pkg.version}.tgz`;
    expect(fencedBlocks(README, 'sh')).toEqual([
      'npm install && npm run demo\nnpm test\n',
      `npm pack                                          # in the clone: writes ${tarball}\n` +
        `npm install /path/to/clone/${tarball}  # in your project\n` +
        'npx aorta-probe demo\n',
    ]);
    const { scripts } = pkg;
    // `npm install` in a clone builds and links the bin (prepare); `npm pack` builds first (prepack).
    expect(scripts.prepare).toBe('node scripts/link-self-bin.mjs --build');
    expect(scripts.prepack).toMatch(/^npm run build && /);
    expect(scripts.demo).toBe('node dist/src/cli/main.cjs demo');
    expect(scripts.test).toMatch(/vitest run/);
  });

  it("npx aorta-probe in the clone runs the clone's bin at once: npm exec links the clone, and nothing rebuilds", () => {
    // npm exec, seeing the clone's own package.json name the bin, links the clone into its npx cache and runs the
    // linked directory's `prepare` there (scripts/link-self-bin.mjs): a whole build before the fix, 25–60 s. A fresh
    // npx cache makes this the first call from this clone.
    const cache = mkdtempSync(join(tmpdir(), 'aorta-npx-cache-'));
    try {
      const bin = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
      const before = statSync(bin).mtimeMs;
      const started = performance.now();
      const r = spawnSync('npx', ['--offline', '--yes', 'aorta-probe', '--version'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, npm_config_cache: cache },
        timeout: 60_000,
        shell: process.platform === 'win32',
      });
      const seconds = (performance.now() - started) / 1000;
      expect([r.status, r.stdout], r.stderr).toEqual([0, `aorta-probe ${version}\n`]);
      expect(statSync(bin).mtimeMs, 'the bin was rebuilt').toBe(before);
      expect(seconds).toBeLessThan(20);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 90_000);

  it('tour: every command prints what the README shows, from a clone', () => {
    const bin = join(REPO_ROOT, 'node_modules', '.bin', 'aorta-probe');
    expect(existsSync(bin), 'node_modules/.bin/aorta-probe is missing: npm install (prepare) links it').toBe(true);
    expect(tourSteps(README).steps.length).toBeGreaterThanOrEqual(6);
    for (const step of runTour(README, dir, bin)) {
      expect(matchesShown(step.shown, step.actual), `$ ${step.command}\n${step.actual.join('\n')}`).toBe(true);
    }
  }, 120_000);

  it('links only docs pages that the index lists', () => {
    const index = readFileSync(join(REPO_ROOT, 'docs', 'README.md'), 'utf8');
    for (const m of readFileSync(README, 'utf8').matchAll(/\]\(docs\/([a-z-]+\.md)\)/g)) {
      if (m[1] !== 'README.md') expect(index).toContain(`](${m[1]})`);
    }
  });
});
