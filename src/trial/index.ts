/** The trial runner: run a command, classify it (Tier 1, 4, 5), write result.json. */
export { DEFAULT_KILL_GRACE_MS, runTrial, TrialOptionsError } from './run-trial.js';
export { TrialOutputError } from './out-files.js';
export type { TrialOptions, TrialOutcome, TrialProgress } from './run-trial.js';
export { LOG_FILE, RESULT_FILE } from './result-json.js';
export type { TierDurations, TrialResult } from './result-json.js';
export { detectTier1, SIGNAL_DETECTORS, TIER1_COREDUMP, TIER1_EXEC_FAILED, TIER1_EXIT_NONZERO, TIER1_INTERRUPTED, TIER1_TIMEOUT } from './tier1.js';
export type { Tier1Context } from './tier1.js';
export { ERROR_DETECTOR_IDS, partitionDetectors, verdictFromDetectors } from './verdict.js';
export type { PartitionedDetectors, Verdict } from './verdict.js';
export { DEFAULT_CANDIDATE_BUDGET, TrialLogScanner } from './log-scanner.js';
export type { CandidateBudget, DeferredReport, LogScannerOptions } from './log-scanner.js';
export { readsTrialVars, TRIAL_VAR_NAMES } from './trial-vars.js';
export { popenExitCode } from './spawn.js';
export type { GpuSamplerFactory, GpuSamplerLike, GpuOptions } from './gpu.js';
