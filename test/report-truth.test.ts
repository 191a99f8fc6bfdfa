/**
 * `report` tells what happened: the example line is the line where a detector fired (its record's `detectors`),
 * from any directory; `report RUN_DIR` counts only that run's records; a run directory's matrix.json comes first.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-report-truth-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Prints an ordinary loss, then a NaN one: the regex matches line 1, the condition only line 2. */
const NAN_CHILD = ['node', '-e', "console.log('step 1 loss=9.3960'); console.log('step 2 loss=nan'); process.exit(0)"];

const BUNDLE = join(process.cwd(), 'dist', 'src', 'cli', 'main.cjs');
/** The built CLI in `cwd` (the in-process one cannot change directory in a worker thread). */
function cliIn(cwd: string, args: readonly string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** The detector lines of a text report (walltimes vary), with the temporary root as <ROOT>. */
const detectorLines = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => /^ {4}\d+ {2}\S|^ {7}e\.g\. /.test(l))
    .map((l) => l.replaceAll(root, '<ROOT>'));

const rewrite = (file: string, edit: (o: Record<string, unknown>) => void): void => {
  const o = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(o);
  writeFileSync(file, JSON.stringify(o));
};

describe('the example line is where the detector fired', () => {
  const dir = join(root, 'nan');
  it('nan-loss recipe: line 2 (loss=nan), not the first regex match; the recorded match when the log is gone', {
    timeout: 60_000,
  }, async () => {
    const r = await cliInProcess([
      'run',
      '--recipe',
      'fixtures/recipes/nan-loss.yaml',
      '--out',
      join(dir, 'trial_0'),
      '--gpu-tool',
      'none',
      '--timeout',
      '60',
      '--',
      ...NAN_CHILD,
    ]);
    expect(r.code).toBe(1);
    const rep = await cliInProcess(['report', dir]);
    expect(rep.code).toBe(0);
    expect(detectorLines(rep.out)).toEqual([
      '    1  custom:nan_loss (failure)',
      '       e.g. <ROOT>/nan/trial_0/output.log:2: step 2 loss=nan',
      '    1  tier4:nan_signature (failure)',
      '       e.g. <ROOT>/nan/trial_0/output.log:2: step 2 loss=nan',
    ]);
    // HTML: the header from the record, and links relative to the page.
    const page = join(root, 'nan-report.html');
    expect((await cliInProcess(['report', dir, '--format', 'html', '--out', page])).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(`<tr><th class="t">command</th><td class="t"><code>${NAN_CHILD.join(' ')}</code></td></tr>`);
    expect(html).toMatch(
      /<tr><th class="t">recipe<\/th><td class="t"><code>\/[^<]*\/fixtures\/recipes\/nan-loss\.yaml<\/code> \(sha256 <code>[0-9a-f]{64}<\/code>\)<\/td><\/tr>/,
    );
    expect(html).toContain(
      '<a href="nan/trial_0/output.log">log</a> · <a href="nan/trial_0/result.json">result.json</a>',
    );
    // Retention pruned the log: the record's own match text, at its line.
    rmSync(join(dir, 'trial_0', 'output.log'));
    const gone = await cliInProcess(['report', dir]);
    expect(detectorLines(gone.out)).toEqual([
      '    1  custom:nan_loss (failure)',
      '       e.g. <ROOT>/nan/trial_0/output.log:2: loss=nan',
      '    1  tier4:nan_signature (failure)',
      '       e.g. <ROOT>/nan/trial_0/output.log:2: loss=nan',
    ]);
  });
});

describe('a record names its recipe by an absolute path', () => {
  it('run in directory A, report from directory B: the same examples; an older record without detectors finds its recipe too', () => {
    const a = join(root, 'A');
    const b = join(root, 'B');
    mkdirSync(a);
    mkdirSync(b);
    copyFileSync('fixtures/recipes/nan-loss.yaml', join(a, 'nan.yaml'));
    const r = cliIn(a, [
      'run',
      '--recipe',
      'nan.yaml',
      '--out',
      'runs/c/trial_0',
      '--gpu-tool',
      'none',
      '--timeout',
      '60',
      '--',
      ...NAN_CHILD,
    ]);
    expect(r.code).toBe(1);
    const record = join(a, 'runs', 'c', 'trial_0', 'result.json');
    expect((JSON.parse(readFileSync(record, 'utf8')) as { recipe: { file: string } }).recipe.file).toBe(
      join(a, 'nan.yaml'),
    );
    const fromA = cliIn(a, ['report', 'runs']);
    const fromB = cliIn(b, ['report', join(a, 'runs')]);
    expect(detectorLines(fromB.out)).toEqual(detectorLines(fromA.out.replaceAll('runs/', `${a}/runs/`)));
    expect(detectorLines(fromB.out)).toEqual([
      '    1  custom:nan_loss (failure)',
      '       e.g. <ROOT>/A/runs/c/trial_0/output.log:2: step 2 loss=nan',
      '    1  tier4:nan_signature (failure)',
      '       e.g. <ROOT>/A/runs/c/trial_0/output.log:2: step 2 loss=nan',
    ]);
    // A record older than `detectors` and absolute paths: no firing line, so the regex's first match (line 1: the
    // condition is not evaluated again), its recipe `nan.yaml` relative to A. From B it is not there; the run
    // directory's copy (<run dir>/recipe.yaml) with the recorded sha256 is.
    rewrite(record, (o) => {
      delete o.detectors;
      (o.recipe as { file: string }).file = 'nan.yaml';
    });
    const older = [
      '    1  custom:nan_loss (failure)',
      '       e.g. <ROOT>/A/runs/c/trial_0/output.log:1: step 1 loss=9.3960',
      '    1  tier4:nan_signature (failure)',
      '       e.g. <ROOT>/A/runs/c/trial_0/output.log:2: step 2 loss=nan',
    ];
    expect(detectorLines(cliIn(b, ['report', join(a, 'runs')]).out)).toEqual(
      older.filter((l) => !l.includes('9.3960')),
    );
    copyFileSync(join(a, 'nan.yaml'), join(a, 'runs', 'recipe.yaml'));
    expect(detectorLines(cliIn(b, ['report', join(a, 'runs')]).out)).toEqual(older);
  });
});

describe('report RUN_DIR: that run only, its matrix first', () => {
  const RUN_ID = '0123456789abcdef0123456789abcdef';
  const record = (runId: string, verdict: string): string =>
    JSON.stringify({
      schema_version: 1,
      run_id: runId,
      verdict,
      exit_code: verdict === 'pass' ? 0 : 1,
      walltime_sec: 1,
      failure_detectors_fired: verdict === 'pass' ? [] : ['tier1:exit_nonzero'],
      error_detectors_fired: [],
      warn_detectors_fired: [],
      cell_name: 'none-none',
      trial_index: 0,
      final: true,
    });
  const runDir = join(root, 'T-7');
  it('a planted foreign result.json is listed, not counted; matrix.json is rendered before the trials', async () => {
    mkdirSync(join(runDir, 'none-none', 'trial_0'), { recursive: true });
    mkdirSync(join(runDir, 'none-none', 'trial_1'), { recursive: true });
    copyFileSync('fixtures/report/matrix-run/run.json', join(runDir, 'run.json'));
    copyFileSync('fixtures/report/matrix-run/matrix.json', join(runDir, 'matrix.json'));
    writeFileSync(join(runDir, 'none-none', 'trial_0', 'result.json'), record(RUN_ID, 'pass'));
    writeFileSync(join(runDir, 'none-none', 'trial_1', 'result.json'), record('f'.repeat(32), 'fail'));
    const r = await cliInProcess(['report', runDir]);
    expect(r.code).toBe(0);
    expect(r.out.replaceAll(root, '<ROOT>')).toBe(`matrix: baseline none-none, 8 trial(s) per cell, complete
  cell       failure rate  failures  errors     vs baseline (95% CI)     p  effect                                 confound
  none-none         37.5%     3 / 8       0                        —     —  —                                      (baseline)
  fp32-none          0.0%     0 / 8       0  -37.5 pts [-69.4, +2.7]   0.2  no evidence (≈10 trials/cell to tell)  -
  lr-none           75.0%     6 / 8       0  +37.5 pts [-9.2, +67.3]  0.31  no evidence (≈27 trials/cell to tell)  no effect
  failure rate = failed / (passed + failed), errors left out; vs baseline: the difference in percentage points with
  its 95% interval (Newcombe); p: Fisher's exact test; effect: helps / hurts at p < 0.05, else no evidence (with
  the trials per cell that would tell); confound: speed (+N%) when slower than the baseline by more than 1.15x.

1 trial in 1 cell: pass 1, fail 0, error 0; 0 flaky cells

cell none-none: 1 trial: pass 1, fail 0, error 0; not flaky
  walltime: median 1.000 s, p95 1.000 s, max 1.000 s (n=1)
  peak VRAM: not sampled
  detectors: none fired

skipped 1 file:
  <ROOT>/T-7/none-none/trial_1/result.json: not written by this sweep (run_id "ffffffffffffffffffffffffffffffff")
`);
    const json = JSON.parse((await cliInProcess(['report', runDir, '--format', 'json'])).out) as Record<
      string,
      unknown
    >;
    expect(json.matrix).toEqual(JSON.parse(readFileSync('fixtures/report/matrix-run/matrix.json', 'utf8')));
    expect((json.totals as { trials: number }).trials).toBe(1);
    const md = (await cliInProcess(['report', runDir, '--format', 'markdown'])).out;
    expect(md.startsWith('## Matrix\n\n**Baseline cell**: `none-none` (mean step time = 10000.0 ms)\n\n')).toBe(true);
    expect(md).toContain(
      '| `fp32` | `none` | 0.0% | 0 / 8 | 0 | — | — | 10500.0 | `-` | -37.5 pts [-69.4, +2.7] | 0.2 |',
    );
    expect(md.indexOf('## Trials')).toBeGreaterThan(md.indexOf('| `lr` | `none` |'));
    const html = (await cliInProcess(['report', runDir, '--format', 'html'])).out;
    expect(html.indexOf('<h2>Matrix: which mitigation changes the failure rate</h2>')).toBeLessThan(
      html.indexOf('<h2>Verdicts</h2>'),
    );
    expect(html).toContain('<title>95% interval 0.0% – 32.4%</title>');
  });

  it('a matrix.json that is not one is a listed problem, never fatal', async () => {
    writeFileSync(join(runDir, 'matrix.json'), '{"schema_version": 2}');
    const r = await cliInProcess(['report', runDir]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith('1 trial in 1 cell')).toBe(true);
    expect(r.out.replaceAll(root, '<ROOT>')).toContain('  <ROOT>/T-7/matrix.json: schema_version is 2, not 1\n');
  });
});

describe('a trial that failed every attempt', () => {
  it('JUnit: the final <failure> and a <rerunFailure> per earlier attempt; text names each attempt', async () => {
    const dir = join(root, 'rerun', 'c', 'trial_0');
    mkdirSync(dir, { recursive: true });
    const attempt = (k: number) => ({
      attempt: k,
      verdict: 'fail',
      exit_code: 1,
      walltime_sec: 1,
      failure_detectors_fired: k === 1 ? ['custom:nan_loss'] : ['tier1:exit_nonzero'],
      error_detectors_fired: [],
      retry_on: k === 1 ? ['custom:nan_loss'] : [],
      dir: `attempt_${k}`,
    });
    writeFileSync(
      join(dir, 'result.json'),
      JSON.stringify({
        verdict: 'fail',
        exit_code: 1,
        walltime_sec: 1,
        failure_detectors_fired: ['tier1:exit_nonzero'],
        error_detectors_fired: [],
        warn_detectors_fired: [],
        trial_index: 0,
        final: true,
        attempts: [attempt(1), attempt(2)],
      }),
    );
    // The first attempt's own record says where its detector fired.
    mkdirSync(join(dir, 'attempt_1'));
    writeFileSync(
      join(dir, 'attempt_1', 'result.json'),
      JSON.stringify({
        verdict: 'fail',
        exit_code: 1,
        walltime_sec: 1,
        failure_detectors_fired: ['custom:nan_loss'],
        error_detectors_fired: [],
        warn_detectors_fired: [],
        trial_index: 0,
        final: false,
        detectors: [{ id: 'custom:nan_loss', kind: 'fail', line: 7, byte_offset: 90, match: 'loss=nan', capture: {} }],
      }),
    );
    const xml = (await cliInProcess(['report', join(root, 'rerun'), '--format', 'junit'])).out;
    expect(xml.replaceAll(root, '<ROOT>')).toContain(`    <testcase name="trial_0" classname="c" time="1">
      <failure message="tier1:exit_nonzero" type="tier1:exit_nonzero">exit_code 1; <ROOT>/rerun/c/trial_0/result.json</failure>
      <rerunFailure message="custom:nan_loss" type="custom:nan_loss">
        <stackTrace>custom:nan_loss at line 7: loss=nan
attempt 1: fail (custom:nan_loss), retried on custom:nan_loss; exit_code 1; attempt_1</stackTrace>
      </rerunFailure>
    </testcase>
`);
    expect(xml).not.toContain('skipped files');
    const html = (await cliInProcess(['report', join(root, 'rerun'), '--format', 'html'])).out;
    expect(html).toContain(
      '<li>trial 0: <code>attempt 1: fail (custom:nan_loss), retried on custom:nan_loss</code>; final: fail</li>',
    );
    const text = (await cliInProcess(['report', join(root, 'rerun')])).out;
    expect(text).toContain(
      '  retried: 1 (0 passed on retry)\n    trial 0: attempt 1: fail (custom:nan_loss), retried on custom:nan_loss; final: fail\n',
    );
  });
});
