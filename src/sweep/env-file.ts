/**
 * `env_passthrough_mode: file` (upstream-probe-runs.md §3.6): each attempt of a trial gets `<trial_dir>/probe.env`,
 * the cell's variables as POSIX `KEY=VALUE` lines with sorted keys, mode 0600, and `AORTA_ENV_FILE` naming it (the
 * variables stay in the trial's environment too). A cell whose variables cannot be written that way (a key with a
 * newline, carriage return or `=`, a value with a newline) is not run: the trial gets an error record whose only
 * detector is `meta:env_file_validation_failed`, exit code 2, as the original's newest runner writes it.
 *
 * Every file is written through the held trial directory (dir-ref.ts), created exclusively in the run's private
 * directory and renamed into place: a link the trial planted at `probe.env` is replaced, never followed.
 */
import { rmSync } from 'node:fs';
import type { Recipe } from '../recipe/index.js';
import { ENV_FILE_VALIDATION_FAILED } from '../detectors/ids.js';
import { LOG_FILE, RESULT_FILE, type TrialResult } from '../trial/index.js';
import { notRunResult } from '../trial/not-run.js';
import { strRepr } from '../condition/repr.js';
import type { DirRef } from './dir-ref.js';
import { writeInto } from './run-dir.js';

export const ENV_FILE = 'probe.env';
/** The variable that names the trial's `probe.env` (absolute path). */
export const ENV_FILE_VAR = 'AORTA_ENV_FILE';
/** The exit code of a trial refused for its environment (the original's). */
export const ENV_FILE_EXIT_CODE = 2;

/** Why `env` cannot be written as `KEY=VALUE` lines, or null when it can (checked in sorted key order). */
export function envFileProblem(env: ReadonlyMap<string, string>): string | null {
  for (const key of [...env.keys()].sort()) {
    const bad = ['\n', '\r', '='].find((c) => key.includes(c));
    if (bad !== undefined) return `env key ${strRepr(key)} contains ${strRepr(bad)}`;
    if (env.get(key)!.includes('\n')) return `the value of env key ${strRepr(key)} contains a newline`;
  }
  return null;
}

/** `KEY=VALUE\n` per variable, keys sorted (by code unit, as Python's `sorted`). */
export function envFileText(env: ReadonlyMap<string, string>): string {
  return [...env.keys()]
    .sort()
    .map((k) => `${k}=${env.get(k)!}\n`)
    .join('');
}

/** Writes `dir/probe.env` (mode 0600) through `tmp`, replacing whatever is there (a planted link included). */
export function writeEnvFile(dir: DirRef, tmp: DirRef, env: ReadonlyMap<string, string>): void {
  writeInto(tmp, dir, ENV_FILE, envFileText(env), true, 0o600);
}

/** Removes a `probe.env` an earlier attempt (or the trial) left, as whatever it is (a link is removed as a link). */
export function removeEnvFile(dir: DirRef): void {
  if (dir.lstat(ENV_FILE) !== undefined) rmSync(dir.at(ENV_FILE), { recursive: true, force: true });
}

/**
 * Writes the record (and output.log, holding the reason) of a trial that was never started because its
 * environment could not be written to probe.env: verdict error, `meta:env_file_validation_failed`, exit code 2.
 * Shaped like every record `runTrial` writes, so resume, report and the matrix read it as one.
 */
export function writeEnvFileErrorRecord(
  dir: DirRef,
  tmp: DirRef,
  o: {
    readonly recipe: Recipe;
    readonly argv: readonly string[];
    readonly problem: string;
    readonly disableDetectors: readonly string[];
    readonly timeoutSec: number | null;
  },
): TrialResult {
  const reason = `${ENV_FILE}: ${o.problem}; the trial was not run (env_passthrough_mode: file)`;
  const result = notRunResult({
    recipe: o.recipe,
    argv: o.argv,
    detector: ENV_FILE_VALIDATION_FAILED,
    exitCode: ENV_FILE_EXIT_CODE,
    reason,
    disableDetectors: o.disableDetectors,
    timeoutSec: o.timeoutSec,
  });
  writeInto(tmp, dir, LOG_FILE, `${reason}\n`);
  writeInto(tmp, dir, RESULT_FILE, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
