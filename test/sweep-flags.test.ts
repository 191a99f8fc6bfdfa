/**
 * The original's `sweep run` flags (upstream-probe-runs.md §3.1, §3.4, §3.6) on `aorta-probe sweep`: --exit-zero,
 * --disable-detector, --stop-after-events / --max-trials over the recipe's stop_after (and --emit refused while one
 * is in effect), env_passthrough_mode: file / --env-passthrough-mode.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirRef } from '../src/sweep/dir-ref.js';
import { envFileProblem, envFileText, removeEnvFile, writeEnvFile } from '../src/sweep/env-file.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-flags-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A probe recipe file with `body` after the head; returns its path. */
function recipe(body: string): string {
  const path = join(root, `r${n++}.yaml`);
  writeFileSync(path, `schema_version: 1\nmode: probe\nticket: T\n${body}`);
  return path;
}
const out = (): string => join(root, `out${n++}`);
const cli = (args: string[]) => cliInProcess(['sweep', ...args]);
const record = (dir: string, cell: string, trial = 0): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, 'T', cell, `trial_${trial}`, 'result.json'), 'utf8')) as Record<string, unknown>;

const ONE = 'trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n';

describe('sweep --exit-zero', { timeout: 60_000 }, () => {
  it('exits 0 when trials failed or erred, 1 without it', async () => {
    const r = recipe('trials: 1\nmitigation_axis: [none, m]\ndiagnostic_axis: [none]\nmitigations: {m: {X: 1}}\n');
    const args = ['--recipe', r, '--quiet', '--', 'sh', '-c', 'exit 1'];
    expect(await cli(['--out', out(), ...args])).toEqual({ code: 1, out: '', err: '' });
    expect(await cli(['--out', out(), '--exit-zero', ...args])).toEqual({ code: 0, out: '', err: '' });
    const errs = ['--recipe', r, '--quiet', '--exit-zero', '--', join(root, 'no-such-command')];
    const o = out();
    expect(await cli(['--out', o, ...errs])).toEqual({ code: 0, out: '', err: '' });
    expect(record(o, 'none-none').verdict).toBe('error');
  });

  it('still exits 2 for a usage error and with --json says 0', async () => {
    const r = recipe(ONE);
    expect(await cli(['--recipe', r, '--exit-zero', '--', 'true'])).toEqual({
      code: 2,
      out: '',
      err: "aorta-probe: sweep: missing option '--out'\n\nUsage: aorta-probe sweep --recipe RECIPE --out DIR [options] -- CMD [ARGS...]\nSee 'aorta-probe sweep --help'.\n",
    });
    // A locked run directory is still 2 (usage), and an invalid recipe too.
    const bad = recipe('trials: 1\nmitigation_axis: [nope]\ndiagnostic_axis: [none]\n');
    expect((await cli(['--recipe', bad, '--out', out(), '--exit-zero', '--', 'true'])).code).toBe(2);
    const j = await cli(['--recipe', r, '--out', out(), '--exit-zero', '--json', '--quiet', '--', 'false']);
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.out) as { exit_status: number; counts: Record<string, number> };
    expect([doc.exit_status, doc.counts]).toEqual([0, { pass: 0, fail: 1, error: 0 }]);
  });

  it('is in the help, with the default', async () => {
    const h = await cli(['--help']);
    expect(h.out).toContain(
      "  --exit-zero            Exit 0 once the sweep has run, whatever its trials' verdicts (the original's\n                         behaviour). Default: 1 when a trial failed or erred. A --task keeps its\n                         trial's status.\n",
    );
  });
});

