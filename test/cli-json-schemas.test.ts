/**
 * `sweep --json`, `report --json` and `demo --json` against schemas/ on real outputs (a real local sweep over a
 * tiny `node -e` trial, the real report of its directory, the error outputs), mutated outputs that the schemas must
 * reject, and one table that checks every command's --json output, errors included, against its schema.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTrial, type GpuSamplerFactory } from '../src/trial/index.js';
import { fakeKernelEnv, probeRecipe } from './support/classifier.js';
import { cliInProcess as cli } from './support/run-cli.js';
import { expectValid, isValid, onlyJson, SCHEMA_FILES } from './support/json-schemas.js';

const RECIPE = 'fixtures/sweep/two-cells.yaml';
// The cache_off cell's loss goes NaN; the other cell passes.
const TRIAL = [
  process.execPath,
  '-e',
  "console.log(process.env.PYTORCH_NO_CUDA_MEMORY_CACHING ? 'loss=nan' : 'loss=0.5')",
];
const root = mkdtempSync(join(tmpdir(), 'aorta-json-schemas-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PLAN = (out: string, argv: readonly string[] = TRIAL) => ({
  recipe: RECIPE,
  ticket: 'DOC-1',
  out,
  argv,
  trials_per_cell: 1,
  tasks: 2,
  cells: [
    { name: 'none-none', mitigation: 'none', diagnostic: 'none', env: {} },
    {
      name: 'cache_off-none',
      mitigation: 'cache_off',
      diagnostic: 'none',
      env: { PYTORCH_NO_CUDA_MEMORY_CACHING: '1' },
    },
  ],
});

const ERROR_KEYS = ['type', 'message', 'detail', 'file', 'line', 'col', 'node'];

type Path = readonly (string | number)[];
/** Removes the key at the end of a path (instead of setting a value). */
const DELETE = Symbol('delete');

/** A deep copy of `doc` with the value at `path` replaced by `value` (or removed). */
function mutated(doc: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(doc);
  let at = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === DELETE) delete at[last];
  else at[last] = value;
  return copy;
}

interface Sweep {
  mode: string;
  plan: unknown;
  task: number | null;
  run_id: string;
  trials: {
    task: number;
    cell: string;
    trial: number;
    verdict: string;
    exit_status: number;
    dir: string;
    result_json: string | null;
    retention: string;
    resumed: boolean;
    attempts: { attempt: number; verdict: string; failure_detectors_fired: string[]; dir: string }[];
  }[];
  skipped: unknown[];
  counts: unknown;
  report: { cells: { cell: string; trials: number; detectors: { id: string; example: unknown }[] }[] } | null;
  exit_status: number;
}

