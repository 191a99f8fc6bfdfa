/**
 * What a sweep does to a trial directory around `runTrial`: clear an unfinished one, tell a finished one
 * (resume), set earlier attempts aside, stamp the record with the sweep's facts, and apply the recipe's `retain`
 * policy once the trial is final. Every file is reached through the held trial directory (dir-ref.ts) and never
 * through a link: the trial that ran there may have planted any.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, type Stats } from 'node:fs';
import { LOG_FILE, RESULT_FILE } from '../trial/index.js';
import { VERDICTS } from '../report/read-results.js';
import type { RetentionLevel } from '../recipe/index.js';
import type { Verdict } from '../detectors/verdict.js';
import type { DirRef } from './dir-ref.js';
import { readRegular, writeInto } from './run-dir.js';

export const ATTEMPT_DIR_PREFIX = 'attempt_';
const ATTEMPT_DIR = /^attempt_\d+$/;

export function attemptDirName(attempt: number): string {
  return `${ATTEMPT_DIR_PREFIX}${attempt}`;
}

/** The record in `dir`, or null when there is none that parses as a JSON object. */
export function readRecord(dir: DirRef): Record<string, unknown> | null {
  const text = readRegular(dir, RESULT_FILE);
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A trial this run finished: its record parses, has a verdict, is the final attempt, was not interrupted, and
 * carries this run's id (upstream-probe-runs.md §3.3 `is_trial_complete`, plus the last two: an interrupted trial
 * never ran its course, and a record without the run id was not written by this run).
 */
export function completeRecord(dir: DirRef, runId: string): Record<string, unknown> | null {
  const r = readRecord(dir);
  if (r === null) return null;
  const ok =
    VERDICTS.includes(r.verdict as Verdict) && r.final === true && r.interrupted !== true && r.run_id === runId;
  return ok ? r : null;
}

/** Removes every entry of `dir` (an unfinished trial's leftovers), links removed as links. */
export function clearDir(dir: DirRef): void {
  for (const name of readdirSync(dir.self)) rmSync(dir.at(name), { recursive: true, force: true });
}

/** Moves every file of the attempt just run (all but earlier attempt directories) into `attempt_<n>/`. */
export function setAttemptAside(dir: DirRef, attempt: number): string {
  const name = attemptDirName(attempt);
  mkdirSync(dir.at(name));
  const dest = dir.child(name, false);
  try {
    for (const entry of readdirSync(dir.self)) {
      if (ATTEMPT_DIR.test(entry)) continue;
      renameSync(dir.at(entry), dest.at(entry));
    }
  } finally {
    dest.close();
  }
  return name;
}

/** Adds `extra` after the record's own keys and replaces result.json atomically (run-dir.ts `writeInto`). */
export function stampRecord(
  dir: DirRef,
  tmp: DirRef,
  extra: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const own = readRecord(dir);
  if (own === null) throw new Error(`${dir.shown}/${RESULT_FILE}: the trial's record is missing or not JSON`);
  const record = { ...own, ...extra };
  writeInto(tmp, dir, RESULT_FILE, `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/** Names each level keeps, in the trial directory and in each attempt directory; result.json always. */
function keeps(level: RetentionLevel, name: string): boolean {
  switch (level) {
    case 'full':
      return true;
    case 'summary':
      return name === RESULT_FILE || name === LOG_FILE || /\.summary\./.test(name);
    case 'log':
      return name === RESULT_FILE || name === LOG_FILE;
    case 'none':
      return name === RESULT_FILE;
  }
}

/** What retention removed, as the original records it (`capture.retention`), in result.json's `retention`. */
export interface RetentionRecord {
  readonly level: RetentionLevel;
  /** Paths relative to the trial directory, sorted; a directory ends in `/`. At most `MAX_DELETED_LISTED`. */
  readonly deleted: readonly string[];
  /** How many entries were removed in all (`deleted` may list fewer). */
  readonly deleted_count: number;
  /** Bytes of the regular files removed (directories and links count 0). */
  readonly freed_bytes: number;
}

export const MAX_DELETED_LISTED = 1000;

/** Bytes of the regular files under `path`, never through a link; unreadable parts count 0. */
function sizeOf(path: string, st: Stats): number {
  if (st.isFile()) return st.size;
  if (!st.isDirectory()) return 0;
  let total = 0;
  // Iterative: a trial may leave a tree deeper than the stack.
  const stack = [path];
  for (let p = stack.pop(); p !== undefined; p = stack.pop()) {
    let names: string[];
    try {
      names = readdirSync(p);
    } catch {
      continue;
    }
    for (const n of names) {
      const q = `${p}/${n}`;
      const s = lstatSync(q, { throwIfNoEntry: false });
      if (s?.isFile()) total += s.size;
      else if (s?.isDirectory()) stack.push(q);
    }
  }
  return total;
}

/**
 * Applies `level` to the trial directory and each of its attempt directories; result.json is never removed
 * (levels none < log < summary < full, as the original: `log` keeps output.log, `summary` also `*.summary.*`).
 * Nothing is followed: a link is removed as a link, and a directory is entered only as itself.
 */
export function applyRetention(dir: DirRef, level: RetentionLevel): RetentionRecord {
  const deleted: string[] = [];
  let count = 0;
  let freed = 0;
  const prune = (d: DirRef, prefix: string, top: boolean): void => {
    for (const name of readdirSync(d.self).sort()) {
      const st = d.lstat(name);
      if (st === undefined) continue;
      if (top && ATTEMPT_DIR.test(name) && st.isDirectory()) {
        const sub = d.child(name, false);
        try {
          prune(sub, `${name}/`, false);
        } finally {
          sub.close();
        }
        continue;
      }
      if (keeps(level, name) && (st.isFile() || name !== RESULT_FILE)) continue;
      freed += sizeOf(d.at(name), st);
      rmSync(d.at(name), { recursive: true, force: true });
      count++;
      if (deleted.length < MAX_DELETED_LISTED) deleted.push(`${prefix}${name}${st.isDirectory() ? '/' : ''}`);
    }
  };
  if (level !== 'full') prune(dir, '', true);
  return { level, deleted: deleted.sort(), deleted_count: count, freed_bytes: freed };
}
