/**
 * The recipe a trial ran with, for its custom patterns' regexes, read only when its bytes hash to the sha256 the
 * record holds: then reading it shows nothing the record's author did not already know (they had to have the
 * bytes to write the hash), whichever file `recipe.file` names. Tried in order: `recipe.file` as recorded (absolute
 * since records name it so; an older record's relative path is relative to where `run` or `sweep` ran, which is
 * tried from the current directory and then from the record's own directory), then the copy a sweep keeps in its
 * run directory, `<out>/<ticket>/recipe.yaml`.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { readRegularFile } from '../trial/safe-read.js';

/** The file name of the copy of its recipe a sweep keeps in its run directory (`<out>/<ticket>/`). */
export const RUN_DIR_RECIPE = 'recipe.yaml';

/**
 * Larger recipes are not read. The recipe loader has no size limit of its own; a recipe is kilobytes, and this
 * bounds what a forged record can make `report` hash and parse.
 */
export const MAX_RECIPE_BYTES = 1024 * 1024;

const TRIAL_DIR = /^trial_\d+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The run directory of a record at `<run dir>/<cell>/trial_<n>/result.json`, else null. */
export function runDirOf(recordPath: string): string | null {
  const trialDir = dirname(recordPath);
  return TRIAL_DIR.test(basename(trialDir)) ? dirname(dirname(trialDir)) : null;
}

/** Where the recipe of a record may be: `recipe.file`, then the run directory's copy. */
export function recipeCandidates(recordPath: string, recipeFile: string | null): string[] {
  const out: string[] = [];
  if (recipeFile !== null && recipeFile !== '') {
    out.push(recipeFile);
    if (!isAbsolute(recipeFile)) out.push(join(dirname(recordPath), recipeFile));
  }
  const runDir = runDirOf(recordPath);
  if (runDir !== null) out.push(join(runDir, RUN_DIR_RECIPE));
  return out;
}

/** The first candidate's bytes that hash to `sha256`, or null (no candidate is read when the hash is not one). */
export function verifiedRecipeBytes(candidates: readonly string[], sha256: string | null): Buffer | null {
  const want = sha256?.toLowerCase() ?? null;
  if (want === null || !SHA256_HEX.test(want)) return null;
  for (const file of candidates) {
    const r = readRegularFile(file, { maxBytes: MAX_RECIPE_BYTES, over: 'reject' });
    if ('bytes' in r && createHash('sha256').update(r.bytes).digest('hex') === want) return r.bytes;
  }
  return null;
}
