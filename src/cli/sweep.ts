/**
 * `aorta-probe sweep`: a thin layer over `runSweep` / `emitSlurm` / `emitK8s` (src/sweep/): options, the progress
 * line, Ctrl-C, and the text report at the end.
 *
 * Exit status: 0 every trial passed, 1 some trial failed or erred, 2 usage error or unusable recipe, 130 stopped
 * by Ctrl-C (128+N for signal N). With --task/--task-env: the task's exit status as `run` has it (0 pass, 1 fail,
 * 3 error, or the recipe's `exit_codes:` mapping). With --emit or --dry-run: 0.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import { RecipeSchemaError } from '../condition/errors.js';
import { UsageError } from './args.js';
import { strRepr } from '../condition/repr.js';
import type { GpuToolChoice } from '../gpu/index.js';
import { aggregateResults, formatReport, readResults } from '../report/index.js';
import {
  CONFIG_MOUNT,
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
  type TaskCommandOptions,
} from '../sweep/index.js';
import { slug } from '../sweep/cells.js';
import { isTty, ProgressLine } from './tty.js';

export const SWEEP_USAGE = `Usage: aorta-probe sweep --recipe RECIPE --out DIR [options] -- CMD [ARGS...]

Runs CMD (no shell) as trials over the recipe's cells: every (mitigation_axis, diagnostic_axis) pair
is a cell named '<mitigation>-<diagnostic>', whose environment is the two values' bundles from the
recipe's 'mitigations:' map (or --mitigations-file; 'none' sets nothing). Each cell runs 'trials'
trials (stop_after: cut short after 'events' trials with event_verdict, at most max_trials), each in
DIR/<ticket>/<cell>/trial_<n>/ (output.log, result.json), retried per 'retry:' and pruned per
'retain:'. Trials see AORTA_PROBE_CELL, AORTA_PROBE_TRIAL_INDEX and AORTA_PROBE_ATTEMPT.
Prints the report of DIR at the end (see 'aorta-probe report').

  --recipe RECIPE        A 'mode: probe' recipe. Required.
  --out DIR              Output directory. Required.
  --trials N             Trials per cell, instead of the recipe's 'trials'.
  --ticket NAME          Instead of the recipe's 'ticket' (default _no_ticket_).
  --mitigations-file F   A YAML/JSON map 'name: {VAR: value}'. Repeatable; the recipe's own
                         'mitigations:' wins over it.
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
  --quiet                No progress line and no report at the end.
  --dry-run              Print the cells, their environments and the command; run nothing.
  -h, --help             Show this help and exit.

On a cluster (the scheduler runs the trials; each task runs 'aorta-probe sweep --task-env VAR'):
  --emit slurm|k8s       Write an sbatch array script or a Kubernetes ConfigMap + Indexed Job
                         (one task per cell and trial) instead of running anything.
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

Exit status: 0 every trial passed, 1 some trial failed or erred, 2 usage error or invalid recipe,
130 interrupted by Ctrl-C (a second Ctrl-C kills the running trials). --task: 0 pass, 1 fail, 3 error.
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
  readonly dryRun: boolean;
  readonly emit: 'slurm' | 'k8s' | undefined;
  readonly emitTo: string | undefined;
  readonly probeCommand: readonly string[] | undefined;
  readonly sbatch: readonly string[];
  readonly image: string | undefined;
  readonly pvc: string | undefined;
  readonly gpuResource: string | undefined;
  readonly task: number | undefined;
  readonly taskEnv: string | undefined;
  readonly argv: readonly string[];
  /** The options as given that a cluster task must repeat (--trials, --ticket, --timeout, --gpu-*). */
  readonly passThrough: readonly string[];
}

const VALUE_OPTIONS = [
  '--recipe',
  '--out',
  '--trials',
  '--ticket',
  '--mitigations-file',
  '--parallel',
  '--gpus',
  '--gpus-per-trial',
  '--gpu-env',
  '--timeout',
  '--gpu-tool',
  '--gpu-interval',
  '--emit',
  '--emit-to',
  '--probe-command',
  '--sbatch',
  '--image',
  '--pvc',
  '--gpu-resource',
  '--task',
  '--task-env',
];
const REPEATABLE = ['--mitigations-file', '--sbatch'];
const PASS_THROUGH = ['--trials', '--ticket', '--timeout', '--gpu-tool', '--gpu-interval'];
const GPU_TOOLS: readonly GpuToolChoice[] = ['auto', 'amd-smi', 'nvidia-smi', 'none'];
const SYNOPSIS = 'Usage: aorta-probe sweep --recipe RECIPE --out DIR [options] -- CMD [ARGS...]';
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function positiveInt(name: string, v: string, min = 1): number {
  if (!/^\d+$/.test(v) || Number(v) < min)
    throw new UsageError(`${name} must be an integer >= ${min}, got '${v}'`);
  return Number(v);
}

