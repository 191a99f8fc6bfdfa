/** The trial runner: run a command, classify it (Tiers 1 to 5), write result.json; the classifier's parts. */
export { DEFAULT_KILL_GRACE_MS, runTrial, TrialOptionsError } from './run-trial.js';
export { prepareOutDir } from './out-files.js';
export { TrialOutputError } from './output-error.js';
export type { TrialOptions, TrialOutcome, TrialProgress } from './run-trial.js';
export { LOG_FILE, RESULT_FILE } from './result-json.js';
export type { TierDurations, TrialResult } from './result-json.js';
export {
  detectTier1,
  SIGNAL_DETECTORS,
  TIER1_COREDUMP,
  TIER1_EXEC_FAILED,
  TIER1_EXIT_NONZERO,
  TIER1_INTERRUPTED,
  TIER1_TIMEOUT,
} from '../classifier/tier1.js';
export type { Tier1Context } from '../classifier/tier1.js';
export { ERROR_DETECTOR_IDS, partitionDetectors, verdictFromDetectors } from '../classifier/verdict.js';
export type { PartitionedDetectors, Verdict } from '../classifier/verdict.js';
export { DEFAULT_CANDIDATE_BUDGET, TrialLogScanner } from './log-scanner.js';
export type { CandidateBudget, DeferredReport, LogScannerOptions } from './log-scanner.js';
export { readsTrialVars, TRIAL_VAR_NAMES } from './trial-vars.js';
export { popenExitCode } from './spawn.js';
export type { GpuSamplerFactory, GpuSamplerLike, GpuOptions } from './gpu.js';
export {
  BUILTIN_DETECTORS,
  TIER_NAMES,
  WHO_VALUES,
  AUTOPSY_CATEGORY_DEFAULTS,
  unknownDetectorReason,
  tierOf,
} from '../classifier/catalogue.js';
export type { BuiltinDetector, DetectorCategory, TierName, Who } from '../classifier/catalogue.js';
export {
  classify,
  categorize,
  disableSet,
  enabledPatterns,
  isDisabled,
  tierDisabled,
  NOTHING_DISABLED,
} from '../classifier/classify.js';
export type { Classification, ClassifyInput, DetectorKind, DisableSet, FiredDetector } from '../classifier/classify.js';
export { DEFAULT_EXIT_STATUS, resolveExitStatus } from '../classifier/exit-codes.js';
export type { ExitDecision } from '../classifier/exit-codes.js';
export { runSelfTest, runSelfTests, formatSelfTestFailure } from '../classifier/self-test.js';
export type { SelfTestOutcome } from '../classifier/self-test.js';
export {
  evaluateHangPredicate,
  HangMonitor,
  HANG_DETECTOR,
  DEFAULT_HANG_GRACE_SEC,
  DEFAULT_HANG_WINDOW_SEC,
  GPU_IDLE_UTILIZATION_PCT,
} from './tier2-hang.js';
export type { HangProbes, HangReport, HangSignals } from './tier2-hang.js';
export type { HangRecord } from './tier2-session.js';
export {
  AMD_KERNEL_PATTERNS,
  NVIDIA_SAMPLES,
  TIER3_IDS,
  TIER3_WARN_IDS,
  XID_DETECTORS,
  XID_TABLE,
  FALLEN_OFF_BUS,
  VRAM_GROWTH,
  THERMAL_THROTTLE,
  scanKernelLines,
  xidClass,
  gpuHealthIds,
} from '../classifier/tier3-catalogue.js';
export type { KernelEvent, KernelLine, KernelPattern, XidClass } from '../classifier/tier3-catalogue.js';
export { readKernelLog, parseStampedLine, linesInWindow } from './tier3-kernel.js';
export type { GpuHealth } from './gpu.js';
export type { Tier3Record } from './result-json.js';
