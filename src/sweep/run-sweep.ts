/**
 * `runSweep`: every task of a plan (or one task, on a cluster node), K at a time, each trial in
 * `<out>/<ticket>/<cell>/trial_<n>/` with its cell's environment (and its own GPUs with `gpus`), retried per the
 * recipe's `retry:`, cut short per `stop_after:`, pruned per `retain:`. Aborting `signal` stops launching and
 * interrupts the running trials, which still write their result.json.
 *
 * Resume: a trial whose result.json this run already finished (trial-files.ts `completeRecord`) is kept, not run
 * again; the run directory's identity (run-dir.ts) decides whether a re-run is the same sweep. A local sweep holds
 * the run directory's lock (lock.ts); one cluster task does not (the array's tasks write disjoint trials). A
 * reaper process (reaper.ts) ends the running trials should this process die.
 *
 * `env_passthrough_mode: file` (the recipe's, or the CLI's over it: `plan.envPassthroughMode`): each attempt also
 * gets `<trial>/probe.env` and `AORTA_ENV_FILE` (env-file.ts); a cell whose variables cannot be written so is never
 * run, its trials get an error record instead.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runTrial, type TrialOptions, type TrialResult } from '../trial/index.js';
import { TrialOutputError } from '../trial/output-error.js';
import { privateSpillDir, TRIAL_OPTION_KEYS } from '../trial/run-trial.js';
import { checkOptions, nested, OPTION, withoutKeys, type OptionTable } from '../text/options.js';
import { RETENTION_LEVELS, type RetentionLevel } from '../recipe/index.js';
import type { Verdict } from '../detectors/verdict.js';
import { PlantedLinkError, type DirRef } from './dir-ref.js';
import { DEFAULT_GPU_ENV, GpuPool, withDevices } from './gpus.js';
import { acquireLock, type RunLock } from './lock.js';
import { trialDir, type SweepPlan, type SweepTask } from './plan.js';
import { startReaper, TRIAL_TOKEN_ENV } from './reaper.js';
import { TASK_EXIT } from './task-exit.js';
import { retryReasons } from './retry.js';
import { openRunDir, type RunDir } from './run-dir.js';
import {
  ENV_FILE,
  ENV_FILE_VAR,
  envFileProblem,
  removeEnvFile,
  writeEnvFile,
  writeEnvFileErrorRecord,
} from './env-file.js';
import type { MatrixJson, MatrixTrial } from '../matrix/index.js';
import { matrixOf, writeMatrix, writeStartFiles, type RunFilesOptions } from './run-files.js';
import {
  applyRetention,
  attemptDirName,
  clearDir,
  completeRecord,
  setAttemptAside,
  stampRecord,
} from './trial-files.js';

export interface SweepGpuOptions {
  /** Device ids (`--gpus`). */
  readonly devices: readonly string[];
  /** Devices each trial holds (default: as many as divide evenly among the parallel trials, at least 1). */
  readonly perTrial?: number;
  /** Variables that receive the ids (default CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES). */
  readonly envVars?: readonly string[];
}

/** `gpus`' keys (text/options.ts). */
export const SWEEP_GPU_OPTION_KEYS = {
  devices: OPTION,
  perTrial: OPTION,
  envVars: OPTION,
} satisfies OptionTable<SweepGpuOptions>;

/** The `runTrial` options the sweep sets itself for every trial. */
const SET_BY_SWEEP = ['outDir', 'env', 'signal', 'forceKill', 'gpuDevices', 'echo', 'onProgress'] as const;

/** What `runTrial` is given for every trial; the sweep sets the directory, environment, devices and signals. */
export type SweepTrialOptions = Omit<TrialOptions, (typeof SET_BY_SWEEP)[number]>;

/** `trial`'s keys: `runTrial`'s but those the sweep sets (text/options.ts). */
export const SWEEP_TRIAL_OPTION_KEYS: OptionTable<SweepTrialOptions> = withoutKeys(TRIAL_OPTION_KEYS, SET_BY_SWEEP);

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
  /** Move an earlier run of a different (or the same) sweep aside instead of refusing (or resuming) it. */
  readonly fresh?: boolean;
  /** The recipe file's bytes, copied into the run directory (default: read from `plan.recipePath`). */
  readonly recipeBytes?: Uint8Array;
  /** Hears what the operator should know but that stops nothing (a stale lock taken over). */
  readonly onWarning?: (message: string) => void;
  /** The `--mitigations-file` paths the plan read, copied to the run's `sidecars/`. */
  readonly sidecars?: readonly string[];
}

