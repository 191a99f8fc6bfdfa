// Containment of re2-wasm aborts (issue 12 §1): one pattern that exhausts the fixed 16 MiB heap fails alone;
// every other pattern, later compiles and the rest of the process keep working.
import { describe, expect, it } from 'vitest';
import {
  RegexMatchAbortError,
  RegexTooLargeError,
  compileRegex,
  engineStats,
  matchAll,
  searchRegex,
} from '../src/regex/index.js';

// Python `re` has no \p{..}, so the issue's `\pL{100}` is now a syntax error; this one aborts re2-wasm alone.
const BIG = `(?s)${'[^a]{1000}'.repeat(45)}`;

describe('engine abort containment', () => {
  it('a pattern too large to compile fails alone with a typed error; others keep working', () => {
    const before = compileRegex('NCCL (?P<what>\\w+)');
    expect(searchRegex(before, 'x NCCL error')?.named).toEqual({ what: 'error' });
    let err: unknown;
    try {
      compileRegex(BIG);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RegexTooLargeError);
    expect((err as RegexTooLargeError).kind).toBe('too-large');
    expect((err as Error).message).toMatch(
      /^invalid regex \(too large for the regex engine: .*\): "\(\?s\)\[\^a\]\{1000\}\[/,
    );
    // The handle compiled before the abort was re-homed; new compiles work.
    expect(searchRegex(before, 'y NCCL warn', 0, { engine: 're2' })?.named).toEqual({ what: 'warn' });
    const after = compileRegex('NCCL');
    expect(searchRegex(after, 'abc NCCL', 0, { engine: 're2' })?.index).toBe(4);
    expect(engineStats().aborts).toBeGreaterThanOrEqual(2); // once in the shared instance, once alone
    before.dispose();
    after.dispose();
  }, 60_000);

  it('a set that overflows one instance is spread over several; all stay usable', () => {
    // 43 of these exhaust one 16 MiB heap (issue 12). Compiling one takes ~0.3 s at re2-wasm's -O0, and matching
    // [^a]{1000} against a long text runs on RE2's NFA (seconds per KB), so the subjects here are short.
    const set = Array.from({ length: 46 }, (_, i) => compileRegex(`(?s)[^a]{1000}z${i}`));
    expect(engineStats().live.filter((i) => i.programs > 0).length).toBeGreaterThanOrEqual(2);
    expect(set.map((re) => searchRegex(re, 'az1', 0, { engine: 're2' }))).toEqual(set.map(() => null));
    const plain = compileRegex('NCCL');
    expect(searchRegex(plain, 'NCCL', 0, { engine: 're2' })?.index).toBe(0);
    for (const re of set) re.dispose();
    plain.dispose();
  }, 120_000);

  it('a match that aborts even alone throws RegexMatchAbortError naming the pattern; others keep working', () => {
    const other = compileRegex('ok(\\d)');
    const re = compileRegex('(?s)(.*)');
    const huge = 'a'.repeat(7 * 1024 * 1024); // over the measured ~5.45 MiB single-call maximum
    expect(() => searchRegex(re, huge, 0, { maxSubjectBytes: 64 * 1024 * 1024 })).toThrow(RegexMatchAbortError);
    expect(() => searchRegex(re, huge, 0, { maxSubjectBytes: 64 * 1024 * 1024 })).toThrow(
      /"\(\?s\)\(\.\*\)" on a 7340032-byte subject/,
    );
    expect([...matchAll(re, 'abc')].map((m) => m.match)).toEqual(['abc', '']);
    expect(searchRegex(other, 'x ok7', 0, { engine: 're2' })?.groups).toEqual(['7']);
    expect(searchRegex(compileRegex('other'), 'the other one')?.index).toBe(4);
  }, 60_000);

  it('importing the condition compiler loads no regex engine', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(new URL('../dist/src/condition/compile.js', import.meta.url).href)});
      const req = createRequire(import.meta.url);
      process.stdout.write(String(Object.keys(req.cache).some((k) => k.includes('re2-wasm'))));`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toBe('false');
  });
});