describe('sweep --json on a real local sweep, and report --json of its directory', { timeout: 60_000 }, () => {
  const out = join(root, 'run');
  let sweep: { code: number; out: string; err: string };
  let doc: Sweep;
  beforeAll(async () => {
    sweep = await cli(['sweep', '--json', '--recipe', RECIPE, '--out', out, '--gpu-tool', 'none', '--', ...TRIAL]);
    doc = onlyJson(sweep.out) as Sweep;
  });

  it('stdout holds one document, valid against sweep.schema.json; nothing else is printed; exit 1', () => {
    expect(sweep.code).toBe(1);
    expect(sweep.err).toBe('');
    expectValid('sweep', doc);
  });

  it('the plan, per-trial verdicts and result.json paths, the counts and the exit status', () => {
    expect(doc.mode).toBe('run');
    expect(doc.plan).toEqual(PLAN(out));
    expect(doc.task).toBe(null);
    const dir = (cell: string) => join(out, 'DOC-1', cell, 'trial_0');
    expect(
      doc.trials.map((t) => [
        t.task,
        t.cell,
        t.trial,
        t.verdict,
        t.exit_status,
        t.dir,
        t.result_json,
        t.attempts.length,
      ]),
    ).toEqual([
      [0, 'none-none', 0, 'pass', 0, dir('none-none'), join(dir('none-none'), 'result.json'), 1],
      [1, 'cache_off-none', 0, 'fail', 1, dir('cache_off-none'), join(dir('cache_off-none'), 'result.json'), 1],
    ]);
    expect(doc.trials[1]!.attempts[0]).toMatchObject({
      attempt: 1,
      verdict: 'fail',
      exit_code: 0,
      failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_loss'],
      error_detectors_fired: [],
      retry_on: [],
      dir: '.',
    });
    for (const t of doc.trials) expect(statSync(t.result_json!).isFile()).toBe(true);
    expect([doc.skipped, doc.counts, doc.exit_status]).toEqual([[], { pass: 1, fail: 1, error: 0 }, 1]);
  });

  it("'report' is what report --json DIR prints, and that is valid against report.schema.json", async () => {
    const r = await cli(['report', '--json', join(out, 'DOC-1')]);
    expect(r.code).toBe(0);
    const report = onlyJson(r.out);
    expectValid('report', report);
    expect(doc.report).toEqual(report);
    expect(doc.report!.cells.map((c) => [c.cell, c.detectors.map((d) => [d.id, d.example])])).toEqual([
      [
        'cache_off-none',
        [
          [
            'custom:nan_loss',
            { file: join(out, 'DOC-1', 'cache_off-none', 'trial_0', 'output.log'), line: 1, text: 'loss=nan' },
          ],
          [
            'tier4:nan_signature',
            { file: join(out, 'DOC-1', 'cache_off-none', 'trial_0', 'output.log'), line: 1, text: 'loss=nan' },
          ],
        ],
      ],
      ['none-none', []],
    ]);
  });

  it('the schemas reject a wrong shape', () => {
    const wrong: [string, Path, unknown][] = [
      ['an unknown top-level key', ['extra'], 1],
      ['a missing key', ['counts'], DELETE],
      ['an unknown mode', ['mode'], 'sweep'],
      ['a dry-run with trials', ['mode'], 'dry-run'],
      ['a verdict outside pass/fail/error', ['trials', 0, 'verdict'], 'flaky'],
      ['a trial without result_json', ['trials', 0, 'result_json'], DELETE],
      ['an exit status as a string', ['exit_status'], '1'],
      ['an env value that is not a string', ['plan', 'cells', 1, 'env', 'PYTORCH_NO_CUDA_MEMORY_CACHING'], 1],
      ['an attempt with an unknown key', ['trials', 0, 'attempts', 0, 'extra'], true],
      ['a report cell with an unknown key', ['report', 'cells', 0, 'extra'], 0],
      ['a report without its version', ['report', 'report_version'], DELETE],
      ['a detector example without its line', ['report', 'cells', 0, 'detectors', 0, 'example', 'line'], DELETE],
      ['a camelCase key (report_version 1)', ['report', 'totals', 'flakyCells'], 0],
    ];
    for (const [what, path, value] of wrong) expect(isValid('sweep', mutated(doc, path, value)), what).toBe(false);
    for (const [what, path, value] of wrong.filter(([, p]) => p[0] === 'report'))
      expect(isValid('report', mutated(doc.report, path.slice(1), value)), what).toBe(false);
  });

  it("each trial's result.json, the sweep's keys after the trial's own, is valid against result.schema.json", () => {
    for (const t of doc.trials) {
      const record = JSON.parse(readFileSync(t.result_json!, 'utf8')) as Record<string, unknown>;
      expectValid('result', record);
      expect(record).toMatchObject({ result_version: 2, cell_name: t.cell, final: true });
    }
  });

  it('--task N --json: that one trial, no report, its exit status', async () => {
    const r = await cli([
      'sweep',
      '--json',
      '--recipe',
      RECIPE,
      '--out',
      join(root, 'task'),
      '--gpu-tool',
      'none',
      '--task',
      '1',
      '--',
      ...TRIAL,
    ]);
    expect(r.code).toBe(1);
    const t = onlyJson(r.out) as Sweep;
    expectValid('sweep', t);
    expect([t.task, t.trials.map((x) => [x.cell, x.verdict]), t.report, t.exit_status]).toEqual([
      1,
      [['cache_off-none', 'fail']],
      null,
      1,
    ]);
  });

  it('with a terminal on stderr, stdout still holds only the document', async () => {
    const { code, out: text } = await cli(
      ['sweep', '--json', '--recipe', RECIPE, '--out', join(root, 'tty'), '--gpu-tool', 'none', '--', ...TRIAL],
      '',
      { stderrTty: true },
    );
    expect(code).toBe(1);
    expectValid('sweep', onlyJson(text));
  });
});

