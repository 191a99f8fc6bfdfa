/**
 * Finding and reading `result.json` files — from a sweep, a cluster job or a single `run` — into checked
 * trial records. A file that is not a usable record is reported with the reason and skipped, never fatal; a
 * FIFO, a device or a link below the paths given is never opened (walk.ts, trial/safe-read.ts).
 */
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { VERDICTS } from '../detectors/verdict.js';
import { RESULT_FILE } from '../trial/index.js';
import type { Verdict } from '../detectors/verdict.js';
import { confinedPath, isConfinedRelative } from './confined-path.js';
import type { PriorAttempt, ReadProblem, RecordedConditionErrors, TrialRecord, UnfinishedTrial } from './records.js';
import { fileKind, readRegularFile } from '../trial/safe-read.js';
import { TRIAL_DIR, walkRecords, type FoundTrialDir } from './walk.js';
import type { ShownKernelEvent } from './kernel-events.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export type { ReadProblem, TrialRecord, UnfinishedTrial } from './records.js';

/** The verdicts a record may carry, in report order (one list: src/recipe/types.ts). */
export { VERDICTS };

/** The cell of a record that names none and does not sit in `<cell>/trial_<n>/` (the original's default). */
export const UNKNOWN_CELL = '_unknown_';

/** Larger result.json files are skipped: a record is kilobytes, and this bounds what one file can cost. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export interface ReadResultsOptions {
  /**
   * Read as a sweep reads its own run directory: each path given is a run directory, and only records whose
   * top-level `run_id` is exactly this string, at `<cell>/trial_<n>/result.json` or (earlier attempts)
   * `<cell>/trial_<n>/attempt_<k>/result.json` below it, are counted; every other result.json is a problem
   * (`not written by this sweep (run_id …)`, `not a trial record of this sweep`), and only trial directories at
   * `<cell>/trial_<n>` count as unfinished.
   */
  readonly runId?: string;
}

/** `readResults`' option keys (text/options.ts). */
export const READ_RESULTS_OPTION_KEYS = { runId: OPTION } satisfies OptionTable<ReadResultsOptions>;

export interface ReadResults {
  readonly records: TrialRecord[];
  readonly problems: ReadProblem[];
  /** Records of earlier attempts of a retried trial (`final: false`), counted in their trial's `attempts`. */
  readonly earlierAttempts: number;
  /** `trial_<n>` directories without a result.json, in path order. */
  readonly unfinished: UnfinishedTrial[];
}

interface Candidate {
  readonly path: string;
  /** Components below the path given; empty for a file given by name. */
  readonly rel: readonly string[];
  /** Given by name: a symbolic link is followed, as the user asked for it. */
  readonly follow: boolean;
}

// The sweep's attempt directories (src/sweep/trial-files.ts), by shape: report does not depend on the sweep.
const ATTEMPT_DIR = /^attempt_\d+$/;

/** `<cell>/trial_<n>/result.json` (3) or `<cell>/trial_<n>/attempt_<k>/result.json` (4), else 0. */
function trialRecordDepth(rel: readonly string[]): 0 | 3 | 4 {
  if (rel[rel.length - 1] !== RESULT_FILE || !TRIAL_DIR.test(rel[1] ?? '')) return 0;
  if (rel.length === 3) return 3;
  return rel.length === 4 && ATTEMPT_DIR.test(rel[2]!) ? 4 : 0;
}

