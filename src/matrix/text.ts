/**
 * The matrix as plain text, for `report`'s text format: one aligned row per cell, then what the columns mean.
 * Record-chosen strings (cell names, confound tags) go through `inertLine`.
 */
import { inertLine } from '../text/inert.js';
import { differenceText, effectText, failuresText, percent, pValue } from './markdown.js';
import type { MatrixJson } from './types.js';

const DASH = '—';

export function formatMatrixText(m: MatrixJson): string {
  const finished = m.cells.reduce((n, c) => n + c.trials, 0);
  let out = `matrix: baseline ${m.baseline_cell === null ? 'none' : inertLine(m.baseline_cell)}, ${m.trials_per_cell} trial(s) per cell, ${m.complete ? 'complete' : `not complete (${finished} trial(s) finished)`}\n`;
  for (const w of m.warnings) out += `  warning: ${inertLine(w)}\n`;
  const rows = [
    ['cell', 'failure rate', 'failures', 'errors', 'vs baseline (95% CI)', 'p', 'effect', 'confound'],
    ...m.cells.map((c) => {
      const vs = c.vs_baseline;
      return [
        inertLine(c.name),
        percent(c.failure_rate),
        failuresText(c),
        c.is_unreliable ? `${c.error_count} (unreliable)` : String(c.error_count),
        vs === null ? DASH : differenceText(vs),
        vs === null || vs.p_value === null ? DASH : pValue(vs.p_value),
        vs === null ? DASH : effectText(vs),
        inertLine(c.confound),
      ];
    }),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  // Text left, numbers right: columns 1-5 hold numbers.
  const right = new Set([1, 2, 3, 4, 5]);
  for (const r of rows) {
    const cells = r.map((v, i) => {
      const pad = ' '.repeat(widths[i]! - [...v].length);
      return right.has(i) ? pad + v : v + pad;
    });
    out += `  ${cells.join('  ').trimEnd()}\n`;
  }
  out +=
    '  failure rate = failed / (passed + failed), errors left out; vs baseline: the difference in percentage points with\n' +
    "  its 95% interval (Newcombe); p: Fisher's exact test; effect: helps / hurts at p < 0.05, else no evidence (with\n" +
    `  the trials per cell that would tell); confound: speed (+N%) when slower than the baseline by more than ${m.confound.threshold}x.\n`;
  return out;
}
