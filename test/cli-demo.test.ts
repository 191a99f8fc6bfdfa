import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/main.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-cli-demo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) => cliInProcess(args);

const TRIAL_OUTPUT =
  '[rank0] starting training: 8 steps, batch 32\n' +
  '[rank0] step 1 loss=2.3026 lr=3.0e-04 throughput: 15200.0 tokens/s\n' +
  '[rank0] step 2 loss=1.9841 lr=3.0e-04 throughput: 15237.5 tokens/s\n' +
  '[rank0] step 3 loss=1.7012 lr=3.0e-04 throughput: 15275.0 tokens/s\n' +
  '[rank0] step 4 loss=1.5530 lr=3.0e-04 throughput: 15312.5 tokens/s\n' +
  '[rank0] step 5 loss=1.4987 lr=3.0e-04 throughput: 15350.0 tokens/s\n' +
  '[rank0] step 6 loss=nan lr=3.0e-04 throughput: 15387.5 tokens/s\n' +
  '[rank0] step 7 loss=nan lr=3.0e-04 throughput: 15425.0 tokens/s\n' +
  '[rank0] step 8 loss=nan lr=3.0e-04 throughput: 15462.5 tokens/s\n' +
  '[rank0] warning: gradient norm is nan, skipping clip\n' +
  '[rank0] training finished\n';

