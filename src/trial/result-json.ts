import type { DetectorCategoryFields, FiredDetector } from '../classifier/classify.js';
import type { ExitDecision } from '../classifier/exit-codes.js';
import type { ConditionErrors, DetectorHit, EngineFailure } from '../scan/index.js';
import type { GpuSummary } from './gpu.js';
import type { KernelEvent } from '../detectors/tier3.js';
import type { HangRecord } from './tier2-session.js';
import type { Verdict } from '../detectors/verdict.js';
import { writeAtomically } from './out-files.js';

export const RESULT_FILE = 'result.json';
export const LOG_FILE = 'output.log';

/**
 * The version of result.json's layout, written as `result_version`. 2: `gpu`'s keys are snake_case. A record
 * without the key is version 1 (`gpu` with the sampler's camelCase names: `toolVersion`, `baselineMib`,
 * `peakVramMib`, `failedCalls`, `intervalMs`); readers accept both. docs/runner.md lists the versions.
 */
export const RESULT_VERSION = 2;

/** result.json's `gpu`: the sampler's summary (`GpuSummary`) with snake_case keys. */
export interface ResultGpu {
  tool: GpuSummary['tool'];
  tool_version: string | null;
  attribution: GpuSummary['attribution'];
  baseline_mib: number | null;
  peak_vram_mib: number | null;
  samples: number;
  failed_calls: number;
  interval_ms: number;
  warnings: string[];
}

/** The sampler's summary as result.json records it. */
export function resultGpu(s: GpuSummary): ResultGpu {
  return {
    tool: s.tool,
    tool_version: s.toolVersion,
    attribution: s.attribution,
    baseline_mib: s.baselineMib,
    peak_vram_mib: s.peakVramMib,
    samples: s.samples,
    failed_calls: s.failedCalls,
    interval_ms: s.intervalMs,
    warnings: s.warnings,
  };
}

export interface TierDurations {
  tier1: number;
  tier2: number;
  tier3: number;
  tier4: number;
  tier5: number;
}

export interface TrialResult {
  verdict: Verdict;
  /** Popen's convention: negative signal number; -1 after a timeout; 127/126/1 when the command could not start. */
  exit_code: number;
  walltime_sec: number;
  /** Largest VRAM use attributed to the trial, MiB; null when no sample could be taken (conditions see 0). */
  peak_vram_mib: number | null;
  argv: string[];
  failure_detectors_fired: string[];
  error_detectors_fired: string[];
  warn_detectors_fired: string[];
  capture: Record<string, string>;
  tier_durations_ms: TierDurations;
  timed_out: boolean;
  interrupted: boolean;
  /** Why the command could not start, else null. */
  exec_error: string | null;
  /**
   * The log detectors that fired (Tier 4 and 5, info ones too), each with its line and byte offset in the log and
   * its category (who, transient, the pattern's category).
   */
  detectors: (DetectorHit & DetectorCategoryFields)[];
  /**
   * Patterns the regex engine could not match to the end of the log (each fires `meta:regex_engine_failure`, an
   * error detector), with the pattern's recipe position and the engine's reason.
   */
  engine_failures: EngineFailure[];
  /** Patterns whose condition raised on some of their matches (such a match does not fire), with how often. */
  condition_errors: ConditionErrors[];
  /** The combined stdout+stderr, in the output directory. */
  log: { file: string; bytes: number };
  timeout_sec: number | null;
  recipe: { file: string; sha256: string } | null;
  /** The GPU memory sampler's summary (snake_case since result_version 2). */
  gpu: ResultGpu;
  started_at: string;
  versions: { aorta_probe: string; builtin_patterns: string; node: string; gpu_tool: string | null };
  /** result.json's layout: `RESULT_VERSION`. */
  result_version: typeof RESULT_VERSION;
  /** Every fired detector (failures, errors, warnings; Tiers 1–3 too) by id: its kind and category. */
  detector_categories: Record<string, Omit<FiredDetector, 'id'>>;
  /** Tier 2's record; null when Tier 2 (or `tier2:hang`) is disabled or the command never started. */
  hang: HangRecord | null;
  /** Tier 3's record; null when Tier 3 is disabled or the command never started. */
  tier3: Tier3Record | null;
  /** The effective disables (recipe plus --disable-detector), sorted. */
  disabled_detectors: string[];
  disabled_detector_tiers: string[];
  /** What `aorta-probe run` exits with, and why (`exit_codes:` in the recipe). */
  exit_status: ExitDecision;
}

export interface Tier3Record {
  /** Where the kernel messages came from, or null when none could be read. */
  kernel_source: 'dmesg' | 'journalctl' | null;
  /** Kernel lines stamped inside the trial's window. */
  kernel_lines_in_window: number;
  /** The kernel events that fired (at most 100). */
  events: KernelEvent[];
  /** Why a part of Tier 3 could not run ("kernel log: ...", "GPU: ..."); empty when all of it ran. */
  disabled_reasons: string[];
}

/** Writes `result.json` into `dir` and returns its path. */
export function writeResultJson(dir: string, result: TrialResult): string {
  return writeAtomically(dir, RESULT_FILE, `${JSON.stringify(result, null, 2)}\n`);
}
