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
  /** When the trial started (`started_at`, ISO 8601 as recorded), or null. */
  readonly startedAt?: string | null;
  /** A sweep trial's `[mitigation, diagnostic]` (`mitigations`), for a matrix computed from the records. */
  readonly mitigations?: readonly [string, string];
  /** The trial's command (`argv`, at most 256 strings), for the HTML header; absent when not a list of strings. */
  readonly argv?: readonly string[];
  /** The aorta-probe that ran the trial (`versions.aorta_probe`), for the HTML header. */
  readonly probeVersion?: string;
  /** The recipe the trial ran with, as recorded (for custom pattern regexes). */
  readonly recipeFile: string | null;
  /** The recipe's sha256 as recorded: a recipe file is read only when its bytes hash to it. */
  readonly recipeSha256: string | null;
  /** Tier 3's kernel events as recorded (`tier3.events`; malformed entries are left out); absent: none. */
  readonly kernelEvents?: readonly ShownKernelEvent[];
  /** Conditions that raised, as recorded (`condition_errors`; malformed entries are left out); absent: none. */
  readonly conditionErrors?: readonly RecordedConditionErrors[];
  /**
   * Where each log-pattern detector fired, as recorded (`detectors`: the first entry per id, its 1-based line and
   * match text); absent in records older than `detectors`.
   */
  readonly firings?: ReadonlyMap<string, { readonly line: number; readonly match: string }>;
  /** The attempts before the final one of a retried trial (`attempts`, all but the last); absent: none. */
  readonly priorAttempts?: readonly PriorAttempt[];
}

/** An attempt of a retried trial that was not its last: what it ended with and what it fired. */
export interface PriorAttempt {
  readonly attempt: number;
  readonly verdict: Verdict;
  readonly exitCode: number | null;
  readonly failureDetectors: readonly string[];
  readonly errorDetectors: readonly string[];
  /** The `retry.on` entries it matched (why it was retried). */
  readonly retryOn: readonly string[];
  /** Relative to the trial directory (`attempt_<k>`). */
  readonly dir: string | null;
  /** Where its detectors fired: its own result.json's `detectors` (first entry per id), empty when unreadable. */
  readonly firings: readonly { readonly id: string; readonly line: number; readonly match: string }[];
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