/** `runSweep`'s option keys (text/options.ts). */
export const SWEEP_OPTION_KEYS = {
  plan: OPTION,
  argv: OPTION,
  outDir: OPTION,
  parallel: OPTION,
  gpus: nested(SWEEP_GPU_OPTION_KEYS),
  taskIndex: OPTION,
  env: OPTION,
  trial: nested(SWEEP_TRIAL_OPTION_KEYS, { nullable: true }), // null: spread as nothing
  signal: OPTION,
  forceKill: OPTION,
  onEvent: OPTION,
  fresh: OPTION,
  recipeBytes: OPTION,
  onWarning: OPTION,
  sidecars: OPTION,
} satisfies OptionTable<SweepOptions>;

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
  /** Kept from an earlier invocation of the same run, not run again. */
  readonly resumed: boolean;
  /** The final attempt's wall time and the detectors it fired (what the matrix counts). */
  readonly walltimeSec: number;
  readonly failureDetectors: readonly string[];
  readonly warnDetectors: readonly string[];
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
  /** Finished by an earlier invocation of this run: kept (sent before any trial starts). */
  | { readonly type: 'resumed'; readonly trial: SweepTrial }
  | { readonly type: 'stop-cell'; readonly cell: string; readonly events: number };

export interface SweepSummary {
  readonly outDir: string;
  /** The run's id (run.json), stamped into each record it writes as `run_id`. */
  readonly runId: string;
  /** The run directory moved aside by `fresh`, by its new name; else null. */
  readonly movedAside: string | null;
  /** Finished trials, in plan order; those kept from an earlier invocation have `resumed`. */
  readonly trials: readonly SweepTrial[];
  /** Tasks never started: their cell met `stop_after`, or the sweep was interrupted. */
  readonly skipped: readonly SweepTask[];
  /** Cells that met `stop_after.events`. */
  readonly stoppedCells: readonly string[];
  readonly interrupted: boolean;
  readonly counts: Readonly<Record<Verdict, number>>;
  /** What `<run>/matrix.json` holds at the end; null for one cluster task, which writes no run-level file. */
  readonly matrix: MatrixJson | null;
}

/** Variables every trial of a sweep sees, so a command can tell cells, trials and attempts apart. */
export const SWEEP_ENV = {
  cell: 'AORTA_PROBE_CELL',
  trial: 'AORTA_PROBE_TRIAL_INDEX',
  attempt: 'AORTA_PROBE_ATTEMPT',
  /** Random, one per attempt: how the sweep's watchdog finds an attempt it was not yet told the pid of. */
  token: TRIAL_TOKEN_ENV,
} as const;

