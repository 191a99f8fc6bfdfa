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
 * Protocol (one line each, on the reaper's stdin): `?N` attempt N is about to be spawned, `+N PGID` it started as
 * process group PGID, `-N` it ended; `rm PATH` a directory to remove when the sweep is gone (its private spill
 * directory, whose exit hook a SIGKILL skips). On end-of-file: SIGTERM to every live group, SIGKILL `GRACE_MS`
 * later to any still there, the directories removed, exit. A sweep that ends normally closes the pipe with no
 * attempt left: the reaper just exits.
 *
 * Why `?N` before the spawn: the sweep learns a trial's pid only after it runs (the spawn is a worker's, whose
 * answer waits for the sweep's event loop), and a sweep killed in between would leave a trial its reaper was
 * never told of (test/sweep-kill.test.ts caught it on a loaded CI machine). So each attempt's environment
 * carries `TRIAL_TOKEN_ENV=<this reaper's token>-N`; on end-of-file, an attempt announced but never confirmed is
 * looked for in /proc/PID/environ, and looked for again until the SIGKILL deadline: between fork and exec the
 * child still shows the sweep's environment, without the token. Only announced attempts are looked for, so a
 * process a finished trial left behind is treated as before.
 *
 * The reaper's code is the fixed functions `reaperMain` and `surveyProc` below, run from their own source text (as
 * child-worker.ts runs its worker), so it needs no file of its own in dist/ and reads nothing but its stdin and
 * /proc; `surveyProc` is exported so that a test can run it on a /proc of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';

/** SIGTERM → SIGKILL: the groups are gone within this plus a few ms of the sweep's death (the bound: 5 s). */
export const REAPER_GRACE_MS = 3000;

/** The variable in each attempt's environment by which the reaper finds an attempt it was not told the pid of. */
export const TRIAL_TOKEN_ENV = 'AORTA_PROBE_SWEEP_TOKEN';

/** The two calls of node:fs that `surveyProc` makes: a test hands it a /proc of its own. */
export interface ProcReader {
  readdirSync(path: string): string[];
  readFileSync(path: string, encoding: 'latin1'): string;
}

/** What one pass over /proc found. */
export interface ProcSurvey {
  /** The process groups that have a running member. */
  readonly running: Set<number>;
  /** Among them, those of a process whose environment holds one of the `wanted` entries. */
  readonly carrying: Set<number>;
}

/**
 * One pass over /proc: the groups that have a running member (not a zombie: the sweep was its members' parent, so
 * until init reaps them, in a container whenever it gets to it, `kill(-pgid, 0)` still finds the dead ones), and
 * among them those of a process whose environment holds one of `wanted` (`VAR=value`). Null when /proc cannot be
 * read. The reaper runs it from its source text, like `reaperMain`: it may use only its parameters and globals.
 */
