/**
 * The three-way verdict of the newest original (`verdict.py`, ROCm/aorta issue #230): every fired detector is either
 * an error (the trial could not say anything about the workload) or a failure; any failure wins over errors.
 */
import { ERROR_DETECTOR_IDS } from '../detectors/ids.js';
import type { Verdict } from '../detectors/verdict.js';

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