describe('aorta-probe demo', () => {
  it('checks the recipe, scans the bundled log, runs the bundled trial and prints each verdict; exit 0', async () => {
    const out = join(root, 'human');
    const r = await cli(['demo', '--out', out]);
    expect(r.code).toBe(0);
    const text = r.out
      .replace(/walltime: \d+\.\d{3} s/, 'walltime: <T> s')
      .replace(/peak VRAM: .*\n/, 'peak VRAM: <V>\n')
      .replaceAll(out, '<OUT>');
    expect(text).toBe(
      '1. Check the recipe\n' +
        '$ aorta-probe check fixtures/demo/recipe.yaml\n' +
        'fixtures/demo/recipe.yaml: valid (3 custom patterns)\n\n' +
        '2. Scan the log of a run that crashed\n' +
        '$ aorta-probe scan --recipe fixtures/demo/recipe.yaml fixtures/demo/train.log\n' +
        "fixtures/demo/train.log:2: custom:throughput (info) — throughput: 15234.5 tokens/s  {'tokens_per_sec': '15234.5'}\n" +
        'fixtures/demo/train.log:5: tier4:python_traceback — Traceback (most recent call last):\n' +
        'fixtures/demo/train.log:10: tier4:hip_error — HIP error:\n' +
        'verdict: fail\n' +
        'failure detectors: tier4:python_traceback, tier4:hip_error\n' +
        'warn detectors: (none)\n' +
        "capture: {'tokens_per_sec': '15234.5'}\n\n" +
        '3. Run a trial: a training job whose loss goes NaN, and which still exits 0\n' +
        '$ aorta-probe run --recipe fixtures/demo/recipe.yaml -- node fixtures/demo/trial.mjs\n' +
        TRIAL_OUTPUT +
        "\n<OUT>/output.log:2: custom:throughput (info) — throughput: 15200.0 tokens/s  {'tokens_per_sec': '15200.0'}\n" +
        '<OUT>/output.log:7: tier4:nan_signature — loss=nan\n' +
        "<OUT>/output.log:7: custom:nan_loss — loss=nan  {'loss': 'nan'}\n" +
        'verdict: fail\n' +
        'exit code: 0\n' +
        'walltime: <T> s\n' +
        'peak VRAM: <V>\n' +
        'failure detectors: tier4:nan_signature, custom:nan_loss\n' +
        'error detectors: (none)\n' +
        'warn detectors: (none)\n' +
        "capture: {'tokens_per_sec': '15200.0', 'loss': 'nan'}\n" +
        `log: <OUT>/output.log (${TRIAL_OUTPUT.length} B)\n` +
        'result: <OUT>/result.json\n',
    );
    expect(readFileSync(join(out, 'output.log'), 'utf8')).toBe(TRIAL_OUTPUT);
  }, 30_000);

  it('--json: one object with the recipe, the scan and the trial result; the trial output goes to stderr', async () => {
    const out = join(root, 'json');
    const r = await cli(['demo', '--json', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.err.startsWith(TRIAL_OUTPUT)).toBe(true);
    const json = JSON.parse(r.out) as Record<string, Record<string, unknown>>;
    expect(Object.keys(json)).toEqual(['recipe', 'scan', 'trial', 'result_json']);
    expect(json.recipe).toEqual({ file: 'fixtures/demo/recipe.yaml', custom_patterns: 3 });
    expect(json.scan).toMatchObject({
      log: 'fixtures/demo/train.log',
      verdict: 'fail',
      failure_detectors_fired: ['tier4:python_traceback', 'tier4:hip_error'],
      warn_detectors_fired: [],
      capture: { tokens_per_sec: '15234.5' },
    });
    expect(json.trial).toMatchObject({
      verdict: 'fail',
      exit_code: 0,
      failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_loss'],
      error_detectors_fired: [],
      capture: { tokens_per_sec: '15200.0', loss: 'nan' },
    });
    expect(json.result_json).toBe(join(out, 'result.json'));
    expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'))).toEqual(json.trial);
  }, 30_000);

  it('--quiet hides the trial output; usage errors exit 2; --help exits 0', async () => {
    const q = await cli(['demo', '--json', '--quiet', '--out', join(root, 'quiet')]);
    expect(q.code).toBe(0);
    expect(q.err).not.toContain('[rank0]');
    const bad = await cli(['demo', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.err.split('\n')[0]).toBe("aorta-probe: demo: unknown option '--bogus'");
    const help = await cli(['demo', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: aorta-probe demo \[--json\] \[--quiet\] \[--out DIR\]\n/);
    expect(help.out).toContain('Examples:\n  aorta-probe demo\n');
  }, 30_000);
});

describe('aorta-probe demo without --out (issue 35 §5)', () => {
  const demoIn = async (env: NodeJS.ProcessEnv, args: string[] = []) => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', () => {});
    const code = await runCli(['demo', '--quiet', ...args], { stdin: new PassThrough().end(), stdout, stderr, env });
    return { code, out };
  };

  it("keeps the trial's files in the user's cache directory, says where, and every printed path exists", async () => {
    const cache = join(root, 'cache');
    const r = await demoIn({ ...process.env, XDG_CACHE_HOME: cache });
    expect(r.code).toBe(0);
    const dir = join(cache, 'aorta-probe', 'demo');
    expect(r.out).toContain(`log: ${dir}/output.log (`);
    expect(r.out).toContain(`result: ${dir}/result.json\n`);
    expect(
      r.out.endsWith(`(the demo's files are kept in ${dir}, replaced by the next demo; choose with --out DIR)\n`),
    ).toBe(true);
    for (const m of r.out.matchAll(/(\/\S+\/(?:output\.log|result\.json))/g))
      expect(existsSync(m[1]!), m[1]).toBe(true);
    // A second demo replaces the files: one directory, not one per run.
    expect((await demoIn({ ...process.env, XDG_CACHE_HOME: cache })).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['output.log', 'result.json']);
    const json = await demoIn({ ...process.env, XDG_CACHE_HOME: cache }, ['--json']);
    expect((JSON.parse(json.out) as { result_json: string }).result_json).toBe(join(dir, 'result.json'));
  });

  it('with no usable cache directory: a temporary directory, removed, and no path into it printed', async () => {
    const blocker = join(root, 'not-a-dir');
    writeFileSync(blocker, '');
    const r = await demoIn({ ...process.env, XDG_CACHE_HOME: blocker, HOME: blocker });
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/aorta-probe-demo-/);
    expect(r.out).toContain('\nlog: output.log (');
    expect(r.out).toContain('\nresult: result.json\n');
    expect(
      r.out.endsWith(
        '(output.log and result.json were in a temporary directory, removed again; keep them with --out DIR)\n',
      ),
    ).toBe(true);
  });
});
