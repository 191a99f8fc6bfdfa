/** `aorta-probe sweep` through the CLI: --dry-run, a run with its report and exit status, --task, usage errors. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-cli-sweep-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const recipe = join(root, 'sweep.yaml');
writeFileSync(
  recipe,
  `schema_version: 1
mode: probe
ticket: CLI-1
trials: 2
mitigation_axis: [none, cache_off]
diagnostic_axis: [none]
mitigations:
  cache_off: {PYTORCH_NO_CUDA_MEMORY_CACHING: 1}
`,
);

const cli = (args: string[]) => cliInProcess(args);

describe('aorta-probe sweep', { timeout: 60_000 }, () => {
  it('--dry-run prints the cells as the original does', async () => {
    expect(
      await cli(['sweep', '--recipe', recipe, '--out', join(root, 'x'), '--dry-run', '--', 'python', 'train.py']),
    ).toEqual({
      code: 0,
      err: '',
      out: `2 cells x 2 trials = 4 trials, ticket 'CLI-1'
  none-none: env=[(no env)] argv=['python', 'train.py']
  cache_off-none: env=[PYTORCH_NO_CUDA_MEMORY_CACHING=1] argv=['python', 'train.py']
`,
    });
  });

  it('--dry-run prints control characters of recipe values escaped, never raw (JSON stays exact)', async () => {
    const r = join(root, 'esc.yaml');
    // A window-title OSC, a fake verdict line after a carriage return, NEL and a line separator (issue 33 §5).
    writeFileSync(
      r,
      'schema_version: 1\nmode: probe\nticket: "T\\e[2J"\ntrials: 1\nmitigation_axis: [m]\ndiagnostic_axis: [none]\nmitigations:\n  m: {TITLE: "\\e]0;owned\\a", FAKE: "x\\rverdict: pass\\N\\L"}\n',
    );
    const res = await cli([
      'sweep',
      '--recipe',
      r,
      '--out',
      join(root, 'esc'),
      '--dry-run',
      '--',
      'echo',
      'a\x1b[31mred',
    ]);
    expect(res).toEqual({
      code: 0,
      err: '',
      out: `1 cells x 1 trials = 1 trials, ticket 'T\\x1b[2J'
  m-none: env=[TITLE=\\x1b]0;owned\\x07 FAKE=x\\x0dverdict: pass\\x85\\u2028] argv=['echo', 'a\\x1b[31mred']
`,
    });
    const json = await cli(['sweep', '--recipe', r, '--out', join(root, 'esc'), '--dry-run', '--json', '--', 'true']);
    expect((JSON.parse(json.out) as { plan: { cells: { env: object }[] } }).plan.cells[0]!.env).toEqual({
      TITLE: '\x1b]0;owned\x07',
      FAKE: 'x\rverdict: pass\x85\u2028',
    });
  });

  it('a plan over 100000 trials is refused before it is built, even for --dry-run', async () => {
    const r = join(root, 'huge.yaml');
    writeFileSync(
      r,
      'schema_version: 1\nmode: probe\ntrials: 250000000\nmitigation_axis: [none, m]\ndiagnostic_axis: [none]\nmitigations: {m: {}}\n',
    );
    const res = await cli(['sweep', '--recipe', r, '--out', join(root, 'huge'), '--dry-run', '--', 'true']);
    expect(res).toEqual({
      code: 2,
      out: '',
      err: "aorta-probe sweep: 2 cells x 250000000 trials = 500000000 trials is more than a sweep runs (at most 100000, where Kubernetes starts warning about an Indexed Job's completions); lower the recipe's 'trials', or split the axes over several sweeps\n",
    });
    const viaFlag = await cli([
      'sweep',
      '--recipe',
      recipe,
      '--out',
      join(root, 'huge'),
      '--trials',
      '60000',
      '--dry-run',
      '--',
      'true',
    ]);
    expect(viaFlag.code).toBe(2);
    expect(viaFlag.err).toContain('2 cells x 60000 trials = 120000 trials is more than a sweep runs');
    expect(viaFlag.err).toContain('lower --trials,');
  });

  it("the sweep's report counts only the records it wrote, whatever a trial forges (issue 33 §3)", async () => {
    const r = join(root, 'forge.yaml');
    writeFileSync(
      r,
      'schema_version: 1\nmode: probe\nticket: FORGE\ntrials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n',
    );
    // Trial 0 fails and forges 45 passing records with the run's own id (read from run.json): 15 in cells the plan
    // lacks, 15 at trial numbers it lacks, 15 deeper in its own directory.
    const forge = [
      'T=$(dirname "$(dirname "$AORTA_PROBE_TRIAL_DIR")")',
      `ID=$(sed -n 's/.*"run_id": "\\([0-9a-f]*\\)".*/\\1/p' "$T/run.json")`,
      'REC="{\\"verdict\\": \\"pass\\", \\"exit_code\\": 0, \\"walltime_sec\\": 1, \\"final\\": true, \\"run_id\\": \\"$ID\\"}"',
      '[ "$AORTA_PROBE_TRIAL_INDEX" = 0 ] || exit 0',
      'for i in $(seq 1 15); do',
      '  mkdir -p "$T/cell$i/trial_0" "$T/none-none/trial_$((i + 5))" "$AORTA_PROBE_TRIAL_DIR/d$i/trial_0"',
      '  echo "$REC" > "$T/cell$i/trial_0/result.json"; echo "$REC" > "$T/none-none/trial_$((i + 5))/result.json"',
      '  echo "$REC" > "$AORTA_PROBE_TRIAL_DIR/d$i/trial_0/result.json"',
      'done',
      'exit 1',
    ].join('\n');
    const res = await cli([
      'sweep',
      '--recipe',
      r,
      '--out',
      join(root, 'forge'),
      '--gpu-tool',
      'none',
      '--json',
      '--',
      'sh',
      '-c',
      forge,
    ]);
    expect(res.code).toBe(1);
    const doc = JSON.parse(res.out) as {
      matrix: { cells: { trials: number; failed_count: number }[] };
      report: { totals: { trials: number }; problems: { path: string; reason: string }[] };
    };
    // The matrix counts the trials the sweep ran; the report of its directory only the records it wrote.
    expect(doc.matrix.cells.map((c) => [c.trials, c.failed_count])).toEqual([[2, 1]]);
    expect(doc.report.totals.trials).toBe(2);
    // Every forged record is listed as skipped, with why, in path order.
    const skipped = doc.report.problems.map((p) => `  ${p.path}: ${p.reason}`);
    expect(skipped).toHaveLength(45);
    const forgeDir = join(root, 'forge', 'FORGE');
    expect(skipped.filter((l) => l.endsWith(': not a trial record of this sweep'))).toHaveLength(15);
    expect(skipped.filter((l) => l.endsWith(": not a trial of this sweep's plan"))).toHaveLength(30);
    expect(skipped[0]).toBe(`  ${forgeDir}/cell1/trial_0/result.json: not a trial of this sweep's plan`);
    expect([...skipped].sort()).toEqual(skipped);
    const json = await cli(['report', '--json', join(root, 'forge')]);
    // `report` itself, not knowing the run, still reads them all: it is the sweep's count that must hold.
    expect((JSON.parse(json.out) as { totals: { trials: number } }).totals.trials).toBe(47);
  });

  it('--fresh is for a local sweep only', async () => {
    const res = await cli([
      'sweep',
      '--recipe',
      recipe,
      '--out',
      join(root, 'f'),
      '--fresh',
      '--task',
      '0',
      '--',
      'true',
    ]);
    expect(res.code).toBe(2);
    expect(res.err.split('\n')[0]).toBe(
      'aorta-probe: sweep: --fresh applies to a local sweep only (a cluster task must not move the run its siblings write; move DIR/<ticket> aside before submitting)',
    );
  });

  it("runs the sweep, prints the original's summary with the comparison, and exits 1 when a trial failed", async () => {
    const out = join(root, 'run');
    const r = await cli([
      'sweep',
      '--recipe',
      recipe,
      '--out',
      out,
      '--gpu-tool',
      'none',
      '--parallel',
      '2',
      '--',
      'sh',
      '-c',
      '[ -n "$PYTORCH_NO_CUDA_MEMORY_CACHING" ] && [ $AORTA_PROBE_TRIAL_INDEX = 1 ] && exit 4; exit 0',
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    expect(r.out).toBe(`Sweep summary: 2 cell(s) -- 1 clean, 1 with failing trials, 0 with errors.
  [fail] cache_off-none: 1 failed of 2 trial(s) (tier1:exit_nonzero) -> cache_off-none/
Against the baseline none-none (failure rate 0.0%, 0 / 2):
  cache_off-none: 50.0% (1 / 2), +50.0 pts [-27.3, +90.5], p = 1: no evidence (≈7 trials/cell to tell); confound ${
    (JSON.parse(readFileSync(join(out, 'CLI-1', 'matrix.json'), 'utf8')) as { cells: { confound: string }[] }).cells[1]!
      .confound
  }
Full matrix: ${out}/CLI-1/matrix.md
Per-cell detectors and example lines: aorta-probe report ${out}/CLI-1
`);
    const rec = JSON.parse(readFileSync(join(out, 'CLI-1', 'cache_off-none', 'trial_1', 'result.json'), 'utf8')) as {
      exit_code: number;
      cell_env: object;
    };
    expect([rec.exit_code, rec.cell_env]).toEqual([4, { PYTORCH_NO_CUDA_MEMORY_CACHING: '1' }]);
  });

  it('--task-env runs one task of the plan and exits with its verdict', async () => {
    const out = join(root, 'task');
    process.env.AORTA_TEST_TASK = '3';
    try {
      const r = await cli([
        'sweep',
        '--recipe',
        recipe,
        '--out',
        out,
        '--gpu-tool',
        'none',
        '--task-env',
        'AORTA_TEST_TASK',
        '--',
        'sh',
        '-c',
        'exit 1',
      ]);
      expect(r).toEqual({
        code: 1,
        err: '',
        out: `cache_off-none/trial_1: fail (1 attempt) ${join(out, 'CLI-1', 'cache_off-none', 'trial_1')}\n`,
      });
      const bad = await cli(['sweep', '--recipe', recipe, '--out', out, '--task', '4', '--', 'true']);
      expect(bad).toEqual({ code: 2, out: '', err: "aorta-probe sweep: task 4 is outside the plan's 0..3\n" });
    } finally {
      delete process.env.AORTA_TEST_TASK;
    }
  });

  it("--task exits with the trial's status as run has it, the recipe's exit_codes: included", async () => {
    const mapped = join(root, 'mapped.yaml');
    writeFileSync(
      mapped,
      `schema_version: 1
mode: probe
ticket: CLI-2
trials: 1
mitigation_axis: [none]
diagnostic_axis: [none]
custom_patterns:
  - id: rccl_timeout
    match: {regex: "RCCL watchdog timeout"}
    category: rccl_hang
exit_codes:
  category: {transient: 75}
`,
    );
    const out = join(root, 'mapped');
    // Each command its own run: a different command into one run directory is another sweep (refused, exit 2).
    let runs = 0;
    const run = (cmd: string) =>
      cli([
        'sweep',
        '--recipe',
        mapped,
        '--out',
        runs++ === 0 ? out : `${out}${runs}`,
        '--gpu-tool',
        'none',
        '--quiet',
        '--task',
        '0',
        '--',
        'sh',
        '-c',
        cmd,
      ]);
    expect((await run('echo RCCL watchdog timeout; exit 1')).code).toBe(75);
    const rec = JSON.parse(readFileSync(join(out, 'CLI-2', 'none-none', 'trial_0', 'result.json'), 'utf8')) as {
      exit_status: unknown;
    };
    expect(rec.exit_status).toEqual({ status: 75, reason: 'category:transient' });
    expect((await run('exit 1')).code).toBe(1);
    expect((await run('true')).code).toBe(0);
  });

  it.each([
    [['sweep', '--out', 'x', '--', 'true'], "aorta-probe: sweep: missing option '--recipe'"],
    [
      ['sweep', '--recipe', 'r', '--out', 'x', '--parallel', '0', '--', 'true'],
      "aorta-probe: sweep: --parallel must be a positive integer, got '0'",
    ],
    [
      ['sweep', '--recipe', 'r', '--out', 'x', '--gpus', '0,1', '--gpus-per-trial', '3', '--', 'true'],
      'aorta-probe: sweep: --gpus-per-trial 3 is more than the 2 devices in --gpus',
    ],
    [
      ['sweep', '--recipe', 'r', '--out', 'x', '--gpu-env', 'GPU_DEVICE_ORDINAL', '--', 'true'],
      "aorta-probe: sweep: --gpu-env: 'GPU_DEVICE_ORDINAL' is not one of CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES",
    ],
    [
      ['sweep', '--recipe', 'r', '--out', 'x', '--emit', 'k8s', '--', 'true'],
      'aorta-probe: sweep: --emit k8s needs --image and --pvc',
    ],
    [
      ['sweep', '--recipe', 'r', '--out', 'x', 'true'],
      "aorta-probe: sweep: missing '--' separator: the command must come after a literal '--', so aorta-probe knows where its own options end (got 'true')",
    ],
  ])('usage error %j', async (args, first) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(first);
  });

  it('reports a recipe error at its position and exits 2', async () => {
    const bad = join(root, 'bad.yaml');
    writeFileSync(bad, 'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [nope]\ndiagnostic_axis: [none]\n');
    const r = await cli(['sweep', '--recipe', bad, '--out', join(root, 'y'), '--', 'true']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(
      `${bad}:4:19: recipe.mitigation_axis[0]: unknown mitigation 'nope'; available: ['amd_log_level_4', 'debug_clr_no_batch_cpu_sync', 'fa_prefer_aotriton', 'fa_prefer_ck', 'gpu_force_blit_copy_128', 'gpu_max_hw_queues_2', 'hip_launch_blocking', 'hsa_no_scratch_reclaim', 'hsa_no_sdma', 'nccl_launch_order_implicit', 'none', 'pytorch_alloc_expandable_segments', 'pytorch_no_cuda_memory_caching', 'rccl_gfx942_cheap_fence_off', 'roc_aql_queue_size_1024', 'roc_signal_pool_16k', 'tf32_off', 'xnack']; define it under 'mitigations:' or in a --mitigations-file`,
    );
  });
});
