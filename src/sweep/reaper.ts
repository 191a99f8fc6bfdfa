/**
 * The sweep's watchdog: a small process of its own that ends the sweep's running trials when the sweep dies,
 * however it dies (SIGKILL, the OOM killer, a node crash), so no trial goes on as an orphan writing into a run
 * that nobody will finish.
 *
 * Why a process: every trial leads its own session (so Ctrl-C reaches only the sweep, which forwards it), hence
 * the kernel does not signal it when the sweep goes; and a dying process runs no code of its own. What does
 * survive any death is the kernel closing the dead process's descriptors: the reaper reads a pipe whose only
 * writer is the sweep, and end-of-file on it means the sweep is gone.
 *
 * Protocol (one line each, on the reaper's stdin): `+PGID` a trial's process group started, `-PGID` it ended,
 * `rm PATH` a directory to remove when the sweep is gone (its private spill directory, whose exit hook a
 * SIGKILL skips). On end-of-file: SIGTERM to every live group, SIGKILL `GRACE_MS` later to any still there, the
 * directories removed, exit. A sweep that ends normally closes the pipe with no group left: the reaper just exits.
 *
 * The reaper's code is the fixed function `reaperMain` below, run from its own source text (as child-worker.ts
 * runs its worker), so it needs no file of its own in dist/ and reads nothing but its stdin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** SIGTERM → SIGKILL: the groups are gone within this plus a few ms of the sweep's death (the bound: 5 s). */
export const REAPER_GRACE_MS = 3000;

/**
 * The reaper's body. It may use only its parameter and globals (it runs from its source text): no imports.
 * CommonJS `require` is there because `node -e` evaluates CommonJS.
 */
function reaperMain(graceMs: number): void {
  const fs = require('node:fs') as typeof import('node:fs');
  const groups = new Set<number>();
  const dirs: string[] = [];
  let buffered = '';
  // A group is alive while it has a member that is not a zombie: the sweep was its members' parent, so until
  // init reaps them (in a container, whenever it gets to it) `kill(-pgid, 0)` still finds the dead ones.
  const alive = (pgid: number): boolean => {
    let names: string[];
    try {
      names = fs.readdirSync('/proc');
    } catch {
      try {
        process.kill(-pgid, 0);
        return true;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    for (const n of names) {
      if (n < '0' || n > '9') continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${n}/stat`, 'latin1');
      } catch {
        continue;
      }
      // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so read after the last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X') return true;
    }
    return false;
  };
  const signal = (pgid: number, sig: NodeJS.Signals): void => {
    try {
      process.kill(-pgid, sig);
    } catch {
      // gone already
    }
  };
  const finish = (): void => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    process.exit(0);
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const pgid = Number(line.slice(1));
      if (line.startsWith('+') && Number.isInteger(pgid) && pgid > 1) groups.add(pgid);
      else if (line.startsWith('-')) groups.delete(pgid);
      else if (line.startsWith('rm /')) dirs.push(line.slice(3));
      nl = buffered.indexOf('\n');
    }
  });
  const onEnd = (): void => {
    const live = [...groups].filter(alive);
    if (live.length === 0) {
      finish();
      return;
    }
    for (const g of live) signal(g, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    const poll = setInterval(() => {
      const left = live.filter(alive);
      if (left.length === 0 || Date.now() >= deadline) {
        clearInterval(poll);
        for (const g of left) signal(g, 'SIGKILL');
        finish();
      }
    }, 50);
  };
  process.stdin.on('end', onEnd);
  process.stdin.on('error', onEnd);
}

export interface Reaper {
  /** A trial's process group started (its leader's pid). */
  watch(pgid: number): void;
  /** It ended: the reaper forgets it (its id may be reused). */
  forget(pgid: number): void;
  /** A directory to remove should the sweep die. */
  removeOnDeath(dir: string): void;
  /** The sweep ends normally: the reaper exits (any group still registered is ended, as on a death). */
  close(): void;
  /** The reaper's pid (tests). */
  readonly pid: number | undefined;
}

/** Starts the reaper; it keeps neither the sweep's event loop alive nor the sweep's terminal. */
export function startReaper(graceMs = REAPER_GRACE_MS): Reaper {
  const child: ChildProcess = spawn(process.execPath, ['-e', `(${reaperMain.toString()})(${graceMs})`], {
    // Its own session: a signal to the sweep's process group (the terminal's Ctrl-C) does not take it down first.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    // Our own environment, never a trial's: NODE_OPTIONS from a recipe must not reach it.
    env: { PATH: process.env.PATH ?? '' },
  });
  const stdin = child.stdin as Writable & { unref?: () => void };
  stdin.on('error', () => {}); // the reaper died first: nothing to supervise with, the sweep goes on
  child.on('error', () => {});
  child.unref();
  stdin.unref?.();
  const send = (line: string): void => {
    if (!stdin.destroyed && stdin.writable) stdin.write(`${line}\n`);
  };
  return {
    watch: (pgid) => send(`+${pgid}`),
    forget: (pgid) => send(`-${pgid}`),
    removeOnDeath: (dir) => {
      if (dir.startsWith('/') && !dir.includes('\n')) send(`rm ${dir}`);
    },
    close: () => {
      if (!stdin.destroyed) stdin.end();
    },
    pid: child.pid,
  };
}