export async function runSweep(options: SweepOptions): Promise<SweepSummary> {
  checkOptions('runSweep', options, SWEEP_OPTION_KEYS);
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
  const { stopAfter, retry, retain } = plan.config;

  let queue: SweepTask[];
  if (options.taskIndex === undefined) queue = [...plan.tasks];
  else {
    const t = plan.tasks[options.taskIndex];
    if (t === undefined)
      throw new RangeError(`task index ${options.taskIndex} is outside the plan's 0..${plan.tasks.length - 1}`);
    queue = [t];
  }

  // One cluster task owns one trial directory and takes no lock: its siblings run at the same time.
  let lock: RunLock | null = null;
  const warn = options.onWarning ?? (() => {});
  const local = options.taskIndex === undefined;
  const recipeBytes = options.recipeBytes ?? readFileSync(plan.recipePath);
  const run = openRunDir({
    outDir,
    plan,
    argv: options.argv,
    recipeBytes,
    fresh: options.fresh,
    beforeUse: (dir) => {
      if (!local) return () => {};
      const held = acquireLock(dir, warn);
      lock = held;
      return () => held.release();
    },
  });
  const files: RunFilesOptions = {
    plan,
    argv: options.argv,
    recipeBytes,
    env: options.env ?? process.env,
    sidecars: options.sidecars ?? [],
  };
  // The run-level files are the local sweep's: one cluster task sees only its own trial.
  if (local) {
    try {
      writeStartFiles(run, files);
    } catch (err) {
      (lock as RunLock | null)?.release();
      run.close();
      throw err;
    }
  }
  const reaper = startReaper();
  reaper.removeOnDeath(privateSpillDir());
  try {
    return await sweepIn(run);
  } finally {
    reaper.close();
    (lock as RunLock | null)?.release();
    run.close();
  }

  async function sweepIn(runDir: RunDir): Promise<SweepSummary> {
    const events = new Map<string, number>();
    const stopped = new Set<string>();
    const finished: SweepTrial[] = [];
    const skipped: SweepTask[] = [];
    const interrupted = (): boolean => options.signal?.aborted === true;
    // A trial that could not be run at all (runTrial threw: the output directory is unwritable, …) stops the
    // launching; the trials already running finish, then the error is thrown.
    let failure: { error: unknown } | null = null;

    // The matrix is rewritten as each cell finishes (all its trials, or stop_after met), so a killed sweep leaves
    // a true partial one; the last write, after every trial, says whether the sweep completed.
    const finishedIn = new Map<string, number>();
    const matrixState = (complete: boolean) => ({
      trials: finished.filter((t) => !t.interrupted).map(matrixTrial),
      stoppedCells: stopped,
      complete,
    });
    const writeMatrixNow = (complete: boolean): MatrixJson | null => {
      if (!local) return null;
      const m = matrixOf(runDir, files, matrixState(complete));
      try {
        writeMatrix(runDir, m);
      } catch (err) {
        warn(`could not write ${runDir.run.shown}/matrix.json: ${(err as Error).message}`);
      }
      return m;
    };
    const cellProgress = (trial: SweepTrial): void => {
      const name = trial.task.cell.name;
      const n = (finishedIn.get(name) ?? 0) + 1;
      finishedIn.set(name, n);
      if (n === plan.trialsPerCell) writeMatrixNow(false);
    };

    const countEvent = (trial: SweepTrial): void => {
      if (stopAfter === null || trial.verdict !== stopAfter.eventVerdict || trial.interrupted) return;
      const name = trial.task.cell.name;
      const n = (events.get(name) ?? 0) + 1;
      events.set(name, n);
      if (n >= stopAfter.events && !stopped.has(name)) {
        stopped.add(name);
        options.onEvent?.({ type: 'stop-cell', cell: name, events: n });
        writeMatrixNow(false);
      }
    };

    // Resume: the trials this run finished before are kept, in plan order, and count towards stop_after.
    const toRun: SweepTask[] = [];
    for (const task of queue) {
      const kept = keptTrial(runDir, task);
      if (kept === null) {
        toRun.push(task);
        continue;
      }
      finished.push(kept);
      options.onEvent?.({ type: 'resumed', trial: kept });
      countEvent(kept);
      finishedIn.set(task.cell.name, (finishedIn.get(task.cell.name) ?? 0) + 1);
    }
    queue = toRun;
    writeMatrixNow(false);

    const runTask = async (task: SweepTask, devices: readonly string[] | null): Promise<SweepTrial> => {
      const shownDir = trialDir(outDir, plan.ticket, task.cell.name, task.trial);
      const name = `trial_${task.trial}`;
      const cell = runDir.run.child(task.cell.name, true);
      let dir: DirRef | null = null;
      try {
        // An unfinished trial's leftovers (an interrupted attempt, a SIGKILLed sweep's) are cleared, not mixed in.
        dir = cell.child(name, true);
        clearDir(dir);
        return await attemptsIn(task, devices, cell, name, dir, shownDir);
      } finally {
        dir?.close();
        cell.close();
      }
    };

    const attemptsIn = async (
      task: SweepTask,
      devices: readonly string[] | null,
      cell: DirRef,
      name: string,
      dir: DirRef,
      shownDir: string,
    ): Promise<SweepTrial> => {
      const attempts: AttemptSummary[] = [];
      const attemptRun = async (env: NodeJS.ProcessEnv): Promise<TrialResult> => {
        // Announced to the reaper before the spawn, so that a sweep killed before it learns the pid still has the
        // attempt ended (reaper.ts: its environment carries the token the reaper looks for).
        const watched = reaper.attempt();
        const { result } = await runTrial(plan.recipe, options.argv, {
          ...options.trial,
          // Through the held descriptor: a trial that swaps its directory for a link cannot redirect our writes.
          outDir: dir.self,
          outDirShown: shownDir,
          env: { ...env, [SWEEP_ENV.token]: watched.token },
          // Our helpers (dmesg, the GPU tool) run in the sweep's base environment, never the cell's: a recipe's
          // environment is the trial's only.
          runnerEnv: options.trial?.runnerEnv ?? options.env ?? process.env,
          signal: options.signal,
          forceKill: options.forceKill,
          gpuDevices: devices ?? undefined,
          onSpawn: (pgid) => watched.started(pgid),
        })
          .catch((err: unknown) => {
            throw shownError(err, dir.self, shownDir);
          })
          .finally(() => watched.ended());
        return result;
      };
      const base: NodeJS.ProcessEnv = { ...(options.env ?? process.env), ...Object.fromEntries(task.cell.env) };
      for (let attempt = 1; ; attempt++) {
        options.onEvent?.({ type: 'start', task, attempt, devices });
        const env: NodeJS.ProcessEnv = {
          ...(devices === null ? base : withDevices(base, devices, gpuVars)),
          [SWEEP_ENV.cell]: task.cell.name,
          [SWEEP_ENV.trial]: String(task.trial),
          [SWEEP_ENV.attempt]: String(attempt),
        };
        // env_passthrough_mode: file writes the cell's variables to probe.env (env-file.ts); inherit leaves none.
        let result: TrialResult;
        const problem = plan.envPassthroughMode === 'file' ? envFileProblem(task.cell.env) : null;
        if (plan.envPassthroughMode === 'file') {
          if (problem !== null) {
            result = writeEnvFileErrorRecord(dir, runDir.tmp, {
              recipe: plan.recipe,
              argv: options.argv,
              problem,
              disableDetectors: options.trial?.disableDetectors ?? [],
              timeoutSec: options.trial?.timeoutSec ?? plan.recipe.timeoutPerTrial ?? null,
            });
          } else {
            writeEnvFile(dir, runDir.tmp, task.cell.env);
            env[ENV_FILE_VAR] = join(shownDir, ENV_FILE);
            result = await attemptRun(env);
          }
        } else {
          removeEnvFile(dir);
          result = await attemptRun(env);
        }
        // The trial may have renamed its directory away and planted a link in its place: then nothing more is
        // written (its own record is in the directory it moved), and the sweep stops.
        if (!cell.holds(name, dir)) throw new PlantedLinkError(shownDir);
        // A trial refused for its environment would be refused again: never retried.
        const reasons = result.interrupted || problem !== null ? [] : retryReasons(result, retry);
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
          run_id: runDir.runId,
          cell_name: task.cell.name,
          trial_index: task.trial,
          mitigations: task.cell.mitigations,
          cell_env: Object.fromEntries(task.cell.env),
          devices,
          attempt,
        };
        const again = reasons.length > 0 && attempt <= retry.max && !interrupted();
        if (again) {
          stampRecord(dir, runDir.tmp, { ...sweepFacts, final: false });
          const aside = setAttemptAside(dir, attempt);
          attempts.push({ ...summary, dir: aside });
          options.onEvent?.({ type: 'retry', task, attempt, reasons });
          continue;
        }
        attempts.push(summary);
        // Interrupted trials keep everything: they are what someone will look at.
        const level: RetentionLevel = result.interrupted ? 'full' : retain[result.verdict];
        const retention = applyRetention(dir, level);
        stampRecord(dir, runDir.tmp, { ...sweepFacts, final: true, attempts, retention });
        return {
          task,
          dir: shownDir,
          verdict: result.verdict,
          exitStatus: result.exit_status.status,
          attempts,
          devices,
          interrupted: result.interrupted,
          retention: level,
          resumed: false,
          walltimeSec: result.walltime_sec,
          failureDetectors: result.failure_detectors_fired,
          warnDetectors: result.warn_detectors_fired,
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
        countEvent(trial);
        cellProgress(trial);
      }
    };
    const width = Math.min(parallel, pool?.slots ?? parallel, queue.length);
    await Promise.all(Array.from({ length: Math.max(width, 1) }, worker));
    if (failure !== null) {
      writeMatrixNow(false);
      throw (failure as { error: unknown }).error;
    }

    const byIndex = (a: { index: number }, b: { index: number }): number => a.index - b.index;
    finished.sort((a, b) => byIndex(a.task, b.task));
    skipped.sort(byIndex);
    const counts: Record<Verdict, number> = { pass: 0, fail: 0, error: 0 };
    for (const t of finished) counts[t.verdict]++;
    // Complete: nothing interrupted, and every task not run belongs to a cell that met stop_after.
    const complete =
      !interrupted() && !finished.some((t) => t.interrupted) && skipped.every((t) => stopped.has(t.cell.name));
    const matrix = writeMatrixNow(complete);
    return {
      outDir,
      runId: runDir.runId,
      movedAside: runDir.movedAside === null ? null : join(outDir, runDir.movedAside),
      trials: finished,
      skipped,
      stoppedCells: plan.cells.map((c) => c.name).filter((c) => stopped.has(c)),
      interrupted: interrupted(),
      counts,
      matrix,
    };
  }
}

