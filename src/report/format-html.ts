/**
 * `report --format html`: one self-contained page (inline CSS and SVG, no script, no network resource) with the
 * two pictures a person would rather look at than read — verdicts per cell as stacked bars, and each cell's wall
 * times as dots on one shared axis with the median marked — followed by the same tables as the text report.
 * Built with loops over the records (a sweep may have hundreds of thousands), never a spread into a call.
 */
import { inertLine } from '../text/inert.js';
import { relative } from 'node:path';
import { conditionErrorsText, priorAttemptText, type CellSummary, type SweepReport } from './aggregate.js';
import { differenceText, effectText, failuresText, matrixLegend, percent, pValue } from '../matrix/markdown.js';
import { wilsonInterval } from '../matrix/stats.js';
import type { MatrixJson } from '../matrix/types.js';
import { packageInfo } from '../trial/package-info.js';
import { flakyText, mib, seconds } from './format-text.js';
import { xmlText } from './xml.js';
import { shownPath } from './paths.js';
import { xidText } from './kernel-events.js';
import type { TrialRecord } from './records.js';

/** Text from a record or a log: controls escaped as in the text report, then markup. */
function esc(s: string): string {
  return xmlText(inertLine(s));
}

const COLOURS = { pass: '#2e7d32', fail: '#c62828', error: '#f9a825' } as const;
const LABEL_W = 200;
const BAR_W = 480;
const ROW_H = 22;

/** A number for SVG coordinates: short, and never an exponent. */
function n(x: number): string {
  return String(Math.round(x * 10) / 10);
}

/** The legend of the label after each bar, under the bars, in the flaky reasons' words (`FlakyReason`). */
const VERDICT_LABEL_LEGEND = 'label: pass/fail/error trials; flaky: mixed verdicts or passed on retry';

function verdictBars(cells: readonly CellSummary[]): string {
  const h = cells.length * ROW_H + 48;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + BAR_W + 120}" height="${h}" role="img" aria-label="Verdicts per cell">`;
  cells.forEach((c, i) => {
    const y = i * ROW_H + 4;
    svg += `<text x="${LABEL_W - 8}" y="${y + 14}" text-anchor="end">${esc(c.cell)}</text>`;
    let x = LABEL_W;
    for (const v of ['pass', 'fail', 'error'] as const) {
      const w = c.trials === 0 ? 0 : (c[v] / c.trials) * BAR_W;
      if (w > 0)
        svg += `<rect x="${n(x)}" y="${y}" width="${n(w)}" height="${ROW_H - 6}" fill="${COLOURS[v]}"><title>${v}: ${c[v]}</title></rect>`;
      x += w;
    }
    // The label's own tooltip spells it out as the text report does: "pass 4, fail 1, error 0; flaky (mixed verdicts)".
    svg += `<text x="${LABEL_W + BAR_W + 8}" y="${y + 14}">${c.pass}/${c.fail}/${c.error}${c.flaky ? ' flaky' : ''}<title>pass ${c.pass}, fail ${c.fail}, error ${c.error}; ${esc(flakyText(c))}</title></text>`;
  });
  const ly = cells.length * ROW_H + 20;
  (['pass', 'fail', 'error'] as const).forEach((v, i) => {
    svg += `<rect x="${LABEL_W + i * 90}" y="${ly - 10}" width="12" height="12" fill="${COLOURS[v]}"/><text x="${LABEL_W + i * 90 + 16}" y="${ly}">${v}</text>`;
  });
  svg += `<text x="${LABEL_W}" y="${ly + 18}">${xmlText(VERDICT_LABEL_LEGEND)}</text>`;
  return `${svg}</svg>`;
}