const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Every result.json under each path (a directory, searched recursively, or a file), read in path order. */
export async function readResults(paths: readonly string[], options: ReadResultsOptions = {}): Promise<ReadResults> {
  checkOptions('readResults', options, READ_RESULTS_OPTION_KEYS);
  const problems: ReadProblem[] = [];
  const later: ReadProblem[] = [];
  const candidates: Candidate[] = [];
  const trialDirs: FoundTrialDir[] = [];
  for (const p of paths) {
    let kind: string;
    try {
      const s = statSync(p);
      kind = s.isDirectory() ? 'dir' : s.isFile() ? 'file' : fileKind(s);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      problems.push({ path: p, reason: `cannot read: ${e.code ?? e.message}` });
      continue;
    }
    if (kind === 'file') candidates.push({ path: p, rel: [], follow: true });
    else if (kind !== 'dir') problems.push({ path: p, reason: `not a regular file or directory (${kind})` });
    else {
      const w = walkRecords(p);
      for (const f of w.files) candidates.push({ path: f.path, rel: f.rel, follow: false });
      for (const d of w.unfinished) if (options.runId === undefined || d.rel.length === 2) trialDirs.push(d);
      for (const q of w.problems) later.push(q);
    }
  }
  candidates.sort(byPath);
  const records: TrialRecord[] = [];
  let earlierAttempts = 0;
  let previous: string | null = null;
  for (const c of candidates) {
    if (c.path === previous) continue;
    previous = c.path;
    const depth = trialRecordDepth(c.rel);
    if (options.runId !== undefined && depth === 0) {
      later.push({ path: c.path, reason: 'not a trial record of this sweep' });
      continue;
    }
    const read = readRegularFile(c.path, { maxBytes: MAX_RECORD_BYTES, over: 'reject', follow: c.follow });
    if ('reason' in read) {
      later.push({ path: c.path, reason: read.reason });
      continue;
    }
    const r = parseRecord(c.path, read.bytes.toString('utf8'), options);
    if (r === 'earlier') earlierAttempts++;
    else if (typeof r === 'string') later.push({ path: c.path, reason: r });
    else if (options.runId !== undefined && depth === 4)
      // An attempt directory holds a superseded attempt; a final record there would count its trial twice.
      later.push({ path: c.path, reason: 'not a trial record of this sweep' });
    else records.push(r);
  }
  // Stable: a file's problems stay in the order they were found.
  later.sort(byPath);
  for (const q of later) problems.push(q);
  return { records, problems, earlierAttempts, unfinished: unfinishedTrials(trialDirs, records) };
}