function matrixTrial(t: SweepTrial): MatrixTrial {
  return {
    cell: t.task.cell.name,
    trial: t.task.trial,
    verdict: t.verdict,
    walltimeSec: t.walltimeSec,
    failureDetectors: t.failureDetectors,
    warnDetectors: t.warnDetectors,
    resumed: t.resumed,
  };
}

/** A runTrial error names the descriptor path it was given (`/proc/self/fd/N/…`): shown as the trial's path. */
function shownError(err: unknown, held: string, shown: string): unknown {
  if (!(err instanceof TrialOutputError)) return err;
  const fix = (s: string): string => s.replaceAll(`${held}/`, `${shown}/`).replaceAll(held, shown);
  return new TrialOutputError(fix(err.message), fix(err.path), err.beforeStart);
}

/** The trial of `task` as this run finished it earlier, or null when it must run (absent, unfinished, foreign). */
function keptTrial(runDir: RunDir, task: SweepTask): SweepTrial | null {
  let cell: DirRef | null = null;
  let dir: DirRef | null = null;
  try {
    if (runDir.run.lstat(task.cell.name) === undefined) return null;
    cell = runDir.run.child(task.cell.name, false);
    if (cell.lstat(`trial_${task.trial}`) === undefined) return null;
    dir = cell.child(`trial_${task.trial}`, false);
    const r = completeRecord(dir, runDir.runId);
    if (r === null) return null;
    const verdict = r.verdict as Verdict;
    const status = (r.exit_status as { status?: unknown } | undefined)?.status;
    const retention = (r.retention as { level?: unknown } | undefined)?.level;
    return {
      task,
      dir: join(runDir.run.shown, task.cell.name, `trial_${task.trial}`),
      verdict,
      // A record without exit_status (an earlier version's): the verdict's default status.
      exitStatus: Number.isInteger(status) ? (status as number) : TASK_EXIT[verdict],
      attempts: Array.isArray(r.attempts) ? (r.attempts as AttemptSummary[]) : [],
      devices: Array.isArray(r.devices) ? (r.devices as string[]) : null,
      interrupted: false,
      retention: RETENTION_LEVELS.includes(retention as RetentionLevel) ? (retention as RetentionLevel) : 'full',
      resumed: true,
      walltimeSec: typeof r.walltime_sec === 'number' && Number.isFinite(r.walltime_sec) ? r.walltime_sec : 0,
      failureDetectors: stringList(r.failure_detectors_fired),
      warnDetectors: stringList(r.warn_detectors_fired),
    };
  } finally {
    dir?.close();
    cell?.close();
  }
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export { attemptDirName };
