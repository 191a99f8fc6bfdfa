/**
 * `aorta-probe/node`: everything in the package root plus what needs Node — the trial runner, the GPU sampler,
 * scanning a file by path, sweeps and reports. Documented in docs/library.md, docs/runner.md and docs/gpu.md.
 */
export * from './index.js';

export { scanFile } from './scan/file.js';

// The trial runner
export { runTrial, TrialOptionsError } from './trial/run-trial.js';
export { TrialOutputError } from './trial/output-error.js';
export type { TrialOptions, TrialOutcome, TrialProgress } from './trial/run-trial.js';
export { LOG_FILE, RESULT_FILE } from './trial/result-json.js';
export type { TierDurations, TrialResult } from './trial/result-json.js';
export { detectTier1 } from './classifier/tier1.js';
export type { Tier1Context } from './classifier/tier1.js';
export { partitionDetectors, verdictFromDetectors } from './classifier/verdict.js';
export type { PartitionedDetectors } from './classifier/verdict.js';
export { TrialLogScanner } from './trial/log-scanner.js';
export { HangMonitor, evaluateHangPredicate } from './trial/tier2-hang.js';
export type { HangProbes, HangReport, HangSignals } from './trial/tier2-hang.js';
export type { HangRecord } from './trial/tier2-session.js';
export { readKernelLog } from './trial/tier3-kernel.js';
export type { Tier3Record } from './trial/result-json.js';
export type { GpuHealth, GpuSamplerLike } from './trial/gpu.js';
export type { LogScannerOptions } from './trial/log-scanner.js';

// The GPU memory sampler
export { GpuSampler } from './gpu/sampler.js';
export type { GpuSamplerOptions, GpuSummary, GpuToolChoice } from './gpu/sampler.js';
export { parseAmdSmiMetricMemory, parseAmdSmiProcess, parseAmdSmiVersion } from './gpu/amd-smi.js';
export { parseNvidiaSmiComputeApps, parseNvidiaSmiGpuQuery } from './gpu/nvidia-smi.js';
export type { ParseResult, ToolOutputError } from './gpu/parse-result.js';

// Sweeps and reports over many result.json files (docs/sweeps.md)
export { runSweep, loadSweepPlan, emitK8s, emitSlurm } from './sweep/index.js';
export { PlantedLinkError, RunDirLockedError, RunIdentityError } from './sweep/index.js';
export type { SweepEvent, SweepOptions, SweepPlan, SweepSummary } from './sweep/index.js';
export { aggregateResults, formatReport, readResults, REPORT_FORMATS } from './report/index.js';
export type { CellSummary, ReportFormat, SweepReport, TrialRecord } from './report/index.js';
