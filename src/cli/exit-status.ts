/**
 * The exit status of every command, in one table (docs/cli.md shows it):
 *
 * | code | meaning |
 * |------|---------|
 * | 0 | pass; a valid recipe; the command did its job |
 * | 1 | verdict `fail`; for `check`, an invalid recipe or (with `--strict`) warnings |
 * | 2 | usage error, unreadable input, or a recipe that does not load in scan/run/eval |
 * | 3 | verdict `error`, or an I/O failure (writing output, an internal error) |
 *
 * CI can then tell "the trial failed" (1) from "the invocation is wrong" (2) from "nothing could be decided" (3).
 * `run` stopped by signal N exits 128+N after writing its result (see commands/run.ts, interrupt.ts).
 */
import { DEFAULT_EXIT_STATUS, type Verdict } from '../detectors/verdict.js';

export const EXIT = {
  ok: 0,
  fail: 1,
  usage: 2,
  error: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The code for a verdict (no recipe `exit_codes`: `scan`, `check`'s verdicts). */
export function verdictExit(verdict: Verdict): ExitCode {
  return DEFAULT_EXIT_STATUS[verdict];
}

/** When several inputs are checked, the worst code wins: error (3) > usage (2) > fail (1) > ok (0). */
export function worstExit(codes: readonly number[]): number {
  return codes.reduce((a, b) => Math.max(a, b), 0);
}
