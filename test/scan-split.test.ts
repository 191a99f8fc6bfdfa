/**
 * src/scan/split.ts (which scans may be split, and the merge) and src/scan/split-threads.ts (the two-thread scan of a
 * file): the merged result must be the one-piece scan's, positions included.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { planRanges } from '../src/scan/split-threads.js';
import { mergeRanges, splitSafe, type RangeScan } from '../src/scan/split.js';
import type { Firing } from '../src/scan/scan.js';
import { REPO_ROOT } from './support/browser.js';

describe('splitSafe', () => {
  it.each([
    ['hipError_[A-Za-z0-9_]+', '', true],
    ['\\bloss=(?P<loss>[^ \\n]+)', '', true],
    ['^Traceback', 'm', true],
    ['done$', 'm', true],
    // Matches "\n", or can: a match could cross the split.
    ['a\\sb', '', false],
    ['(?s)a.b', '', false],
    ['[^x]+y', '', false],
    // Empty matches: both halves would find one at the split.
    ['x*', '', false],
    // Anchors that see the ends of the text: the first half ends in "\n", the second has nothing before it.
    ['done$', '', false],
    ['^start', '', false],
    ['\\Aa', '', false],
  ])('%s (flags %j): %s', (regex, flags, safe) => {
    expect(splitSafe(regex, flags)).toBe(safe);
  });
});

const firing = (detectorId: string, offset: number, line: number, byteOffset: number): Firing => ({
  detectorId,
  kind: 'fail',
  offset,
  line,
  byteOffset,
  text: 'x',
  rank: 7,
  named: {},
  requiredForPass: false,
});

describe('mergeRanges', () => {
  const tierMs = { tier4: 1, tier5: 2 };
  const range = (firings: Firing[], end: RangeScan['end']): RangeScan => ({
    firings,
    conditionErrors: [],
    engineFailed: false,
    end,
    tierMs,
  });

  it("keeps the first range's firing, shifts the others' by the text of every range before them", () => {
    const r = mergeRanges(
      [
        range([firing('custom:a', 5, 2, 6)], { units: 100, newlines: 10, bytes: 120 }),
        range([firing('custom:a', 1, 1, 1), firing('custom:b', 3, 2, 4)], { units: 50, newlines: 5, bytes: 50 }),
        range([firing('custom:b', 0, 1, 0), firing('custom:c', 7, 3, 9)], { units: 30, newlines: 3, bytes: 30 }),
      ],
      [],
    );
    expect(r?.detectors.map((d) => [d.id, d.line, d.byte_offset])).toEqual([
      ['custom:a', 2, 6],
      ['custom:b', 12, 124],
      ['custom:c', 18, 179],
    ]);
    expect(r?.tier_durations_ms).toEqual({ tier4: 3, tier5: 6 });
  });

  it('ignores the ranges after one that stopped early (every pattern fired in it)', () => {
    const r = mergeRanges(
      [
        range([], { units: 100, newlines: 10, bytes: 100 }),
        range([firing('custom:a', 1, 1, 1)], null),
        range([firing('custom:z', 0, 1, 0)], { units: 1, newlines: 0, bytes: 1 }),
      ],
      [],
    );
    expect(r?.detectors.map((d) => [d.id, d.line, d.byte_offset])).toEqual([['custom:a', 11, 101]]);
    expect(r?.tier_durations_ms).toEqual({ tier4: 2, tier5: 4 });
  });

  it('refuses to merge after an engine failure in any range', () => {
    const ok = range([], { units: 1, newlines: 1, bytes: 1 });
    expect(mergeRanges([{ ...ok, engineFailed: true }, ok], [])).toBeNull();
    expect(mergeRanges([ok, ok, { ...ok, engineFailed: true }], [])).toBeNull();
  });
});

describe('planRanges', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-plan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tiles the file with ranges cut just after a "\\n", shrinking towards the end, none under 8 MiB', () => {
    const MiB = 1024 * 1024;
    const line = 'x'.repeat(99) + '\n';
    const path = join(dir, 'log');
    writeFileSync(path, line.repeat((100 * MiB) / line.length));
    const size = statSync(path).size;
    const ranges = planRanges(path, size, 2);
    expect(ranges.map((r) => Math.round((r.end - r.start) / MiB))).toEqual([25, 19, 14, 11, 8, 8, 16]);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(size);
    for (let i = 1; i < ranges.length; i++) {
      expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
      expect(ranges[i]!.start % line.length).toBe(0); // just after a "\n"
    }
  });

  it('is one range when no "\\n" follows the first cut', () => {
    const path = join(dir, 'one-line');
    writeFileSync(path, 'y'.repeat(20 * 1024 * 1024));
    expect(planRanges(path, 20 * 1024 * 1024, 2)).toEqual([{ start: 0, end: 20 * 1024 * 1024 }]);
  });
});

describe('a two-thread scan of a file equals the one-piece scan', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-split-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * ~20 MiB (over MIN_SPLIT_BYTES): multi-byte text and an invalid byte in the first half (UTF-16 and decoded-byte
   * shifts differ from the file's), detectors that fire only in the first half, only in the second, in both
   * (the first wins), and a condition that holds only on a late match.
   */
  function writeLog(): string {
    const lines: string[] = [];
    for (let i = 0; i < 330_000; i++) {
      if (i === 1000) lines.push('warn: café ☕ 😀 temperature 71');
      else if (i === 2000) lines.push('step 2000 loss=0.5 exit status 0');
      else if (i === 200_000) lines.push('hipError_t 100: no device');
      else if (i === 250_000) lines.push('exit status 3');
      else if (i === 300_000) lines.push('warn: temperature 99');
      else lines.push(`2026-12-02T03:00:00 step ${i} loss=0.${i % 97} tokens/s=1234.5 ok`);
    }
    const path = join(dir, 'train.log');
    const text = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    // One invalid byte (0xff) early on: decoded as U+FFFD, three bytes in the decoded text.
    text[50] = 0xff;
    writeFileSync(path, text);
    return path;
  }

  it('in the library call, with positions and captures, also when the worker cannot start', () => {
    const log = writeLog();
    const recipe = join(dir, 'recipe.yaml');
    writeFileSync(
      recipe,
      [
        'custom_patterns:',
        '  - id: exit_status',
        '    match:',
        '      regex: "exit status (?P<code>\\\\d+)"',
        '      condition: "int(capture[\'code\']) != 0"',
        '    on_match: fail',
        '  - id: hot',
        '    match:',
        '      regex: "temperature (?P<t>\\\\d+)"',
        '      condition: "int(capture[\'t\']) > 90"',
        '    on_match: warn',
        '  - id: warned',
        '    match:',
        '      regex: "(?m)^warn: "',
        '    on_match: info',
        '',
      ].join('\n'),
    );
    const url = (p: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', 'src', p)).href);
    const script = `
      import { readFileSync, statSync } from 'node:fs';
      import { loadRecipe, scanFile } from ${url('node.js')};
      import { scanSplit } from ${url('scan/split-threads.js')};
      // The worker's entry as the bin has it, bundled (scripts/bundle-cli.mjs).
      const worker = { url: new URL(${url('cli/scan-part-worker.cjs')}) };
      const recipe = loadRecipe(readFileSync(${JSON.stringify(recipe)}), 'recipe.yaml');
      const vars = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
      const log = ${JSON.stringify(log)};
      const size = statSync(log).size;
      const split = await scanSplit(recipe, log, size, vars, 2, null, worker);
      // A worker that cannot start: this thread scans every range.
      const absent = await scanSplit(recipe, log, size, vars, 2, null, { url: new URL('./no-such-worker.cjs', import.meta.url) });
      const whole = await scanFile(recipe, log, vars);
      for (const r of [split, absent, whole]) if (r) delete r.tier_durations_ms;
      console.log(JSON.stringify({ split, absent, whole }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(out.split).not.toBeNull();
    expect(out.split).toEqual(out.whole);
    expect(out.absent).toEqual(out.whole);
    expect(out.whole.detectors.map((d: { id: string; line: number }) => [d.id, d.line])).toEqual([
      ['custom:warned', 1001],
      ['tier4:hip_error', 200_001],
      ['custom:exit_status', 250_001],
      ['custom:hot', 300_001],
    ]);
  }, 60_000);

  it('through the bin: --threads 2 and --threads 1 print the same JSON', () => {
    const log = join(dir, 'train.log');
    const bin = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
    const run = (threads: string) => {
      let out: string;
      try {
        out = execFileSync(bin, ['scan', log, '--json', '--threads', threads], { encoding: 'utf8' });
      } catch (e) {
        out = (e as { stdout: string }).stdout;
      }
      const r = JSON.parse(out) as Record<string, unknown>;
      delete r.tier_durations_ms;
      return r;
    };
    const two = run('2');
    expect(two.failure_detectors_fired).toEqual(['tier4:hip_error']);
    expect(two).toEqual(run('1'));
  }, 60_000);
});
