/**
 * A trial's verdict and its default exit status, spelled once. Recipe keys name a verdict (`expect.verdict`,
 * `stop_after.event_verdict`, `retain.on_<verdict>`), the classifier decides one, the CLI and the runner exit with
 * its status, the reports count them: every one of them takes the type and the table from here.
 */
export type Verdict = 'pass' | 'fail' | 'error';

/** Every verdict, in report order. */
export const VERDICTS: readonly Verdict[] = Object.freeze(['pass', 'fail', 'error']);

/**
 * The exit status of each verdict when no recipe `exit_codes` maps it: 1 is "the workload failed", 3 "nothing
 * could be decided" (2 is the CLI's usage error, so a verdict never exits 2).
 */
export const DEFAULT_EXIT_STATUS: Readonly<Record<Verdict, 0 | 1 | 3>> = Object.freeze({ pass: 0, fail: 1, error: 3 });
