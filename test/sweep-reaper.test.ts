/**
 * The sweep's watchdog (src/sweep/reaper.ts) on its own: end-of-file on its pipe (the sweep's death, or its
 * close) ends the attempts it knows of — by group once confirmed, by the token in their environment while only
 * announced (a sweep killed between the spawn and the pid reaching its event loop) — and nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alive, until } from './support/processes.js';
import { type ProcReader, startReaper, surveyProc, TRIAL_TOKEN_ENV } from '../src/sweep/reaper.js';

/** A trial-like process: its own session, `sleep 60` after exec, with `env` added to ours. */
async function trial(env: Record<string, string>): Promise<ChildProcess & { pid: number }> {
  const child = spawn('sh', ['-c', 'exec sleep 60'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  // Wait for the exec, so that the environment read from /proc is sh's, not the forked node's.
  await until('the exec', () => readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').startsWith('sleep\0'), 5000);
  return child as ChildProcess & { pid: number };
}

describe('the sweep reaper', { timeout: 30_000 }, () => {
  it('ends an announced attempt it never got the pid of, by the token in its environment', async () => {
    const reaper = startReaper(1000);
    const watched = reaper.attempt();
    expect(watched.token).toMatch(/^[0-9a-f]{24}-0$/);
    const t = await trial({ [TRIAL_TOKEN_ENV]: watched.token });
    // Same reaper's token but another attempt number, and another reaper's token: neither is this attempt.
    const other = await trial({ [TRIAL_TOKEN_ENV]: watched.token.replace(/-0$/, '-7') });
    const strangers = startReaper(1000);
    const stranger = await trial({ [TRIAL_TOKEN_ENV]: strangers.attempt().token });
    try {
      reaper.close(); // end-of-file, as when the sweep dies
      await until('the announced attempt to be ended', () => !alive(t.pid), 5000);
      await until('the reaper to exit', () => !alive(reaper.pid ?? 0), 5000);
      expect([alive(other.pid), alive(stranger.pid)]).toEqual([true, true]);
    } finally {
      for (const c of [t, other, stranger]) c.kill('SIGKILL');
      strangers.close();
    }
  });

  it('ends a confirmed attempt by its group, and leaves an ended attempt alone', async () => {
    const reaper = startReaper(1000);
    const running = reaper.attempt();
    const done = reaper.attempt();
    expect([running.token.endsWith('-0'), done.token.endsWith('-1')]).toEqual([true, true]);
    // The running one without its token (a trial may clear its environment): its group is what finds it.
    const t = await trial({});
    running.started(t.pid);
    // What a finished attempt left behind in a session of its own is not the reaper's to end.
    const left = await trial({ [TRIAL_TOKEN_ENV]: done.token });
    done.started(left.pid);
    done.ended();
    try {
      reaper.close();
      await until('the confirmed attempt to be ended', () => !alive(t.pid), 5000);
      await until('the reaper to exit', () => !alive(reaper.pid ?? 0), 5000);
      expect(alive(left.pid)).toBe(true);
    } finally {
      for (const c of [t, left]) c.kill('SIGKILL');
    }
  });
});

/** A /proc of the test's own: pid → [stat line, environ entries or null when unreadable]; other names are not pids. */
function fakeProc(pids: Record<string, [string, string[] | null]>, others: string[]): ProcReader {
  return {
    readdirSync: () => [...others, ...Object.keys(pids)],
    readFileSync: (path) => {
      const [, , pid = '', file] = path.split('/');
      const entry = pids[pid];
      if (entry === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      if (file === 'stat') return entry[0];
      if (entry[1] === null) throw Object.assign(new Error(`EACCES: ${path}`), { code: 'EACCES' });
      return `${entry[1].join('\0')}\0`;
    },
  };
}

describe('surveyProc: one pass over /proc', () => {
  const stat = (pid: number, state: string, pgrp: number, comm = 'sleep'): string =>
    `${pid} (${comm}) ${state} 1 ${pgrp} ${pgrp} 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 12345 2277376 200\n`;

  it('reads every pid, those that start with a 9 too; skips zombies, group 1 and names that are not pids', () => {
    const proc = fakeProc(
      {
        '1': [stat(1, 'S', 1, 'init'), []],
        '9': [stat(9, 'S', 9), []],
        '95': [stat(95, 'R', 95), []],
        '912': [stat(912, 'S', 912), ['A=1']],
        '4242': [stat(4242, 'S', 4242), ['AORTA_PROBE_SWEEP_TOKEN=t-30']], // t-30 is not t-3
        '9123': [stat(9123, 'S', 9123), ['AORTA_PROBE_SWEEP_TOKEN=t-3']],
        '9124': [stat(9124, 'Z', 9124), ['AORTA_PROBE_SWEEP_TOKEN=t-4']], // a zombie is neither
        '31000': [stat(31000, 'S', 31000, 'a) b (c'), []], // its group read after the last ')'
        '31001': [stat(31001, 'D', 31001), null], // environment unreadable: running all the same
        '31002': [stat(31002, 'S', 4242), ['AORTA_PROBE_SWEEP_TOKEN=t-4']], // a member carries its group
      },
      ['self', 'thread-self', 'net', 'sys', '9x', 'acpi'],
    );
    const seen = surveyProc(proc, new Set(['AORTA_PROBE_SWEEP_TOKEN=t-3', 'AORTA_PROBE_SWEEP_TOKEN=t-4']));
    const sorted = (groups: Set<number>): number[] => [...groups].sort((a, b) => a - b);
    expect(seen === null ? null : { running: sorted(seen.running), carrying: sorted(seen.carrying) }).toEqual({
      running: [9, 95, 912, 4242, 9123, 31000, 31001],
      carrying: [4242, 9123],
    });
  });

  it('reads no environment when no token is wanted, and is null when /proc cannot be listed', () => {
    const read: string[] = [];
    const base = fakeProc({ '9123': [stat(9123, 'S', 9123), ['AORTA_PROBE_SWEEP_TOKEN=t-3']] }, []);
    const proc: ProcReader = {
      readdirSync: base.readdirSync,
      readFileSync: (path, enc) => {
        read.push(path);
        return base.readFileSync(path, enc);
      },
    };
    expect([...(surveyProc(proc, new Set())?.running ?? [])]).toEqual([9123]);
    expect(read).toEqual(['/proc/9123/stat']);
    const unreadable: ProcReader = {
      readdirSync: () => {
        throw Object.assign(new Error('EACCES: /proc'), { code: 'EACCES' });
      },
      readFileSync: base.readFileSync,
    };
    expect(surveyProc(unreadable, new Set())).toBe(null);
  });
});
