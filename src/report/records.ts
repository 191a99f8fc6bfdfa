/** The checked facts `report` takes from result.json files, and what it says about files it could not use. */
import type { Verdict } from '../detectors/verdict.js';
import type { ShownKernelEvent } from './kernel-events.js';

export interface TrialRecord {
  /** The result.json file. */
  readonly path: string;
  readonly cell: string;
  /** `trial_index`, else the `trial_<n>` directory's n, else null. */
  readonly trial: number | null;
  readonly verdict: Verdict;
  readonly exitCode: number;
  readonly walltimeSec: number;
  readonly peakVramMib: number | null;
  readonly failureDetectors: readonly string[];
  readonly errorDetectors: readonly string[];
  readonly warnDetectors: readonly string[];
  /** Attempts the trial took (1 without retries). */
  readonly attempts: number;
  /** Passed on a retry after a failed or erred attempt. */
  readonly passedOnRetry: boolean;
  /**
   * The log file, when the record names one inside its own directory (`log.file` with no `..` and not absolute);
   * null otherwise. Read for example lines only through examples.ts, which also refuses links on the way.
   */
  readonly logPath: string | null;
  /** The recipe the trial ran with, as recorded (for custom pattern regexes). */
  readonly recipeFile: string | null;
  /** The recipe's sha256 as recorded: a recipe file is read only when its bytes hash to it. */
  readonly recipeSha256: string | null;
  /** Tier 3's kernel events as recorded (`tier3.events`; malformed entries are left out); absent: none. */
  readonly kernelEvents?: readonly ShownKernelEvent[];
  /** Conditions that raised, as recorded (`condition_errors`; malformed entries are left out); absent: none. */
  readonly conditionErrors?: readonly RecordedConditionErrors[];
}

/** A pattern whose condition raised in a trial: how often, of how many matches, and the first exception's class. */
export interface RecordedConditionErrors {
  readonly pattern: string;
  readonly error: string;
  readonly raised: number;
  readonly evaluated: number;
}

export interface ReadProblem {
  readonly path: string;
  readonly reason: string;
}

/** A `trial_<n>` directory with no result.json: a trial that was interrupted, is still running, or never wrote one. */
export interface UnfinishedTrial {
  readonly dir: string;
  /** The cell its finished neighbours (records in the same cell directory) name, else its parent directory's name. */
  readonly cell: string;
  readonly trial: number;
}
