/**
 * `result.json`: the trial's record, in the original's key order where the keys are shared (verdict, exit_code,
 * walltime_sec, peak_vram_mib, argv, the detector lists, capture, tier_durations_ms, timed_out), then ours.
 * Written atomically (temporary file + rename), so a reader never sees half a record.
 */
import type { FiredDetector } from '../scan/index.js';
import type { GpuSummary } from './gpu.js';
import type { Verdict } from './verdict.js';
import { writeAtomically } from './out-files.js';

export const RESULT_FILE = 'result.json';
export const LOG_FILE = 'output.log';

export interface TierDurations {
  tier1: number;
  /** Tier 2 (hang) and Tier 3 (dmesg, amd-smi kernel state) are not implemented here: always 0. */
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
  /** The log detectors that fired (Tier 4 and 5, info ones too), each with its line and byte offset in the log. */
  detectors: FiredDetector[];
  /** The combined stdout+stderr, in the output directory. */
  log: { file: string; bytes: number };
  timeout_sec: number | null;
  recipe: { file: string; sha256: string } | null;
  gpu: GpuSummary;
  started_at: string;
  versions: { aorta_probe: string; builtin_patterns: string; node: string; gpu_tool: string | null };
}

/** Writes `result.json` into `dir` and returns its path. */
export function writeResultJson(dir: string, result: TrialResult): string {
  return writeAtomically(dir, RESULT_FILE, `${JSON.stringify(result, null, 2)}\n`);
}
