/**
 * The trial's clock and kill switch, on a thread of their own.
 *
 * Why: the main thread scans the log, samples the GPU and evaluates conditions; a scan that is busy for seconds
 * delayed Node's view of the child's exit (so `walltime_sec` grew by the scan's time) and the `--timeout` timer
 * (which fired seconds late). Here a `worker_threads` Worker owns the child: it spawns it, takes the timestamps at
 * spawn and at exit on its own idle event loop, and runs the timeout and the SIGTERM → SIGKILL grace timers, so
 * none of them waits for the main thread. The main thread receives the spawn, the timeout and the exit as
 * messages; the log needs no transfer (the child writes the log file itself, see spawn.ts, and the main thread
 * tails it), so nothing of it can be lost in between.
 *
 * The worker's code is the function `childWorkerMain` below, passed to the Worker as its source: a fixed,
 * type-checked function of this module (never text built from input), so it runs the same from `src/` under the
 * test runner and from `dist/`, where a separate worker file would need a build step of its own.
 */
import { Worker } from 'node:worker_threads';

/** What the worker is asked to run. */
export interface ChildWorkerJob {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string | undefined;
  /** Receives both stdout and stderr; the caller closes it once 'spawned' or 'exec_failed' arrives. */
  readonly logFd: number;
  /** After this many ms the group gets SIGTERM, then SIGKILL after `killGraceMs`; null: no timeout. */
  readonly timeoutMs: number | null;
  readonly killGraceMs: number;
}

/** Messages from the worker; times are milliseconds measured by the worker. */
export type ChildWorkerEvent =
  | { readonly kind: 'spawned'; readonly pid: number }
  | {
      readonly kind: 'exec_failed';
      /** The errno code (ENOENT, EACCES…) or null for a synchronous argument error. */
      readonly code: string | null;
      readonly message: string;
      readonly elapsedMs: number;
    }
  | { readonly kind: 'timed_out' }
  | {
      readonly kind: 'exit';
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** Spawn call → exit event, on the worker's clock: the trial's walltime. */
      readonly walltimeMs: number;
      /** Epoch milliseconds of the exit (Tier 3's kernel window). */
      readonly exitEpochMs: number;
    };

/** Messages to the worker, about the child of job `id`. */
export type ChildWorkerCommand =
  | { readonly kind: 'start'; readonly id: number; readonly job: ChildWorkerJob }
  /** Signal the group; with `escalate`, SIGKILL follows after the grace unless the child has exited. */
  | { readonly kind: 'signal'; readonly id: number; readonly signal: NodeJS.Signals; readonly escalate: boolean }
  /** An interrupt came first: a later timeout no longer counts. */
  | { readonly kind: 'cancel_timeout'; readonly id: number };

/**
 * The worker's body: one worker serves every trial of the process (a worker costs tens of milliseconds to start,
 * hundreds on a loaded machine). It may use only its parameters and globals (it is run from its source text): no
 * imports, no helpers of this module.
 */
