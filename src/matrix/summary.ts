/**
 * The end-of-run summary (the original's `format_run_summary`, its issues #280 and #282): one totals line, a
 * `[fail]` / `[error]` line per cell that was not clean, and where the matrix is. Ours adds each cell's difference
 * from the baseline with its p-value and effect, so the answer is on the screen without opening a file.
 */
import { inertLine } from '../text/inert.js';
import { differenceText, effectText, failuresText, percent, pValue } from './markdown.js';
import type { MatrixCell, MatrixJson } from './types.js';

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

function cellState(c: MatrixCell): 'clean' | 'fail' | 'error' {
  if (c.trials === 0 || c.error_count > 0) return 'error';
  return c.failed_count > 0 ? 'fail' : 'clean';
}

export interface SummaryOptions {
  /** `<run_dir>/matrix.md` as the user should read it. */
  readonly matrixPath: string;
  /** The run directory as shown (for the note on resumed cells). */
  readonly runDir: string;
}

export function formatRunSummary(m: MatrixJson, options: SummaryOptions): string {
  const states = m.cells.map(cellState);
  const clean = states.filter((s) => s === 'clean').length;
  const failing = states.filter((s) => s === 'fail').length;
  const erred = states.filter((s) => s === 'error').length;
  const resumed = m.cells.filter((c) => c.resumed).length;
  const resumedTail = resumed > 0 ? `, ${resumed} resumed` : '';
  let out =
    clean === m.cells.length
      ? `Sweep summary: all ${m.cells.length} cell(s) passed${resumedTail}.\n`
      : `Sweep summary: ${m.cells.length} cell(s) -- ${clean} clean, ${failing} with failing trials, ${erred} with errors${resumedTail}.\n`;
  m.cells.forEach((c, i) => {
    const state = states[i];
    const tag = c.resumed ? ' [resumed]' : '';
    const name = inertLine(c.name);
    if (state === 'fail') {
      const hint = c.top_failure_detector_id === null ? '' : ` (${inertLine(c.top_failure_detector_id)})`;
      out += `  [fail]${tag} ${name}: ${c.failed_count} failed of ${c.trials} trial(s)${hint} -> ${inertLine(c.directory)}\n`;
    } else if (state === 'error') {
      if (c.trials === 0) out += `  [error]${tag} ${name}: cell did not run\n`;
      else {
        const hint = c.top_failure_detector_id === null ? '' : ` (${inertLine(c.top_failure_detector_id)})`;
        out += `  [error]${tag} ${name}: ${c.error_count} errored of ${c.trials} trial(s)${hint} -> ${inertLine(c.directory)}\n`;
      }
    }
  });
  const base = m.cells.find((c) => c.confound === '(baseline)');
  if (base !== undefined && m.cells.length > 1) {
    out += `Against the baseline ${inertLine(base.name)} (failure rate ${percent(base.failure_rate)}, ${failuresText(base)}):\n`;
    for (const c of m.cells) {
      if (c === base) continue;
      const vs = c.vs_baseline;
      const detail =
        vs === null
          ? 'not compared'
          : `${differenceText(vs)}${vs.p_value === null ? '' : `, p = ${pValue(vs.p_value)}`}: ${effectText(vs)}`;
      out += `  ${inertLine(c.name)}: ${percent(c.failure_rate)} (${failuresText(c)}), ${detail}; confound ${inertLine(c.confound)}\n`;
    }
  }
  for (const w of m.warnings) out += `Warning: ${inertLine(w)}\n`;
  if (resumed > 0)
    out += `Note: ${resumed} ${plural(resumed, 'cell was', 'cells were')} kept from an earlier run of this sweep (resume): to run ${plural(resumed, 'it', 'them')} again, use --fresh, another --ticket or another --out (or delete ${inertLine(options.runDir)}).\n`;
  out += `Full matrix: ${inertLine(options.matrixPath)}\n`;
  return out;
}
