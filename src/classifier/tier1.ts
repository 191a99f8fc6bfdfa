/**
 * Tier 1: what the process's exit says (the original's `tier1_process.py`, ROCm/aorta, plus its newer `exec_failed`),
 * and the runner's own `interrupted` (an operator stop; the original wrote no result then).
 *
 * Precedence, as the original: a command that never started → `exec_failed` alone (nothing else can be said);
 * else a timeout → `timeout` (the synthetic exit code -1 says nothing); else an interrupt → `interrupted`;
 * else a mapped signal; else any non-zero exit → `exit_nonzero` (so SIGKILL -9 and SIGTERM -15 are
 * `exit_nonzero`). `coredump` is appended independently (except after `exec_failed`).
 *
 * A trial that Tier 2 stopped (`hang_action: kill`) gets no exit id: the exit is our kill, as after a timeout,
 * and `tier2:hang` says what happened. Pure (no I/O): the core-file look-up is `core-file.ts`, so recipe
 * self-tests can run this in a browser.
 */
import {
  SIGNAL_DETECTORS,
  TIER1_COREDUMP,
  TIER1_EXEC_FAILED,
  TIER1_EXIT_NONZERO,
  TIER1_INTERRUPTED,
  TIER1_TIMEOUT,
} from '../detectors/ids.js';

export interface Tier1Context {
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly execFailed: boolean;
  readonly interrupted: boolean;
  /** Stopped by Tier 2's `hang_action: kill`. */
  readonly killedForHang?: boolean;
  /** A core file was found in the trial directory (`hasCoreFile`). */
  readonly coreFile: boolean;
}

export function detectTier1(ctx: Tier1Context): string[] {
  if (ctx.execFailed) return [TIER1_EXEC_FAILED];
  const ids: string[] = [];
  if (ctx.timedOut) ids.push(TIER1_TIMEOUT);
  else if (ctx.interrupted) ids.push(TIER1_INTERRUPTED);
  else if (ctx.killedForHang === true) {
    // our kill: nothing to say about the exit
  } else if (SIGNAL_DETECTORS.has(ctx.exitCode)) ids.push(SIGNAL_DETECTORS.get(ctx.exitCode)!);
  else if (ctx.exitCode !== 0) ids.push(TIER1_EXIT_NONZERO);
  if (ctx.coreFile) ids.push(TIER1_COREDUMP);
  return ids;
}
