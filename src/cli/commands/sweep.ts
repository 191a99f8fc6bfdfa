/**
 * `aorta-probe sweep`: a thin layer over `runSweep` / `emitSlurm` / `emitK8s` (src/sweep/): options, the progress
 * line, Ctrl-C, and the text report at the end.
 *
 * Exit status: 0 every trial passed, 1 some trial failed or erred (0 with --exit-zero), 2 usage error or unusable recipe, 3 an output
 * that could not be written, 130 stopped by Ctrl-C (128+N for signal N; interrupt.ts). With --task/--task-env: the task's exit
 * status as `run` has it (0 pass, 1 fail, 3 error, or the recipe's `exit_codes:` mapping). With --emit or
 * --dry-run: 0. With --json, stdout holds one document (sweep-json.ts), or `{"error": ...}`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RecipeSchemaError, SandboxError, withHint } from '../../condition/errors.js';
import { parseNumber, parseWithCommand, pickOne, UsageError, type OptionSpecs } from '../args.js';
import { strRepr } from '../../condition/repr.js';
import type { GpuToolChoice } from '../../gpu/index.js';
import { aggregateResults, formatReport, readResults } from '../../report/index.js';
import {
  emitK8s,
  emitSlurm,
  GPU_ENV_VARS,
  loadSweepPlan,
  parseGpuList,
  runSweep,
  TASK_EXIT,
  type SweepEvent,
  type SweepPlan,
  type SweepSummary,
} from '../../sweep/index.js';
import {
  clusterRefusal,
  clusterWarnings,
  configMapFiles,
  k8sTaskOptions,
  slurmLogDir,
  slurmTaskOptions,
  type EmitSource,
} from '../../sweep/emit-inputs.js';
import { slug } from '../../sweep/cells.js';
import { StopAfterOverlayError, type EnvPassthroughMode } from '../../sweep/plan.js';
import { disableDetectorProblem } from './run.js';
import { PlanTooLargeError, PlantedLinkError, RunDirLockedError, RunIdentityError } from '../../sweep/index.js';
import { inertLine } from '../../text/inert.js';
import { formatRunSummary } from '../../matrix/index.js';
import { MATRIX_MD } from '../../sweep/run-files.js';
import type { Command } from '../command.js';
import { listenForInterrupt, signalExitStatus } from '../interrupt.js';
import type { CommandIo } from '../io.js';
import { ProgressLine } from '../tty.js';
import { writeQuietly as write } from '../writer.js';
import { EXIT } from '../exit-status.js';
import { errorRecord, jsonLine, ReadError, WriteError } from '../json-output.js';
import { planJson, runJson, type PlanJson } from '../sweep-json.js';
import { TrialOutputError } from '../../trial/output-error.js';
import { packageInfo } from '../../trial/package-info.js';

export const SWEEP_USAGE = `Usage: aorta-probe sweep --recipe RECIPE --out DIR [options] -- CMD [ARGS...]

Runs CMD (no shell) as trials over the recipe's cells: every (mitigation_axis, diagnostic_axis) pair
is a cell named '<mitigation>-<diagnostic>', whose environment is the two values' bundles: the 18
built-ins (see 'aorta-probe list-mitigations'), the recipe's 'mitigations:' map or a
--mitigations-file ('none' sets nothing). Each cell runs 'trials'
trials (stop_after: cut short after 'events' trials with event_verdict, at most max_trials), each in
DIR/<ticket>/<cell>/trial_<n>/ (output.log, result.json), retried per 'retry:' and pruned per
'retain:'. Trials see AORTA_PROBE_CELL, AORTA_PROBE_TRIAL_INDEX and AORTA_PROBE_ATTEMPT.
Writes DIR/<ticket>/matrix.json and matrix.md (per cell the failure rate against the baseline
cell, whether the difference is real, the speed confound; rewritten as cells finish),
recipe.resolved.yaml and host_env.json, and prints the summary at the end.

  --recipe RECIPE        A 'mode: probe' recipe. Required.
  --out DIR              Output directory. Required.
  --trials N             Trials per cell, instead of the recipe's 'trials'.
  --ticket NAME          Instead of the recipe's 'ticket' (default _no_ticket_).
  --mitigations-file F   A YAML/JSON map 'name: {VAR: value}', or the original's sidecar
                         {"version": 1, "mitigations": {...}}; copied to DIR/<ticket>/sidecars/.
                         Repeatable; a name defined twice (here, built in, or in the recipe) is an
                         error.
  --parallel K           Trials running at once. Default 1.
  --gpus LIST            Devices to share out, e.g. 0,1,2,3 or 0-7 (or nvidia UUIDs): each running
                         trial gets its own, in CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES, and
                         its VRAM is sampled on those devices only.
  --gpus-per-trial G     Devices each trial holds. Default: LIST's size / K (at least 1).
  --gpu-env VARS         Comma-separated variables that get the ids, from CUDA_VISIBLE_DEVICES,
                         HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES. Default: the first two (the
                         others are removed from the trial's environment).
  --timeout SECONDS      Per trial, instead of the recipe's timeout_per_trial.
  --gpu-tool TOOL        auto, amd-smi, nvidia-smi or none (as 'run'). Default auto.
  --gpu-interval SECONDS VRAM sampling interval. Default 1.
  --fresh                DIR/<ticket> holds an earlier run: move it aside to
                         DIR/<ticket>.prev-<UTC time> (nothing is deleted) and start anew. Without
                         it, a re-run of the same sweep keeps every finished trial and runs the
                         rest (resume); a different sweep there is refused (exit 2).
  --quiet                No progress line and no report at the end.
  --dry-run              Print the cells, their environments and the command; run nothing.
  --exit-zero            Exit 0 once the sweep has run, whatever its trials' verdicts (the original's
                         behaviour). Default: 1 when a trial failed or erred. A --task keeps its
                         trial's status.
  --disable-detector TIER[:ID]
                         Turn off a tier (tier1..tier5) or one detector (tier2:hang, custom:ID) in
                         every trial, as 'run' does; repeatable, united with the recipe's
                         disable_detectors and disable_detector_tiers.
  --stop-after-events K  stop_after.events over the recipe's: stop a cell once K of its trials had
                         the recipe's event_verdict (default fail). Needs a cap: --max-trials or
                         the recipe's stop_after.max_trials.
  --max-trials N         stop_after.max_trials over the recipe's: the most trials a cell runs.
                         Needs a target: --stop-after-events or the recipe's stop_after.events.
  --env-passthrough-mode inherit|file
                         Instead of the recipe's env_passthrough_mode (default inherit). file: each
                         attempt also gets <trial dir>/probe.env, the cell's variables as KEY=VALUE
                         lines (keys sorted, mode 0600), named by AORTA_ENV_FILE; a cell whose
                         variables cannot be written so (a key with a newline, CR or '=', a value
                         with a newline) is not run: its trials are errors
                         (meta:env_file_validation_failed, exit code 2).
  --json                 Print one JSON object on stdout instead of the text (schemas/sweep.schema.json):
                         {"mode": "run", "plan", "task", "trials": [{"cell", "trial", "verdict",
                         "exit_status", "dir", "result_json", "attempts", ...}], "skipped",
                         "stopped_cells", "interrupted", "counts", "matrix", "report": (as 'report --json DIR'),
                         "exit_status"}; with --dry-run {"mode": "dry-run", "plan", "exit_status"};
                         with --emit {"mode": "emit", "plan", "emit", "emit_to", "text", "log_dir",
                         "warnings", "exit_status"}. Errors: {"error": {...}}. With --json, --quiet
                         drops only the progress line.
  -h, --help             Show this help and exit.

On a cluster (the scheduler runs the trials; each task runs 'aorta-probe sweep --task-env VAR'):
  --emit slurm|k8s       Write an sbatch array script or a Kubernetes ConfigMap + Indexed Job
                         (one task per cell and trial) instead of running anything. Refused
                         while a stop_after is in effect (the tasks run independently).
  --emit-to FILE         Where to write it. Default: standard output.
  --probe-command WORDS  How a node starts aorta-probe. Default: this installation's node and
                         script by absolute path (slurm), 'aorta-probe' (k8s).
  --sbatch OPTION        An extra '#SBATCH OPTION' line (slurm; e.g. --partition=gpu). Repeatable.
  --image IMAGE          Container image with aorta-probe and CMD (k8s; required).
  --pvc CLAIM            PersistentVolumeClaim mounted at DIR in every pod (k8s; required).
  --gpu-resource NAME    Extended resource for --gpus-per-trial (k8s). Default amd.com/gpu.
  --task N, --task-env VAR
                         Run only task N of the plan (or the index in $VAR): what a node runs.

Examples:
  aorta-probe sweep --recipe sweep.yaml --out runs --parallel 4 --gpus 0-3 -- python train.py
  aorta-probe sweep --recipe sweep.yaml --out /shared/runs --emit slurm --emit-to sweep.sbatch -- ./job.sh

Resume: DIR/<ticket>/run.json records the sweep's identity (recipe sha256, command, cells and their
environments, trials per cell). Running the same sweep again keeps each trial whose result.json is
complete and runs only the rest; a --task whose trial is complete exits at once with its recorded
status. A local sweep holds DIR/<ticket>/.aorta-probe.lock; a second sweep there exits 2. If this
process dies (even by SIGKILL), a watchdog ends its running trials within 5 s.

Exit status: 0 every trial passed, 1 some trial failed or erred (a deliberate difference from the
original, which exits 0: --exit-zero does so), 2 usage error, invalid recipe,
a locked run directory or a different sweep in it, 3 an output that could not be written (or a
directory of the run replaced by a link), 130 interrupted by Ctrl-C (a second Ctrl-C kills the
running trials). --task: 0 pass, 1 fail, 3 error. --dry-run, --emit: 0.
`;

export interface SweepArgs {
  readonly help: boolean;
  readonly recipe: string;
  readonly out: string;
  readonly trials: number | undefined;
  readonly ticket: string | undefined;
  readonly mitigationsFiles: readonly string[];
  readonly parallel: number;
  readonly gpus: readonly string[] | undefined;
  readonly gpusPerTrial: number | undefined;
  readonly gpuEnv: readonly string[] | undefined;
  readonly timeoutSec: number | undefined;
  readonly gpuTool: GpuToolChoice;
  readonly gpuIntervalMs: number | undefined;
  readonly quiet: boolean;
  readonly fresh: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly emit: 'slurm' | 'k8s' | undefined;
  readonly emitTo: string | undefined;
  readonly probeCommand: readonly string[] | undefined;
  readonly sbatch: readonly string[];
  readonly image: string | undefined;
  readonly pvc: string | undefined;
  readonly gpuResource: string | undefined;
  readonly task: number | undefined;
  readonly taskEnv: string | undefined;
  readonly exitZero: boolean;
  readonly disableDetectors: readonly string[];
  readonly stopAfterEvents: number | undefined;
  readonly maxTrials: number | undefined;
  readonly envPassthroughMode: EnvPassthroughMode | undefined;
  readonly argv: readonly string[];
  /**
   * The options as given that a cluster task must repeat (--trials, --ticket, --timeout, --gpu-*,
   * --disable-detector, --stop-after-events, --max-trials, --env-passthrough-mode).
   */
  readonly passThrough: readonly string[];
}

