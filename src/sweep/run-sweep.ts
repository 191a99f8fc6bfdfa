/**
 * `runSweep`: every task of a plan (or one task, on a cluster node), K at a time, each trial in
 * `<out>/<ticket>/<cell>/trial_<n>/` with its cell's environment (and its own GPUs with `gpus`), retried per the
 * recipe's `retry:`, cut short per `stop_after:`, pruned per `retain:`. Aborting `signal` stops launching and
 * interrupts the running trials, which still write their result.json.
 */
import { rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { runTrial, type TrialOptions } from '../trial/index.js';
import type { RetentionLevel, Verdict } from './config.js';
import { DEFAULT_GPU_ENV, GpuPool, withDevices } from './gpus.js';
import { trialDir, type SweepPlan, type SweepTask } from './plan.js';
import { recipeCategories, retryReasons } from './retry.js';
import { applyRetention, attemptDirName, setAttemptAside, stampRecord } from './trial-files.js';

export interface SweepGpuOptions {
  /** Device ids (`--gpus`). */
  readonly devices: readonly string[];
  /** Devices each trial holds (default: as many as divide evenly among the parallel trials, at least 1). */
  readonly perTrial?: number;
  /** Variables that receive the ids (default CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES). */
  readonly envVars?: readonly string[];
}

/** What `runTrial` is given for every trial; the sweep sets the directory, environment, devices and signals. */
export type SweepTrialOptions = Omit<
  TrialOptions,
  'outDir' | 'env' | 'signal' | 'forceKill' | 'gpuDevices' | 'echo' | 'onProgress'
>;

export interface SweepOptions {
  readonly plan: SweepPlan;
  /** The trial command (no shell). */
  readonly argv: readonly string[];
  readonly outDir: string;
  /** Trials running at once (default 1). */
  readonly parallel?: number;
  readonly gpus?: SweepGpuOptions;
  /** Run only this task of the plan (a Slurm array or Kubernetes completion index). */
  readonly taskIndex?: number;
  /** The base environment (default ours); the cell's bundle and the sweep's variables go on top. */
  readonly env?: NodeJS.ProcessEnv;
  readonly trial?: SweepTrialOptions;
  readonly signal?: AbortSignal;
  /** A second Ctrl-C: SIGKILL to every running trial. */
  readonly forceKill?: AbortSignal;
  readonly onEvent?: (event: SweepEvent) => void;
}

export interface AttemptSummary {
  readonly attempt: number;
  readonly verdict: Verdict;
  readonly exit_code: number;
  readonly walltime_sec: number;
  readonly failure_detectors_fired: readonly string[];
  readonly error_detectors_fired: readonly string[];
  /** The `retry.on` entries this attempt matched (why it was retried); empty for the final attempt unless it ran out of retries. */
  readonly retry_on: readonly string[];
  /** Relative to the trial directory; '.' for the final attempt. */
  readonly dir: string;
}

export interface SweepTrial {
  readonly task: SweepTask;
  readonly dir: string;
  readonly verdict: Verdict;
  /** The final attempt's exit status as `run` has it (0/1/3, or the recipe's `exit_codes:` mapping). */
  readonly exitStatus: number;
  readonly attempts: readonly AttemptSummary[];
  readonly devices: readonly string[] | null;
  readonly interrupted: boolean;
  readonly retention: RetentionLevel;
}

export type SweepEvent =
  | {
      readonly type: 'start';
      readonly task: SweepTask;
      readonly attempt: number;
      readonly devices: readonly string[] | null;
    }
  | { readonly type: 'retry'; readonly task: SweepTask; readonly attempt: number; readonly reasons: readonly string[] }
  | { readonly type: 'end'; readonly trial: SweepTrial }
  | { readonly type: 'stop-cell'; readonly cell: string; readonly events: number };

export interface SweepSummary {
  readonly outDir: string;
  /** Finished trials, in plan order. */
  readonly trials: readonly SweepTrial[];
  /** Tasks never started: their cell met `stop_after`, or the sweep was interrupted. */
  readonly skipped: readonly SweepTask[];
  /** Cells that met `stop_after.events`. */
  readonly stoppedCells: readonly string[];
  readonly interrupted: boolean;
  readonly counts: Readonly<Record<Verdict, number>>;
}

/** Variables every trial of a sweep sees, so a command can tell cells, trials and attempts apart. */
export const SWEEP_ENV = {
  cell: 'AORTA_PROBE_CELL',
  trial: 'AORTA_PROBE_TRIAL_INDEX',
  attempt: 'AORTA_PROBE_ATTEMPT',
} as const;

export async function runSweep(options: SweepOptions): Promise<SweepSummary> {
  const { plan } = options;
  if (options.argv.length === 0) throw new RangeError('runSweep: argv is empty');
  const parallel = options.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new RangeError('runSweep: parallel must be a positive integer');
  const outDir = resolve(options.outDir);
  const pool =
    options.gpus === undefined
      ? null
      : new GpuPool(
          options.gpus.devices,
          options.gpus.perTrial ?? Math.max(1, Math.floor(options.gpus.devices.length / parallel)),
        );
  const gpuVars = options.gpus?.envVars ?? DEFAULT_GPU_ENV;
  const categories = recipeCategories(plan.recipe);
  const { stopAfter, retry, retain } = plan.config;

  let queue: SweepTask[];
  if (options.taskIndex === undefined) queue = [...plan.tasks];
  else {
    const t = plan.tasks[options.taskIndex];
    if (t === undefined)
      throw new RangeError(`task index ${options.taskIndex} is outside the plan's 0..${plan.tasks.length - 1}`);
    queue = [t];
  }
  const events = new Map<string, number>();
  const stopped = new Set<string>();
  const finished: SweepTrial[] = [];
  const skipped: SweepTask[] = [];
  const interrupted = (): boolean => options.signal?.aborted === true;
  // A trial that could not be run at all (runTrial threw: the output directory is unwritable, …) stops the
  // launching; the trials already running finish, then the error is thrown.
  let failure: { error: unknown } | null = null;

  const runTask = async (task: SweepTask, devices: readonly string[] | null): Promise<SweepTrial> => {
    const dir = trialDir(outDir, plan.ticket, task.cell.name, task.trial);
    rmSync(dir, { recursive: true, force: true }); // a rerun replaces the trial, never mixes two runs' files
    const attempts: AttemptSummary[] = [];
    const base: NodeJS.ProcessEnv = { ...(options.env ?? process.env), ...Object.fromEntries(task.cell.env) };
    for (let attempt = 1; ; attempt++) {
      options.onEvent?.({ type: 'start', task, attempt, devices });
      const env = {
        ...(devices === null ? base : withDevices(base, devices, gpuVars)),
        [SWEEP_ENV.cell]: task.cell.name,
        [SWEEP_ENV.trial]: String(task.trial),
        [SWEEP_ENV.attempt]: String(attempt),
      };
      const { result } = await runTrial(plan.recipe, options.argv, {
        ...options.trial,
        outDir: dir,
        env,
        signal: options.signal,
        forceKill: options.forceKill,
        gpuDevices: devices ?? undefined,
      });
      const reasons = result.interrupted
        ? []
        : retryReasons(result as unknown as Record<string, unknown>, retry, categories);
      const summary: AttemptSummary = {
        attempt,
        verdict: result.verdict,
        exit_code: result.exit_code,
        walltime_sec: result.walltime_sec,
        failure_detectors_fired: result.failure_detectors_fired,
        error_detectors_fired: result.error_detectors_fired,
        retry_on: reasons,
        dir: '.',
      };
      const sweepFacts = {
        cell_name: task.cell.name,
        trial_index: task.trial,
        mitigations: task.cell.mitigations,
        cell_env: Object.fromEntries(task.cell.env),
        devices,
        attempt,
      };
      const again = reasons.length > 0 && attempt <= retry.max && !interrupted();
      if (again) {
        stampRecord(dir, { ...sweepFacts, final: false });
        const aside = setAttemptAside(dir, attempt);
        attempts.push({ ...summary, dir: relative(dir, aside) });
        options.onEvent?.({ type: 'retry', task, attempt, reasons });
        continue;
      }
      attempts.push(summary);
      // Interrupted trials keep everything: they are what someone will look at.
      const level: RetentionLevel = result.interrupted ? 'full' : retain[result.verdict];
      stampRecord(dir, { ...sweepFacts, final: true, attempts, retention: level });
      applyRetention(dir, level);
      return {
        task,
        dir,
        verdict: result.verdict,
        exitStatus: result.exit_status.status,
        attempts,
        devices,
        interrupted: result.interrupted,
        retention: level,
      };
    }
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      const task = queue.shift();
      if (task === undefined) return;
      if (failure !== null || interrupted() || stopped.has(task.cell.name)) {
        skipped.push(task);
        continue;
      }
      const devices = pool === null ? null : await pool.acquire();
      if (interrupted() || stopped.has(task.cell.name)) {
        if (devices !== null) pool!.release(devices);
        skipped.push(task);
        continue;
      }
      let trial: SweepTrial;
      try {
        trial = await runTask(task, devices);
      } catch (error) {
        failure ??= { error };
        skipped.push(task);
        continue;
      } finally {
        if (devices !== null) pool!.release(devices);
      }
      finished.push(trial);
      options.onEvent?.({ type: 'end', trial });
      if (stopAfter !== null && trial.verdict === stopAfter.eventVerdict && !trial.interrupted) {
        const n = (events.get(task.cell.name) ?? 0) + 1;
        events.set(task.cell.name, n);
        if (n >= stopAfter.events && !stopped.has(task.cell.name)) {
          stopped.add(task.cell.name);
          options.onEvent?.({ type: 'stop-cell', cell: task.cell.name, events: n });
        }
      }
    }
  };
  const width = Math.min(parallel, pool?.slots ?? parallel, queue.length);
  await Promise.all(Array.from({ length: Math.max(width, 1) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;

  const byIndex = (a: { index: number }, b: { index: number }): number => a.index - b.index;
  finished.sort((a, b) => byIndex(a.task, b.task));
  skipped.sort(byIndex);
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, error: 0 };
  for (const t of finished) counts[t.verdict]++;
  return {
    outDir,
    trials: finished,
    skipped,
    stoppedCells: plan.cells.map((c) => c.name).filter((c) => stopped.has(c)),
    interrupted: interrupted(),
    counts,
  };
}

export { attemptDirName };
