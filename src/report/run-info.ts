/**
 * What a sweep's run directory says about itself, for `report RUN_DIR`: its run id (`run.json`, so only the records
 * this run wrote are counted, as the sweep counts them) and its matrix (`matrix.json`, shown first). Read like every
 * other file of a run: never through a link, never a FIFO, size-bounded; a file that does not parse is a problem
 * listed in the report, never fatal. (The names are the sweep's, src/sweep/run-dir.ts and run-files.ts; report does
 * not depend on the sweep.)
 */
import { join } from 'node:path';
import type { MatrixJson } from '../matrix/types.js';
import type { ReadProblem } from './records.js';
import { readRegularFile } from '../trial/safe-read.js';

export const RUN_INFO_FILE = 'run.json';
export const MATRIX_FILE = 'matrix.json';
const MAX_BYTES = 64 * 1024 * 1024;

/** What run.json says the sweep is (src/sweep/run-dir.ts `RunIdentity`), as far as it is well formed. */
export interface RunIdentityFacts {
  readonly recipeSha256: string | null;
  readonly argv: readonly string[];
  readonly cells: readonly { readonly name: string; readonly env: Readonly<Record<string, string>> }[];
  readonly trialsPerCell: number;
}

export interface RunInfo {
  readonly dir: string;
  readonly runId: string | null;
  readonly identity: RunIdentityFacts | null;
  readonly matrix: MatrixJson | null;
  readonly problems: readonly ReadProblem[];
}

function identityFacts(v: unknown): RunIdentityFacts | null {
  const id = (v as { identity?: unknown } | null)?.identity as Record<string, unknown> | undefined;
  if (id === undefined || id === null || typeof id !== 'object') return null;
  const cells: { name: string; env: Record<string, string> }[] = [];
  if (!Array.isArray(id.cells) || id.cells.length > 100_000) return null;
  for (const c of id.cells as unknown[]) {
    const name = (c as { name?: unknown } | null)?.name;
    const env = (c as { env?: unknown } | null)?.env;
    if (typeof name !== 'string' || env === null || typeof env !== 'object') return null;
    const clean: Record<string, string> = {};
    for (const [k, val] of Object.entries(env)) if (typeof val === 'string') clean[k] = val;
    cells.push({ name, env: clean });
  }
  const tpc = id.trials_per_cell;
  if (!Number.isSafeInteger(tpc) || (tpc as number) < 1) return null;
  return {
    recipeSha256: typeof id.recipe_sha256 === 'string' ? id.recipe_sha256 : null,
    argv: Array.isArray(id.argv) ? id.argv.filter((a): a is string => typeof a === 'string') : [],
    cells,
    trialsPerCell: tpc as number,
  };
}

function readJson(path: string): { value: unknown } | { absent: true } | { reason: string } {
  const r = readRegularFile(path, { maxBytes: MAX_BYTES, over: 'reject' });
  if (!('bytes' in r)) return /no such file/i.test(r.reason) || /ENOENT/.test(r.reason) ? { absent: true } : r;
  try {
    return { value: JSON.parse(r.bytes.toString('utf8')) as unknown };
  } catch (err) {
    return { reason: `not JSON (${(err as Error).message})` };
  }
}

/** A matrix.json of schema_version 1 whose cells have the fields the formats read; else why not. */
function matrixProblem(v: unknown): string | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const m = v as Partial<MatrixJson>;
  if (m.schema_version !== 1) return `schema_version is ${JSON.stringify(m.schema_version)}, not 1`;
  if (!Array.isArray(m.cells)) return "'cells' is not a list";
  for (const c of m.cells) {
    if (c === null || typeof c !== 'object') return 'a cell is not an object';
    if (typeof c.name !== 'string' || !Array.isArray(c.mitigations) || typeof c.confound !== 'string')
      return 'a cell lacks name, mitigations or confound';
    for (const k of ['trials', 'passed_count', 'failed_count', 'error_count'] as const)
      if (!Number.isSafeInteger(c[k]) || c[k] < 0) return `a cell's ${k} is not a count`;
    if (c.failure_rate !== null && typeof c.failure_rate !== 'number') return "a cell's failure_rate is not a number";
  }
  if (!Array.isArray(m.warnings) || typeof m.confound !== 'object' || m.confound === null)
    return 'warnings or confound missing';
  return null;
}

export function readRunInfo(dir: string): RunInfo {
  const problems: ReadProblem[] = [];
  let runId: string | null = null;
  let identity: RunIdentityFacts | null = null;
  const run = readJson(join(dir, RUN_INFO_FILE));
  if ('value' in run) {
    const id = (run.value as { run_id?: unknown } | null)?.run_id;
    identity = identityFacts(run.value);
    if (typeof id === 'string' && /^[0-9a-f]{32}$/.test(id)) runId = id;
    else problems.push({ path: join(dir, RUN_INFO_FILE), reason: 'no run_id in it' });
  } else if ('reason' in run) problems.push({ path: join(dir, RUN_INFO_FILE), reason: run.reason });
  let matrix: MatrixJson | null = null;
  const m = readJson(join(dir, MATRIX_FILE));
  if ('value' in m) {
    const why = matrixProblem(m.value);
    if (why === null) matrix = m.value as MatrixJson;
    else problems.push({ path: join(dir, MATRIX_FILE), reason: why });
  } else if ('reason' in m) problems.push({ path: join(dir, MATRIX_FILE), reason: m.reason });
  return { dir, runId, identity, matrix, problems };
}
