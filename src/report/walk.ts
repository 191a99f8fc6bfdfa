/**
 * Finding result.json files under a directory: iteratively (a directory tree of any depth cannot overflow the
 * stack), following no symbolic link (a `Dirent` says what the entry itself is, as lstat does, so a link to a
 * directory of someone else's records is not entered and a link named result.json is not read), and noting
 * `trial_<n>` directories that hold no result.json yet: trials that did not finish.
 */
import { readdirSync, type Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import { RESULT_FILE } from '../trial/index.js';
import type { ReadProblem } from './records.js';

export const TRIAL_DIR = /^trial_(\d+)$/;

export interface FoundRecord {
  readonly path: string;
  /** The path's components below the walked directory (`['cell', 'trial_0', 'result.json']`). */
  readonly rel: readonly string[];
}

export interface FoundTrialDir {
  readonly dir: string;
  readonly rel: readonly string[];
}

export interface WalkResult {
  readonly files: FoundRecord[];
  /** `trial_<n>` directories (the walked one included) with no regular result.json directly inside. */
  readonly unfinished: FoundTrialDir[];
  /** Entries named result.json that are not regular files, and directories that could not be listed. */
  readonly problems: ReadProblem[];
}

function direntKind(e: Dirent): string {
  if (e.isSymbolicLink()) return 'a symbolic link';
  if (e.isFIFO()) return 'a FIFO';
  if (e.isCharacterDevice()) return 'a character device';
  if (e.isBlockDevice()) return 'a block device';
  if (e.isSocket()) return 'a socket';
  return 'not a file';
}

export function walkRecords(root: string): WalkResult {
  const out: WalkResult = { files: [], unfinished: [], problems: [] };
  const stack: FoundTrialDir[] = [{ dir: root, rel: [] }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { dir, rel } = top;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      out.problems.push({ path: dir, reason: `cannot read: ${e.code ?? e.message}` });
      continue;
    }
    let hasRecord = false;
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) stack.push({ dir: p, rel: rel.concat(e.name) });
      else if (e.name !== RESULT_FILE) continue;
      else if (e.isFile()) {
        hasRecord = true;
        out.files.push({ path: p, rel: rel.concat(e.name) });
      } else out.problems.push({ path: p, reason: `not a regular file (${direntKind(e)})` });
    }
    if (!hasRecord && TRIAL_DIR.test(basename(dir))) out.unfinished.push(top);
  }
  return out;
}
