import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateCondition } from '../src/condition/validate.js';
import { loadRecipe } from '../src/recipe/index.js';
import { scanLog } from '../src/scan/index.js';
import { detectTier1, type Tier1Context } from '../src/classifier/tier1.js';
import { partitionDetectors, verdictFromDetectors } from '../src/classifier/verdict.js';
import { popenExitCode, readsTrialVars, TrialLogScanner } from '../src/trial/index.js';
import { hasCoreFile } from '../src/trial/core-file.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-trial-units-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ctx = (c: Partial<Tier1Context>): Tier1Context => ({
  exitCode: 0,
  timedOut: false,
  execFailed: false,
  interrupted: false,
  coreFile: false,
  ...c,
});

describe('Tier 1', () => {
  it.each([
    [{ exitCode: 0 }, []],
    [{ exitCode: 1 }, ['tier1:exit_nonzero']],
    [{ exitCode: -11 }, ['tier1:sigsegv']],
    [{ exitCode: -6 }, ['tier1:sigabrt']],
    [{ exitCode: -7 }, ['tier1:sigbus']],
    [{ exitCode: -9 }, ['tier1:exit_nonzero']],
    [{ exitCode: -15 }, ['tier1:exit_nonzero']],
    [{ exitCode: -1, timedOut: true }, ['tier1:timeout']],
    [{ exitCode: -11, timedOut: true }, ['tier1:timeout']],
    [{ exitCode: -2, interrupted: true }, ['tier1:interrupted']],
    [{ exitCode: 127, execFailed: true }, ['tier1:exec_failed']],
  ] as const)('%j → %j', (c, ids) => {
    expect(detectTier1(ctx(c))).toEqual(ids);
  });

  it('coredump: core.* (directories too) or a regular file named core; not after exec_failed', () => {
    const a = join(root, 'a');
    mkdirSync(join(a, 'core.77'), { recursive: true });
    expect(detectTier1(ctx({ exitCode: -11, coreFile: hasCoreFile(a) }))).toEqual(['tier1:sigsegv', 'tier1:coredump']);
    const b = join(root, 'b');
    mkdirSync(join(b, 'core'), { recursive: true }); // a directory named core does not count
    expect(detectTier1(ctx({ coreFile: hasCoreFile(b) }))).toEqual([]);
    const c = join(root, 'c');
    mkdirSync(c);
    writeFileSync(join(c, 'core'), '');
    expect(detectTier1(ctx({ coreFile: hasCoreFile(c) }))).toEqual(['tier1:coredump']);
    expect(detectTier1(ctx({ exitCode: 127, execFailed: true, coreFile: hasCoreFile(c) }))).toEqual([
      'tier1:exec_failed',
    ]);
  });

  it("Popen's exit codes: signals negative", () => {
    expect(popenExitCode(0, null)).toBe(0);
    expect(popenExitCode(137, null)).toBe(137);
    expect(popenExitCode(null, 'SIGSEGV')).toBe(-11);
    expect(popenExitCode(null, 'SIGKILL')).toBe(-9);
  });
});

describe('the verdict (the newest original, the original verdict.py, ROCm/aorta)', () => {
  it('partitions errors from failures, keeping order', () => {
    expect(
      partitionDetectors(['tier1:timeout', 'tier1:exit_nonzero', 'tier1:exec_failed', 'tier4:nan_signature']),
    ).toEqual({
      failures: ['tier1:exit_nonzero', 'tier4:nan_signature'],
      errors: ['tier1:timeout', 'tier1:exec_failed'],
    });
  });
  it.each([
    [[], [], 'pass'],
    [[], ['tier1:timeout'], 'error'],
    [[], ['tier1:exec_failed'], 'error'],
    [['tier2:hang'], ['tier1:timeout'], 'fail'],
    [['tier4:hip_error'], ['tier1:exec_failed'], 'fail'],
    [['tier1:exit_nonzero'], [], 'fail'],
  ] as const)('failures %j, errors %j → %s', (f, e, v) => {
    expect(verdictFromDetectors(f, e)).toBe(v);
  });
});

describe('conditions that need the final trial variables', () => {
  it.each([
    ["math.isnan(float(capture['loss']))", false],
    ["int(capture['code']) == 137", false],
    ['exit_code == 137', true],
    ["walltime_sec > 60 and capture['x'] == '1'", true],
    ["len(capture['m']) > 0 if peak_vram_mib else False", true],
    ["capture['exit_code'] == '1'", false], // a capture *named* exit_code is not the variable
  ])('%s → %s', (text, expected) => {
    expect(readsTrialVars(validateCondition(text))).toBe(expected);
  });
});

describe('TrialLogScanner = scanLog with the final values', () => {
  const recipe = loadRecipe(
    `custom_patterns:
  - id: code
    match:
      regex: "code=(?P<code>[0-9]+)"
      condition: "int(capture['code']) == exit_code"
  - id: nan
    match:
      regex: "loss=(?P<loss>[a-z0-9.]+)"
      condition: "math.isnan(float(capture['loss']))"
  - id: slow
    match: {regex: "(?P<w>done)", condition: "walltime_sec > 5"}
    on_match: warn
`,
    'units.yaml',
  );
  const log = 'x code=1\nloss=1.0\ncode=3 loss=nan\ncode=3\nHIP error: boom\ncode=7\ndone\n'.repeat(3);

  it.each([
    [{ exit_code: 3, walltime_sec: 1, peak_vram_mib: null }, 1_000_000],
    [{ exit_code: 7, walltime_sec: 9, peak_vram_mib: null }, 1_000_000],
    [{ exit_code: 7, walltime_sec: 9, peak_vram_mib: null }, 2], // spills almost everything
    [{ exit_code: 0, walltime_sec: 9, peak_vram_mib: 5 }, 0],
  ])('vars %j, in-memory budget %d', async (vars, budget) => {
    for (const windowBytes of [16, 40, undefined]) {
      const s = new TrialLogScanner(recipe, {
        windowBytes,
        candidateBudget: { candidates: budget, units: 1 << 20 },
        spillDir: root,
      });
      const bytes = Buffer.from(log);
      for (let i = 0; i < bytes.length; i += 7) s.push(bytes.subarray(i, i + 7)); // chunks cut anywhere
      const got = await s.finish(vars);
      s.dispose();
      const { tier_durations_ms: _a, ...want } = scanLog(recipe, log, vars, { windowBytes });
      const { tier_durations_ms: _b, deferred: _c, ...rest } = got;
      expect(rest).toEqual(want);
    }
  });
});
