/**
 * The run directory `<out>/<ticket>/` of a sweep: opened once and held (dir-ref.ts), its identity, the recipe
 * copy, and the private directory for temporary files.
 *
 *   <out>/<ticket>/
 *     run.json              the run's identity and id (below); written once, by the first sweep or task
 *     recipe.yaml           the recipe's bytes, so `report` reads the custom patterns the trials ran with
 *     .aorta-probe.lock     while a local sweep runs (lock.ts)
 *     .aorta-probe-tmp/     0700: temporary files, created exclusively, renamed into trial directories
 *     <cell>/trial_<n>/     one trial (run-sweep.ts, trial-files.ts)
 *
 * Identity: what makes two invocations the same sweep, so that a re-run may keep the first one's finished trials
 * (resume): the recipe's sha256, the trial command's argv, every cell's name and resolved environment, and the
 * trials per cell. A re-run whose identity differs is refused, naming what changed, unless `--fresh` moves the
 * old run aside (never deletes it). The run id, random and fixed at creation, is stamped into every record the
 * run writes; a record without it was not written by this run.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { strRepr } from '../condition/repr.js';
import { MAX_RECORD_BYTES } from '../report/read-results.js';
import { RUN_DIR_RECIPE } from '../report/recipe-source.js';
import { readRegularFile } from '../trial/safe-read.js';
import { checkName, DirRef } from './dir-ref.js';
import type { SweepPlan } from './plan.js';
import { slug } from './cells.js';

export const RUN_FILE = 'run.json';
/** The recipe's copy, where `report` looks for it (one name, report's: the report does not depend on the sweep). */
export const RECIPE_COPY = RUN_DIR_RECIPE;
export const TMP_DIR = '.aorta-probe-tmp';

export interface RunIdentity {
  readonly recipe_sha256: string;
  readonly argv: readonly string[];
  readonly cells: readonly { readonly name: string; readonly env: Readonly<Record<string, string>> }[];
  readonly trials_per_cell: number;
}

export interface RunFile {
  readonly run_id: string;
  readonly created_at: string;
  readonly identity: RunIdentity;
}

/** A re-run into a run directory that holds a different sweep (or one of unknown identity). */
export class RunIdentityError extends Error {
  override name = 'RunIdentityError';
  constructor(
    readonly runDir: string,
    readonly changes: readonly string[],
  ) {
    super(
      `${runDir} holds a different sweep: ${changes.join('; ')}. Its finished trials would be mixed with this sweep's: re-run with --fresh to move it aside (nothing is deleted), or use another --out or --ticket`,
    );
  }
}

export function identityOf(plan: SweepPlan, argv: readonly string[]): RunIdentity {
  return {
    recipe_sha256: plan.recipe.sourceSha256,
    argv: [...argv],
    cells: plan.cells.map((c) => ({ name: c.name, env: Object.fromEntries(c.env) })),
    trials_per_cell: plan.trialsPerCell,
  };
}

const words = (a: readonly string[]): string => `[${a.map((w) => strRepr(w)).join(', ')}]`;
const envText = (e: Readonly<Record<string, string>>): string =>
  `{${Object.entries(e)
    .map(([k, v]) => `${k}=${strRepr(v)}`)
    .join(', ')}}`;

/** What differs between the recorded identity and this invocation's, in words; empty when they are the same. */
export function identityChanges(was: RunIdentity, now: RunIdentity): string[] {
  const out: string[] = [];
  if (was.recipe_sha256 !== now.recipe_sha256)
    out.push(`the recipe changed (sha256 ${was.recipe_sha256.slice(0, 12)}… → ${now.recipe_sha256.slice(0, 12)}…)`);
  if (JSON.stringify(was.argv) !== JSON.stringify(now.argv))
    out.push(`the command changed (${words(was.argv)} → ${words(now.argv)})`);
  const before = new Map(was.cells.map((c) => [c.name, c.env]));
  const after = new Map(now.cells.map((c) => [c.name, c.env]));
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  if (added.length > 0) out.push(`cells added: ${added.join(', ')}`);
  if (removed.length > 0) out.push(`cells removed: ${removed.join(', ')}`);
  for (const [name, env] of after) {
    const old = before.get(name);
    if (old !== undefined && JSON.stringify(old) !== JSON.stringify(env))
      out.push(`the environment of cell ${name} changed (${envText(old)} → ${envText(env)})`);
  }
  if (was.trials_per_cell !== now.trials_per_cell)
    out.push(`trials per cell changed (${was.trials_per_cell} → ${now.trials_per_cell})`);
  return out;
}

/** A regular file of `dir` as text, without following a link or blocking on a FIFO; null when absent or not one. */
export function readRegular(dir: DirRef, name: string): string | null {
  const r = readRegularFile(dir.at(name), { maxBytes: MAX_RECORD_BYTES, over: 'reject' });
  return 'bytes' in r ? r.bytes.toString('utf8') : null;
}

/**
 * Writes `text` as `dir/name`: created exclusively under a random name in the run's private directory, then
 * renamed into place (a rename replaces a link named `name`, never its target). `replace: false` links it into
 * place instead, which fails with EEXIST when `name` exists: a file written once, by whichever task came first.
 */