describe('sweep --json with retry, stop_after and retain', { timeout: 60_000 }, () => {
  const recipe = join(root, 'policies.yaml');
  writeFileSync(
    recipe,
    `schema_version: 1
mode: probe
ticket: POL-1
trials: 3
mitigation_axis: [none, cache_off]
diagnostic_axis: [none]
mitigations:
  cache_off: {PYTORCH_NO_CUDA_MEMORY_CACHING: 1}
custom_patterns:
  - id: nan_loss
    match: {regex: "loss=(?P<loss>nan)"}
retry: {max: 1, on: [custom:nan_loss]}
stop_after: {events: 1, max_trials: 3}
retain: {on_pass: none}
`,
  );

  it('attempts, skipped tasks, stopped cells and pruned trials are in the document, valid against the schema', async () => {
    const out = join(root, 'policies');
    const r = await cli(['sweep', '--json', '--recipe', recipe, '--out', out, '--gpu-tool', 'none', '--', ...TRIAL]);
    expect(r.code).toBe(1);
    const doc = onlyJson(r.out) as Sweep & { stopped_cells: string[] };
    expectValid('sweep', doc);
    expect(
      doc.trials.map((t) => [
        t.cell,
        t.trial,
        t.verdict,
        t.result_json,
        t.attempts.map((a) => [a.attempt, a.verdict, a.dir]),
      ]),
    ).toEqual([
      ['none-none', 0, 'pass', join(out, 'POL-1', 'none-none', 'trial_0', 'result.json'), [[1, 'pass', '.']]],
      ['none-none', 1, 'pass', join(out, 'POL-1', 'none-none', 'trial_1', 'result.json'), [[1, 'pass', '.']]],
      ['none-none', 2, 'pass', join(out, 'POL-1', 'none-none', 'trial_2', 'result.json'), [[1, 'pass', '.']]],
      [
        'cache_off-none',
        0,
        'fail',
        join(out, 'POL-1', 'cache_off-none', 'trial_0', 'result.json'),
        [
          [1, 'fail', 'attempt_1'],
          [2, 'fail', '.'],
        ],
      ],
    ]);
    expect([doc.skipped, doc.stopped_cells, doc.counts]).toEqual([
      [
        { task: 4, cell: 'cache_off-none', trial: 1 },
        { task: 5, cell: 'cache_off-none', trial: 2 },
      ],
      ['cache_off-none'],
      { pass: 3, fail: 1, error: 0 },
    ]);
    // retain: none removed the passing trials' logs, never their records: the report of DIR sees every trial.
    expect(doc.report!.cells.map((c) => [c.cell, c.trials])).toEqual([
      ['cache_off-none', 1],
      ['none-none', 3],
    ]);
    expect(doc.trials.map((t) => [t.retention, t.resumed])).toEqual([
      ['none', false],
      ['none', false],
      ['none', false],
      ['full', false],
    ]);
    expect(doc.run_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('--emit --json with a stop_after: refused (exit 2), the error document valid against the schema', async () => {
    const r = await cli([
      'sweep',
      '--json',
      '--emit',
      'slurm',
      '--recipe',
      recipe,
      '--out',
      join(root, 'pol-emit'),
      '--',
      'true',
    ]);
    const why =
      "--emit slurm: stop_after {events: 1, max_trials: 3, event_verdict: fail} cannot hold on a cluster: each array task runs one trial independently, so no task can stop its cell after 1 fail event(s). Run this sweep on one machine (without --emit) to stop early, or remove stop_after (recipe, --stop-after-events, --max-trials) and set 'trials' (or --trials) to emit every trial";
    expect(r.code).toBe(2);
    const doc = onlyJson(r.out) as { error: { message: string } };
    expectValid('sweep', doc);
    expect(doc.error.message).toBe(why);
    expect(r.err).toBe(`aorta-probe sweep: ${why}\n`);
  });
});

describe('sweep --json without running trials', () => {
  it('--dry-run --json: the plan (cells, environments, command)', async () => {
    const r = await cli([
      'sweep',
      '--json',
      '--dry-run',
      '--recipe',
      RECIPE,
      '--out',
      'runs/x',
      '--',
      'python',
      'train.py',
    ]);
    expect(r).toEqual({
      code: 0,
      err: '',
      out: `${JSON.stringify({ mode: 'dry-run', plan: PLAN('runs/x', ['python', 'train.py']), exit_status: 0 })}\n`,
    });
    expectValid('sweep', JSON.parse(r.out));
  });

  it("--emit slurm --json: the script is the document's text, the same as without --json", async () => {
    const out = join(root, 'emit');
    const args = [
      'sweep',
      '--emit',
      'slurm',
      '--probe-command',
      'aorta-probe',
      '--recipe',
      RECIPE,
      '--out',
      out,
      '--',
      'true',
    ];
    const plain = await cli(args);
    const r = await cli([args[0]!, '--json', ...args.slice(1)]);
    expect(r.code).toBe(0);
    const doc = onlyJson(r.out);
    expectValid('sweep', doc);
    expect(doc).toEqual({
      mode: 'emit',
      plan: PLAN(out, ['true']),
      emit: 'slurm',
      emit_to: null,
      text: plain.out,
      log_dir: join(out, 'slurm'),
      warnings: [],
      exit_status: 0,
    });
    expect(statSync(join(out, 'slurm')).isDirectory()).toBe(true);
  });

  it('--emit k8s --emit-to FILE --json: says what was written where', async () => {
    const file = join(root, 'job.yaml');
    const r = await cli([
      'sweep',
      '--json',
      '--emit',
      'k8s',
      '--image',
      'img',
      '--pvc',
      'claim',
      '--emit-to',
      file,
      '--recipe',
      RECIPE,
      '--out',
      '/results',
      '--',
      'true',
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`aorta-probe sweep: wrote ${file} (2 tasks)\n`);
    const doc = onlyJson(r.out) as { text: unknown };
    expectValid('sweep', doc);
    expect(doc).toMatchObject({ mode: 'emit', emit: 'k8s', emit_to: file, text: null, log_dir: null, warnings: [] });
    expect(readFileSync(file, 'utf8')).toContain('kind: Job');
    expect(isValid('sweep', mutated(doc, ['text'], 'x'))).toBe(false);
  });
});

describe('sweep and report errors with --json: the one error object, exit codes per exit-codes.ts', () => {
  const cases: [string, string[], number, string, string][] = [
    [
      'usage',
      ['sweep', '--json', '--recipe', RECIPE, '--out', 'o', '--parallel', '0', '--', 'true'],
      2,
      'UsageError',
      "--parallel must be a positive integer, got '0'",
    ],
    [
      'unreadable recipe',
      ['sweep', '--json', '--recipe', 'nope.yaml', '--out', 'o', '--', 'true'],
      2,
      'ReadError',
      "cannot read nope.yaml: ENOENT: no such file or directory, open 'nope.yaml'",
    ],
    [
      'not a probe recipe',
      ['sweep', '--json', '--recipe', 'fixtures/recipes/nan-loss.yaml', '--out', 'o', '--', 'true'],
      2,
      'RecipeSchemaError',
      "recipe: a sweep needs a 'mode: probe' recipe (trials, mitigation_axis, diagnostic_axis)",
    ],
    [
      'a task outside the plan',
      ['sweep', '--json', '--recipe', RECIPE, '--out', 'o', '--task', '2', '--', 'true'],
      2,
      'UsageError',
      "task 2 is outside the plan's 0..1",
    ],
    [
      '--task-env unset',
      ['sweep', '--json', '--recipe', RECIPE, '--out', 'o', '--task-env', 'AORTA_TEST_UNSET', '--', 'true'],
      2,
      'UsageError',
      '--task-env AORTA_TEST_UNSET: the variable is not set',
    ],
    [
      '--emit-to unwritable',
      [
        'sweep',
        '--json',
        '--emit',
        'slurm',
        '--emit-to',
        '/dev/null/x.sbatch',
        '--recipe',
        RECIPE,
        '--out',
        'runs/emit-err',
        '--',
        'true',
      ],
      3,
      'WriteError',
      "cannot write /dev/null/x.sbatch: ENOTDIR: not a directory, open '/dev/null/x.sbatch'",
    ],
    ['report usage', ['report', '--json'], 2, 'UsageError', 'no DIR or FILE given'],
    [
      'report --out unwritable',
      ['report', '--json', 'fixtures/logs', '--out', '/dev/null/r.json'],
      3,
      'WriteError',
      "cannot write /dev/null/r.json: ENOTDIR: not a directory, open '/dev/null/r.json'",
    ],
  ];
  it.each(cases)('%s', async (_what, args, code, type, detail) => {
    const r = await cli(args);
    expect(r.code).toBe(code);
    const doc = onlyJson(r.out) as { error: Record<string, unknown> };
    expectValid(args[0]!, doc);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(Object.keys(doc.error)).toEqual(ERROR_KEYS);
    expect([doc.error.type, doc.error.detail]).toEqual([type, detail]);
    expect(r.err).toContain(detail);
  });

  it('an output directory that cannot be used: the error object, exit 3', async () => {
    const r = await cli([
      'sweep',
      '--json',
      '--recipe',
      RECIPE,
      '--out',
      '/dev/null/x',
      '--gpu-tool',
      'none',
      '--',
      'true',
    ]);
    expect(r.code).toBe(3);
    const doc = onlyJson(r.out) as { error: { type: string; file: string } };
    expectValid('sweep', doc);
    // The run directory is opened before any trial: the error names the first path that cannot be a directory.
    expect([doc.error.type, doc.error.file]).toEqual(['WriteError', '/dev/null/x']);
  });

  it('report --json with no usable result.json: the empty report, exit 1', async () => {
    const r = await cli(['report', '--json', 'fixtures/logs']);
    expect(r.code).toBe(1);
    const doc = onlyJson(r.out);
    expectValid('report', doc);
    expect(doc).toEqual({
      report_version: 2,
      cells: [],
      totals: { trials: 0, pass: 0, fail: 0, error: 0, flaky_cells: 0, unfinished: 0 },
      problems: [],
      earlier_attempts: 0,
      matrix: null,
    });
  });
});

describe('result.json with every record filled in, valid against result.schema.json', { timeout: 60_000 }, () => {
  // Tier 2 kills a silent trial (exit_codes maps tier2:hang to 70); the trial's kernel line is an Xid for Tier 3;
  // an injected sampler gives the GPU summary and readings (tier3:vram_growth); tier4 and one pattern are disabled.
  const recipe = probeRecipe(
    [
      'hang_window_sec: 1',
      'hang_grace_period_at_start: 0',
      'hang_action: kill',
      'disable_detector_tiers: [tier4]',
      'disable_detectors: [custom:unused]',
      'exit_codes: {detector: {tier2:hang: 70}}',
      'custom_patterns:',
      '  - {id: step, match: {regex: "step (?P<step>\\\\d+)"}, on_match: warn, category: perf_regression}',
      '  - {id: unused, match: {regex: never}}',
      '',
    ].join('\n'),
  );
  const sampler: GpuSamplerFactory = async () => ({
    start: () => {},
    stop: async () => ({
      tool: 'nvidia-smi',
      toolVersion: '550.54.15',
      attribution: 'process',
      baselineMib: 100,
      peakVramMib: 600,
      samples: 4,
      failedCalls: 1,
      intervalMs: 250,
      warnings: ['one query failed'],
    }),
    utilizationPct: () => null,
    health: () => ({ vramBeforeMib: 100, vramAfterMib: 500, throttleBefore: 0, throttleAfter: 0 }),
  });
  let record: Record<string, unknown>;
  beforeAll(async () => {
    const kernelLog = join(root, 'kernel.log');
    writeFileSync(kernelLog, '');
    const stamp = `$(date -u +%Y-%m-%dT%H:%M:%S,%N+00:00)`;
    const script = `echo 'step 1'; printf '%s %s\\n' "${stamp}" 'NVRM: Xid (PCI:0000:3b:00): 63, pid=7, ECC page retirement' >> "$1"; exec sleep 30`;
    const { resultPath } = await runTrial(recipe, ['sh', '-c', script, 'sh', kernelLog], {
      outDir: join(root, 'full-record'),
      env: fakeKernelEnv(kernelLog),
      runnerEnv: fakeKernelEnv(kernelLog),
      gpuTool: 'auto',
      gpuSamplerFactory: sampler,
      killGraceMs: 200,
    });
    record = JSON.parse(readFileSync(resultPath, 'utf8')) as Record<string, unknown>;
  });

  it('hang, tier3, detector_categories, disabled_*, exit_status, gpu and the detectors’ categories are filled in and valid', () => {
    expectValid('result', record);
    expect(record).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: ['tier2:hang'],
      warn_detectors_fired: ['tier3:nvidia_xid_warn', 'tier3:vram_growth', 'custom:step'],
      detectors: [{ id: 'custom:step', kind: 'warn', who: 'unknown', transient: false, category: 'perf_regression' }],
      gpu: {
        tool: 'nvidia-smi',
        tool_version: '550.54.15',
        attribution: 'process',
        baseline_mib: 100,
        peak_vram_mib: 600,
        samples: 4,
        failed_calls: 1,
        interval_ms: 250,
        warnings: ['one query failed'],
      },
      result_version: 2,
      detector_categories: {
        'tier2:hang': { kind: 'failure' },
        'tier3:nvidia_xid_warn': { kind: 'warn' },
        'custom:step': { kind: 'warn', category: 'perf_regression' },
      },
      hang: { detected: true, action: 'kill', killed: true, signals: { output_silent: true, io_idle: true } },
      tier3: { kernel_source: 'dmesg', events: [{ detector: 'tier3:nvidia_xid_warn', xid: 63, pci: '0000:3b:00' }] },
      disabled_detectors: ['custom:unused'],
      disabled_detector_tiers: ['tier4'],
      exit_status: { status: 70, reason: 'detector:tier2:hang' },
    });
  });

  it('the schema rejects a wrong shape of each of them', () => {
    const wrong: [string, Path, unknown][] = [
      ['no result_version', ['result_version'], DELETE],
      ['result_version 1', ['result_version'], 1],
      ['a camelCase gpu key (result_version 1)', ['gpu', 'failedCalls'], 0],
      ['gpu without a key', ['gpu', 'interval_ms'], DELETE],
      ['a detector without who', ['detectors', 0, 'who'], DELETE],
      ['a detector whose who is not user/platform/unknown', ['detectors', 0, 'who'], 'nobody'],
      ['a detector whose transient is a string', ['detectors', 0, 'transient'], 'no'],
      ['no detector_categories', ['detector_categories'], DELETE],
      ['a category of kind info', ['detector_categories', 'custom:step', 'kind'], 'info'],
      ['a category without who', ['detector_categories', 'tier2:hang', 'who'], DELETE],
      ['no hang', ['hang'], DELETE],
      ['a hang signal that is not a boolean', ['hang', 'signals', 'gpu_idle'], 'yes'],
      ['a hang action outside record/kill', ['hang', 'action'], 'stop'],
      ['a hang record with an unknown key', ['hang', 'extra'], 1],
      ['no tier3', ['tier3'], DELETE],
      ['a kernel source outside dmesg/journalctl', ['tier3', 'kernel_source'], 'syslog'],
      ['a kernel event with its xid as a string', ['tier3', 'events', 0, 'xid'], '63'],
      ['a kernel event of another tier', ['tier3', 'events', 0, 'detector'], 'tier4:nan_signature'],
      ['no disabled_detectors', ['disabled_detectors'], DELETE],
      ['a disabled tier that does not exist', ['disabled_detector_tiers', 0], 'tier9'],
      ['no exit_status', ['exit_status'], DELETE],
      ['an exit status as a string', ['exit_status', 'status'], '70'],
      ['an exit status over 125', ['exit_status', 'status'], 300],
      ['an exit_status with an unknown key', ['exit_status', 'extra'], 1],
    ];
    for (const [what, path, value] of wrong) expect(isValid('result', mutated(record, path, value)), what).toBe(false);
    expect(isValid('result', mutated(record, ['hang'], null)), 'hang null').toBe(true);
    expect(isValid('result', mutated(record, ['tier3'], null)), 'tier3 null').toBe(true);
  });
});

describe('demo --json', { timeout: 60_000 }, () => {
  it('the recipe, the scan and the trial in one document, valid against demo.schema.json', async () => {
    const out = join(root, 'demo');
    const r = await cli(['demo', '--json', '--quiet', '--out', out]);
    expect(r.code).toBe(0);
    const doc = onlyJson(r.out) as { result_json: string };
    expectValid('demo', doc);
    expect(doc.result_json).toBe(join(out, 'result.json'));
    expect(isValid('demo', mutated(doc, ['scan', 'verdict'], 'maybe'))).toBe(false);
    expect(isValid('demo', mutated(doc, ['trial', 'verdict'], DELETE))).toBe(false);
  });

  it('an --out that cannot be used: the error object, exit 2', async () => {
    const r = await cli(['demo', '--json', '--quiet', '--out', '/dev/null/x']);
    expect(r.code).toBe(2);
    const doc = onlyJson(r.out) as { error: { type: string } };
    expectValid('demo', doc);
    expect(doc.error.type).toBe('TrialOutputError');
  });
});

describe("every command's --json output, errors included, is valid against its schema", { timeout: 60_000 }, () => {
  const run = (out: string, js: string) => [
    'run',
    '--json',
    '--gpu-tool',
    'none',
    '--out',
    join(root, out),
    '--',
    process.execPath,
    '-e',
    js,
  ];
  // [command, schema, args, stdin, exit code]; playground's {"url"} is in playground-cli.test.ts (it serves).
  const table: [string, string, string[], string, number][] = [
    ['check', 'check', ['check', '--json', 'fixtures/recipes/lint-four-bugs.yaml'], '', 0],
    ['check', 'check', ['check', '--json', 'fixtures/recipes/invalid-condition.yaml', 'nope.yaml'], '', 2],
    ['check', 'check', ['check', '--json'], '', 2],
    [
      'scan',
      'scan',
      ['scan', '--json', '--recipe', 'fixtures/recipes/nan-loss.yaml', 'fixtures/logs/loss-then-nan.txt'],
      '',
      1,
    ],
    ['scan', 'scan', ['scan', '--json', 'fixtures/logs/nope.txt'], '', 2],
    ['scan', 'scan', ['scan', '--json', '--bogus', 'x'], '', 2],
    ['run', 'result', run('run-pass', '0'), '', 0],
    ['run', 'result', run('run-fail', 'process.exit(4)'), '', 1],
    [
      'run',
      'result',
      ['run', '--json', '--gpu-tool', 'none', '--out', join(root, 'run-error'), '--', join(root, 'no-such-command')],
      '',
      3,
    ],
    ['run', 'result', ['run', '--json', '--timeout', '0', '--', 'true'], '', 2],
    ['run', 'result', ['run', '--json', '--recipe', 'nope.yaml', '--', 'true'], '', 2],
    ['run', 'result', ['run', '--json', '--gpu-tool', 'none', '--out', '/dev/null/x', '--', 'true'], '', 2],
    ['eval', 'eval', ['eval', '--json', 'exit_code == 0'], '', 0],
    ['eval', 'eval', ['eval', '--json', 'exit_code ** 2'], '', 1],
    ['eval', 'eval', ['eval', '--json'], '', 2],
    ['eval --disasm', 'eval', ['eval', '--json', '--disasm', 'exit_code == 0'], '', 2],
    ['eval --jsonl', 'eval', ['eval', '--jsonl'], '{"condition": "exit_code == 0", "exit_code": 0}\n', 0],
    ['eval --jsonl', 'eval', ['eval', '--jsonl'], '{"condition": "exit_code **"}\n', 0],
    ['eval --jsonl', 'eval', ['eval', '--jsonl'], 'not json\n', 0],
    ['patterns', 'patterns', ['patterns', '--json'], '', 0],
    ['patterns', 'patterns', ['patterns', '--json', '--version'], '', 0],
    ['patterns', 'patterns', ['patterns', '--json', 'x'], '', 2],
    ['--version', 'patterns', ['--version', '--json'], '', 0],
    ['list-mitigations', 'list-mitigations', ['list-mitigations', '--json'], '', 0],
    ['bundle', 'bundle', ['bundle', '--json', 'fixtures/logs'], '', 1],
    [
      'list-mitigations',
      'list-mitigations',
      ['list-mitigations', '--json', '--mitigations-file', 'fixtures/matrix/sidecar.json'],
      '',
      0,
    ],
    ['list-mitigations', 'list-mitigations', ['list-mitigations', '--json', '--mitigations-file', 'nope.json'], '', 2],
    ['playground', 'playground', ['playground', '--json', '--port', '70000'], '', 2],
    ['report', 'report', ['report', '--json', 'fixtures/logs'], '', 1],
    ['report', 'report', ['report', '--json', '--format', 'html', 'x'], '', 2],
    ['sweep', 'sweep', ['sweep', '--json', '--dry-run', '--recipe', RECIPE, '--out', 'o', '--', 'true'], '', 0],
    ['sweep', 'sweep', ['sweep', '--json', '--recipe', RECIPE, '--out', 'o'], '', 2],
    ['demo', 'demo', ['demo', '--json', '--bogus'], '', 2],
    ['an unknown command', 'error', ['chek', '--json'], '', 2],
  ];

  it.each(table)('%s → schemas/%s.schema.json: %j', async (_command, name, args, stdin, code) => {
    const r = await cli(args, stdin);
    expect(r.code).toBe(code);
    const lines = name === 'eval' && args.includes('--jsonl') ? r.out.trimEnd().split('\n') : [r.out.trimEnd()];
    for (const l of lines) {
      const doc = onlyJson(`${l}\n`);
      if (name === 'error') {
        // No command, no document of its own: {"error": ERROR}.
        expect(Object.keys(doc as object)).toEqual(['error']);
        expectValid('error', (doc as { error: unknown }).error);
      } else expectValid(name, doc);
    }
  });

  it('eval --disasm --json is refused: the listing is not JSON', async () => {
    const r = await cli(['eval', '--json', '--disasm', 'exit_code == 0']);
    expect(r.code).toBe(2);
    expect((onlyJson(r.out) as { error: { detail: string } }).error.detail).toBe(
      '--disasm prints a text listing: drop --json',
    );
  });

  it('covers every command with --json and every schema in schemas/', () => {
    const commands = new Set(table.map(([c]) => c.split(' ')[0]));
    for (const c of [
      'check',
      'scan',
      'run',
      'eval',
      'patterns',
      'list-mitigations',
      'bundle',
      'playground',
      'report',
      'sweep',
      'demo',
    ])
      expect(commands.has(c), c).toBe(true);
    // The fragments (error, detector, engine-failure, condition-errors, matrix) are reached through the documents that
    // embed them.
    const used = new Set([
      ...table.map(([, s]) => s),
      'error',
      'detector',
      'engine-failure',
      'condition-errors',
      'matrix',
    ]);
    expect(SCHEMA_FILES.filter((f) => !used.has(f.replace('.schema.json', '')))).toEqual([]);
  });
});
