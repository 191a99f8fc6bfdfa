// Issue 12 §1: "valid" from `check` means runnable. What `check` accepts, `scan` (and so `run`, which compiles the
// same way) can compile and hold together in one process: the 4,000-literal recipe and 43 × `(?s)[^a]{1000}zN`,
// which overflow one re2-wasm heap together, are spread over several engine instances. A pattern `check` rejects
// for an engine limit is rejected by `scan` too, with the same limit message at its recipe `file:line:col`.
// Each command runs as its own process (dist/), as a user runs them: no compile cache is shared between them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'aorta-check-scan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd: root, maxBuffer: 1 << 26 }, (err, out, errText) =>
      resolve({ code: err === null ? 0 : Number((err as { code?: number }).code), out, err: errText }),
    );
  });
}

function recipe(name: string, regexes: readonly string[]): string {
  const lines = ['custom_patterns:'];
  for (const [i, r] of regexes.entries())
    lines.push(`  - id: p${i}`, '    match:', `      regex: '${r}'`, '    on_match: fail');
  writeFileSync(join(root, name), `${lines.join('\n')}\n`);
  return name;
}

writeFileSync(join(root, 'log.txt'), 'hello\nlit0007x here\n');

describe('what check accepts, scan can hold', () => {
  it('4,000 literal patterns: check 0, scan 1 with the firing pattern', async () => {
    const r = recipe(
      'lit.yaml',
      Array.from({ length: 4000 }, (_, i) => `lit${String(i).padStart(4, '0')}x`),
    );
    const [check, scan] = await Promise.all([cli('check', r), cli('scan', '--recipe', r, 'log.txt')]);
    expect(check).toEqual({ code: 0, out: 'lit.yaml: valid (4000 custom patterns)\n', err: '' });
    expect(scan).toEqual({
      code: 1,
      out: 'log.txt:2: custom:p7 — lit0007x\nverdict: fail\nfailure detectors: custom:p7\nwarn detectors: (none)\ncapture: {}\n',
      err: '',
    });
  }, 300_000);

  it('43 × (?s)[^a]{1000}zN (one heap cannot hold them together): check 0, scan 0', async () => {
    const r = recipe(
      'set.yaml',
      Array.from({ length: 43 }, (_, i) => `(?s)[^a]{1000}z${i}`),
    );
    const [check, scan] = await Promise.all([cli('check', r), cli('scan', '--recipe', r, 'log.txt')]);
    expect(check).toEqual({ code: 0, out: 'set.yaml: valid (43 custom patterns)\n', err: '' });
    expect(scan).toEqual({
      code: 0,
      out: 'verdict: pass\nfailure detectors: (none)\nwarn detectors: (none)\ncapture: {}\n',
      err: '',
    });
  }, 300_000);

  it('a pattern too large for the engine: check and scan reject it with the limit message at its position', async () => {
    const big = `(?s)${'[^a]{1000}'.repeat(45)}`;
    const r = recipe('big.yaml', ['NCCL', big]);
    const [check, scan] = await Promise.all([cli('check', r), cli('scan', '--recipe', r, 'log.txt')]);
    const message =
      "big.yaml:8:14: recipe.custom_patterns[1].match.regex: invalid regex (too large for the regex engine: compiling it alone exhausts re2-wasm's fixed 16 MiB heap)";
    expect(check.code).toBe(1);
    expect(check.out.startsWith(message)).toBe(true);
    expect(scan.code).toBe(2);
    expect(scan.out).toBe('');
    expect(scan.err.startsWith(message)).toBe(true);
    expect(scan.err).toContain('hint: a counted repeat copies its operand n times into the program');
  }, 300_000);
});