describe('sweep --disable-detector', { timeout: 60_000 }, () => {
  it("unites with the recipe's disables, reaches the classifier, and shows in the records", async () => {
    const r = recipe(`${ONE}disable_detectors: ['tier2:hang']\n`);
    const o = out();
    const res = await cli([
      '--recipe',
      r,
      '--out',
      o,
      '--quiet',
      '--disable-detector',
      'tier1',
      '--',
      'sh',
      '-c',
      'exit 3',
    ]);
    expect(res).toEqual({ code: 0, out: '', err: '' });
    const rec = record(o, 'none-none');
    expect([rec.verdict, rec.exit_code, rec.disabled_detectors, rec.disabled_detector_tiers]).toEqual([
      'pass',
      3,
      ['tier2:hang'],
      ['tier1'],
    ]);
    // Without the flag the same trial fails.
    const o2 = out();
    expect((await cli(['--recipe', r, '--out', o2, '--quiet', '--', 'sh', '-c', 'exit 3'])).code).toBe(1);
    expect(record(o2, 'none-none').failure_detectors_fired).toEqual(['tier1:exit_nonzero']);
  });

  it("is checked as 'run' checks it (exit 2)", async () => {
    const r = recipe(ONE);
    const res = await cli(['--recipe', r, '--out', out(), '--disable-detector', 'custom:nope', '--', 'true']);
    const run = await cliInProcess([
      'run',
      '--recipe',
      r,
      '--out',
      out(),
      '--disable-detector',
      'custom:nope',
      '--',
      'true',
    ]);
    expect(res.code).toBe(2);
    expect(res.out).toBe('');
    expect(res.err).toBe(run.err.replace('aorta-probe run: ', 'aorta-probe sweep: '));
    expect(res.err).toMatch(/^aorta-probe sweep: --disable-detector: /);
    const bad = await cli(['--recipe', r, '--out', out(), '--disable-detector', 'tier9', '--', 'true']);
    expect(bad.code).toBe(2);
  });

  it('reaches the cluster tasks', async () => {
    const r = recipe(ONE);
    const res = await cli([
      '--recipe',
      r,
      '--out',
      out(),
      '--emit',
      'slurm',
      '--probe-command',
      'aorta-probe',
      '--disable-detector',
      'tier1',
      '--disable-detector',
      'tier2:hang',
      '--env-passthrough-mode',
      'file',
      '--',
      'true',
    ]);
    expect(res.code).toBe(0);
    expect(res.out).toContain(
      '--env-passthrough-mode file --disable-detector tier1 --disable-detector tier2:hang --task-env SLURM_ARRAY_TASK_ID -- true\n',
    );
  });
});

