/**
 * The run directory's lock, as the original's `.aorta-probe.lock` (upstream-probe-runs.md §3.2): two sweeps into
 * one run directory would each rerun and overwrite the other's trials, so the second is refused.
 *
 * The file is created with `O_CREAT|O_EXCL` (0600) and holds `{pid, host, started_at}`. When it exists: a holder
 * on this host whose pid is alive (`kill(pid, 0)`, EPERM counting as alive) or any holder on another host (its
 * liveness cannot be checked from here) refuses the run; a dead holder's lock, or one that cannot be read, is
 * taken over with a warning (the sweep that held it was killed: a re-run is how it is finished). Removed when the
 * sweep ends; a SIGKILL leaves it, and the next run takes it over.
 */
import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { readRegularFile } from '../trial/safe-read.js';
import type { DirRef } from './dir-ref.js';

export const LOCK_FILE = '.aorta-probe.lock';
const MAX_LOCK_BYTES = 4096;

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started_at: string;
}

/** The run directory is held by a live sweep, or by one on another host. */
export class RunDirLockedError extends Error {
  override name = 'RunDirLockedError';
  constructor(
    readonly runDir: string,
    readonly holder: LockHolder,
    reason: string,
  ) {
    super(
      `${runDir} is locked: ${reason} (holder host=${JSON.stringify(holder.host)} pid=${holder.pid} started_at=${JSON.stringify(holder.started_at)}). If the holder is no longer running, remove ${runDir}/${LOCK_FILE} and retry.`,
    );
  }
}

export interface RunLock {
  /** Removes the lock file (best effort: a run directory moved aside takes its lock along). */
  release(): void;
}

/** The holder a lock file names, or null when it is not a regular file, too large, or not a holder's JSON. */
function readHolder(dir: DirRef): LockHolder | null {
  const r = readRegularFile(dir.at(LOCK_FILE), { maxBytes: MAX_LOCK_BYTES, over: 'reject' });
  if (!('bytes' in r)) return null;
  try {
    const v = JSON.parse(r.bytes.toString('utf8')) as Partial<LockHolder>;
    if (!Number.isInteger(v.pid) || typeof v.host !== 'string' || typeof v.started_at !== 'string') return null;
    return { pid: v.pid!, host: v.host, started_at: v.started_at };
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dir` or throws `RunDirLockedError`; `warn` hears of a stale lock taken over. */
export function acquireLock(dir: DirRef, warn: (message: string) => void): RunLock {
  const holder: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  const path = dir.at(LOCK_FILE);
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeSync(fd, `${JSON.stringify(holder, null, 2)}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw err;
    }
    const old = readHolder(dir);
    if (old !== null && old.host !== holder.host)
      throw new RunDirLockedError(
        dir.shown,
        old,
        'lock was created on a different host; cross-host liveness cannot be verified automatically',
      );
    if (old !== null && pidAlive(old.pid))
      throw new RunDirLockedError(dir.shown, old, 'another sweep is running in it');
    warn(
      old === null
        ? `${dir.shown}/${LOCK_FILE} cannot be read; taking it over`
        : `${dir.shown}/${LOCK_FILE} was left by pid ${old.pid} (started ${old.started_at}), which is no longer running; taking it over`,
    );
    unlinkSync(path);
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        const now = readHolder(dir);
        if (now !== null && now.pid === holder.pid && now.host === holder.host) unlinkSync(path);
      } catch {
        // the directory is gone or moved: nothing to remove
      }
    },
  };
}
