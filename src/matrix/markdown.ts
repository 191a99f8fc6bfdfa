/**
 * `matrix.md`: the matrix for people, with the original's probe columns (Mitigation, Diagnostic, failure rate,
 * failures "3 / 8", errors, Top failure, Top warn, Stop after, mean step, Confound, Directory), its baseline header
 * line, its `> [!WARNING]` lines and its legend under `## Notes` — plus ours: the difference from the baseline with
 * its interval, the p-value and the effect word. Every record-chosen string (cell, detector id) is a code span.
 */
import { codeSpan, tableCode } from '../text/markdown.js';
import type { MatrixCell, MatrixJson, VsBaseline } from './types.js';

const DASH = '—';

/** `40.0%`; `—` without a rate. */
export function percent(rate: number | null): string {
  return rate === null ? DASH : `${(rate * 100).toFixed(1)}%`;
}

/** A difference of rates in percentage points, signed: `-33.3`, `+6.7`, `0.0`. */
export function points(d: number): string {
  const s = (d * 100).toFixed(1);
  return s === '0.0' || s === '-0.0' ? '0.0' : d > 0 ? `+${s}` : s;
}

/** Two significant digits; below 0.0001 as `<0.0001`. */
export function pValue(p: number): string {
  if (p < 0.0001) return '<0.0001';
  if (p >= 0.9995) return '1';
  return Number(p.toPrecision(2)).toString();
}

/** `-33.3 pts [-52.1, -14.0]`. */
export function differenceText(vs: VsBaseline): string {
  if (vs.difference === null || vs.ci95 === null) return DASH;
  return `${points(vs.difference)} pts [${points(vs.ci95[0])}, ${points(vs.ci95[1])}]`;
}

/** `helps`, `hurts`, `no evidence (≈120 trials/cell needed)`, `no evidence (rates equal)`. */
export function effectText(vs: VsBaseline): string {
  if (vs.effect !== 'no evidence') return vs.effect;
  if (vs.difference === null) return 'no evidence (no rate to compare)';
  if (vs.trials_needed === null) return 'no evidence (rates equal)';
  return `no evidence (≈${vs.trials_needed} trials/cell to tell)`;
}

/** `12 / 30`: failed of the trials that gave a rate (pass + fail). */
export function failuresText(c: MatrixCell): string {
  return `${c.failed_count} / ${c.passed_count + c.failed_count}`;
}

export function formatMatrixMarkdown(m: MatrixJson): string {
  return `# Probe matrix: ${codeSpan(m.ticket)}\n\n${matrixMarkdownBody(m)}`;
}

/** The warnings, the baseline and run lines, the table and the legend: matrix.md without its title (report's too). */
export function matrixMarkdownBody(m: MatrixJson): string {
  const stop = m.stop_after !== null;
  let out = '';
  for (const w of m.warnings) out += `> [!WARNING]\n> ${w.replace(/\n/g, ' ')}\n\n`;
  const base = m.cells.find((c) => c.name === m.baseline_cell && c.confound === '(baseline)');
  const baseStep = base?.mean_step_time_ms;
  out += `**Baseline cell**: ${m.baseline_cell === null ? 'none' : codeSpan(m.baseline_cell)} (mean step time = ${baseStep === null || baseStep === undefined ? 'n/a' : `${baseStep.toFixed(1)} ms`})\n\n`;
  const finished = m.cells.reduce((n, c) => n + c.trials, 0);
  out += `**Run**: ${codeSpan(m.run_id)} · ${m.trials_per_cell} trial(s) per cell · ${m.complete ? 'complete' : `in progress or interrupted: ${finished} trial(s) finished so far`} · written ${m.run_timestamp}\n\n`;

  const head = [
    'Mitigation',
    'Diagnostic',
    'Failure rate',
    'Failures',
    'Errors',
    'Top failure',
    'Top warn',
    ...(stop ? ['Stop after'] : []),
    'Mean step (ms)',
    'Confound',
    'vs baseline (95% CI)',
    'p',
    'Effect',
    'Directory',
  ];
  const right = new Set(['Failure rate', 'Failures', 'Errors', 'Mean step (ms)', 'vs baseline (95% CI)', 'p']);
  out += `| ${head.join(' | ')} |\n|${head.map((h) => (right.has(h) ? '---:' : '---')).join('|')}|\n`;
  for (const c of m.cells) {
    const vs = c.vs_baseline;
    const row = [
      tableCode(c.mitigations[0]),
      tableCode(c.mitigations[1]),
      percent(c.failure_rate),
      failuresText(c),
      c.is_unreliable ? `${c.error_count} ⚠ unreliable` : String(c.error_count),
      c.top_failure_detector_id === null ? DASH : tableCode(c.top_failure_detector_id),
      c.top_warn_detector_id === null ? DASH : tableCode(c.top_warn_detector_id),
      ...(stop ? [c.stop_after_note ?? DASH] : []),
      c.mean_step_time_ms === null ? DASH : c.mean_step_time_ms.toFixed(1),
      tableCode(c.confound),
      vs === null ? DASH : differenceText(vs),
      vs === null || vs.p_value === null ? DASH : pValue(vs.p_value),
      vs === null ? DASH : effectText(vs),
      tableCode(c.directory),
    ];
    out += `| ${row.join(' | ')} |\n`;
  }
  out += `\n## Notes\n\n${matrixLegend(m)
    .map((l) => `- ${l}`)
    .join('\n')}\n`;
  return out;
}

/** The legend with this matrix's confound threshold. */
export function matrixLegend(m: MatrixJson): string[] {
  return MATRIX_LEGEND.map((l) => l.replace('{threshold}', String(m.confound.threshold)));
}

/** What each column means: in matrix.md and in `report`'s matrix. */
export const MATRIX_LEGEND: readonly string[] = [
  '**Failure rate** = failed / (passed + failed): error trials are left out, as **Failures** shows. A cell whose errors reach 10% of its trials is marked *unreliable*: its rate rests on fewer trials than it ran.',
  '**Mean step** is the mean wall-clock time per trial (a probe trial is one step).',
  "**Confound** compares a cell's mean step with the baseline's (threshold {threshold}): `speed (+N%)` slower by more than the threshold, so a lower failure rate may only come from running slower; `no effect` failure rate not lower than the baseline's; `-` lower failure rate without a speed cost; `(baseline)` the cell the others are compared with; `n/a` no usable baseline or timing; `did_not_run` no finished trial; `error` every finished trial erred.",
  "**vs baseline**: the cell's failure rate minus the baseline's, in percentage points, with its 95% interval (Newcombe's hybrid score interval). **p**: Fisher's exact test, two-sided.",
  '**Effect**: `helps` / `hurts` when the failure rate is lower / higher with p < 0.05; otherwise `no evidence`, with the trials per cell that would tell the observed rates apart (power 0.8, two-sided α 0.05).',
];