describe('sweep --stop-after-events / --max-trials', { timeout: 60_000 }, () => {
  it('a target with no cap is refused (exit 2)', async () => {
    const r = recipe(ONE);
    expect(await cli(['--recipe', r, '--out', out(), '--stop-after-events', '2', '--', 'true'])).toEqual({
      code: 2,
      out: '',
      err: 'aorta-probe sweep: --stop-after-events 2 needs a cap: give --max-trials N (or stop_after.max_trials in the recipe), the most trials a cell runs before it stops without 2 events\n',
    });
    expect(await cli(['--recipe', r, '--out', out(), '--max-trials', '4', '--dry-run', '--', 'true'])).toEqual({
      code: 2,
      out: '',
      err: 'aorta-probe sweep: --max-trials 4 caps stop_after, and the recipe has no stop_after.events: give --stop-after-events K too, or use --trials 4 for a fixed number of trials per cell\n',
    });
  });

  it('both flags make a stop_after rule (event_verdict fail); the cell stops at the target', async () => {
    const r = recipe(ONE);
    const o = out();
    const args = ['--recipe', r, '--out', o, '--stop-after-events', '2', '--max-trials', '5'];
    expect((await cli([...args, '--dry-run', '--', 'false'])).out).toBe(
      "1 cells x 5 trials = 5 trials, ticket 'T'\n  none-none: env=[(no env)] argv=['false']\n",
    );
    const j = await cli([...args, '--json', '--quiet', '--', 'false']);
    const doc = JSON.parse(j.out) as { stopped_cells: string[]; trials: unknown[]; skipped: unknown[] };
    expect([j.code, doc.stopped_cells, doc.trials.length, doc.skipped.length]).toEqual([1, ['none-none'], 2, 3]);
    const m = JSON.parse(readFileSync(join(o, 'T', 'matrix.json'), 'utf8')) as { stop_after: unknown };
    expect(m.stop_after).toEqual({ events: 2, max_trials: 5, event_verdict: 'fail' });
  });

  it("each flag replaces its half of the recipe's rule; event_verdict stays the recipe's", async () => {
    const r = recipe(`${ONE}stop_after: {events: 3, max_trials: 6, event_verdict: pass}\n`);
    const o = out();
    const j = await cli(['--recipe', r, '--out', o, '--max-trials', '4', '--json', '--quiet', '--', 'true']);
    const doc = JSON.parse(j.out) as { plan: { trials_per_cell: number }; trials: unknown[] };
    expect([j.code, doc.plan.trials_per_cell, doc.trials.length]).toEqual([0, 4, 3]);
    const m = JSON.parse(readFileSync(join(o, 'T', 'matrix.json'), 'utf8')) as { stop_after: unknown };
    expect(m.stop_after).toEqual({ events: 3, max_trials: 4, event_verdict: 'pass' });
    const o2 = out();
    const k = await cli(['--recipe', r, '--out', o2, '--stop-after-events', '1', '--json', '--quiet', '--', 'true']);
    const doc2 = JSON.parse(k.out) as { plan: { trials_per_cell: number }; trials: unknown[] };
    expect([k.code, doc2.plan.trials_per_cell, doc2.trials.length]).toEqual([0, 6, 1]);
    // A target from the recipe and a cap from the flag: accepted.
    const r2 = recipe(`${ONE}stop_after: {events: 1, max_trials: 2}\n`);
    expect((await cli(['--recipe', r2, '--out', out(), '--max-trials', '3', '--dry-run', '--', 'true'])).code).toBe(0);
  });

  it('--emit is refused while a stop_after is in effect (recipe or flags), saying why', async () => {
    const r = recipe(`${ONE}stop_after: {events: 1, max_trials: 3}\n`);
    const why =
      "stop_after {events: 1, max_trials: 3, event_verdict: fail} cannot hold on a cluster: each array task runs one trial independently, so no task can stop its cell after 1 fail event(s). Run this sweep on one machine (without --emit) to stop early, or remove stop_after (recipe, --stop-after-events, --max-trials) and set 'trials' (or --trials) to emit every trial";
    expect(await cli(['--recipe', r, '--out', out(), '--emit', 'slurm', '--', 'true'])).toEqual({
      code: 2,
      out: '',
      err: `aorta-probe sweep: --emit slurm: ${why}\n`,
    });
    const plain = recipe(ONE);
    const k = await cli([
      '--recipe',
      plain,
      '--out',
      out(),
      '--emit',
      'k8s',
      '--image',
      'img',
      '--pvc',
      'claim',
      '--stop-after-events',
      '1',
      '--max-trials',
      '3',
      '--json',
      '--',
      'true',
    ]);
    expect(k.code).toBe(2);
    expect(k.err).toBe(`aorta-probe sweep: --emit k8s: ${why}\n`);
    expect((JSON.parse(k.out) as { error: { message: string } }).error.message).toBe(`--emit k8s: ${why}`);
  });
});