/** Unfinished trial directories, each in the cell its finished neighbours name (else its parent's name). */
function unfinishedTrials(dirs: readonly FoundTrialDir[], records: readonly TrialRecord[]): UnfinishedTrial[] {
  const cellOfDir = new Map<string, string>();
  for (const r of records) {
    const trialDir = dirname(r.path);
    if (!TRIAL_DIR.test(basename(trialDir))) continue;
    const cellDir = dirname(trialDir);
    if (!cellOfDir.has(cellDir)) cellOfDir.set(cellDir, r.cell);
  }
  const out: UnfinishedTrial[] = dirs.map((d) => ({
    dir: d.dir,
    cell: cellOfDir.get(dirname(d.dir)) ?? basename(dirname(d.dir)),
    trial: Number(TRIAL_DIR.exec(basename(d.dir))![1]),
  }));
  return out.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

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

/**
 * A value from a record, for a reason: a string short and escaped as JSON (it may hold anything), a structure by
 * its type only (JSON.stringify recurses, and a record may nest arrays a million deep).
 */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 100 ? `${v.slice(0, 100)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}

const isNonNegativeInteger = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/** Kernel events kept per record: result.json holds at most 100, and report shows only the first per detector. */
const MAX_RECORD_KERNEL_EVENTS = 100;
/** A kernel line longer than this is cut (with "…"): the report shows it, it does not archive it. */
const MAX_KERNEL_LINE_CHARS = 500;

/** `tier3.events` of a record: each `{detector, line}` (strings) with `xid` (an integer) and `xid_name` when usable. */
/** A record's `condition_errors`, the well-formed entries only (a record is untrusted input). */
function conditionErrors(v: unknown): RecordedConditionErrors[] {
  if (!Array.isArray(v)) return [];
  const out: RecordedConditionErrors[] = [];
  for (const e of v as unknown[]) {
    if (e === null || typeof e !== 'object') continue;
    const { pattern, error, raised, evaluated } = e as Record<string, unknown>;
    if (typeof pattern !== 'string' || typeof error !== 'string') continue;
    if (!Number.isSafeInteger(raised) || !Number.isSafeInteger(evaluated)) continue;
    if ((raised as number) < 1 || (evaluated as number) < (raised as number)) continue;
    out.push({ pattern, error, raised: raised as number, evaluated: evaluated as number });
  }
  return out;
}

function kernelEvents(tier3: unknown): ShownKernelEvent[] {
  const events = (tier3 as { events?: unknown } | null | undefined)?.events;
  if (tier3 === null || typeof tier3 !== 'object' || !Array.isArray(events)) return [];
  const out: ShownKernelEvent[] = [];
  for (const e of events as unknown[]) {
    if (out.length >= MAX_RECORD_KERNEL_EVENTS) break;
    if (e === null || typeof e !== 'object') continue;
    const { detector, line, xid, xid_name } = e as Record<string, unknown>;
    if (typeof detector !== 'string' || typeof line !== 'string') continue;
    const cut = line.length > MAX_KERNEL_LINE_CHARS ? `${line.slice(0, MAX_KERNEL_LINE_CHARS - 1)}…` : line;
    out.push({
      detector,
      line: cut,
      ...(Number.isSafeInteger(xid) ? { xid: xid as number } : {}),
      ...(typeof xid_name === 'string' && Number.isSafeInteger(xid) ? { xid_name: xid_name.slice(0, 200) } : {}),
    });
  }
  return out;
}

/** A record, `'earlier'` for a superseded attempt, or why the file is not usable. */
export function parseRecord(
  path: string,
  text: string,
  options: ReadResultsOptions = {},
): TrialRecord | 'earlier' | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return text.trim() === '' ? 'empty file' : `not JSON (${(err as Error).message})`;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return `not a JSON object (got ${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v})`;
  const o = v as Record<string, unknown>;
  if (options.runId !== undefined && o.run_id !== options.runId)
    return `not written by this sweep (${o.run_id === undefined ? 'no run_id' : `run_id ${shown(o.run_id)}`})`;
  if (o.final === false) return 'earlier';
  if (!VERDICTS.includes(o.verdict as Verdict))
    return o.verdict === undefined ? "missing 'verdict'" : `'verdict' is ${shown(o.verdict)}, not pass, fail or error`;
  if (!Number.isInteger(o.exit_code))
    return o.exit_code === undefined ? "missing 'exit_code'" : "'exit_code' is not an integer";
  if (typeof o.walltime_sec !== 'number' || !Number.isFinite(o.walltime_sec) || o.walltime_sec < 0) {
    return o.walltime_sec === undefined ? "missing 'walltime_sec'" : "'walltime_sec' is not a non-negative number";
  }
  const vram = o.peak_vram_mib ?? null;
  if (vram !== null && (typeof vram !== 'number' || !Number.isFinite(vram) || vram < 0))
    return "'peak_vram_mib' is neither a non-negative number nor null";
  const trialIndex = o.trial_index ?? null;
  if (trialIndex !== null && !isNonNegativeInteger(trialIndex)) return "'trial_index' is not a non-negative integer";
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
  const trial = trialIndex ?? (dirTrial !== null ? Number(dirTrial[1]) : null);
  const attemptsList = Array.isArray(o.attempts) ? (o.attempts as unknown[]) : [];
  const attempts = Math.max(1, attemptsList.length);
  const passedOnRetry =
    o.verdict === 'pass' && attemptsList.some((a) => (a as { verdict?: unknown } | null)?.verdict !== 'pass');
  const log = o.log as { file?: unknown } | null | undefined;
  const recipe = o.recipe as { file?: unknown; sha256?: unknown } | null | undefined;
  const kernel = kernelEvents(o.tier3);
  const raises = conditionErrors(o.condition_errors);
  const fired = firings(o.detectors);
  const argv =
    Array.isArray(o.argv) && o.argv.length <= 256 && o.argv.every((a) => typeof a === 'string')
      ? (o.argv as string[])
      : null;
  const version = (o.versions as { aorta_probe?: unknown } | null | undefined)?.aorta_probe;
  const prior = priorAttempts(attemptsList, dir);
  return {
    path,
    cell,
    trial,
    verdict: o.verdict as Verdict,
    exitCode: o.exit_code as number,
    walltimeSec: o.walltime_sec,
    peakVramMib: vram,
    failureDetectors: lists[0]!,
    errorDetectors: lists[1]!,
    warnDetectors: lists[2]!,
    attempts,
    passedOnRetry,
    logPath: typeof log?.file === 'string' && isConfinedRelative(log.file) ? join(dir, log.file) : null,
    startedAt:
      typeof o.started_at === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(o.started_at) ? o.started_at : null,
    recipeFile: typeof recipe?.file === 'string' ? recipe.file : null,
    recipeSha256: typeof recipe?.sha256 === 'string' ? recipe.sha256 : null,
    ...(kernel.length > 0 ? { kernelEvents: kernel } : {}),
    ...(raises.length > 0 ? { conditionErrors: raises } : {}),
    ...(fired.size > 0 ? { firings: fired } : {}),
    ...(Array.isArray(o.mitigations) && o.mitigations.length === 2 && o.mitigations.every((m) => typeof m === 'string')
      ? { mitigations: [o.mitigations[0] as string, o.mitigations[1] as string] as const }
      : {}),
    ...(argv === null ? {} : { argv }),
    ...(typeof version === 'string' && version.length <= 100 ? { probeVersion: version } : {}),
    ...(prior.length > 0 ? { priorAttempts: prior } : {}),
  };
}

/** At most this many `detectors` entries are looked at: a record is the trial's to write, and may be huge. */
const MAX_FIRINGS_READ = 10_000;

/** The recorded firing of each detector id (its first entry); malformed entries are left out. */
function firings(v: unknown): Map<string, { line: number; match: string }> {
  const out = new Map<string, { line: number; match: string }>();
  if (!Array.isArray(v)) return out;
  for (const d of v.slice(0, MAX_FIRINGS_READ)) {
    if (d === null || typeof d !== 'object') continue;
    const { id, line, match } = d as { id?: unknown; line?: unknown; match?: unknown };
    if (typeof id !== 'string' || out.has(id) || !Number.isSafeInteger(line) || (line as number) < 1) continue;
    out.set(id, { line: line as number, match: typeof match === 'string' ? match.slice(0, 1000) : '' });
  }
  return out;
}

/** The attempts before the last, as recorded in the final record's `attempts`; malformed entries are left out. */
function priorAttempts(list: readonly unknown[], trialDir: string): PriorAttempt[] {
  const out: PriorAttempt[] = [];
  for (const a of list.slice(0, -1).slice(0, 1000)) {
    if (a === null || typeof a !== 'object') continue;
    const o = a as Record<string, unknown>;
    if (!VERDICTS.includes(o.verdict as Verdict) || !isNonNegativeInteger(o.attempt)) continue;
    const dir = typeof o.dir === 'string' && isConfinedRelative(o.dir) ? o.dir : null;
    out.push({
      attempt: o.attempt as number,
      verdict: o.verdict as Verdict,
      exitCode: Number.isInteger(o.exit_code) ? (o.exit_code as number) : null,
      failureDetectors: detectorIds(o.failure_detectors_fired ?? []) ?? [],
      errorDetectors: detectorIds(o.error_detectors_fired ?? []) ?? [],
      retryOn: detectorIds(o.retry_on ?? []) ?? [],
      dir,
      firings: dir === null ? [] : attemptFirings(trialDir, dir),
    });
  }
  return out;
}

/** An earlier attempt's result.json is read only this large: it is the trial's to write. */
const MAX_ATTEMPT_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * Where an earlier attempt's detectors fired, from its own `<trial dir>/attempt_<k>/result.json` (the final record
 * keeps only their ids): read inside the trial directory, through no link, size-bounded; empty when it is not there.
 */
function attemptFirings(trialDir: string, dir: string): PriorAttempt['firings'] {
  const file = confinedPath(trialDir, join(dir, RESULT_FILE));
  if (file === null) return [];
  const r = readRegularFile(file, { maxBytes: MAX_ATTEMPT_RECORD_BYTES, over: 'reject' });
  if (!('bytes' in r)) return [];
  let o: unknown;
  try {
    o = JSON.parse(r.bytes.toString('utf8'));
  } catch {
    return [];
  }
  const fired = firings((o as { detectors?: unknown } | null)?.detectors);
  return [...fired].map(([id, f]) => ({ id, line: f.line, match: f.match }));
}