function positiveSeconds(name: string, v: string): number {
  const n = Number(v);
  if (!DECIMAL.test(v) || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${name} must be a positive number of seconds, got '${v}'`);
  return n;
}

export function parseSweepArgs(args: readonly string[]): SweepArgs {
  const sep = args.indexOf('--');
  const own = sep === -1 ? args : args.slice(0, sep);
  if (own.includes('-h') || own.includes('--help')) return { ...emptyArgs(), help: true };
  const values = new Map<string, string[]>();
  const passThrough: string[] = [];
  let quiet = false;
  let dryRun = false;
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg === '--quiet') {
      quiet = true;
      continue;
    }
    if (arg === '--dry-run') {
      dryRun = true;
      continue;
    }
    if (!arg.startsWith('-')) {
      throw new UsageError(
        sep === -1
          ? `missing '--' separator: the command must come after a literal '--' (got '${arg}'). ${SYNOPSIS}`
          : `unexpected argument '${arg}' before '--'`,
      );
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!VALUE_OPTIONS.includes(name)) throw new UsageError(`unknown option '${name}'`);
    if (values.has(name) && !REPEATABLE.includes(name)) throw new UsageError(`${name} is given more than once`);
    const value = eq !== -1 ? arg.slice(eq + 1) : own[++i];
    if (value === undefined) throw new UsageError(`option '${name}' needs a value`);
    if (eq === -1 && value.startsWith('--') && name !== '--sbatch') {
      throw new UsageError(
        `${name}: value '${value}' looks like another option. Did you forget to set a variable or to quote the value? (common cause: '${name} $VAR' where $VAR is unset)`,
      );
    }
    values.set(name, [...(values.get(name) ?? []), value]);
    if (PASS_THROUGH.includes(name)) passThrough.push(name, value);
  }
  const one = (n: string): string | undefined => values.get(n)?.[0];
  const recipe = one('--recipe');
  const out = one('--out');
  if (recipe === undefined) throw new UsageError(`missing option '--recipe'. ${SYNOPSIS}`);
  if (out === undefined) throw new UsageError(`missing option '--out'. ${SYNOPSIS}`);
  const emit = one('--emit');
  if (emit !== undefined && emit !== 'slurm' && emit !== 'k8s')
    throw new UsageError(`--emit must be slurm or k8s, got '${emit}'`);
  const gpuTool = one('--gpu-tool') ?? 'auto';
  if (!(GPU_TOOLS as readonly string[]).includes(gpuTool))
    throw new UsageError(`--gpu-tool must be one of ${GPU_TOOLS.join(', ')}, got '${gpuTool}'`);
  let gpus: string[] | undefined;
  const gpuText = one('--gpus');
  if (gpuText !== undefined) {
    try {
      gpus = parseGpuList(gpuText);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const gpuEnvText = one('--gpu-env');
  const gpuEnv = gpuEnvText?.split(',').map((s) => s.trim());
  for (const v of gpuEnv ?? [])
    if (!GPU_ENV_VARS.includes(v))
      throw new UsageError(`--gpu-env: '${v}' is not one of ${GPU_ENV_VARS.join(', ')}`);
  const gpusPerTrialText = one('--gpus-per-trial');
  const gpusPerTrial = gpusPerTrialText === undefined ? undefined : positiveInt('--gpus-per-trial', gpusPerTrialText);
  const parallel = one('--parallel') === undefined ? 1 : positiveInt('--parallel', one('--parallel')!);
  if (gpus !== undefined && gpusPerTrial !== undefined && gpusPerTrial > gpus.length) {
    throw new UsageError(`--gpus-per-trial ${gpusPerTrial} is more than the ${gpus.length} devices in --gpus`);
  }
  const task = one('--task') === undefined ? undefined : positiveInt('--task', one('--task')!, 0);
  const taskEnv = one('--task-env');
  if (task !== undefined && taskEnv !== undefined)
    throw new UsageError('--task and --task-env exclude each other');
  if (emit === 'k8s' && (one('--image') === undefined || one('--pvc') === undefined))
    throw new UsageError('--emit k8s needs --image and --pvc');
  const argv = sep === -1 ? [] : args.slice(sep + 1);
  if (sep === -1)
    throw new UsageError(`missing '--' separator: the command must come after a literal '--'. ${SYNOPSIS}`);
  if (argv.length === 0) throw new UsageError(`no command after '--'. ${SYNOPSIS}`);
  if (argv[0]!.startsWith('-'))
    throw new UsageError(
      `the command starts with '${argv[0]}', which looks like an option. Put aorta-probe's options before '--' and the command after it.`,
    );
  const probeCommand = one('--probe-command')
    ?.split(/\s+/)
    .filter((w) => w !== '');
  return {
    help: false,
    recipe,
    out,
    trials: one('--trials') === undefined ? undefined : positiveInt('--trials', one('--trials')!),
    ticket: one('--ticket'),
    mitigationsFiles: values.get('--mitigations-file') ?? [],
    parallel,
    gpus,
    gpusPerTrial,
    gpuEnv,
    timeoutSec: one('--timeout') === undefined ? undefined : positiveSeconds('--timeout', one('--timeout')!),
    gpuTool: gpuTool as GpuToolChoice,
    gpuIntervalMs:
      one('--gpu-interval') === undefined
        ? undefined
        : Math.round(positiveSeconds('--gpu-interval', one('--gpu-interval')!) * 1000),
    quiet,
    dryRun,
    emit,
    emitTo: one('--emit-to'),
    probeCommand,
    sbatch: values.get('--sbatch') ?? [],
    image: one('--image'),
    pvc: one('--pvc'),
    gpuResource: one('--gpu-resource'),
    task,
    taskEnv,
    argv,
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
    dryRun: false,
    emit: undefined,
    emitTo: undefined,
    probeCommand: undefined,
    sbatch: [],
    image: undefined,
    pvc: undefined,
    gpuResource: undefined,
    task: undefined,
    taskEnv: undefined,
    argv: [],
    passThrough: [],
  };
}

