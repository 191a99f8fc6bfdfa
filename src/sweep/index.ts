/** Sweeps: many trials over a recipe's cells, locally (`runSweep`) or on Slurm / Kubernetes (`emitSlurm`, `emitK8s`). */
export { runSweep, SWEEP_ENV } from './run-sweep.js';
export type {
  AttemptSummary,
  SweepEvent,
  SweepGpuOptions,
  SweepOptions,
  SweepSummary,
  SweepTrial,
  SweepTrialOptions,
} from './run-sweep.js';
export { loadSweepPlan, trialDir, NO_TICKET, MAX_SWEEP_TASKS, PlanTooLargeError } from './plan.js';
export { PlantedLinkError } from './dir-ref.js';
export { RunDirLockedError, LOCK_FILE } from './lock.js';
export { RunIdentityError, RUN_FILE, RECIPE_COPY } from './run-dir.js';
export type { RunIdentity, RunFile } from './run-dir.js';
export type { RetentionRecord } from './trial-files.js';
export type { PlanOptions, SweepPlan, SweepTask } from './plan.js';
export { slug, synthesizeCells, RecipeCellError, UnknownMitigationError } from './cells.js';
export type { Cell } from './cells.js';
export { readSweepConfig, parseMitigationsFile } from './config.js';
export type { SweepConfig } from './config.js';
// The sweep keys' types and defaults are the recipe's (src/recipe/sweep-keys.ts); re-exported for sweep users.
export { FULL_RETENTION, NO_RETRY, RETENTION_LEVELS } from '../recipe/index.js';
export type {
  EnvBundle,
  MitigationTable,
  Retention,
  RetentionLevel,
  RetryPolicy,
  StopAfter,
} from '../recipe/index.js';
export { GpuPool, parseGpuList, withDevices, DEFAULT_GPU_ENV, GPU_ENV_VARS } from './gpus.js';
export { retryReasons } from './retry.js';
export type { RetryFacts } from './retry.js';
export { emitK8s, emitSlurm, podFailurePolicy, dnsLabel, CONFIG_MOUNT, CONTAINER } from './emit.js';
export type { K8sOptions, SlurmOptions, TaskCommandOptions } from './emit.js';
export { TASK_EXIT } from './task-exit.js';
export { aggregateResults, readResults, formatReport, REPORT_FORMATS } from '../report/index.js';
export type { ReportFormat, SweepReport, CellSummary, TrialRecord } from '../report/index.js';
