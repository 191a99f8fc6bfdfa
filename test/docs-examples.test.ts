/**
 * docs/classifier.md's examples are what the program does, run through the built CLI: the self-test recipe passes
 * `check` with the result the page states, and the `result.json` section lists the fields a real run writes, in
 * its order, with `detectors` and `detector_categories` exactly as that run wrote them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const CLI = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
const DOC = readFileSync(join(REPO_ROOT, 'docs', 'classifier.md'), 'utf8');

/** The text of `## heading` up to the next `## `. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/classifier.md has no section "## ${heading}"`).toBeGreaterThan(-1);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end === -1 ? undefined : end);
}

/** The first fenced block of `lang` in `text`. */
function firstBlock(text: string, lang: string): string {
  const m = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text);
  expect(m, `no \`\`\`${lang} block`).not.toBeNull();
  return m![1]!;
}

function cli(args: string[], input = '', env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, input, encoding: 'utf8', env });
}

describe('docs/classifier.md', () => {
  it('the self-test example is a recipe that passes check, as the page says', () => {
    const text = section('Recipe self-tests (`tests:`)');
    const recipe = firstBlock(text, 'yaml');
    const r = cli(['check', '-'], recipe);
    expect(r.stderr).toBe('');
    expect(r.status, r.stdout).toBe(0);
    const claimed = /`(valid \([^`]*\))`/.exec(text)?.[1];
    expect(claimed, 'the page states what check prints').toBeDefined();
    expect(r.stdout).toBe(`<stdin>: ${claimed}\n`);
  });

  describe('result.json', () => {
    mkdirSync(join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    const out = mkdtempSync(join(REPO_ROOT, 'test-artifacts', 'docs-examples-'));
    afterAll(() => rmSync(out, { recursive: true, force: true }));
    const text = section('`result.json`');

    /** The command the page names, run (with the demo trial's pauses off: they change no byte of its log). */
    function run(): Record<string, unknown> {
      const command = /`aorta-probe (run [^`]*) --out DIR -- ([^`]*)`/.exec(text);
      expect(command, 'the page names the run it shows').not.toBeNull();
      const args = [
        ...command![1]!.split(' '),
        '--out',
        out,
        '--gpu-tool',
        'none',
        '--quiet',
        '--',
        ...command![2]!.split(' '),
      ];
      const r = cli(args, '', { ...process.env, DEMO_STEP_MS: '0' });
      expect(r.status, r.stderr).toBe(1);
      return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
    }

    it('the table lists every field of a real result.json, in order; the example is that run', () => {
      const result = run();
      const rows = text.split('\n').filter((l) => l.startsWith('| `'));
      const fields = rows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]!));
      expect(fields).toEqual(Object.keys(result));
      const example = JSON.parse(firstBlock(text, 'json')) as Record<string, unknown>;
      expect(example).toEqual({ detectors: result.detectors, detector_categories: result.detector_categories });
      // Key order too: the page shows the records as the file has them.
      const keys = (v: unknown): string[] => (v as Record<string, unknown>[]).map((d) => Object.keys(d).join(','));
      expect(keys(example.detectors)).toEqual(keys(result.detectors));
    });
  });
});