export interface SweepIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env?: NodeJS.ProcessEnv;
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((res) => {
    if (stream.destroyed) return res();
    const onError = (): void => res();
    stream.once('error', onError);
    stream.write(text, (err) => {
      if (!err) stream.off('error', onError);
      res();
    });
  });
}

/** This installation's `node dist/src/cli/main.js`, by absolute path (nodes on a shared file system run the same). */
function thisProbeCommand(): string[] {
  return [process.execPath, resolve(fileURLToPath(import.meta.url), '..', 'main.js')];
}

export async function runSweepCommand(args: SweepArgs, io: SweepIo): Promise<number> {
  const env = io.env ?? process.env;
  let task = args.task;
  if (args.taskEnv !== undefined) {
    const v = env[args.taskEnv];
    if (v === undefined || !/^\d+$/.test(v)) {
      await write(
        io.stderr,
        `aorta-probe sweep: --task-env ${args.taskEnv}: the variable is ${v === undefined ? 'not set' : `'${v}', not a task index`}\n`,
      );
      return TASK_EXIT.usage;
    }
    task = Number(v);
  }
  let plan: SweepPlan;
  try {
    plan = await loadSweepPlan(args.recipe, {
      trials: args.trials,
      ticket: args.ticket,
      mitigationsFiles: args.mitigationsFiles,
    });
  } catch (err) {
    if (err instanceof RecipeSchemaError) await write(io.stderr, `${err.message}\n`);
    else if ((err as NodeJS.ErrnoException).code !== undefined)
      await write(
        io.stderr,
        `aorta-probe sweep: cannot read ${(err as NodeJS.ErrnoException).path ?? args.recipe}: ${(err as Error).message}\n`,
      );
    else throw err;
    return TASK_EXIT.usage;
  }
  if (task !== undefined && task >= plan.tasks.length) {
    await write(io.stderr, `aorta-probe sweep: task ${task} is outside the plan's 0..${plan.tasks.length - 1}\n`);
    return TASK_EXIT.usage;
  }
  if (args.dryRun) {
    let out = `${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${plan.tasks.length} trials, ticket ${strRepr(plan.ticket)}\n`;
    for (const c of plan.cells) {
      const envText = c.env.size === 0 ? '(no env)' : [...c.env].map(([k, v]) => `${k}=${v}`).join(' ');
      out += `  ${c.name}: env=[${envText}] argv=[${args.argv.map((a) => strRepr(a)).join(', ')}]\n`;
    }
    await write(io.stdout, out);
    return 0;
  }
  if (args.emit !== undefined) return emitCommand(args, plan, io);

  // Ctrl-C reaches only us (each trial runs in its own session): stop launching, interrupt the running trials.
  const interrupt = new AbortController();
  const forceKill = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const progress = !args.quiet && isTty(io.stderr) ? new ProgressLine(io.stderr, 0) : null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stoppedBy === null) {
      stoppedBy = signal;
      progress?.clear();
      io.stderr.write(
        `aorta-probe sweep: ${signal}: stopping; finished trials are complete${signal === 'SIGINT' ? ' (Ctrl-C again to kill the running trials)' : ''}\n`,
      );
      interrupt.abort(signal);
    } else forceKill.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = performance.now();
  const total = task === undefined ? plan.tasks.length : 1;
  const counts = { pass: 0, fail: 0, error: 0 };
  let running = 0;
  let done = 0;
  const cellsDone = new Set<string>();
  const onEvent = (e: SweepEvent): void => {
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
      trial: { timeoutSec: args.timeoutSec, gpuTool: args.gpuTool, gpuIntervalMs: args.gpuIntervalMs },
      signal: interrupt.signal,
      forceKill: forceKill.signal,
      onEvent,
    });
  } catch (err) {
    if (err instanceof RangeError) {
      await write(io.stderr, `aorta-probe sweep: ${err.message}\n`);
      return TASK_EXIT.usage;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    progress?.clear();
  }
  if (!args.quiet && task !== undefined) {
    // One task of many: the others are still running, so a report of DIR would be partial.
    for (const t of summary.trials)
      await write(
        io.stdout,
        `${t.task.cell.name}/trial_${t.task.trial}: ${t.verdict} (${t.attempts.length} attempt${t.attempts.length === 1 ? '' : 's'}) ${t.dir}\n`,
      );
  } else if (!args.quiet) {
    const { records, problems, earlierAttempts } = await readResults([resolve(args.out, slug(plan.ticket))]);
    const report = await aggregateResults(records, { problems, earlierAttempts });
    let text = formatReport('text', report, records);
    if (summary.stoppedCells.length > 0) text += `\nstop_after: ${summary.stoppedCells.join(', ')} stopped early\n`;
    if (summary.skipped.length > 0) text += `${summary.skipped.length} trials not run\n`;
    await write(io.stdout, text);
  }
  if (summary.interrupted && stoppedBy !== null)
    return 128 + ((constants.signals as Record<string, number | undefined>)[stoppedBy] ?? 2);
  // One task: its trial's status as `run` would exit, so the recipe's exit_codes: reach the scheduler
  // (the Job's podFailurePolicy is built from the same map).
  if (task !== undefined) return summary.trials[0]?.exitStatus ?? TASK_EXIT.error;
  return summary.counts.fail + summary.counts.error > 0 ? 1 : 0;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

async function emitCommand(args: SweepArgs, plan: SweepPlan, io: SweepIo): Promise<number> {
  if (plan.config.stopAfter !== null) {
    await write(
      io.stderr,
      `aorta-probe sweep: warning: stop_after does not apply on a cluster (tasks run independently); every cell runs ${plan.trialsPerCell} trials\n`,
    );
  }
  let text: string;
  if (args.emit === 'slurm') {
    const out = resolve(args.out);
    mkdirSync(resolve(out, 'slurm'), { recursive: true }); // sbatch does not create the --output directory
    const common: TaskCommandOptions = {
      probeCommand: args.probeCommand ?? thisProbeCommand(),
      recipe: resolve(args.recipe),
      mitigationsFiles: args.mitigationsFiles.map((f) => resolve(f)),
      outDir: out,
      passThrough: args.passThrough,
      argv: args.argv,
    };
    text = emitSlurm(plan, {
      ...common,
      parallel: args.parallel === 1 ? undefined : args.parallel,
      gpusPerTrial: args.gpusPerTrial,
      sbatch: args.sbatch,
    });
  } else {
    // In the pod the recipe files come from the ConfigMap, the results go to the volume mounted at --out.
    const files = [args.recipe, ...args.mitigationsFiles].map((f, i) => ({
      name: configKey(f, i),
      text: readFileSync(f, 'utf8'),
    }));
    const common: TaskCommandOptions = {
      probeCommand: args.probeCommand ?? ['aorta-probe'],
      recipe: `${CONFIG_MOUNT}/${files[0]!.name}`,
      mitigationsFiles: files.slice(1).map((f) => `${CONFIG_MOUNT}/${f.name}`),
      outDir: args.out,
      passThrough: args.passThrough,
      argv: args.argv,
    };
    text = emitK8s(plan, {
      ...common,
      image: args.image!,
      pvc: args.pvc!,
      parallel: args.parallel,
      gpusPerTrial: args.gpusPerTrial,
      gpuResource: args.gpuResource,
      files,
    }).text;
  }
  if (args.emitTo === undefined) await write(io.stdout, text);
  else {
    writeFileSync(args.emitTo, text, { mode: args.emit === 'slurm' ? 0o755 : 0o644 });
    await write(io.stderr, `aorta-probe sweep: wrote ${args.emitTo} (${plan.tasks.length} tasks)\n`);
  }
  return 0;
}

/** A ConfigMap key (file name) for the i-th file: its base name, made a valid key, unique by position. */
function configKey(path: string, i: number): string {
  const base = basename(path).replace(/[^-._a-zA-Z0-9]/g, '_');
  return i === 0 ? base : `${i}-${base}`;
}