describe('env_passthrough_mode: file', { timeout: 60_000 }, () => {
  const cells =
    'trials: 1\nmitigation_axis: [m]\ndiagnostic_axis: [none]\nmitigations: {m: {ZED: "z 1", ALPHA: "a=b", MID: 3}}\n';
  // The trial copies the file it was told about into its directory, and prints its name.
  const show = [
    'sh',
    '-c',
    'if [ -n "$AORTA_ENV_FILE" ]; then cat "$AORTA_ENV_FILE" > "$AORTA_PROBE_TRIAL_DIR/seen.txt"; fi; echo "file=$AORTA_ENV_FILE ZED=$ZED"',
  ];

  it('writes probe.env (sorted KEY=VALUE lines, 0600) and exports AORTA_ENV_FILE; the variables stay in the env', async () => {
    const r = recipe(`${cells}env_passthrough_mode: file\n`);
    const o = out();
    expect(await cli(['--recipe', r, '--out', o, '--quiet', '--', ...show])).toEqual({ code: 0, out: '', err: '' });
    const dir = join(o, 'T', 'm-none', 'trial_0');
    const text = 'ALPHA=a=b\nMID=3\nZED=z 1\n';
    expect(readFileSync(join(dir, 'probe.env'), 'utf8')).toBe(text);
    expect(statSync(join(dir, 'probe.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'seen.txt'), 'utf8')).toBe(text);
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toBe(`file=${join(dir, 'probe.env')} ZED=z 1\n`);
  });

  it('--env-passthrough-mode file without the recipe key; inherit (the default) writes none', async () => {
    const r = recipe(cells);
    const o = out();
    expect(
      (await cli(['--recipe', r, '--out', o, '--quiet', '--env-passthrough-mode', 'file', '--', ...show])).code,
    ).toBe(0);
    expect(readFileSync(join(o, 'T', 'm-none', 'trial_0', 'probe.env'), 'utf8')).toBe('ALPHA=a=b\nMID=3\nZED=z 1\n');
    const o2 = out();
    expect((await cli(['--recipe', r, '--out', o2, '--quiet', '--', ...show])).code).toBe(0);
    expect(existsSync(join(o2, 'T', 'm-none', 'trial_0', 'probe.env'))).toBe(false);
    expect(readFileSync(join(o2, 'T', 'm-none', 'trial_0', 'output.log'), 'utf8')).toBe('file= ZED=z 1\n');
  });

  it('inherit: a probe.env left in the trial directory is deleted (a link as a link, its target kept)', async () => {
    const r = recipe(cells.replace('trials: 1', 'trials: 2'));
    const o = out();
    // Task 0 makes the run directory (run.json); trial 1's directory then holds a planted probe.env.
    const task = (i: number) => cli(['--recipe', r, '--out', o, '--quiet', '--task', String(i), '--', ...show]);
    expect(await task(0)).toEqual({ code: 0, out: '', err: '' });
    const dir = join(o, 'T', 'm-none', 'trial_1');
    const target = join(root, `kept${n++}.env`);
    writeFileSync(target, 'OLD=1\n');
    mkdirSync(dir, { recursive: true });
    symlinkSync(target, join(dir, 'probe.env'));
    writeFileSync(join(dir, 'marker'), '');
    expect(await task(1)).toEqual({ code: 0, out: '', err: '' });
    // An unfinished trial's directory is cleared before the trial runs, so nothing stale (probe.env included)
    // survives into a sweep; the link is removed as a link, its target kept.
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    expect(existsSync(join(dir, 'probe.env'))).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('OLD=1\n');
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toBe('file= ZED=z 1\n');
  });

  it('the flag overrides the recipe only when given', async () => {
    const r = recipe(`${cells}env_passthrough_mode: file\n`);
    const o = out();
    expect(
      (await cli(['--recipe', r, '--out', o, '--quiet', '--env-passthrough-mode', 'inherit', '--', ...show])).code,
    ).toBe(0);
    expect(existsSync(join(o, 'T', 'm-none', 'trial_0', 'probe.env'))).toBe(false);
    const bad = await cli(['--recipe', r, '--out', out(), '--env-passthrough-mode', 'env', '--', 'true']);
    expect(bad).toEqual({
      code: 2,
      out: '',
      err: "aorta-probe: sweep: --env-passthrough-mode must be one of inherit, file, got 'env'\n\nUsage: aorta-probe sweep --recipe RECIPE --out DIR [options] -- CMD [ARGS...]\nSee 'aorta-probe sweep --help'.\n",
    });
  });

  it('each retried attempt gets its own probe.env', async () => {
    const r = recipe(`${cells}env_passthrough_mode: file\nretry: {max: 1, on: ['tier1:exit_nonzero']}\n`);
    const o = out();
    expect(
      (await cli(['--recipe', r, '--out', o, '--quiet', '--', 'sh', '-c', 'test "$AORTA_PROBE_ATTEMPT" = 2'])).code,
    ).toBe(0);
    const dir = join(o, 'T', 'm-none', 'trial_0');
    expect(readFileSync(join(dir, 'probe.env'), 'utf8')).toBe('ALPHA=a=b\nMID=3\nZED=z 1\n');
    expect(readFileSync(join(dir, 'attempt_1', 'probe.env'), 'utf8')).toBe('ALPHA=a=b\nMID=3\nZED=z 1\n');
  });

  it('a value with a newline: the trial is not run; an error record (meta:env_file_validation_failed, exit code 2)', async () => {
    const r = recipe(
      'trials: 2\nmitigation_axis: [none, m]\ndiagnostic_axis: [none]\nmitigations: {m: {GOOD: 1, BAD: "x\\ny"}}\nenv_passthrough_mode: file\n',
    );
    const o = out();
    const marker = join(root, 'ran-in-bad-cell');
    // Fails in the bad cell only if it runs there.
    const argv = [
      '--recipe',
      r,
      '--out',
      o,
      '--json',
      '--quiet',
      '--',
      'sh',
      '-c',
      `test "$AORTA_PROBE_CELL" = none-none || touch ${marker}`,
    ];
    const res = await cli(argv);
    expect(res.code).toBe(1);
    expect(existsSync(marker)).toBe(false);
    const doc = JSON.parse(res.out) as {
      counts: Record<string, number>;
      trials: { cell: string; verdict: string; exit_status: number }[];
      report: { cells: { cell: string; counts?: unknown }[] };
    };
    expect(doc.counts).toEqual({ pass: 2, fail: 0, error: 2 });
    expect(doc.trials.map((t) => [t.cell, t.verdict, t.exit_status])).toEqual([
      ['none-none', 'pass', 0],
      ['none-none', 'pass', 0],
      ['m-none', 'error', 3],
      ['m-none', 'error', 3],
    ]);
    const rec = record(o, 'm-none', 1);
    expect({
      verdict: rec.verdict,
      exit_code: rec.exit_code,
      error_detectors_fired: rec.error_detectors_fired,
      failure_detectors_fired: rec.failure_detectors_fired,
      exec_error: rec.exec_error,
      final: rec.final,
      cell_name: rec.cell_name,
      trial_index: rec.trial_index,
      exit_status: rec.exit_status,
    }).toEqual({
      verdict: 'error',
      exit_code: 2,
      error_detectors_fired: ['meta:env_file_validation_failed'],
      failure_detectors_fired: [],
      exec_error:
        "probe.env: the value of env key 'BAD' contains a newline; the trial was not run (env_passthrough_mode: file)",
      final: true,
      cell_name: 'm-none',
      trial_index: 1,
      exit_status: { status: 3, reason: 'default' },
    });
    const dir = join(o, 'T', 'm-none', 'trial_1');
    expect(existsSync(join(dir, 'probe.env'))).toBe(false);
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toBe(`${rec.exec_error as string}\n`);
    // The report reads it like any record; a re-run keeps it (resume).
    const again = await cli(['--recipe', r, '--out', o, '--json', '--quiet', '--', 'sh', '-c', 'true']);
    expect(again.code).toBe(2); // a different command: a different sweep
    const same = await cli(argv);
    const sameDoc = JSON.parse(same.out) as { trials: { resumed: boolean }[] };
    expect([same.code, sameDoc.trials.map((t) => t.resumed)]).toEqual([1, [true, true, true, true]]);
    const rep = await cliInProcess(['report', join(o, 'T')]);
    expect(rep.out).toContain('meta:env_file_validation_failed');
  });

  it("a key with a newline, CR or '=' is refused too (the recipe loader already refuses such names)", async () => {
    const env = (o: Record<string, string>) => new Map(Object.entries(o));
    expect(envFileProblem(env({ A: 'x=y', B: 'tab\there' }))).toBe(null);
    expect(envFileProblem(env({ 'A=B': '1' }))).toBe("env key 'A=B' contains '='");
    expect(envFileProblem(env({ 'A\nB': '1' }))).toBe("env key 'A\\nB' contains '\\n'");
    expect(envFileProblem(env({ 'A\rB': '1' }))).toBe("env key 'A\\rB' contains '\\r'");
    expect(envFileProblem(env({ Z: 'a\nb', A: 'ok' }))).toBe("the value of env key 'Z' contains a newline");
    expect(envFileText(env({ b: '2', B: '1', a: 'x=y' }))).toBe('B=1\na=x=y\nb=2\n');
    const r = recipe(
      'trials: 1\nmitigation_axis: [m]\ndiagnostic_axis: [none]\nmitigations: {m: {"A=B": 1}}\nenv_passthrough_mode: file\n',
    );
    const res = await cli(['--recipe', r, '--out', out(), '--quiet', '--', 'true']);
    expect(res.code).toBe(2);
    expect(res.err).toContain(
      "recipe.mitigations.m: 'A=B' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
    );
  });
});

describe('probe.env is written through the held trial directory', () => {
  it('a link planted at probe.env is replaced, its target untouched; removeEnvFile removes a link as a link', () => {
    const base = join(root, 'held');
    mkdirSync(join(base, 'trial'), { recursive: true });
    mkdirSync(join(base, 'tmp'), { recursive: true });
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, join(base, 'trial', 'probe.env'));
    const top = DirRef.openRoot(base, false);
    const dir = top.child('trial', false);
    const tmp = top.child('tmp', false);
    try {
      writeEnvFile(
        dir,
        tmp,
        new Map([
          ['B', '2'],
          ['A', '1'],
        ]),
      );
      expect(lstatSync(join(base, 'trial', 'probe.env')).isFile()).toBe(true);
      expect(readFileSync(join(base, 'trial', 'probe.env'), 'utf8')).toBe('A=1\nB=2\n');
      expect(statSync(join(base, 'trial', 'probe.env')).mode & 0o777).toBe(0o600);
      expect(readFileSync(victim, 'utf8')).toBe('keep\n');
      rmSync(join(base, 'trial', 'probe.env'));
      symlinkSync(victim, join(base, 'trial', 'probe.env'));
      removeEnvFile(dir);
      expect(existsSync(join(base, 'trial', 'probe.env'))).toBe(false);
      expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    } finally {
      tmp.close();
      dir.close();
      top.close();
    }
  });
});

describe('sweep --task with the flags (what a cluster node runs)', { timeout: 60_000 }, () => {
  it('--disable-detector and --env-passthrough-mode apply to the one task', async () => {
    const r = recipe('trials: 1\nmitigation_axis: [m]\ndiagnostic_axis: [none]\nmitigations: {m: {K: v}}\n');
    const o = out();
    const res = await cli([
      '--recipe',
      r,
      '--out',
      o,
      '--task',
      '0',
      '--quiet',
      '--disable-detector',
      'tier1',
      '--env-passthrough-mode',
      'file',
      '--',
      'sh',
      '-c',
      'cat "$AORTA_ENV_FILE"; exit 4',
    ]);
    expect(res).toEqual({ code: 0, out: '', err: '' });
    const rec = record(o, 'm-none');
    expect([rec.verdict, rec.exit_code, rec.disabled_detector_tiers]).toEqual(['pass', 4, ['tier1']]);
    expect(readFileSync(join(o, 'T', 'm-none', 'trial_0', 'output.log'), 'utf8')).toBe('K=v\n');
  });
});
