/**
 * The built-in detector ids that code names one by one (Tier 1's exits, Tier 2's hang, the meta ids), and the ids
 * that make a verdict `error` rather than `fail`. The catalogues of Tiers 3 and 4 list their own ids beside their
 * patterns (`tier3.ts`, `tier4.ts`); `catalogue.ts` puts every id in one table.
 */

export const TIER1_EXEC_FAILED = 'tier1:exec_failed';
export const TIER1_TIMEOUT = 'tier1:timeout';
export const TIER1_INTERRUPTED = 'tier1:interrupted';
export const TIER1_EXIT_NONZERO = 'tier1:exit_nonzero';
export const TIER1_COREDUMP = 'tier1:coredump';

/** The Linux values of `-signal.SIGxxx`, as the original's map (Popen's convention: −N for signal N). */
export const SIGNAL_DETECTORS: ReadonlyMap<number, string> = new Map([
  [-11, 'tier1:sigsegv'],
  [-6, 'tier1:sigabrt'],
  [-7, 'tier1:sigbus'],
]);

/** Every Tier 1 id, in report order. */
export const TIER1_IDS: readonly string[] = Object.freeze([
  TIER1_EXEC_FAILED,
  TIER1_TIMEOUT,
  TIER1_INTERRUPTED,
  ...SIGNAL_DETECTORS.values(),
  TIER1_EXIT_NONZERO,
  TIER1_COREDUMP,
]);

export const TIER2_HANG = 'tier2:hang';

/** A `required_for_pass` pattern did not fire. */
export const MISSING_PASS_SIGNAL = 'meta:missing_pass_signal';
/** An error detector: a pattern's match aborted the regex engine even alone, so the log was not fully scanned. */
export const REGEX_ENGINE_FAILURE = 'meta:regex_engine_failure';

/**
 * An error detector of a sweep's trial that never ran: `env_passthrough_mode: file` could not write the cell's
 * variables to probe.env (a key with a newline, carriage return or '=', a value with a newline).
 */
export const ENV_FILE_VALIDATION_FAILED = 'meta:env_file_validation_failed';

/** The meta ids (no tier: they follow Tier 5), in report order. */
export const META_IDS: readonly string[] = Object.freeze([
  MISSING_PASS_SIGNAL,
  REGEX_ENGINE_FAILURE,
  ENV_FILE_VALIDATION_FAILED,
]);

/**
 * The original's `ERROR_DETECTOR_IDS` (`meta:env_file_validation_failed` among them), plus our `tier1:interrupted`
 * (an operator stop is not a workload failure) and `meta:regex_engine_failure` (a pattern the engine could not
 * match says nothing about the workload).
 */
export const ERROR_DETECTOR_IDS: ReadonlySet<string> = new Set([
  TIER1_TIMEOUT,
  TIER1_EXEC_FAILED,
  TIER1_INTERRUPTED,
  REGEX_ENGINE_FAILURE,
  ENV_FILE_VALIDATION_FAILED,
]);
