/**
 * Ctrl-C and SIGTERM for the commands that run trials (`run`, `sweep`) and the one that serves (`playground`).
 *
 * Why one helper: the trials run in their own sessions, so a Ctrl-C at the terminal reaches only us; the first
 * SIGINT or SIGTERM asks the work to stop (its results are still written), a second one kills it, and the command
 * then exits 128+N, the shell's convention for "stopped by signal N" (130 for Ctrl-C).
 */
import { constants } from 'node:os';

export interface Interruption {
  /** Aborted by the first SIGINT or SIGTERM, with the signal's name as its reason. */
  readonly signal: AbortSignal;
  /** Aborted by the second: kill what is still running. */
  readonly forceKill: AbortSignal;
  /** The first signal received, or null. */
  stoppedBy(): NodeJS.Signals | null;
  /** Stops listening (the default action of the signals is back). */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM until `dispose()`; `onFirst` runs once, on the first (to say what is stopping),
 * before `signal` is aborted.
 */
export function listenForInterrupt(onFirst: (signal: NodeJS.Signals) => void): Interruption {
  const interrupt = new AbortController();
  const forceKill = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stoppedBy === null) {
      stoppedBy = signal;
      onFirst(signal);
      interrupt.abort(signal);
    } else forceKill.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: interrupt.signal,
    forceKill: forceKill.signal,
    stoppedBy: () => stoppedBy,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Resolves on the first SIGINT or SIGTERM; a second one has its default action again (it ends the process). */
export function untilInterrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const interruption = listenForInterrupt((signal) => {
      interruption.dispose();
      resolve(signal);
    });
  });
}

/** Signal → 128+N, the shell's convention for "stopped by signal N". */
export function signalExitStatus(signal: NodeJS.Signals): number {
  return 128 + ((constants.signals as Record<string, number | undefined>)[signal] ?? 2);
}
