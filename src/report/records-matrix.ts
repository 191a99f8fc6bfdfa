/**
 * The matrix of a run that has no matrix.json — a sweep whose trials ran as Slurm or Kubernetes array tasks, where
 * no process sees every trial to write it — computed by `report` from the run's own records with the same rules
 * (src/matrix/build.ts): the cells and trials per cell from run.json, each cell's axis values from its records,
 * the confound settings from the run's recipe copy (read only when it hashes to run.json's sha256). A warning in
 * the matrix says it was computed here; nothing is written.
 */
import { basename, join } from 'node:path';
import { buildMatrix } from '../matrix/build.js';
import type { MatrixJson } from '../matrix/types.js';
import { DEFAULT_CONFOUND, loadRecipe } from '../recipe/index.js';
import { packageInfo } from '../trial/package-info.js';
import type { TrialRecord } from './records.js';
import { RUN_DIR_RECIPE, verifiedRecipeBytes } from './recipe-source.js';
import type { RunInfo } from './run-info.js';

export const COMPUTED_MATRIX_WARNING =
  'no matrix.json in the run directory (its trials ran as cluster tasks): report computed this matrix from the trial records';

export function matrixFromRecords(run: RunInfo, records: readonly TrialRecord[]): MatrixJson | null {
  const id = run.identity;
  if (run.runId === null || id === null) return null;
  const recipeBytes = verifiedRecipeBytes([join(run.dir, RUN_DIR_RECIPE)], id.recipeSha256);
  let confound = DEFAULT_CONFOUND;
  let stopAfter = null;
  let ticket = basename(run.dir);
  if (recipeBytes !== null) {
    try {
      const recipe = loadRecipe(recipeBytes, RUN_DIR_RECIPE);
      confound = recipe.confound;
      stopAfter = recipe.stopAfter;
      ticket = recipe.ticket ?? ticket;
    } catch {
      // A copy that no longer loads (a newer rule): the defaults, as the matrix says nothing about the recipe then.
    }
  }
  const axes = new Map<string, readonly [string, string]>();
  for (const r of records) if (r.mitigations !== undefined && !axes.has(r.cell)) axes.set(r.cell, r.mitigations);
  const cellNames = new Set(id.cells.map((c) => c.name));
  const m = buildMatrix({
    ticket,
    runId: run.runId,
    argv: id.argv,
    trialsPerCell: id.trialsPerCell,
    stopAfter,
    confound: { threshold: confound.threshold, baselineCell: confound.baselineCell },
    recipeSource: { path: join(run.dir, RUN_DIR_RECIPE), sha256: id.recipeSha256 ?? '' },
    version: packageInfo().version,
    complete: records.length >= id.cells.length * id.trialsPerCell,
    writtenAt: new Date(),
    cells: id.cells.map((c) => ({ name: c.name, mitigations: axes.get(c.name) ?? [c.name, ''], env: c.env })),
    trials: records
      .filter((r) => cellNames.has(r.cell) && r.trial !== null)
      .map((r) => ({
        cell: r.cell,
        trial: r.trial!,
        verdict: r.verdict,
        walltimeSec: r.walltimeSec,
        failureDetectors: r.failureDetectors,
        warnDetectors: r.warnDetectors,
        resumed: false,
      })),
    stoppedCells: new Set(),
  });
  return { ...m, warnings: [COMPUTED_MATRIX_WARNING, ...m.warnings] };
}