function walltimeDots(cells: readonly CellSummary[], records: readonly TrialRecord[]): string {
  let max = 0;
  const byCell = new Map<string, TrialRecord[]>();
  for (const r of records) {
    max = Math.max(max, r.walltimeSec);
    const list = byCell.get(r.cell);
    if (list === undefined) byCell.set(r.cell, [r]);
    else list.push(r);
  }
  if (max === 0) max = 1;
  const h = cells.length * ROW_H + 36;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + BAR_W + 40}" height="${h}" role="img" aria-label="Wall time per trial">`;
  const xOf = (s: number): number => LABEL_W + (s / max) * BAR_W;
  cells.forEach((c, i) => {
    const y = i * ROW_H + 4 + (ROW_H - 6) / 2;
    svg += `<text x="${LABEL_W - 8}" y="${y + 5}" text-anchor="end">${esc(c.cell)}</text>`;
    svg += `<line x1="${LABEL_W}" x2="${LABEL_W + BAR_W}" y1="${n(y)}" y2="${n(y)}" stroke="#ddd"/>`;
    for (const r of byCell.get(c.cell) ?? []) {
      svg += `<circle cx="${n(xOf(r.walltimeSec))}" cy="${n(y)}" r="4" fill="${COLOURS[r.verdict]}" fill-opacity="0.7"><title>${esc(r.trial === null ? r.path : `trial_${r.trial}`)}: ${seconds(r.walltimeSec)} s, ${r.verdict}</title></circle>`;
    }
    if (c.walltimeSec !== null) {
      const mx = n(xOf(c.walltimeSec.median));
      svg += `<line x1="${mx}" x2="${mx}" y1="${n(y - 8)}" y2="${n(y + 8)}" stroke="#000" stroke-width="2"><title>median ${seconds(c.walltimeSec.median)} s</title></line>`;
    }
  });
  const ay = cells.length * ROW_H + 12;
  svg += `<line x1="${LABEL_W}" x2="${LABEL_W + BAR_W}" y1="${ay}" y2="${ay}" stroke="#555"/>`;
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    svg += `<text x="${n(LABEL_W + f * BAR_W)}" y="${ay + 16}" text-anchor="middle">${seconds(f * max)} s</text>`;
  }
  return `${svg}</svg>`;
}

/**
 * The matrix's failure rates as bars, each with its 95% Wilson interval as a whisker and the baseline's rate as a
 * dashed line: how far apart the cells are, and how much of that the trials can tell.
 */
function matrixChart(m: MatrixJson): string {
  const rows = m.cells;
  const h = rows.length * ROW_H + 40;
  const xOf = (r: number): number => LABEL_W + r * BAR_W;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + BAR_W + 280}" height="${h}" role="img" aria-label="Failure rate per cell with 95% intervals">`;
  const base = rows.find((c) => c.confound === '(baseline)');
  rows.forEach((c, i) => {
    const y = i * ROW_H + 4;
    svg += `<text x="${LABEL_W - 8}" y="${y + 14}" text-anchor="end">${esc(c.name)}</text>`;
    const n2 = c.passed_count + c.failed_count;
    if (c.failure_rate === null || n2 === 0) {
      svg += `<text x="${LABEL_W + 4}" y="${y + 14}">no rate (${c.trials === 0 ? 'did not run' : 'only errors'})</text>`;
      return;
    }
    const colour =
      c.vs_baseline?.effect === 'helps' ? COLOURS.pass : c.vs_baseline?.effect === 'hurts' ? COLOURS.fail : '#607d8b';
    svg += `<rect x="${LABEL_W}" y="${y}" width="${n(c.failure_rate * BAR_W)}" height="${ROW_H - 6}" fill="${colour}" fill-opacity="0.75"><title>${esc(c.name)}: failure rate ${percent(c.failure_rate)} (${failuresText(c)})</title></rect>`;
    const [lo, hi] = wilsonInterval(c.failed_count, n2);
    const cy = n(y + (ROW_H - 6) / 2);
    svg += `<line x1="${n(xOf(Math.max(0, lo)))}" x2="${n(xOf(Math.min(1, hi)))}" y1="${cy}" y2="${cy}" stroke="#000" stroke-width="1.5"><title>95% interval ${percent(Math.max(0, lo))} – ${percent(Math.min(1, hi))}</title></line>`;
    for (const e of [Math.max(0, lo), Math.min(1, hi)])
      svg += `<line x1="${n(xOf(e))}" x2="${n(xOf(e))}" y1="${n(y + 2)}" y2="${n(y + ROW_H - 8)}" stroke="#000" stroke-width="1.5"/>`;
    const word = c === base ? 'baseline' : c.vs_baseline === null ? '' : effectText(c.vs_baseline);
    svg += `<text x="${LABEL_W + BAR_W + 8}" y="${y + 14}">${percent(c.failure_rate)} ${esc(word)}</text>`;
  });
  if (base?.failure_rate !== null && base?.failure_rate !== undefined) {
    const bx = n(xOf(base.failure_rate));
    svg += `<line x1="${bx}" x2="${bx}" y1="0" y2="${rows.length * ROW_H}" stroke="#000" stroke-dasharray="4 3"><title>baseline ${esc(base.name)}: ${percent(base.failure_rate)}</title></line>`;
  }
  const ay = rows.length * ROW_H + 10;
  svg += `<line x1="${LABEL_W}" x2="${LABEL_W + BAR_W}" y1="${ay}" y2="${ay}" stroke="#555"/>`;
  for (const f of [0, 0.25, 0.5, 0.75, 1])
    svg += `<text x="${n(xOf(f))}" y="${ay + 16}" text-anchor="middle">${f * 100}%</text>`;
  return `${svg}</svg>`;
}

