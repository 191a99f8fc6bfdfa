/**
 * Runs one GPU tool call: no shell, a hard timeout, cancellable, bounded output.
 *
 * The call runs in its own process group (`detached`) so that a timeout or a cancel can kill the
 * whole group (amd-smi is a Python wrapper that may fork) and so that a Ctrl-C aimed at the trial's
 * terminal group does not hit it. The promise settles as soon as the call is killed, without
 * waiting for its pipes: a grandchild holding stdout open must not stretch the timeout.
 */
import { spawn } from 'node:child_process';

export type ToolRunResult =
  /** The tool exited by itself with `exitCode` (0 included: amd-smi 6.x reports errors with 0). */
  | { kind: 'exited'; exitCode: number; stdout: string; stderr: string }
  /** The tool was killed by a signal it did not get from us. */
  | { kind: 'signaled'; signal: string; stdout: string; stderr: string }
  /** It could not be started (`ENOENT`, `EACCES`, ...). */
  | { kind: 'spawn-error'; code: string }
  /** Still running after `timeoutMs`; killed. */
  | { kind: 'timeout' }
  /** Printed more than `maxStdoutBytes`; killed. */
  | { kind: 'output-too-large' }
  /** Cancelled through `signal`; killed. Not a tool failure. */
  | { kind: 'aborted' };

export interface RunToolOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Default {@link MAX_STDOUT_BYTES}. */
  maxStdoutBytes?: number;
}

/** 4 MiB: a 64-partition MI300 host prints about 100 KiB of `metric -m`; more is a runaway tool. */
export const MAX_STDOUT_BYTES = 4 * 1024 * 1024;

/** Only the start of stderr is kept: it is used for a one-line warning. */
const MAX_STDERR_BYTES = 64 * 1024;
/** After the tool exits, how long its pipes may stay open (held by a forked grandchild). */
const PIPE_GRACE_MS = 200;

export function runTool(file: string, args: readonly string[], options: RunToolOptions): Promise<ToolRunResult> {
  const maxStdout = options.maxStdoutBytes ?? MAX_STDOUT_BYTES;
  return new Promise<ToolRunResult>((resolve) => {
    if (options.signal?.aborted === true) {
      resolve({ kind: 'aborted' });
      return;
    }
    // PYTHONUNBUFFERED: amd-smi is Python, which block-buffers a piped stdout.
    const child = spawn(file, [...args], {
      env: { ...options.env, PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone, or it was never created (then kill the child alone).
        try {
          child.kill('SIGKILL');
        } catch {
          /* already exited */
        }
      }
    };
    const finish = (result: ToolRunResult, kill: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      if (kill) killGroup();
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish({ kind: 'aborted' }, true);
    const timer = setTimeout(() => finish({ kind: 'timeout' }, true), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxStdout) finish({ kind: 'output-too-large' }, true);
      else out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (errBytes < MAX_STDERR_BYTES) err.push(chunk);
      errBytes += chunk.length;
    });
    child.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'spawn-error', code: e.code ?? e.message }, false));

    const exited = (code: number | null, signal: NodeJS.Signals | null): ToolRunResult => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      return signal !== null
        ? { kind: 'signaled', signal, stdout, stderr }
        : { kind: 'exited', exitCode: code ?? 0, stdout, stderr };
    };
    child.on('exit', (code, signal) => {
      // Normally 'close' follows at once; if a grandchild keeps the pipes open, stop waiting.
      graceTimer = setTimeout(() => finish(exited(code, signal), true), PIPE_GRACE_MS);
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => finish(exited(code, signal), false));
  });
}