export function surveyProc(fs: ProcReader, wanted: ReadonlySet<string>): ProcSurvey | null {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  const running = new Set<number>();
  const carrying = new Set<number>();
  for (const n of names) {
    // A process's entry is all digits ('self', 'net', 'sys'… are not processes). Compare the whole name: a
    // string range test (n > '9') drops every pid that starts with a 9, and with it such a trial (CI met it).
    if (!/^[0-9]+$/.test(n)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${n}/stat`, 'latin1');
    } catch {
      continue; // gone
    }
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so read after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgid = Number(f[2]);
    if (f[0] === 'Z' || f[0] === 'X' || !Number.isInteger(pgid) || pgid <= 1) continue;
    running.add(pgid);
    if (wanted.size === 0 || carrying.has(pgid)) continue;
    try {
      if (
        fs
          .readFileSync(`/proc/${n}/environ`, 'latin1')
          .split('\0')
          .some((kv) => wanted.has(kv))
      )
        carrying.add(pgid);
    } catch {
      // gone, or another user's
    }
  }
  return { running, carrying };
}

/**
 * The reaper's body. It may use only its parameters and globals (it runs from its source text): no imports.
 * CommonJS `require` is there because `node -e` evaluates CommonJS.
 */
function reaperMain(graceMs: number, tokenVar: string, token: string, survey: typeof surveyProc): void {
  const fs = require('node:fs') as typeof import('node:fs');
  /** Attempt number → its process group, 0 while announced but not yet confirmed. */
  const attempts = new Map<number, number>();
  const dirs: string[] = [];
  let buffered = '';
  const signalled = (pgid: number): boolean => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
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
  const onLine = (line: string): void => {
    const [head = '', second = ''] = line.split(' ');
    const n = Number(head.slice(1));
    if (line.startsWith('rm /')) dirs.push(line.slice(3));
    else if (!Number.isInteger(n) || n < 0) return;
    else if (head.startsWith('?')) attempts.set(n, 0);
    else if (head.startsWith('-')) attempts.delete(n);
    else if (head.startsWith('+') && attempts.has(n)) {
      const pgid = Number(second);
      if (Number.isInteger(pgid) && pgid > 1) attempts.set(n, pgid);
    }
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
  });
  const onEnd = (): void => {
    // The environment entries of the attempts announced but not confirmed: none left to look for when empty.
    const wanted = new Set([...attempts].filter(([, g]) => g === 0).map(([n]) => `${tokenVar}=${token}-${n}`));
    const targets = new Set([...attempts.values()].filter((g) => g !== 0));
    const termed = new Set<number>();
    /**
     * The targets still running, with any group newly found carrying an announced attempt's token among them;
     * each gets its SIGTERM the first time it is seen running.
     */
    const live = (): number[] => {
      const seen = survey(fs, wanted);
      for (const g of seen?.carrying ?? []) targets.add(g);
      const running = [...targets].filter((g) => (seen === null ? signalled(g) : seen.running.has(g)));
      for (const g of running) {
        if (termed.has(g)) continue;
        termed.add(g);
        signal(g, 'SIGTERM');
      }
      return running;
    };
    if (live().length === 0 && wanted.size === 0) {
      finish();
      return;
    }
    const deadline = Date.now() + graceMs;
    const poll = setInterval(() => {
      // An announced attempt may still be between fork and exec: `live` keeps looking for it until the deadline.
      const left = live();
      if ((left.length === 0 && wanted.size === 0) || Date.now() >= deadline) {
        clearInterval(poll);
        for (const g of left) signal(g, 'SIGKILL');
        finish();
      }
    }, 50);
  };
  process.stdin.on('end', onEnd);
  process.stdin.on('error', onEnd);
}

/** One attempt as the reaper follows it, from before its spawn to its end. */
export interface WatchedAttempt {
  /** The value of `TRIAL_TOKEN_ENV` the attempt's environment must carry. */
  readonly token: string;
  /** It runs as process group `pgid` (its leader's pid). */
  started(pgid: number): void;
  /** It ended, or never started: the reaper forgets it (its group id may be reused). */
  ended(): void;
}

export interface Reaper {
  /** Announces an attempt about to be spawned; call before the spawn, with its environment carrying the token. */
  attempt(): WatchedAttempt;
  /** A directory to remove should the sweep die. */
  removeOnDeath(dir: string): void;
  /** The sweep ends normally: the reaper exits (any attempt still running is ended, as on a death). */
  close(): void;
  /** The reaper's pid (tests). */
  readonly pid: number | undefined;
}

/** Starts the reaper; it keeps neither the sweep's event loop alive nor the sweep's terminal. */
export function startReaper(graceMs = REAPER_GRACE_MS): Reaper {
  const token = randomBytes(12).toString('hex');
  const args = [graceMs, TRIAL_TOKEN_ENV, token].map((a) => JSON.stringify(a)).join(', ');
  const source = `(${reaperMain.toString()})(${args}, ${surveyProc.toString()})`;
  const child: ChildProcess = spawn(process.execPath, ['-e', source], {
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
  // libuv writes to a pipe at once when nothing is queued, so a line is in the kernel's pipe when this returns
  // (unless 64 KiB are waiting for a reaper that stopped reading): `?N` is there before the spawn is asked for.
  const send = (line: string): void => {
    if (!stdin.destroyed && stdin.writable) stdin.write(`${line}\n`);
  };
  let next = 0;
  return {
    attempt: () => {
      const n = next++;
      send(`?${n}`);
      return {
        token: `${token}-${n}`,
        started: (pgid) => send(`+${n} ${pgid}`),
        ended: () => send(`-${n}`),
      };
    },
    removeOnDeath: (dir) => {
      if (dir.startsWith('/') && !dir.includes('\n')) send(`rm ${dir}`);
    },
    close: () => {
      if (!stdin.destroyed) stdin.end();
    },
    pid: child.pid,
  };
}
