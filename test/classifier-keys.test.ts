import { describe, expect, it } from 'vitest';
import { loadRecipe, RecipeError } from '../src/recipe/index.js';
import { classify, NOTHING_DISABLED } from '../src/classifier/classify.js';
import { classifyScanned, planLogScan } from '../src/classifier/classify-log.js';
import { resolveExitStatus } from '../src/classifier/exit-codes.js';
import { scanLog } from '../src/scan/index.js';
import { probeRecipe } from './support/classifier.js';
import { PROBE } from './support/recipes.js';

const reason = (text: string): string => {
  try {
    loadRecipe(PROBE + text, 'r.yaml');
  } catch (e) {
    if (e instanceof RecipeError) return `${e.line}:${e.col} ${e.reason}`;
    throw e;
  }
  throw new Error('loaded');
};

const PATTERNS = `custom_patterns:
  - id: oom
    match: {regex: 'out of memory'}
    category: oom_fragment
  - id: ok
    match: {regex: 'benchmark passed'}
    required_for_pass: true
  - id: slow
    match: {regex: 'slow step'}
    on_match: warn
`;

describe('recipe keys: defaults and rejections', () => {
  it('defaults', () => {
    const r = probeRecipe('');
    expect([
      r.progressRegex,
      r.hangAction,
      r.tier3VramGrowth,
      r.disableDetectors,
      r.disableDetectorTiers,
      r.exitCodes,
      r.tests,
      r.detectorCategories.size,
    ]).toEqual([null, 'record', true, [], [], null, [], 0]);
  });

  it('disable_detectors: unknown tier prefix, malformed token, unknown built-in id, a custom id the recipe lacks', () => {
    expect(reason("disable_detectors: ['tier9:x']\n")).toBe(
      "6:21 recipe.disable_detectors: 'tier9:x' has an unknown prefix 'tier9'; expected one of ['tier1', 'tier2', 'tier3', 'tier4', 'tier5', 'custom', 'meta']",
    );
    expect(reason('disable_detectors: [hang]\n')).toBe(
      "6:21 recipe.disable_detectors: 'hang' is not a detector id (expected '<tier>:<name>', e.g. 'tier2:hang' or 'custom:<id>')",
    );
    expect(reason("disable_detectors: ['tier2:hung']\n")).toBe(
      "6:21 recipe.disable_detectors: unknown detector 'tier2:hung'; known tier2 ids: ['tier2:hang']",
    );
    expect(reason(`${PATTERNS}disable_detectors: ['custom:omm']\n`)).toBe(
      "16:21 recipe.disable_detectors: 'custom:omm' names no custom pattern of this recipe; its custom_patterns ids are ['oom', 'ok', 'slow']",
    );
    expect(reason('disable_detector_tiers: [tier6]\n')).toBe(
      "6:26 recipe.disable_detector_tiers: unknown tier 'tier6'; allowed: ['tier1', 'tier2', 'tier3', 'tier4', 'tier5']",
    );
    expect(reason('disable_detectors: tier2:hang\n')).toBe(
      "6:20 recipe.disable_detectors: must be a list[str], got str ('tier2:hang')",
    );
  });

  it('progress_regex, hang_action, tier3_vram_growth', () => {
    expect(reason("progress_regex: '(unclosed'\n")).toMatch(/^6:17 recipe\.progress_regex: invalid regex \(missing \)/);
    expect(reason('hang_action: stop\n')).toBe(
      "6:14 recipe.hang_action: must be one of ['kill', 'record'], got 'stop'",
    );
    expect(reason('tier3_vram_growth: 1\n')).toBe('6:20 recipe.tier3_vram_growth: must be a boolean, got int');
    expect(probeRecipe("progress_regex: '^step \\d+'\nhang_action: kill\n")).toMatchObject({
      progressRegex: '^step \\d+',
      hangAction: 'kill',
    });
  });

  it('exit_codes: shape, keys and statuses', () => {
    expect(reason('exit_codes: {verdict: {pass: 5}}\n')).toBe(
      "6:24 recipe.exit_codes.verdict: unknown key 'pass'; allowed: ['error', 'fail'] (a pass always exits 0)",
    );
    expect(reason('exit_codes: {verdict: {fail: 2}}\n')).toBe(
      "6:30 recipe.exit_codes.verdict.fail: must be an integer exit status in 1..125 other than 2 (2 is aorta-probe's usage error), got 2",
    );
    expect(reason('exit_codes: {verdict: {fail: 130}}\n')).toMatch(
      /^6:30 recipe\.exit_codes\.verdict\.fail: must be an integer exit status in 1\.\.125/,
    );
    expect(reason('exit_codes: {category: {infra: 9}}\n')).toBe(
      "6:25 recipe.exit_codes.category: unknown key 'infra'; allowed: ['platform', 'unknown', 'user', 'transient']",
    );
    expect(reason("exit_codes: {detector: {'tier3:gpu_reset': 9}}\n")).toMatch(
      /^6:25 recipe\.exit_codes\.detector: unknown detector 'tier3:gpu_reset'; known tier3 ids: \['tier3:amdgpu_reset', /,
    );
    expect(reason('exit_codes: {retry: 9}\n')).toBe(
      "6:14 recipe.exit_codes: unknown key 'retry'; allowed: ['category', 'detector', 'verdict']",
    );
  });

  it('detector_categories overrides one dimension and keeps the other', () => {
    const r = probeRecipe(
      "detector_categories: {'tier1:exit_nonzero': {who: user}, 'tier2:hang': {transient: false}}\n",
    );
    expect(Object.fromEntries(r.detectorCategories)).toEqual({
      'tier1:exit_nonzero': { who: 'user', transient: false },
      'tier2:hang': { who: 'unknown', transient: false },
    });
    expect(reason("detector_categories: {'tier2:hang': {who: infra}}\n")).toBe(
      "6:43 recipe.detector_categories['tier2:hang'].who: must be one of ['platform', 'unknown', 'user'], got 'infra'",
    );
  });

  it('tests: samples with positions; bad samples rejected', () => {
    const r = probeRecipe(
      `${PATTERNS}tests:\n  - name: oom\n    log: "out of memory\\n"\n    exit_code: 137\n    expect: {verdict: fail, detectors: ['custom:oom', 'tier1:exit_nonzero', 'meta:missing_pass_signal']}\n`,
    );
    expect(r.tests).toEqual([
      {
        name: 'oom',
        log: 'out of memory\n',
        exitCode: 137,
        walltimeSec: 0,
        peakVramMib: null,
        expectVerdict: 'fail',
        expectDetectors: ['custom:oom', 'tier1:exit_nonzero', 'meta:missing_pass_signal'],
        expectCapture: null,
        line: 17,
        col: 5,
      },
    ]);
    expect(reason('tests:\n  - name: a\n    log: x\n    expect: {verdict: ok}\n')).toBe(
      "9:23 recipe.tests[0].expect.verdict: must be one of ['error', 'fail', 'pass'], got 'ok'",
    );
    expect(reason('tests:\n  - name: a\n    log: x\n    expect: {verdict: pass, detectors: [tier4:nan]}\n')).toMatch(
      /^9:41 recipe\.tests\[0\]\.expect\.detectors: unknown detector 'tier4:nan'/,
    );
    expect(reason('tests:\n  - name: a\n    logs: x\n')).toBe(
      "8:5 recipe.tests[0]: unknown key 'logs'; did you mean 'log'?",
    );
  });

  it('a bare custom_patterns file may carry tests:', () => {
    const r = loadRecipe(
      `${PATTERNS}tests:\n  - name: a\n    log: benchmark passed\n    expect: {verdict: pass}\n`,
      'bare.yaml',
    );
    expect([r.bare, r.tests.length]).toEqual([true, 1]);
  });
});

describe('disabling, exactly as the original', () => {
  const recipe = probeRecipe(PATTERNS);
  // The front doors' composition: the plan drops disabled custom patterns (or all of them for tier5) before the
  // scan; classifyScanned turns the raw scan into failures and warnings and combines them with Tiers 1-3.
  const run = (log: string, exitCode: number, tokens: string[], launched = true) => {
    const plan = planLogScan(recipe, tokens);
    const scan = scanLog(plan.scanRecipe, log, { exit_code: exitCode, walltime_sec: 1, peak_vram_mib: null });
    const tier1 = launched ? (exitCode === 0 ? [] : ['tier1:exit_nonzero']) : ['tier1:exec_failed'];
    const c = classifyScanned(plan, scan, {
      tier1,
      tier2: ['tier2:hang'],
      tier3: ['tier3:vram_growth'],
      launched,
    });
    return { ...c.classification, capture: c.capture };
  };

  it('nothing disabled', () => {
    const c = run('out of memory\nslow step\nloss is NaN\n', 1, []);
    expect([c.failures, c.warnings]).toEqual([
      ['tier1:exit_nonzero', 'tier2:hang', 'custom:oom', 'tier4:nan_signature', 'meta:missing_pass_signal'],
      ['tier3:vram_growth', 'custom:slow'],
    ]);
  });

  it('a disabled custom pattern is removed before the scan: a required one cannot be missing', () => {
    const c = run('slow step\n', 0, ['custom:ok']);
    expect(c.failures).toEqual(['tier2:hang']);
  });

  it('disabled tiers and ids are filtered; tier5 takes every custom pattern and the missing-pass meta with it', () => {
    const c = run('out of memory\nslow step\nloss is NaN\n', 1, [
      'tier2',
      'tier5',
      'tier3:vram_growth',
      'tier4:nan_signature',
    ]);
    expect([c.failures, c.warnings]).toEqual([['tier1:exit_nonzero'], []]);
    expect(run('', 0, ['meta:missing_pass_signal', 'tier2:hang']).failures).toEqual([]);
  });

  it('an un-launched trial keeps Tier 1 even when tier1 is disabled', () => {
    expect(run('', 127, ['tier1', 'tier2', 'custom:ok'], false)).toMatchObject({
      verdict: 'error',
      errors: ['tier1:exec_failed'],
      failures: [],
    });
    expect(run('', 1, ['tier1', 'tier2', 'custom:ok'])).toMatchObject({ verdict: 'pass', failures: [], errors: [] });
  });

  it("categories: built-in defaults, a custom pattern's autopsy category, recipe overrides", () => {
    const c = run('out of memory\n', 1, []);
    expect(c.detectors.slice(0, 3)).toEqual([
      { id: 'tier1:exit_nonzero', kind: 'failure', who: 'unknown', transient: false, category: null },
      { id: 'tier2:hang', kind: 'failure', who: 'unknown', transient: true, category: null },
      { id: 'custom:oom', kind: 'failure', who: 'user', transient: false, category: 'oom_fragment' },
    ]);
    const over = probeRecipe(`${PATTERNS}detector_categories: {'custom:oom': {who: platform, transient: true}}\n`);
    const o = classify({
      tier1: [],
      tier2: [],
      tier3: [],
      scanFailures: ['custom:oom'],
      scanWarnings: [],
      disabled: NOTHING_DISABLED,
      launched: true,
      recipe: over,
    });
    expect(o.detectors).toEqual([
      { id: 'custom:oom', kind: 'failure', who: 'platform', transient: true, category: 'oom_fragment' },
    ]);
  });
});

describe('verdict (the newest original test_verdict.py)', () => {
  const v = (tier1: string[], tier2: string[] = [], tier3: string[] = [], scan: string[] = []) =>
    classify({
      tier1,
      tier2,
      tier3,
      scanFailures: scan,
      scanWarnings: [],
      disabled: NOTHING_DISABLED,
      launched: true,
      recipe: null,
    });
  it('pass, fail, error, and the tier3 warn split', () => {
    expect(v([]).verdict).toBe('pass');
    expect(v([], [], ['tier3:vram_growth'])).toMatchObject({ verdict: 'pass', warnings: ['tier3:vram_growth'] });
    expect(v([], [], ['tier3:vram_growth', 'tier3:amdgpu_reset'])).toMatchObject({
      verdict: 'fail',
      failures: ['tier3:amdgpu_reset'],
    });
    expect(v(['tier1:timeout'])).toMatchObject({ verdict: 'error', errors: ['tier1:timeout'], failures: [] });
    expect(v(['tier1:timeout'], ['tier2:hang'])).toMatchObject({
      verdict: 'fail',
      failures: ['tier2:hang'],
      errors: ['tier1:timeout'],
    });
    expect(
      v(
        ['tier1:exit_nonzero'],
        ['tier2:hang'],
        ['tier3:amdgpu_reset'],
        ['tier4:hip_error', 'tier4:nan_signature', 'custom:p'],
      ).failures,
    ).toEqual([
      'tier1:exit_nonzero',
      'tier2:hang',
      'tier3:amdgpu_reset',
      'tier4:hip_error',
      'tier4:nan_signature',
      'custom:p',
    ]);
  });
});

describe('exit codes', () => {
  const recipe = probeRecipe(`${PATTERNS}exit_codes:
  detector: {'custom:oom': 42}
  category: {transient: 75, user: 10}
  verdict: {fail: 20, error: 30}
`);
  const d = (id: string, kind: 'failure' | 'error' = 'failure') => ({ ...categoryOf(id), kind });
  const categoryOf = (id: string) =>
    classify({
      tier1: [],
      tier2: [],
      tier3: [],
      scanFailures: [id],
      scanWarnings: [],
      disabled: NOTHING_DISABLED,
      launched: true,
      recipe,
    }).detectors[0]!;
  it('detector, then transient, then who, then verdict, then the default; a pass is 0', () => {
    const m = recipe.exitCodes;
    expect(resolveExitStatus('fail', [d('tier1:exit_nonzero'), d('custom:oom')], m)).toEqual({
      status: 42,
      reason: 'detector:custom:oom',
    });
    expect(resolveExitStatus('fail', [d('tier4:python_traceback'), d('tier4:nccl_rccl_error')], m)).toEqual({
      status: 75,
      reason: 'category:transient',
    });
    expect(resolveExitStatus('fail', [d('tier4:python_traceback')], m)).toEqual({
      status: 10,
      reason: 'category:user',
    });
    expect(resolveExitStatus('fail', [d('tier1:exit_nonzero')], m)).toEqual({ status: 20, reason: 'verdict:fail' });
    expect(resolveExitStatus('error', [d('tier1:exec_failed', 'error')], m)).toEqual({
      status: 10,
      reason: 'category:user',
    });
    expect(resolveExitStatus('pass', [], m)).toEqual({ status: 0, reason: 'default' });
    expect(resolveExitStatus('error', [d('tier1:timeout', 'error')], null)).toEqual({ status: 3, reason: 'default' });
  });
});
