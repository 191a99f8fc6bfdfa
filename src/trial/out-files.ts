/**
 * The trial's output files, opened so that nothing planted in `--out` can redirect, block or clobber them:
 * `output.log` is unlinked and created anew exclusively without following a symlink (a planted symlink or FIFO
 * is removed, never opened; O_NONBLOCK keeps a FIFO that reappears in the race from blocking the open), and
 * `result.json` is written to an exclusively created temporary name and renamed into place (rename replaces
 * a symlink itself, not its target).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { TrialOutputError } from './output-error.js';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message.replace(/^[A-Z]+: /, '')}` : String(err);
}

/** Creates `dir` (recursively) and checks it is a directory. */
export function prepareOutDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new TrialOutputError(`cannot create the output directory ${dir}: ${reason(err)}`, dir, true);
  }
}

/** Creates `path` afresh for writing (see the module comment); returns the descriptor. */
export function createFresh(path: string, beforeStart: boolean): number {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st !== undefined) {
      if (st.isDirectory()) throw new TrialOutputError(`cannot write ${path}: it is a directory`, path, beforeStart);
      unlinkSync(path); // a symlink, FIFO, device or old file: the name is ours, its target is not touched
    }
    const fd = openSync(path, CREATE, 0o644);
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new TrialOutputError(`cannot write ${path}: not a regular file`, path, beforeStart);
    }
    return fd;
  } catch (err) {
    if (err instanceof TrialOutputError) throw err;
    throw new TrialOutputError(`cannot write ${path}: ${reason(err)}`, path, beforeStart);
  }
}

/** Writes `text` to `dir/name` through an exclusive temporary file renamed into place. */
export function writeAtomically(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = createFresh(tmp, false);
  try {
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    if (err instanceof TrialOutputError) throw err;
    throw new TrialOutputError(`cannot write ${path}: ${reason(err)}`, path, false);
  }
  return path;
}
