// Issue 34: the disagreements between the front doors that classify a log under a recipe, each pinned at what a
// user sees. Before the fix: `scan` passed a log whose only firing was a disabled custom pattern while the playground
// failed it; `run` listed a disabled tier4 id in result.json's `detectors`; `scan` kept the engine failures of a
// disabled `meta:regex_engine_failure`; the playground's exit code fed only conditions (-6: no `tier1:sigabrt`);
// `scan --exit-code 1` passed where `run` and the self-tests fail with `tier1:exit_nonzero`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cliInProcess } from './support/run-cli.js';
import { PROBE } from './support/recipes.js';

// An engine failure, injected as in test/containment-engine-failure.test.ts.
vi.mock('../src/regex/index.js', async (importOriginal) =>
  (await import('./support/engine-abort.js')).withInjectedAbort(await importOriginal()),
);

const { classifyLog, loadRecipe, scanLog } = await import('../src/index.js');
const { runSelfTests } = await import('../src/classifier/self-test.js');
const { runTrial } = await import('../src/trial/index.js');
const { scanRecipeLog } = await import('../playground/src/scan-log.js');

const root = mkdtempSync(join(tmpdir(), 'aorta-classify-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FAKE_KERNEL = join(dirname(fileURLToPath(import.meta.url)), 'support', 'fake-kernel-tools');

const BAD = `${PROBE}custom_patterns:
  - id: bad
    match:
      regex: 'BAD (?P<code>\\w+)'
    on_match: fail
`;
const vars = (exit_code: number) => ({ exit_code, walltime_sec: 0, peak_vram_mib: null });

let n = 0;
function files(recipe: string, log: string): { recipePath: string; logPath: string } {
  const recipePath = join(root, `r${++n}.yaml`);
  const logPath = join(root, `l${n}.log`);
  writeFileSync(recipePath, recipe);
  writeFileSync(logPath, log);
  return { recipePath, logPath };
}

async function scanJson(recipe: string, log: string, extra: string[] = []) {
  const { recipePath, logPath } = files(recipe, log);
  const r = await cliInProcess(['scan', '--recipe', recipePath, logPath, '--json', ...extra]);
  return { code: r.code, json: JSON.parse(r.out) as Record<string, unknown>, recipePath };
}

async function run(recipeText: string, log: string, exit: string) {
  const { recipePath, logPath } = files(recipeText, log);
  const { result } = await runTrial(loadRecipe(recipeText, recipePath), ['sh', '-c', `cat '${logPath}'; ${exit}`], {
    outDir: join(root, `run${n}`),
    gpuTool: 'none',
    killGraceMs: 500,
    runnerEnv: { PATH: `${FAKE_KERNEL}:/usr/bin:/bin`, FAKE_KERNEL_LOG: join(root, 'none') },
  });
  return result;
}

describe('a disabled custom pattern: every front door passes', () => {
  const recipe = `${BAD}disable_detectors: [custom:bad]\n`;
  const log = 'BAD x1\n';

  it('scan, classifyLog and the playground: pass, nothing fired, no capture', async () => {
    const s = await scanJson(recipe, log);
    expect(s.code).toBe(0);
    expect(s.json).toMatchObject({ verdict: 'pass', failure_detectors_fired: [], detectors: [], capture: {} });
    const r = loadRecipe(recipe, 'r.yaml');
    const lib = classifyLog(r, log, vars(0));
    expect([lib.verdict, lib.failure_detectors_fired, lib.detectors, lib.capture]).toEqual(['pass', [], [], {}]);
    const pg = await scanRecipeLog(r, log, vars(0));
    expect([pg.verdict, pg.failure_detectors_fired, pg.detectors, pg.tier5, pg.capture]).toEqual([
      'pass',
      [],
      [],
      [],
      {},
    ]);
  });

  it('scanLog stays the raw scan stage (documented): the pattern it is given fires, no verdict is decided', () => {
    const r = scanLog(loadRecipe(recipe, 'r.yaml'), log, vars(0));
    expect(Object.keys(r).sort()).toEqual([
      'capture',
      'condition_errors',
      'detectors',
      'engine_failures',
      'missing_required',
      'tier_durations_ms',
    ]);
    expect([r.detectors.map((d) => [d.id, d.kind]), r.capture]).toEqual([[['custom:bad', 'fail']], { code: 'x1' }]);
  });
});

describe('a disabled tier4 id is in no list, result.json`s `detectors` included', () => {
  const recipe = `${BAD}disable_detectors: [tier4:hip_error]\n`;
  const log = 'hipError_OutOfMemory\nBAD x1\n';
  const badRecord = {
    id: 'custom:bad',
    kind: 'fail',
    line: 2,
    byte_offset: 21,
    match: 'BAD x1',
    capture: { code: 'x1' },
    who: 'unknown',
    transient: false,
    category: null,
  };

  it('run: result.json lists only custom:bad', async () => {
    const result = await run(recipe, log, 'exit 0');
    expect(result.failure_detectors_fired).toEqual(['custom:bad']);
    expect(result.detectors).toEqual([badRecord]);
  });

  it('scan --json: the same', async () => {
    const s = await scanJson(recipe, log);
    expect(s.json.failure_detectors_fired).toEqual(['custom:bad']);
    expect(s.json.detectors).toEqual([badRecord]);
  });
});

describe('a disabled meta:regex_engine_failure drops the engine failures everywhere', () => {
  const recipe = `${PROBE}custom_patterns:
  - id: boom
    match:
      regex: 'BOOM (?P<b>\\w+)'
    on_match: fail
disable_detectors: [meta:regex_engine_failure]
`;
  const log = '<abort> BOOM z\n';

  it('scan --json: pass, engine_failures []', async () => {
    const s = await scanJson(recipe, log);
    expect(s.code).toBe(0);
    expect(s.json).toMatchObject({ verdict: 'pass', error_detectors_fired: [], engine_failures: [] });
  });

  it('run: the same', async () => {
    const result = await run(recipe, log, 'exit 0');
    expect([result.verdict, result.error_detectors_fired, result.engine_failures]).toEqual(['pass', [], []]);
  });
});

describe('the exit code is Tier 1 as in run', () => {
  it("the playground's exit code -6 fires tier1:sigabrt: fail, as run's for a trial killed by SIGABRT", async () => {
    const r = loadRecipe(BAD, 'r.yaml');
    const pg = await scanRecipeLog(r, 'all good\n', vars(-6));
    expect([pg.verdict, pg.failure_detectors_fired]).toEqual(['fail', ['tier1:sigabrt']]);
    const result = await run(BAD, 'all good\n', 'ulimit -c 0; kill -ABRT $$');
    expect([result.verdict, result.exit_code, result.failure_detectors_fired]).toEqual(['fail', -6, ['tier1:sigabrt']]);
  });

  it('scan --exit-code 1 fails with tier1:exit_nonzero and exits 1, as run and the self-test do', async () => {
    const s = await scanJson(BAD, 'all good\n', ['--exit-code', '1']);
    expect(s.code).toBe(1);
    expect(s.json).toMatchObject({ verdict: 'fail', failure_detectors_fired: ['tier1:exit_nonzero'], detectors: [] });
    const result = await run(BAD, 'all good\n', 'exit 1');
    expect([result.verdict, result.failure_detectors_fired]).toEqual(['fail', ['tier1:exit_nonzero']]);
    const withTest = `${BAD}tests:
  - name: exit 1
    log: "all good\\n"
    exit_code: 1
    expect:
      verdict: fail
      detectors: [tier1:exit_nonzero]
`;
    expect(runSelfTests(loadRecipe(withTest, 'r.yaml')).map((t) => t.mismatches)).toEqual([[]]);
  });

  it('a disabled tier1 leaves the exit code to conditions alone', async () => {
    const s = await scanJson(`${BAD}disable_detector_tiers: [tier1]\n`, 'all good\n', ['--exit-code', '1']);
    expect(s.code).toBe(0);
    expect(s.json).toMatchObject({ verdict: 'pass', failure_detectors_fired: [] });
  });
});

describe('the package root classifies a streamed scan as classifyLog classifies the text', () => {
  it('planLogScan + scanStream + classifyLogScan = classifyLog', async () => {
    const root = await import('../src/index.js');
    const r = loadRecipe(`${BAD}disable_detectors: [tier4:hip_error]\n`, 'r.yaml');
    const text = 'hipError_OutOfMemory\nBAD x1\n';
    const vars = { exit_code: 1, walltime_sec: 0, peak_vram_mib: null };
    const plan = root.planLogScan(r);
    const streamed = root.classifyLogScan(plan, await root.scanStream(plan.scanRecipe, [text], vars), vars);
    const direct = root.classifyLog(r, text, vars);
    expect({ ...streamed, tier_durations_ms: null }).toEqual({ ...direct, tier_durations_ms: null });
    expect(direct.failure_detectors_fired).toEqual(['tier1:exit_nonzero', 'custom:bad']);
  });
});
