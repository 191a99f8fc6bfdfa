/** The trial runner: run a command, watch it (Tiers 1 to 3 live, 4 and 5 from its log), write result.json. */
export { DEFAULT_KILL_GRACE_MS, runTrial, tier2Keys, TrialOptionsError } from './run-trial.js';
export { prepareOutDir } from './out-files.js';
export { TrialOutputError } from './output-error.js';
export type { TrialOptions, TrialOutcome, TrialProgress } from './run-trial.js';
export { LOG_FILE, RESULT_FILE } from './result-json.js';
export type { TierDurations, TrialResult } from './result-json.js';
export { DEFAULT_CANDIDATE_BUDGET, TrialLogScanner } from './log-scanner.js';
export type { CandidateBudget, DeferredReport, LogScannerOptions } from './log-scanner.js';
export { readsTrialVars, TRIAL_VAR_NAMES } from './trial-vars.js';
export { popenExitCode } from './spawn.js';
export type { GpuSamplerFactory, GpuSamplerLike, GpuOptions } from './gpu.js';
export {
  evaluateHangPredicate,
  HangMonitor,
  GPU_IDLE_UTILIZATION_PCT,
} from './tier2-hang.js';
export type { HangProbes, HangReport, HangSignals } from './tier2-hang.js';
export type { HangNotice, HangRecord, Tier2Keys } from './tier2-session.js';
export { readKernelLog, parseStampedLine, linesInWindow } from './tier3-kernel.js';
export type { GpuHealth } from './gpu.js';
export type { Tier3Record } from './result-json.js';