export const SWEEP_OPTIONS = {
  recipe: { type: 'string', metavar: 'RECIPE' },
  out: { type: 'string', metavar: 'DIR' },
  trials: { type: 'string', metavar: 'N' },
  ticket: { type: 'string', metavar: 'NAME' },
  'mitigations-file': { type: 'string', multiple: true, metavar: 'F' },
  parallel: { type: 'string', metavar: 'K' },
  gpus: { type: 'string', metavar: 'LIST' },
  'gpus-per-trial': { type: 'string', metavar: 'G' },
  'gpu-env': { type: 'string', metavar: 'VARS' },
  timeout: { type: 'string', metavar: 'SECONDS' },
  'gpu-tool': { type: 'string', metavar: 'TOOL' },
  'gpu-interval': { type: 'string', metavar: 'SECONDS' },
  quiet: { type: 'boolean' },
  fresh: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  emit: { type: 'string', metavar: 'slurm|k8s' },
  'emit-to': { type: 'string', metavar: 'FILE' },
  'probe-command': { type: 'string', metavar: 'WORDS' },
  // `--sbatch --partition=gpu`: the value is an sbatch option.
  sbatch: { type: 'string', multiple: true, metavar: 'OPTION', optionLikeValue: true },
  image: { type: 'string', metavar: 'IMAGE' },
  pvc: { type: 'string', metavar: 'CLAIM' },
  'gpu-resource': { type: 'string', metavar: 'NAME' },
  task: { type: 'string', metavar: 'N' },
  'task-env': { type: 'string', metavar: 'VAR' },
  'exit-zero': { type: 'boolean' },
  'disable-detector': { type: 'string', multiple: true, metavar: 'TIER[:ID]' },
  'stop-after-events': { type: 'string', metavar: 'K' },
  'max-trials': { type: 'string', metavar: 'N' },
  'env-passthrough-mode': { type: 'string', metavar: 'inherit|file' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;
/** The options as given that a cluster task must repeat. */
const PASS_THROUGH = [
  'trials',
  'ticket',
  'timeout',
  'gpu-tool',
  'gpu-interval',
  'stop-after-events',
  'max-trials',
  'env-passthrough-mode',
] as const;
const ENV_PASSTHROUGH_MODES: readonly EnvPassthroughMode[] = ['inherit', 'file'];
const GPU_TOOLS: readonly GpuToolChoice[] = ['auto', 'amd-smi', 'nvidia-smi', 'none'];
const EMITTERS = ['slurm', 'k8s'] as const;

const positiveInt = (name: string, v: string): number => parseNumber(name, v, { integer: true, positive: true });
const positiveSeconds = (name: string, v: string): number => parseNumber(name, v, { positive: true, unit: 'seconds' });

export function parseSweepArgs(args: readonly string[]): SweepArgs {
  const parsed = parseWithCommand(args, SWEEP_OPTIONS);
  if (parsed === null) return { ...emptyArgs(), help: true };
  const v = parsed.values;
  const passThrough = [
    ...PASS_THROUGH.flatMap((n) => (v[n] === undefined ? [] : [`--${n}`, v[n]])),
    ...(v['disable-detector'] ?? []).flatMap((t) => ['--disable-detector', t]),
  ];
  const recipe = v.recipe;
  const out = v.out;
  if (recipe === undefined) throw new UsageError("missing option '--recipe'");
  if (out === undefined) throw new UsageError("missing option '--out'");
  const emit = v.emit === undefined ? undefined : pickOne('--emit', EMITTERS, v.emit);
  const gpuTool = pickOne('--gpu-tool', GPU_TOOLS, v['gpu-tool'] ?? 'auto');
  let gpus: string[] | undefined;
  if (v.gpus !== undefined) {
    try {
      gpus = parseGpuList(v.gpus);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const gpuEnv = v['gpu-env']?.split(',').map((s) => s.trim());
  for (const e of gpuEnv ?? [])
    if (!GPU_ENV_VARS.includes(e)) throw new UsageError(`--gpu-env: '${e}' is not one of ${GPU_ENV_VARS.join(', ')}`);
  const gpusPerTrial =
    v['gpus-per-trial'] === undefined ? undefined : positiveInt('--gpus-per-trial', v['gpus-per-trial']);
  const parallel = v.parallel === undefined ? 1 : positiveInt('--parallel', v.parallel);
  if (gpus !== undefined && gpusPerTrial !== undefined && gpusPerTrial > gpus.length) {
    throw new UsageError(`--gpus-per-trial ${gpusPerTrial} is more than the ${gpus.length} devices in --gpus`);
  }
  const task = v.task === undefined ? undefined : parseNumber('--task', v.task, { integer: true, min: 0 });
  const taskEnv = v['task-env'];
  if (task !== undefined && taskEnv !== undefined) throw new UsageError('--task and --task-env exclude each other');
  if (v.fresh === true && (emit !== undefined || v.task !== undefined || taskEnv !== undefined))
    throw new UsageError(
      '--fresh applies to a local sweep only (a cluster task must not move the run its siblings write; move DIR/<ticket> aside before submitting)',
    );
  if (emit === 'k8s' && (v.image === undefined || v.pvc === undefined))
    throw new UsageError('--emit k8s needs --image and --pvc');
  const probeCommand = v['probe-command']?.split(/\s+/).filter((w) => w !== '');
  return {
    help: false,
    recipe,
    out,
    trials: v.trials === undefined ? undefined : positiveInt('--trials', v.trials),
    ticket: v.ticket,
    mitigationsFiles: v['mitigations-file'] ?? [],
    parallel,
    gpus,
    gpusPerTrial,
    gpuEnv,
    timeoutSec: v.timeout === undefined ? undefined : positiveSeconds('--timeout', v.timeout),
    gpuTool,
    gpuIntervalMs:
      v['gpu-interval'] === undefined
        ? undefined
        : Math.round(positiveSeconds('--gpu-interval', v['gpu-interval']) * 1000),
    quiet: v.quiet === true,
    fresh: v.fresh === true,
    dryRun: v['dry-run'] === true,
    json: v.json === true,
    emit,
    emitTo: v['emit-to'],
    probeCommand,
    sbatch: v.sbatch ?? [],
    image: v.image,
    pvc: v.pvc,
    gpuResource: v['gpu-resource'],
    task,
    taskEnv,
    exitZero: v['exit-zero'] === true,
    disableDetectors: v['disable-detector'] ?? [],
    stopAfterEvents:
      v['stop-after-events'] === undefined ? undefined : positiveInt('--stop-after-events', v['stop-after-events']),
    maxTrials: v['max-trials'] === undefined ? undefined : positiveInt('--max-trials', v['max-trials']),
    envPassthroughMode:
      v['env-passthrough-mode'] === undefined
        ? undefined
        : pickOne('--env-passthrough-mode', ENV_PASSTHROUGH_MODES, v['env-passthrough-mode']),
    argv: parsed.command,
    passThrough,
  };
}

function emptyArgs(): SweepArgs {
  return {
    help: false,
    recipe: '',
    out: '',
    trials: undefined,
    ticket: undefined,
    mitigationsFiles: [],
    parallel: 1,
    gpus: undefined,
    gpusPerTrial: undefined,
    gpuEnv: undefined,
    timeoutSec: undefined,
    gpuTool: 'auto',
    gpuIntervalMs: undefined,
    quiet: false,
    fresh: false,
    dryRun: false,
    json: false,
    emit: undefined,
    emitTo: undefined,
    probeCommand: undefined,
    sbatch: [],
    image: undefined,
    pvc: undefined,
    gpuResource: undefined,
    task: undefined,
    taskEnv: undefined,
    exitZero: false,
    disableDetectors: [],
    stopAfterEvents: undefined,
    maxTrials: undefined,
    envPassthroughMode: undefined,
    argv: [],
    passThrough: [],
  };
}

/**
 * This installation's `node dist/src/cli/main.cjs`, by absolute path (nodes on a shared file system run the same).
 * Found from the package's root: this module is a chunk beside the bin in the bundle, one folder below it in tsc's
 * output.
 */
function thisProbeCommand(): string[] {
  const root = packageInfo().root;
  return [
    process.execPath,
    root === null
      ? resolve(fileURLToPath(import.meta.url), '..', 'main.cjs')
      : join(root, 'dist', 'src', 'cli', 'main.cjs'),
  ];
}

export async function runSweepCommand(args: SweepArgs, io: CommandIo): Promise<number> {
  const env = io.env;
  // A sweep that cannot do its job: the one message on stderr, and with --json the error object on stdout.
  const refuse = async (err: unknown, text: string, code: number): Promise<number> => {
    if (args.json) await write(io.stdout, jsonLine({ error: errorRecord(err) }));
    await write(io.stderr, text);
    return code;
  };
  const refuseUsage = (message: string): Promise<number> =>
    refuse(new UsageError(message), `aorta-probe sweep: ${message}\n`, TASK_EXIT.usage);
  let task = args.task;
  if (args.taskEnv !== undefined) {
    const v = env[args.taskEnv];
    try {
      if (v === undefined) throw new UsageError('not set');
      task = parseNumber(`$${args.taskEnv}`, v, { integer: true, min: 0 });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return refuseUsage(`--task-env ${args.taskEnv}: ${v === undefined ? 'the variable is not set' : err.message}`);
    }
  }
  let plan: SweepPlan;
  try {
    plan = await loadSweepPlan(args.recipe, {
      trials: args.trials,
      ticket: args.ticket,
      mitigationsFiles: args.mitigationsFiles,
      stopAfterEvents: args.stopAfterEvents,
      maxTrials: args.maxTrials,
      envPassthroughMode: args.envPassthroughMode,
    });
  } catch (err) {
    if (err instanceof RecipeSchemaError || err instanceof SandboxError)
      return refuse(err, `${err instanceof SandboxError ? withHint(err) : err.message}\n`, TASK_EXIT.usage);
    if (err instanceof PlanTooLargeError || err instanceof StopAfterOverlayError) return refuseUsage(err.message);
    const path = (err as NodeJS.ErrnoException).path;
    if ((err as NodeJS.ErrnoException).code !== undefined) {
      const read = new ReadError(path ?? args.recipe, err);
      return refuse(read, `aorta-probe sweep: ${read.message}\n`, TASK_EXIT.usage);
    }
    throw err;
  }
  // As 'run' checks them: a custom:ID must name one of the recipe's patterns.
  const disableProblem = disableDetectorProblem(args.disableDetectors, plan.recipe);
  if (disableProblem !== null) return refuseUsage(disableProblem);
  if (task !== undefined && task >= plan.tasks.length)
    return refuseUsage(`task ${task} is outside the plan's 0..${plan.tasks.length - 1}`);
  const planDoc = planJson(plan, args.out, args.argv);
  if (args.dryRun) {
    if (args.json) {
      await write(io.stdout, jsonLine({ mode: 'dry-run', plan: planDoc, exit_status: EXIT.ok }));
      return EXIT.ok;
    }
    let out = `${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${plan.tasks.length} trials, ticket ${inertLine(strRepr(plan.ticket))}\n`;
    for (const c of plan.cells) {
      // Values are the recipe's: a control character in one must not reach the terminal as itself.
      const envText = c.env.size === 0 ? '(no env)' : [...c.env].map(([k, v]) => `${k}=${inertLine(v)}`).join(' ');
      out += `  ${c.name}: env=[${envText}] argv=[${args.argv.map((a) => inertLine(strRepr(a))).join(', ')}]\n`;
    }
    await write(io.stdout, out);
    return EXIT.ok;
  }
  if (args.emit !== undefined) return emitCommand(args, plan, planDoc, io, refuse);

  // Ctrl-C reaches only us (each trial runs in its own session): stop launching, interrupt the running trials.
  const progressTo = args.quiet ? null : io.progressStream();
  const progress = progressTo === null ? null : new ProgressLine(progressTo, 0);
  const interruption = listenForInterrupt((signal) => {
    progress?.clear();
    io.stderr.write(
      `aorta-probe sweep: ${signal}: stopping; finished trials are complete${signal === 'SIGINT' ? ' (Ctrl-C again to kill the running trials)' : ''}\n`,
    );
  });
  const started = performance.now();
  const total = task === undefined ? plan.tasks.length : 1;
  const counts = { pass: 0, fail: 0, error: 0 };
  let running = 0;
  let done = 0;
  const cellsDone = new Set<string>();
  let resumed = 0;
  const onEvent = (e: SweepEvent): void => {
    if (e.type === 'resumed') {
      resumed++;
      done++;
      counts[e.trial.verdict]++;
    }
    if (e.type === 'start' && e.attempt === 1) running++;
    if (e.type === 'end') {
      running--;
      done++;
      counts[e.trial.verdict]++;
      if (!e.trial.interrupted && e.trial.task.trial === plan.trialsPerCell - 1) cellsDone.add(e.trial.task.cell.name);
    }
    if (e.type === 'stop-cell') cellsDone.add(e.cell);
    if (progress !== null) {
      const elapsed = performance.now() - started;
      const eta = done === 0 ? '' : ` · ETA ${duration((elapsed / done) * (total - done))}`;
      progress.update(
        elapsed,
        () =>
          `cells ${cellsDone.size}/${plan.cells.length} · trials ${done}/${total} · pass ${counts.pass} fail ${counts.fail} error ${counts.error} · running ${running}${eta}`,
      );
    }
  };
  let summary: SweepSummary;
  try {
    summary = await runSweep({
      plan,
      argv: args.argv,
      outDir: args.out,
      parallel: args.parallel,
      taskIndex: task,
      env,
      gpus:
        args.gpus === undefined ? undefined : { devices: args.gpus, perTrial: args.gpusPerTrial, envVars: args.gpuEnv },
      trial: {
        timeoutSec: args.timeoutSec,
        gpuTool: args.gpuTool,
        gpuIntervalMs: args.gpuIntervalMs,
        disableDetectors: args.disableDetectors,
      },
      signal: interruption.signal,
      forceKill: interruption.forceKill,
      onEvent,
      fresh: args.fresh,
      sidecars: args.mitigationsFiles,
      onWarning: (message) => {
        progress?.clear();
        io.stderr.write(`aorta-probe sweep: warning: ${message}\n`);
      },
    });
  } catch (err) {
    if (err instanceof RangeError) return refuseUsage(err.message);
    // Another sweep holds the run, or the run there is a different sweep: nothing was started.
    if (err instanceof RunDirLockedError || err instanceof RunIdentityError)
      return refuse(err, `aorta-probe sweep: ${err.message}\n`, EXIT.usage);
    if (err instanceof PlantedLinkError) return refuse(err, `aorta-probe sweep: ${err.message}\n`, EXIT.error);
    // A trial directory that cannot be made: the output directory is wrong (2), as for `run`; later, an I/O failure.
    if (err instanceof TrialOutputError)
      return refuse(err, `aorta-probe sweep: ${err.message}\n`, err.beforeStart ? EXIT.usage : EXIT.error);
    // Any other file-system failure under DIR (a trial directory that cannot be cleared or set aside).
    const path = (err as NodeJS.ErrnoException).path;
    if ((err as NodeJS.ErrnoException).code !== undefined && path !== undefined) {
      const e = new WriteError(path, err);
      return refuse(e, `aorta-probe sweep: ${e.message}\n`, EXIT.error);
    }
    throw err;
  } finally {
    interruption.dispose();
    progress?.clear();
  }
  const status = sweepExit(summary, task, interruption.stoppedBy(), args.exitZero);
  if (task !== undefined) {
    // One task of many: the others are still running, so a report of DIR would be partial.
    if (args.json) await write(io.stdout, jsonLine(runJson(planDoc, summary, task, null, status)));
    else if (!args.quiet)
      for (const t of summary.trials)
        await write(
          io.stdout,
          `${t.task.cell.name}/trial_${t.task.trial}: ${t.verdict} (${t.resumed ? 'finished earlier, kept' : `${t.attempts.length} attempt${t.attempts.length === 1 ? '' : 's'}`}) ${inertLine(t.dir)}\n`,
        );
  } else if (args.json || !args.quiet) {
    // The ticket's directory as --out was given, so the report's paths are those `report DIR/TICKET` shows. Only
    // records this run stamped count: a trial can write result.json files anywhere it can write.
    const { records, problems, earlierAttempts, unfinished } = plannedOnly(
      await readResults([join(args.out, slug(plan.ticket))], { runId: summary.runId }),
      plan,
    );
    const report = await aggregateResults(records, { problems, earlierAttempts, unfinished, matrix: summary.matrix });
    if (args.json) await write(io.stdout, jsonLine(runJson(planDoc, summary, task, report, status)));
    else {
      // The original's end-of-run summary (its answer: which cell differs from the baseline), then ours.
      const runDir = join(args.out, slug(plan.ticket));
      let text =
        summary.matrix === null
          ? formatReport('text', report, records)
          : formatRunSummary(summary.matrix, { matrixPath: join(runDir, MATRIX_MD), runDir });
      if (summary.stoppedCells.length > 0) text += `stop_after: ${summary.stoppedCells.join(', ')} stopped early\n`;
      if (summary.skipped.length > 0) text += `${summary.skipped.length} trials not run\n`;
      if (resumed > 0)
        text += `${resumed} trial${resumed === 1 ? '' : 's'} finished by an earlier run of this sweep ${resumed === 1 ? 'was' : 'were'} kept (resume; --fresh starts anew)\n`;
      if (summary.movedAside !== null) text += `the earlier run was moved to ${inertLine(summary.movedAside)}\n`;
      text += `Per-cell detectors and example lines: aorta-probe report ${inertLine(runDir)}\n`;
      await write(io.stdout, text);
    }
  }
  return status;
}

/**
 * The records of the plan's own trials: a trial can read the run id in run.json and write a record with it at
 * any `<cell>/trial_<n>/` it invents, so a record counts only at a (cell, trial) the plan has.
 */
function plannedOnly(read: Awaited<ReturnType<typeof readResults>>, plan: SweepPlan): typeof read {
  const planned = new Set(plan.tasks.map((t) => `${t.cell.name}/trial_${t.trial}`));
  const records: typeof read.records = [];
  const problems = [...read.problems];
  for (const r of read.records) {
    const trialDir = dirname(r.path);
    if (planned.has(`${basename(dirname(trialDir))}/${basename(trialDir)}`)) records.push(r);
    else problems.push({ path: r.path, reason: "not a trial of this sweep's plan" });
  }
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)); // as readResults lists them
  return { ...read, records, problems };
}

/**
 * The sweep's exit status: 128+N when stopped by signal N; one task's as `run` has it; else 1 if any trial did not
 * pass, 0 with `exitZero` (the original's: a sweep that ran exits 0 whatever its verdicts).
 */
function sweepExit(
  summary: SweepSummary,
  task: number | undefined,
  stoppedBy: NodeJS.Signals | null,
  exitZero: boolean,
): number {
  if (summary.interrupted && stoppedBy !== null) return signalExitStatus(stoppedBy);
  // One task: its trial's status as `run` would exit, so the recipe's exit_codes: reach the scheduler
  // (the Job's podFailurePolicy is built from the same map).
  if (task !== undefined) return summary.trials[0]?.exitStatus ?? TASK_EXIT.error;
  return summary.counts.fail + summary.counts.error > 0 && !exitZero ? 1 : 0;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

async function emitCommand(
  args: SweepArgs,
  plan: SweepPlan,
  planDoc: PlanJson,
  io: CommandIo,
  refuse: (err: unknown, text: string, code: number) => Promise<number>,
): Promise<number> {
  const refusal = clusterRefusal(plan, args.emit!);
  if (refusal !== null) return refuse(new UsageError(refusal), `aorta-probe sweep: ${refusal}\n`, EXIT.usage);
  const warnings = clusterWarnings(plan);
  for (const w of warnings) await write(io.stderr, `aorta-probe sweep: warning: ${w}\n`);
  const source: EmitSource = {
    recipe: args.recipe,
    mitigationsFiles: args.mitigationsFiles,
    outDir: args.out,
    passThrough: args.passThrough,
    argv: args.argv,
  };
  let text: string;
  let logDir: string | null = null;
  if (args.emit === 'slurm') {
    logDir = slurmLogDir(args.out);
    try {
      text = emitSlurm(plan, {
        ...slurmTaskOptions(source, args.probeCommand ?? thisProbeCommand()),
        parallel: args.parallel === 1 ? undefined : args.parallel,
        gpusPerTrial: args.gpusPerTrial,
        sbatch: args.sbatch,
      });
    } catch (err) {
      // An --out or --sbatch value no #SBATCH line can carry (SbatchValueError): refused before anything is made.
      if (!(err instanceof RangeError)) throw err;
      return refuse(new UsageError(err.message), `aorta-probe sweep: ${err.message}\n`, EXIT.usage);
    }
    try {
      mkdirSync(resolve(logDir), { recursive: true }); // sbatch does not create the --output directory
    } catch (err) {
      const e = new WriteError(logDir, err);
      return refuse(e, `aorta-probe sweep: ${e.message}\n`, EXIT.error);
    }
  } else {
    // In the pod the recipe files come from the ConfigMap, the results go to the volume mounted at --out.
    const read = configMapFiles(source);
    if ('unreadable' in read) {
      const e = new ReadError(read.unreadable, read.error);
      return refuse(e, `aorta-probe sweep: ${e.message}\n`, EXIT.usage);
    }
    text = emitK8s(plan, {
      ...k8sTaskOptions(source, read.files, args.probeCommand ?? ['aorta-probe']),
      image: args.image!,
      pvc: args.pvc!,
      parallel: args.parallel,
      gpusPerTrial: args.gpusPerTrial,
      gpuResource: args.gpuResource,
      files: read.files,
    }).text;
  }
  if (args.emitTo !== undefined) {
    try {
      writeFileSync(args.emitTo, text, { mode: args.emit === 'slurm' ? 0o755 : 0o644 });
    } catch (err) {
      const e = new WriteError(args.emitTo, err);
      return refuse(e, `aorta-probe sweep: ${e.message}\n`, EXIT.error);
    }
  }
  if (args.json) {
    // Without --emit-to the script is the document's `text`: stdout holds only the JSON.
    await write(
      io.stdout,
      jsonLine({
        mode: 'emit',
        plan: planDoc,
        emit: args.emit,
        emit_to: args.emitTo ?? null,
        text: args.emitTo === undefined ? text : null,
        log_dir: logDir,
        warnings,
        exit_status: EXIT.ok,
      }),
    );
  } else if (args.emitTo === undefined) await write(io.stdout, text);
  if (args.emitTo !== undefined)
    await write(io.stderr, `aorta-probe sweep: wrote ${args.emitTo} (${plan.tasks.length} tasks)\n`);
  return EXIT.ok;
}

export const command: Command<SweepArgs> = {
  name: 'sweep',
  usage: SWEEP_USAGE,
  parse: parseSweepArgs,
  run: runSweepCommand,
};
