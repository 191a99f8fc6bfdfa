/**
 * What a sweep does to a trial directory around `runTrial`: set earlier attempts aside, stamp the record with
 * the sweep's facts, and apply the recipe's `retain` policy once the trial is final.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LOG_FILE, RESULT_FILE } from '../trial/index.js';
import type { RetentionLevel } from './config.js';

export const ATTEMPT_DIR_PREFIX = 'attempt_';

export function attemptDirName(attempt: number): string {
  return `${ATTEMPT_DIR_PREFIX}${attempt}`;
}

/** Moves every file of the attempt just run (all but earlier attempt directories) into `attempt_<n>/`. */
export function setAttemptAside(dir: string, attempt: number): string {
  const dest = join(dir, attemptDirName(attempt));
  mkdirSync(dest);
  for (const name of readdirSync(dir)) {
    if (name.startsWith(ATTEMPT_DIR_PREFIX)) continue;
    renameSync(join(dir, name), join(dest, name));
  }
  return dest;
}

export function readRecord(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, RESULT_FILE), 'utf8')) as Record<string, unknown>;
}

/** Adds `extra` after the record's own keys and replaces result.json atomically, as the runner writes it. */
export function stampRecord(dir: string, extra: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record = { ...readRecord(dir), ...extra };
  const tmp = join(dir, `.${RESULT_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, join(dir, RESULT_FILE));
  return record;
}

/** Files each level keeps, in the trial directory and in each attempt directory. */
const KEEP: Record<Exclude<RetentionLevel, 'full' | 'none'>, readonly string[]> = {
  log: [RESULT_FILE, LOG_FILE],
  summary: [RESULT_FILE],
};

/**
 * `full`: everything; `log`: result.json and output.log; `summary`: result.json; `none`: the trial directory is
 * removed (the sweep's summary still counts the trial; `report` no longer sees it).
 */
export function applyRetention(dir: string, level: RetentionLevel): void {
  if (level === 'full') return;
  if (level === 'none') {
    rmSync(dir, { recursive: true, force: true });
    // An emptied cell directory goes too; a non-empty one stays.
    try {
      if (readdirSync(dirname(dir)).length === 0) rmSync(dirname(dir), { recursive: true });
    } catch {
      // already gone
    }
    return;
  }
  const keep = KEEP[level];
  const prune = (d: string, top: boolean): void => {
    for (const name of readdirSync(d)) {
      if (top && name.startsWith(ATTEMPT_DIR_PREFIX)) prune(join(d, name), false);
      else if (!keep.includes(name)) rmSync(join(d, name), { recursive: true, force: true });
    }
  };
  prune(dir, true);
}