export function writeInto(
  tmp: DirRef,
  dir: DirRef,
  name: string,
  text: string | Uint8Array,
  replace = true,
  mode = 0o644,
): void {
  const tmpName = `${checkName(name)}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(
    tmp.at(tmpName),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    try {
      // The umask may have narrowed `mode`, never widened it; a private file (0600) is made exactly so.
      if (mode !== 0o644) fchmodSync(fd, mode);
      if (typeof text === 'string') writeSync(fd, text);
      else writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    if (replace) renameSync(tmp.at(tmpName), dir.at(name));
    else linkSync(tmp.at(tmpName), dir.at(name));
  } finally {
    try {
      unlinkSync(tmp.at(tmpName));
    } catch {
      // renamed away
    }
  }
}

export interface OpenRunOptions {
  readonly outDir: string;
  readonly plan: SweepPlan;
  readonly argv: readonly string[];
  readonly recipeBytes: Uint8Array;
  /** Move an existing run aside instead of resuming or refusing it. */
  readonly fresh?: boolean;
  /**
   * Called with the held run directory before anything is read or moved in it (the lock); what it returns is
   * called, while that directory is still held, when it is given up: moved aside by `fresh`, or refused.
   */
  readonly beforeUse?: (run: DirRef) => () => void;
}

export interface RunDir {
  readonly out: DirRef;
  readonly run: DirRef;
  readonly tmp: DirRef;
  readonly runId: string;
  readonly identity: RunIdentity;
  /** The old run's new name when `fresh` moved one aside. */
  readonly movedAside: string | null;
  close(): void;
}

function parseRunFile(text: string | null): RunFile | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<RunFile>;
    if (typeof v.run_id !== 'string' || !/^[0-9a-f]{32}$/.test(v.run_id) || typeof v.identity !== 'object') return null;
    return v as RunFile;
  } catch {
    return null;
  }
}

/** A directory entry that is neither ours to ignore nor empty: the mark of an earlier run without a run.json. */
function holdsTrials(run: DirRef): boolean {
  // Listed through the descriptor: the directory we hold, not whatever its name points at now.
  return readdirSync(run.self).some(
    (n) => n !== RUN_FILE && n !== TMP_DIR && n !== RECIPE_COPY && !n.startsWith('.aorta-probe'),
  );
}

/**
 * Opens (creating) `<out>/<slug(ticket)>` and settles its identity: a new run gets a run.json and the recipe's
 * copy; a re-run of the same sweep gets the recorded run id; a different sweep is a `RunIdentityError` unless
 * `fresh`, which renames the old directory to `<ticket>.prev-<UTC time>` and starts a new one.
 */
export function openRunDir(o: OpenRunOptions): RunDir {
  const identity = identityOf(o.plan, o.argv);
  const out = DirRef.openRoot(o.outDir, true);
  const name = slug(o.plan.ticket);
  let run = out.child(name, true);
  let movedAside: string | null = null;
  let giveUp = o.beforeUse?.(run);
  try {
    let recorded = parseRunFile(readRegular(run, RUN_FILE));
    const hasTrials = holdsTrials(run);
    // A cluster task beside us may have written run.json (and made its trial's directory) since we read it.
    if (recorded === null && hasTrials) recorded = parseRunFile(readRegular(run, RUN_FILE));
    const changes =
      recorded !== null
        ? identityChanges(recorded.identity, identity)
        : hasTrials
          ? [`it has no readable ${RUN_FILE} (a run of an earlier version, or a damaged one)`]
          : [];
    if (changes.length > 0 || (o.fresh === true && hasTrials)) {
      if (o.fresh !== true) throw new RunIdentityError(run.shown, changes);
      const stamp = new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      let to = `${name}.prev-${stamp}`;
      for (let i = 2; out.lstat(to) !== undefined; i++) to = `${name}.prev-${stamp}-${i}`;
      renameSync(out.at(name), out.at(to));
      movedAside = to;
      giveUp?.();
      giveUp = undefined;
      run.close();
      run = out.child(name, true);
      giveUp = o.beforeUse?.(run);
      recorded = null;
    }
    try {
      mkdirSync(run.at(TMP_DIR), { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const tmp = run.child(TMP_DIR, false);
    if ((fstatSync(tmp.fd).mode & 0o077) !== 0) {
      // Made by someone else, or loosened: ours again. Names in it are random and created exclusively anyway.
      try {
        fchmodSync(tmp.fd, 0o700);
      } catch {
        // not ours to change: the exclusive creation still holds
      }
    }
    if (recorded === null) {
      const file: RunFile = {
        run_id: randomBytes(16).toString('hex'),
        created_at: new Date().toISOString(),
        identity,
      };
      try {
        writeInto(tmp, run, RUN_FILE, `${JSON.stringify(file, null, 2)}\n`, false);
        recorded = file;
      } catch (err) {
        // Another task of the same cluster array wrote it first: take theirs, if it is the same sweep.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        recorded = parseRunFile(readRegular(run, RUN_FILE));
        if (recorded === null) throw new RunIdentityError(run.shown, [`its ${RUN_FILE} cannot be read`]);
        const again = identityChanges(recorded.identity, identity);
        if (again.length > 0) throw new RunIdentityError(run.shown, again);
      }
      try {
        writeInto(tmp, run, RECIPE_COPY, o.recipeBytes, false);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const held = run;
    return {
      out,
      run: held,
      tmp,
      runId: recorded.run_id,
      identity,
      movedAside,
      close() {
        tmp.close();
        held.close();
        out.close();
      },
    };
  } catch (err) {
    giveUp?.();
    run.close();
    out.close();
    throw err;
  }
}
