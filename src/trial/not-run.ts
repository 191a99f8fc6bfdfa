/**
 * The record of a trial that was never started because the caller refused it before the spawn (a sweep's
 * `env_passthrough_mode: file` with variables that cannot be written to probe.env): verdict error, the one error
 * detector given, the exit code given. Shaped like every record `runTrial` writes, so that resume, report and the
 * matrix read it as one.
 */
import { resolve } from 'node:path';
import type { Recipe } from '../recipe/index.js';
import { BUILTIN_PATTERN_VERSION } from '../scan/index.js';
import { categoriesById, categorize, disableSet } from '../classifier/classify.js';
import { resolveExitStatus } from '../classifier/exit-codes.js';
import { packageInfo } from './package-info.js';
import { LOG_FILE, RESULT_VERSION, resultGpu, type TrialResult } from './result-json.js';
import { disabledGpuSummary } from './gpu.js';

export interface NotRunOptions {
  readonly recipe: Recipe;
  readonly argv: readonly string[];
  /** The error detector that fired (an id of ERROR_DETECTOR_IDS). */
  readonly detector: string;
  readonly exitCode: number;
  /** Why the trial was not run: `exec_error`, and the log's one line (the caller writes the log). */
  readonly reason: string;
  /** `--disable-detector` tokens, recorded with the recipe's as `runTrial` records them. */
  readonly disableDetectors?: readonly string[];
  readonly timeoutSec: number | null;
}

export function notRunResult(o: NotRunOptions): TrialResult {
  const detectors = [categorize(o.detector, 'error', o.recipe)];
  const disabled = disableSet(o.recipe, o.disableDetectors);
  const info = packageInfo();
  return {
    verdict: 'error',
    exit_code: o.exitCode,
    walltime_sec: 0,
    peak_vram_mib: null,
    argv: [...o.argv],
    failure_detectors_fired: [],
    error_detectors_fired: [o.detector],
    warn_detectors_fired: [],
    capture: {},
    tier_durations_ms: { tier1: 0, tier2: 0, tier3: 0, tier4: 0, tier5: 0 },
    timed_out: false,
    interrupted: false,
    exec_error: o.reason,
    detectors: [],
    engine_failures: [],
    condition_errors: [],
    log: { file: LOG_FILE, bytes: Buffer.byteLength(`${o.reason}\n`) },
    timeout_sec: o.timeoutSec,
    recipe: {
      file: o.recipe.fileName.startsWith('<') ? o.recipe.fileName : resolve(o.recipe.fileName),
      sha256: o.recipe.sourceSha256,
    },
    gpu: resultGpu(disabledGpuSummary()),
    started_at: new Date().toISOString(),
    versions: {
      aorta_probe: info.version,
      builtin_patterns: BUILTIN_PATTERN_VERSION,
      node: process.version,
      gpu_tool: null,
    },
    result_version: RESULT_VERSION,
    detector_categories: categoriesById(detectors),
    hang: null,
    tier3: null,
    disabled_detectors: [...disabled.ids].sort(),
    disabled_detector_tiers: [...disabled.tiers].sort(),
    exit_status: resolveExitStatus('error', detectors, o.recipe.exitCodes),
  };
}