function matrixSection(m: MatrixJson): string {
  let out = '<h2>Matrix: which mitigation changes the failure rate</h2>\n';
  for (const w of m.warnings) out += `<p class="warning">Warning: ${esc(w)}</p>\n`;
  out += `<p>Baseline cell: ${m.baseline_cell === null ? 'none' : `<code>${esc(m.baseline_cell)}</code>`}; ${m.trials_per_cell} trial(s) per cell; ${m.complete ? 'complete' : 'not complete (the sweep is running or was interrupted)'}.</p>\n`;
  out += `<p>Each bar is a cell's failure rate (failed / (passed + failed); errors left out); the whisker is its 95% interval (Wilson), the dashed line the baseline's rate. Green: the cell helps (lower than the baseline, p &lt; 0.05); red: it hurts; grey: no evidence either way.</p>\n${matrixChart(m)}\n`;
  out +=
    '<table>\n<tr><th class="t">cell</th><th>failure rate</th><th>failures</th><th>errors</th><th>vs baseline (95% CI)</th><th>p</th><th class="t">effect</th><th class="t">confound</th><th>mean step (ms)</th></tr>\n';
  for (const c of m.cells) {
    const vs = c.vs_baseline;
    out += `<tr><td class="t"><code>${esc(c.name)}</code></td><td>${percent(c.failure_rate)}</td><td>${failuresText(c)}</td><td>${c.error_count}${c.is_unreliable ? ' (unreliable)' : ''}</td><td>${vs === null ? '—' : esc(differenceText(vs))}</td><td>${vs === null || vs.p_value === null ? '—' : pValue(vs.p_value)}</td><td class="t">${vs === null ? '—' : esc(effectText(vs))}</td><td class="t">${esc(c.confound)}</td><td>${c.mean_step_time_ms === null ? '—' : c.mean_step_time_ms.toFixed(1)}</td></tr>\n`;
  }
  out += `</table>\n<ul class="legend">\n${matrixLegend(m)
    .map(
      (l) =>
        `<li>${xmlText(l)
          .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
          .replace(/`([^`]+)`/g, '<code>$1</code>')
          .replace(/\*([^*]+)\*/g, '<i>$1</i>')}</li>`,
    )
    .join('\n')}\n</ul>\n`;
  return out;
}

/**
 * What the run was: the command, the recipe and its sha256 (the matrix's, else the first record's), the first and
 * last trial start, and the aorta-probe versions that ran the trials (this report's when no record says).
 */
function header(records: readonly TrialRecord[], m: MatrixJson | null): string {
  const facts: [string, string][] = [];
  const withArgv = records.find((r) => r.argv !== undefined);
  const argv = m?.argv ?? withArgv?.argv;
  if (argv !== undefined) facts.push(['command', `<code>${esc(argv.join(' '))}</code>`]);
  const withRecipe = records.find((r) => r.recipeFile !== null);
  const recipe =
    m?.recipe_source ??
    (withRecipe === undefined ? undefined : { path: withRecipe.recipeFile!, sha256: withRecipe.recipeSha256 ?? '' });
  if (recipe !== undefined)
    facts.push([
      'recipe',
      `<code>${esc(recipe.path)}</code>${recipe.sha256 === '' ? '' : ` (sha256 <code>${esc(recipe.sha256)}</code>)`}`,
    ]);
  if (m !== null) facts.push(['ticket', `<code>${esc(m.ticket)}</code>, run <code>${esc(m.run_id)}</code>`]);
  let first: string | null = null;
  let last: string | null = null;
  const versions = new Set<string>();
  for (const r of records) {
    if (r.probeVersion !== undefined && versions.size < 10) versions.add(r.probeVersion);
    if (r.startedAt === null || r.startedAt === undefined) continue;
    if (first === null || r.startedAt < first) first = r.startedAt;
    if (last === null || r.startedAt > last) last = r.startedAt;
  }
  if (first !== null) facts.push(['first / last trial start', `${esc(first)} / ${esc(last!)}`]);
  facts.push([
    'aorta-probe',
    versions.size === 0
      ? `${esc(packageInfo().version)} (this report; the records name none)`
      : `${esc([...versions].sort().join(', '))} (ran the trials); ${esc(packageInfo().version)} (this report)`,
  ]);
  return `<table class="facts">\n${facts.map(([k, v]) => `<tr><th class="t">${k}</th><td class="t">${v}</td></tr>`).join('\n')}\n</table>\n`;
}

/** Every trial, with links to its log and result.json (relative to where the report is written). */
function trialTable(records: readonly TrialRecord[], linkBase: string | null): string {
  const href = (p: string): string => xmlText(linkBase === null ? p : relative(linkBase, p) || '.');
  let out =
    '<h2>Trials</h2>\n<table>\n<tr><th class="t">cell</th><th>trial</th><th class="t">verdict</th><th>attempts</th><th>wall time (s)</th><th>peak VRAM (MiB)</th><th class="t">fired</th><th class="t">files</th></tr>\n';
  const sorted = [...records].sort((a, b) =>
    a.cell < b.cell ? -1 : a.cell > b.cell ? 1 : (a.trial ?? 0) - (b.trial ?? 0),
  );
  for (const r of sorted) {
    const fired = [...r.failureDetectors, ...r.errorDetectors];
    const log = r.logPath === null ? '' : `<a href="${href(r.logPath)}">log</a> · `;
    out += `<tr><td class="t"><code>${esc(r.cell)}</code></td><td>${r.trial ?? '—'}</td><td class="t">${r.verdict}</td><td>${r.attempts}</td><td>${seconds(r.walltimeSec)}</td><td>${r.peakVramMib === null ? '—' : mib(r.peakVramMib)}</td><td class="t">${fired.map((f) => `<code>${esc(f)}</code>`).join(' ')}</td><td class="t">${log}<a href="${href(r.path)}">result.json</a></td></tr>\n`;
  }
  return `${out}</table>\n`;
}

function dist(d: CellSummary['walltimeSec'], unit: (x: number) => string): string {
  return d === null
    ? '<td colspan="3">–</td>'
    : `<td>${unit(d.median)}</td><td>${unit(d.p95)}</td><td>${unit(d.max)}</td>`;
}

export function formatHtml(
  report: SweepReport,
  records: readonly TrialRecord[],
  linkBase: string | null = null,
): string {
  const t = report.totals;
  const withUnfinished = t.unfinished > 0;
  let body = `<h1>aorta-probe report</h1>\n${header(records, report.matrix)}`;
  if (report.matrix !== null) body += matrixSection(report.matrix);
  body += `<h2>Verdicts</h2>\n<p>${t.trials} trials in ${report.cells.length} cells: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ${t.flakyCells} flaky cells${withUnfinished ? `; ${t.unfinished} unfinished trials` : ''}</p>\n`;
  if (report.cells.length > 0) {
    body += `<h2>Verdicts per cell</h2>\n<p>Each bar splits a cell's trials by verdict. The label after it counts them as pass/fail/error (<code>4/1/0</code>: 4 passed, 1 failed, 0 errors), followed by <i>flaky</i> when the cell had mixed verdicts or a trial that passed on retry; hover over a label for the same in words.</p>\n${verdictBars(report.cells)}\n<h2>Wall time per trial</h2>\n<p>Each dot is a trial, coloured by verdict; the bar is the cell's median.</p>\n${walltimeDots(report.cells, records)}\n`;
  }
  body +=
    '<h2>Cells</h2>\n<table>\n<tr><th rowspan="2" class="t">cell</th><th rowspan="2">trials</th><th rowspan="2">pass</th><th rowspan="2">fail</th><th rowspan="2">error</th><th rowspan="2">flaky</th>' +
    (withUnfinished ? '<th rowspan="2">unfinished</th>' : '') +
    '<th colspan="3">walltime (s)</th><th colspan="3">peak VRAM (MiB)</th></tr>\n<tr><th>median</th><th>p95</th><th>max</th><th>median</th><th>p95</th><th>max</th></tr>\n';
  for (const c of report.cells) {
    body +=
      `<tr><td class="t">${esc(c.cell)}</td><td>${c.trials}</td><td>${c.pass}</td><td>${c.fail}</td><td>${c.error}</td><td class="t">${c.flaky ? esc(c.flakyReasons.join(', ')) : 'no'}</td>` +
      `${withUnfinished ? `<td>${c.unfinished}</td>` : ''}${dist(c.walltimeSec, seconds)}${dist(c.peakVramMib, mib)}</tr>\n`;
  }
  body += '</table>\n';
  for (const c of report.cells) {
    if (c.detectors.length === 0) continue;
    body += `<h3>${esc(c.cell)}: detectors</h3>\n<table>\n<tr><th>trials</th><th class="t">detector</th><th class="t">kind</th><th class="t">example</th></tr>\n`;
    for (const d of c.detectors) {
      const k = d.kernelEvent;
      const ex =
        d.example !== null
          ? `<code>${esc(d.example.text)}</code> <small>${esc(shownPath(d.example.file))}:${d.example.line}</small>`
          : k !== undefined
            ? `<code>${esc(k.line)}</code> <small>kernel${xidText(k) === null ? '' : `, ${esc(xidText(k)!)}`}</small>`
            : '';
      body += `<tr><td>${d.trials}</td><td class="t"><code>${esc(d.id)}</code></td><td class="t">${d.kind}</td><td class="t">${ex}</td></tr>\n`;
    }
    body += '</table>\n';
  }
  for (const c of report.cells) {
    if (c.retriedTrials.length === 0) continue;
    body += `<h3>${esc(c.cell)}: retried trials</h3>\n<ul>\n`;
    for (const r of c.retriedTrials)
      body += `<li>trial ${r.trial ?? '?'}: ${r.prior.map((a) => `<code>${esc(priorAttemptText(a))}</code>`).join('; ')}; final: ${r.verdict}</li>\n`;
    body += '</ul>\n';
  }
  for (const c of report.cells) {
    if (c.conditionErrors.length === 0) continue;
    body += `<h3>${esc(c.cell)}: conditions that raised</h3>\n<ul>\n`;
    for (const e of c.conditionErrors) body += `<li><code>${esc(conditionErrorsText(e))}</code></li>\n`;
    body += '</ul>\n';
  }
  if (records.length > 0) body += trialTable(records, linkBase);
  if (report.problems.length > 0) {
    body += '<h2>Skipped files</h2>\n<ul>\n';
    for (const p of report.problems) body += `<li><code>${esc(shownPath(p.path))}</code>: ${esc(p.reason)}</li>\n`;
    body += '</ul>\n';
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>aorta-probe report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td.t, th.t { text-align: left; }
.warning { color: #8a4b00; font-weight: bold; }
.legend { font-size: 0.9em; max-width: 60em; }
svg text { font: 12px system-ui, sans-serif; }
code { font-size: 0.9em; }
</style>
</head>
<body>
${body}</body>
</html>
`;
}
