/**
 * Starting the trial command: argv without a shell, in a new session (so the whole process tree can be signalled
 * as one group, and the terminal's Ctrl-C reaches only us — we forward it), with stdout and stderr both writing to
 * the same log file descriptor. Sharing one open file, as `cmd >log 2>&1` does, keeps the child's own interleaving
 * of the two streams exact and never blocks the child on us: we read the file as it grows (see log-tail.ts).
 */
import { closeSync } from 'node:fs';
import { constants } from 'node:os';
import { startChildWorker } from './child-worker.js';
import { now } from '../scan/clock.js';

export interface ChildExit {
  /** Popen's convention: the exit status, or -N when killed by signal N (-11 for SIGSEGV). */
  readonly exitCode: number;
  /** The signal's name when killed by one. */
  readonly signal: NodeJS.Signals | null;
  /** Spawn → exit in seconds, measured off the main thread (child-worker.ts): true however busy the scanner is. */
  readonly walltimeSec: number;
  /** Epoch milliseconds of the exit. */
  readonly exitEpochMs: number;
  /** The timeout fired (the group got SIGTERM, then SIGKILL after the grace) before the exit. */
  readonly timedOut: boolean;
}

export interface StartedChild {
  readonly kind: 'started';
  readonly pid: number;
  /** `now()` (scan/clock.ts, main thread) when the spawn was asked for: for progress displays only. */
  readonly startedAt: number;
  readonly exit: Promise<ChildExit>;
  /** True once the exit has been reported. */
  exited(): boolean;
  /** True once the timeout has fired (the worker already signalled the group). */
  timedOut(): boolean;
  /** Sends `signal` to the child's whole process group; never throws (a group that is gone is ignored). */
  signalGroup(signal: NodeJS.Signals): void;
  /** `signal` now, SIGKILL after the kill grace if the command is still running (timed in the worker). */
  stop(signal: NodeJS.Signals): void;
  /** An interrupt or a hang kill came first: a later timeout does not count. */
  cancelTimeout(): void;
}

export interface FailedStart {
  readonly kind: 'exec_failed';
  /** 127 command not found, 126 found but not executable, 1 any other reason (as the original). */
  readonly exitCode: 127 | 126 | 1;
  readonly message: string;
  /** Seconds from the spawn call to the failure. */
  readonly walltimeSec: number;
}

export interface SpawnOptions {
  /** File descriptor that receives both stdout and stderr (closed here once the child has its copies). */
  readonly logFd: number;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Milliseconds before the group gets SIGTERM (then SIGKILL after `killGraceMs`); null: none. */
  readonly timeoutMs?: number | null;
  readonly killGraceMs: number;
}

/** Maps Node's (code, signal) pair to Popen's `returncode`. */
export function popenExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) {
    const n = (constants.signals as Record<string, number | undefined>)[signal];
    if (n !== undefined) return -n;
  }
  return -1; // neither: cannot happen for an exited child; reported like the runner's synthetic code
}

function execFailureCode(code: string): 127 | 126 | 1 {
  if (code === 'ENOENT') return 127;
  if (code === 'EACCES' || code === 'EISDIR' || code === 'ENOEXEC') return 126;
  return 1;
}

/** Starts `argv` in a worker that owns the child, its clock and its timers (child-worker.ts). */
export function spawnChild(argv: readonly string[], options: SpawnOptions): Promise<StartedChild | FailedStart> {
  const [file, ...args] = argv;
  if (file === undefined) throw new RangeError('spawnChild: empty argv');
  const startedAt = now();
  let closed = false;
  const closeLog = (): void => {
    if (closed) return;
    closed = true;
    closeSync(options.logFd);
  };
  return new Promise((resolve, reject) => {
    let pid = 0;
    let exited = false;
    let timedOut = false;
    let resolveExit: (e: ChildExit) => void = () => {};
    const exit = new Promise<ChildExit>((res) => (resolveExit = res));
    const send = startChildWorker(
      {
        file,
        args,
        env: options.env,
        cwd: options.cwd,
        logFd: options.logFd,
        timeoutMs: options.timeoutMs ?? null,
        killGraceMs: options.killGraceMs,
      },
      (e) => {
        switch (e.kind) {
          case 'exec_failed':
            closeLog();
            resolve({
              kind: 'exec_failed',
              exitCode: e.code === null ? 1 : execFailureCode(e.code),
              message: e.code === null ? e.message : `cannot start ${JSON.stringify(file)}: ${e.message}`,
              walltimeSec: e.elapsedMs / 1000,
            });
            return;
          case 'spawned':
            closeLog(); // the child holds its own copies
            pid = e.pid;
            resolve(started());
            return;
          case 'timed_out':
            timedOut = true;
            return;
          case 'exit':
            exited = true;
            resolveExit({
              exitCode: popenExitCode(e.code, e.signal),
              signal: e.signal,
              walltimeSec: e.walltimeMs / 1000,
              exitEpochMs: e.exitEpochMs,
              timedOut,
            });
        }
      },
      (err) => {
        // The worker itself failed (it cannot in practice): without it there is no child to wait for.
        closeLog();
        reject(err);
      },
    );
    const started = (): StartedChild => ({
      kind: 'started',
      pid,
      startedAt,
      exit,
      exited: () => exited,
      timedOut: () => timedOut,
      signalGroup(signal) {
        try {
          process.kill(-pid, signal);
        } catch {
          // ESRCH: the group is gone already. Anything else (EPERM after a setuid exec) cannot be helped here, and
          // this runs from timers, where a throw would take the runner down without a result.
        }
      },
      stop: (signal) => send({ kind: 'signal', signal, escalate: true }),
      cancelTimeout: () => send({ kind: 'cancel_timeout' }),
    });
  });
}
