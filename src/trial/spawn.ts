/**
 * Starting the trial command: argv without a shell, in a new session (so the whole process tree can be signalled
 * as one group, and the terminal's Ctrl-C reaches only us — we forward it), with stdout and stderr both writing to
 * the same log file descriptor. Sharing one open file, as `cmd >log 2>&1` does, keeps the child's own interleaving
 * of the two streams exact and never blocks the child on us: we read the file as it grows (see log-tail.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

export interface ChildExit {
  /** Popen's convention: the exit status, or -N when killed by signal N (-11 for SIGSEGV). */
  readonly exitCode: number;
  /** The signal's name when killed by one. */
  readonly signal: NodeJS.Signals | null;
  /** `performance.now()` when the exit was observed. */
  readonly at: number;
}

export interface StartedChild {
  readonly kind: 'started';
  readonly pid: number;
  /** `performance.now()` just before the spawn call (the walltime's start). */
  readonly startedAt: number;
  readonly exit: Promise<ChildExit>;
  /** True once the exit has been observed. */
  exited(): boolean;
  /** Sends `signal` to the child's whole process group; never throws (a group that is gone is ignored). */
  signalGroup(signal: NodeJS.Signals): void;
}

export interface FailedStart {
  readonly kind: 'exec_failed';
  /** 127 command not found, 126 found but not executable, 1 any other reason (as the original). */
  readonly exitCode: 127 | 126 | 1;
  readonly message: string;
  readonly startedAt: number;
  readonly failedAt: number;
}

export interface SpawnOptions {
  /** File descriptor that receives both stdout and stderr. */
  readonly logFd: number;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
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

function execFailureCode(err: NodeJS.ErrnoException): 127 | 126 | 1 {
  if (err.code === 'ENOENT') return 127;
  if (err.code === 'EACCES' || err.code === 'EISDIR' || err.code === 'ENOEXEC') return 126;
  return 1;
}

export function spawnChild(argv: readonly string[], options: SpawnOptions): Promise<StartedChild | FailedStart> {
  const [file, ...args] = argv;
  if (file === undefined) throw new RangeError('spawnChild: empty argv');
  const startedAt = performance.now();
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      stdio: ['ignore', options.logFd, options.logFd],
      detached: true, // setsid(): its own process group, no controlling terminal
      env: options.env,
      cwd: options.cwd,
      shell: false,
      windowsHide: true,
    });
  } catch (err) {
    // Synchronous throws are argument errors (e.g. a NUL byte in argv): the command cannot start.
    const e = err as NodeJS.ErrnoException;
    return Promise.resolve({
      kind: 'exec_failed',
      exitCode: 1,
      message: e.message,
      startedAt,
      failedAt: performance.now(),
    });
  }
  return new Promise((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      // Before 'spawn' this is a failed exec; later errors (a failed kill) are not start failures.
      if (child.pid === undefined) {
        resolve({
          kind: 'exec_failed',
          exitCode: execFailureCode(err),
          message: `cannot start ${JSON.stringify(file)}: ${err.message}`,
          startedAt,
          failedAt: performance.now(),
        });
      }
    });
    child.once('spawn', () => {
      const pid = child.pid!;
      child.on('error', () => {}); // after a successful start nothing here may crash the runner
      let done = false;
      const exit = new Promise<ChildExit>((res) => {
        child.once('exit', (code, signal) => {
          done = true;
          res({ exitCode: popenExitCode(code, signal), signal, at: performance.now() });
        });
      });
      resolve({
        kind: 'started',
        pid,
        startedAt,
        exit,
        exited: () => done,
        signalGroup(signal) {
          try {
            process.kill(-pid, signal);
          } catch {
            // ESRCH: the group is gone already. Anything else (EPERM after a setuid exec) cannot be helped here, and
            // this runs from timers, where a throw would take the runner down without a result.
          }
        },
      });
    });
  });
}
