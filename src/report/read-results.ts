/**
 * Finding and reading `result.json` files — from a sweep, a cluster job or a single `run` — into checked
 * trial records. A file that is not a usable record is reported with the reason and skipped, never fatal.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RESULT_FILE, type Verdict } from '../trial/index.js';

/** The verdicts a record may carry (the trial runner's `Verdict`), in report order. */
export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'error'];

/** The cell of a record that names none and does not sit in `<cell>/trial_<n>/` (the original's default). */
export const UNKNOWN_CELL = '_unknown_';

export interface TrialRecord {
  /** The result.json file. */
  readonly path: string;
  readonly cell: string;
  /** `trial_index`, else the `trial_<n>` directory's n, else null. */
  readonly trial: number | null;
  readonly verdict: Verdict;
  readonly exitCode: number;
  readonly walltimeSec: number;
  readonly peakVramMib: number | null;
  readonly failureDetectors: readonly string[];
  readonly errorDetectors: readonly string[];
  readonly warnDetectors: readonly string[];
  /** Attempts the trial took (1 without retries). */
  readonly attempts: number;
  /** Passed on a retry after a failed or erred attempt. */
  readonly passedOnRetry: boolean;
  /** The log file next to the record, when the record names one. */
  readonly logPath: string | null;
  /** The recipe the trial ran with, as recorded (for custom pattern regexes). */
  readonly recipeFile: string | null;
}

export interface ReadProblem {
  readonly path: string;
  readonly reason: string;
}

export interface ReadResults {
  readonly records: TrialRecord[];
  readonly problems: ReadProblem[];
  /** Records of earlier attempts of a retried trial (`final: false`), counted in their trial's `attempts`. */
  readonly earlierAttempts: number;
}

/** Every result.json under each path (a directory, searched recursively, or a file), read in path order. */
export async function readResults(paths: readonly string[]): Promise<ReadResults> {
  const files: string[] = [];
  const problems: ReadProblem[] = [];
  for (const p of paths) {
    try {
      const s = await stat(p);
      if (s.isDirectory()) await walk(p, files);
      else files.push(p);
    } catch (err) {
      problems.push({
        path: p,
        reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      });
    }
  }
  files.sort();
  const records: TrialRecord[] = [];
  let earlierAttempts = 0;
  for (const f of [...new Set(files)]) {
    let text: string;
    try {
      text = await readFile(f, 'utf8');
    } catch (err) {
      problems.push({
        path: f,
        reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      });
      continue;
    }
    const r = parseRecord(f, text);
    if (r === 'earlier') earlierAttempts++;
    else if (typeof r === 'string') problems.push({ path: f, reason: r });
    else records.push(r);
  }
  return { records, problems, earlierAttempts };
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (e.isFile() && e.name === RESULT_FILE) out.push(p);
  }
}

const TRIAL_DIR = /^trial_(\d+)$/;

function detectorIds(v: unknown): string[] | null {
  if (!Array.isArray(v)) return null;
  const out: string[] = [];
  for (const e of v as unknown[]) {
    if (typeof e === 'string') out.push(e);
    else if (e !== null && typeof e === 'object' && typeof (e as { id?: unknown }).id === 'string')
      out.push((e as { id: string }).id);
    else return null;
  }
  return out;
}

/** A record, `'earlier'` for a superseded attempt, or why the file is not usable. */
export function parseRecord(path: string, text: string): TrialRecord | 'earlier' | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return text.trim() === '' ? 'empty file' : `not JSON (${(err as Error).message})`;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return `not a JSON object (got ${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v})`;
  const o = v as Record<string, unknown>;
  if (o.final === false) return 'earlier';
  if (!VERDICTS.includes(o.verdict as Verdict))
    return o.verdict === undefined
      ? "missing 'verdict'"
      : `'verdict' is ${JSON.stringify(o.verdict)}, not pass, fail or error`;
  if (!Number.isInteger(o.exit_code))
    return o.exit_code === undefined ? "missing 'exit_code'" : "'exit_code' is not an integer";
  if (typeof o.walltime_sec !== 'number' || !Number.isFinite(o.walltime_sec) || o.walltime_sec < 0) {
    return o.walltime_sec === undefined ? "missing 'walltime_sec'" : "'walltime_sec' is not a non-negative number";
  }
  const vram = o.peak_vram_mib ?? null;
  if (vram !== null && (typeof vram !== 'number' || !Number.isFinite(vram)))
    return "'peak_vram_mib' is neither a number nor null";
  const lists: string[][] = [];
  for (const k of ['failure_detectors_fired', 'error_detectors_fired', 'warn_detectors_fired']) {
    const ids = o[k] === undefined ? [] : detectorIds(o[k]);
    if (ids === null) return `'${k}' is not a list of detector ids`;
    lists.push(ids);
  }
  const dir = dirname(path);
  const dirTrial = TRIAL_DIR.exec(basename(dir));
  const cell =
    typeof o.cell_name === 'string' && o.cell_name !== ''
      ? o.cell_name
      : dirTrial !== null
        ? basename(dirname(dir))
        : UNKNOWN_CELL;
  const trial = Number.isInteger(o.trial_index)
    ? (o.trial_index as number)
    : dirTrial !== null
      ? Number(dirTrial[1])
      : null;
  const attemptsList = Array.isArray(o.attempts) ? (o.attempts as unknown[]) : [];
  const attempts = Math.max(1, attemptsList.length);
  const passedOnRetry =
    o.verdict === 'pass' && attemptsList.some((a) => (a as { verdict?: unknown } | null)?.verdict !== 'pass');
  const log = o.log as { file?: unknown } | undefined;
  const recipe = o.recipe as { file?: unknown } | null | undefined;
  return {
    path,
    cell,
    trial,
    verdict: o.verdict as Verdict,
    exitCode: o.exit_code as number,
    walltimeSec: o.walltime_sec,
    peakVramMib: vram as number | null,
    failureDetectors: lists[0]!,
    errorDetectors: lists[1]!,
    warnDetectors: lists[2]!,
    attempts,
    passedOnRetry,
    logPath: typeof log?.file === 'string' ? join(dir, log.file) : null,
    recipeFile: typeof recipe?.file === 'string' ? recipe.file : null,
  };
}
