/**
 * The three-way verdict of the newest original (the original's verdict.py (ROCm/aorta), issue #230): every fired detector is either an
 * error (the trial could not say anything about the workload) or a failure; any failure wins over errors.
 */
import { REGEX_ENGINE_FAILURE } from '../scan/scan.js';
import { TIER1_EXEC_FAILED, TIER1_INTERRUPTED, TIER1_TIMEOUT } from './tier1.js';

import type { Verdict } from '../recipe/types.js';

export type { Verdict };

/** The original's `ERROR_DETECTOR_IDS`, plus our `tier1:interrupted` (an operator stop is not a workload failure)
 * and `meta:regex_engine_failure` (a pattern the engine could not match says nothing about the workload). */
export const ERROR_DETECTOR_IDS: ReadonlySet<string> = new Set([
  TIER1_TIMEOUT,
  TIER1_EXEC_FAILED,
  TIER1_INTERRUPTED,
  REGEX_ENGINE_FAILURE,
]);

export interface PartitionedDetectors {
  failures: string[];
  errors: string[];
}

/** Splits fired ids into failures and errors, keeping their order. */
export function partitionDetectors(fired: readonly string[]): PartitionedDetectors {
  const failures: string[] = [];
  const errors: string[] = [];
  for (const id of fired) (ERROR_DETECTOR_IDS.has(id) ? errors : failures).push(id);
  return { failures, errors };
}

export function verdictFromDetectors(failures: readonly string[], errors: readonly string[]): Verdict {
  if (failures.length > 0) return 'fail';
  if (errors.length > 0) return 'error';
  return 'pass';
}
