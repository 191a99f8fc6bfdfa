/**
 * The built `aorta-probe` bin (scripts/bundle-cli.mjs): a code-split bundle whose start-up loads only what a
 * command needs, started through a shebang that carries node's young-generation flag. What the other CLI suites
 * run is this same file; these tests pin the properties the cold-start figures depend on.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const CLI_DIR = join(REPO_ROOT, 'dist', 'src', 'cli');
const MAIN = join(CLI_DIR, 'main.js');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

/** The relative modules a file imports statically (`import … from "./x.js"`), in order. */
function staticImports(file: string): string[] {
  const src = readFileSync(join(CLI_DIR, file), 'utf8');
  return [...src.matchAll(/import\s*(?:\{[^}]*\}|[\w$*\s,]+)\s*from\s*["'](\.\/[^"']+)["']/g)].map((m) => m[1]!);
}

describe('the aorta-probe bin', () => {
  it('is the package.json bin, and its first line runs node with --max-semi-space-size=1', () => {
    expect(pkg.bin['aorta-probe']).toBe('dist/src/cli/main.js');
    expect(readFileSync(MAIN, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env -S node --max-semi-space-size=1');
  });

  it('runs through its shebang and prints the version', () => {
    expect(execFileSync(MAIN, ['--version'], { encoding: 'utf8' })).toBe(`aorta-probe ${pkg.version}\n`);
  });

  it('starts by loading one shared chunk, not the command modules or the recipe loader', () => {
    const imports = staticImports('main.js');
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatch(/^\.\/chunk-core-[\w-]+\.js$/);
    // The core chunk itself imports nothing relative: --version reads two files of ours.
    expect(staticImports(imports[0]!.slice(2))).toEqual([]);
  });

  it('is ASCII only (one-byte sources for V8) in every chunk', () => {
    const files = ['main.js', ...readdirSync(CLI_DIR).filter((f) => /^chunk-.*\.js$/.test(f))];
    expect(files.length).toBeGreaterThan(5);
    const nonAscii = files.filter((f) => /[^\x00-\x7f]/.test(readFileSync(join(CLI_DIR, f), 'utf8')));
    expect(nonAscii).toEqual([]);
  });
});
