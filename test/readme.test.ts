/**
 * The README's commands and outputs, checked in a clone (test/consumer.test.ts checks them from an install): the
 * 5-minute tour run as shown, and the set-up commands naming scripts this package.json has.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';
import { fencedBlocks } from './support/consumer.js';
import { matchesShown, runTour, tourSteps } from './support/readme-tour.js';

const README = join(REPO_ROOT, 'README.md');

describe('README', () => {
  mkdirSync(join(REPO_ROOT, 'test-artifacts'), { recursive: true });
  // Inside the clone, as a reader following the tour there would be: npx finds the clone's own bin link.
  const dir = mkdtempSync(join(REPO_ROOT, 'test-artifacts', 'readme-tour-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts with the title and one paragraph, then the set-up commands', () => {
    const text = readFileSync(README, 'utf8');
    expect(text.startsWith('# aorta-probe\n\n**aorta-probe classifies GPU test trials.**')).toBe(true);
    expect(fencedBlocks(README, 'sh')).toEqual([
      'npm install && npm run demo\nnpm test\n',
      'npm install aorta-probe\nnpx aorta-probe demo\n',
    ]);
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.prepare).toMatch(/npm run build/);
    expect(scripts.demo).toBe('node dist/src/cli/main.cjs demo');
    expect(scripts.test).toMatch(/vitest run/);
  });

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