function childWorkerMain(wt: typeof import('node:worker_threads'), cp: typeof import('node:child_process')): void {
  const port = wt.parentPort!;
  const post = (id: number, e: ChildWorkerEvent): void => port.postMessage({ id, e });
  /** Per job: what a command needs. */
  const jobs = new Map<number, { stop(signal: NodeJS.Signals, escalate: boolean): void; cancelTimeout(): void }>();
  const start = (id: number, job: ChildWorkerJob): void => {
    const started = performance.now();
    let pid = 0;
    let exited = false;
    let timeoutTimer: ReturnType<typeof setTimeout> | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (exited || pid === 0) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // ESRCH: the group is gone already; EPERM after a setuid exec cannot be helped from here.
      }
    };
    const stop = (signal: NodeJS.Signals, escalate: boolean): void => {
      signalGroup(signal);
      if (escalate && graceTimer === undefined && !exited)
        graceTimer = setTimeout(() => signalGroup('SIGKILL'), job.killGraceMs);
    };
    jobs.set(id, { stop, cancelTimeout: () => clearTimeout(timeoutTimer) });
    let child: import('node:child_process').ChildProcess;
    try {
      child = cp.spawn(job.file, [...job.args], {
        stdio: ['ignore', job.logFd, job.logFd],
        detached: true, // setsid(): its own process group, no controlling terminal
        env: job.env,
        cwd: job.cwd,
        shell: false,
        windowsHide: true,
      });
    } catch (err) {
      // Synchronous throws are argument errors (e.g. a NUL byte in argv): the command cannot start.
      jobs.delete(id);
      post(id, {
        kind: 'exec_failed',
        code: null,
        message: (err as Error).message,
        elapsedMs: performance.now() - started,
      });
      return;
    }
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // after a successful start: a failed kill, nothing to report
      jobs.delete(id);
      post(id, {
        kind: 'exec_failed',
        code: err.code ?? null,
        message: err.message,
        elapsedMs: performance.now() - started,
      });
    });
    child.once('spawn', () => {
      pid = child.pid!;
      child.on('error', () => {});
      post(id, { kind: 'spawned', pid });
      // setTimeout fires at once past 2^31-1 ms; a longer timeout (about 25 days) is no timeout in practice.
      if (job.timeoutMs !== null && job.timeoutMs <= 0x7fffffff) {
        timeoutTimer = setTimeout(() => {
          if (exited) return;
          post(id, { kind: 'timed_out' });
          stop('SIGTERM', true);
        }, job.timeoutMs);
      }
    });
    child.once('exit', (code, signal) => {
      const walltimeMs = performance.now() - started;
      exited = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      jobs.delete(id);
      post(id, { kind: 'exit', code, signal, walltimeMs, exitEpochMs: performance.timeOrigin + performance.now() });
    });
  };
  port.on('message', (c: ChildWorkerCommand) => {
    if (c.kind === 'start') start(c.id, c.job);
    else if (c.kind === 'cancel_timeout') jobs.get(c.id)?.cancelTimeout();
    else jobs.get(c.id)?.stop(c.signal, c.escalate);
  });
}

const SOURCE = `(${childWorkerMain.toString()})(require('node:worker_threads'), require('node:child_process'))`;

/** A job's receivers: its events, and the worker's own failure. */
interface JobHandlers {
  readonly onEvent: (e: ChildWorkerEvent) => void;
  readonly onFailure: (err: unknown) => void;
}

/** The process's one child worker, started on first use; it holds the event loop open only while a job runs. */
let host: { readonly worker: Worker; readonly jobs: Map<number, JobHandlers> } | null = null;
let nextId = 1;

function hostWorker(): NonNullable<typeof host> {
  if (host !== null) return host;
  const worker = new Worker(SOURCE, { eval: true });
  const h = { worker, jobs: new Map<number, JobHandlers>() };
  worker.on('message', ({ id, e }: { id: number; e: ChildWorkerEvent }) => {
    const job = h.jobs.get(id);
    if (e.kind === 'exit' || e.kind === 'exec_failed') {
      h.jobs.delete(id);
      if (h.jobs.size === 0) worker.unref();
    }
    job?.onEvent(e);
  });
  const gone = (err: unknown): void => {
    if (host === h) host = null;
    for (const job of h.jobs.values()) job.onFailure(err);
    h.jobs.clear();
  };
  worker.once('error', gone);
  worker.once('exit', (code) => gone(new Error(`the child worker exited (${code})`)));
  host = h;
  return h;
}

/** What the caller may tell the worker about its job. */
export type JobCommand =
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals; readonly escalate: boolean }
  | { readonly kind: 'cancel_timeout' };

/**
 * Starts `job` in the child worker; `onEvent` receives its events in order, `onFailure` the worker's own death
 * (which cannot happen in practice; the job's events then stop).
 */
export function startChildWorker(
  job: ChildWorkerJob,
  onEvent: (e: ChildWorkerEvent) => void,
  onFailure: (err: unknown) => void,
): (c: JobCommand) => void {
  const h = hostWorker();
  const id = nextId++;
  h.jobs.set(id, { onEvent, onFailure });
  h.worker.ref();
  h.worker.postMessage({ kind: 'start', id, job } satisfies ChildWorkerCommand);
  return (c) => h.worker.postMessage({ ...c, id } satisfies ChildWorkerCommand);
}
