/**
 * `report --format html`: one self-contained page (inline CSS and SVG, no script, no network resource) with the
 * two pictures a person would rather look at than read — verdicts per cell as stacked bars, and each cell's wall
 * times as dots on one shared axis with the median marked — followed by the same tables as the text report.
 * Built with loops over the records (a sweep may have hundreds of thousands), never a spread into a call.
 */
import { inertLine } from '../text/inert.js';
import { conditionErrorsText, type CellSummary, type SweepReport } from './aggregate.js';
import { mib, seconds } from './format-text.js';
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

function verdictBars(cells: readonly CellSummary[]): string {
  const h = cells.length * ROW_H + 30;
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
    svg += `<text x="${LABEL_W + BAR_W + 8}" y="${y + 14}">${c.pass}/${c.fail}/${c.error}${c.flaky ? ' flaky' : ''}</text>`;
  });
  const ly = cells.length * ROW_H + 20;
  (['pass', 'fail', 'error'] as const).forEach((v, i) => {
    svg += `<rect x="${LABEL_W + i * 90}" y="${ly - 10}" width="12" height="12" fill="${COLOURS[v]}"/><text x="${LABEL_W + i * 90 + 16}" y="${ly}">${v}</text>`;
  });
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

function dist(d: CellSummary['walltimeSec'], unit: (x: number) => string): string {
  return d === null
    ? '<td colspan="3">–</td>'
    : `<td>${unit(d.median)}</td><td>${unit(d.p95)}</td><td>${unit(d.max)}</td>`;
}

export function formatHtml(report: SweepReport, records: readonly TrialRecord[]): string {
  const t = report.totals;
  const withUnfinished = t.unfinished > 0;
  let body = `<h1>aorta-probe report</h1>\n<p>${t.trials} trials in ${report.cells.length} cells: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ${t.flakyCells} flaky cells${withUnfinished ? `; ${t.unfinished} unfinished trials` : ''}</p>\n`;
  if (report.cells.length > 0) {
    body += `<h2>Verdicts per cell</h2>\n${verdictBars(report.cells)}\n<h2>Wall time per trial</h2>\n<p>Each dot is a trial, coloured by verdict; the bar is the cell's median.</p>\n${walltimeDots(report.cells, records)}\n`;
  }
  body +=
    '<h2>Cells</h2>\n<table>\n<tr><th rowspan="2">cell</th><th rowspan="2">trials</th><th rowspan="2">pass</th><th rowspan="2">fail</th><th rowspan="2">error</th><th rowspan="2">flaky</th>' +
    (withUnfinished ? '<th rowspan="2">unfinished</th>' : '') +
    '<th colspan="3">walltime (s)</th><th colspan="3">peak VRAM (MiB)</th></tr>\n<tr><th>median</th><th>p95</th><th>max</th><th>median</th><th>p95</th><th>max</th></tr>\n';
  for (const c of report.cells) {
    body +=
      `<tr><td>${esc(c.cell)}</td><td>${c.trials}</td><td>${c.pass}</td><td>${c.fail}</td><td>${c.error}</td><td>${c.flaky ? esc(c.flakyReasons.join(', ')) : 'no'}</td>` +
      `${withUnfinished ? `<td>${c.unfinished}</td>` : ''}${dist(c.walltimeSec, seconds)}${dist(c.peakVramMib, mib)}</tr>\n`;
  }
  body += '</table>\n';
  for (const c of report.cells) {
    if (c.detectors.length === 0) continue;
    body += `<h3>${esc(c.cell)}: detectors</h3>\n<table>\n<tr><th>trials</th><th>detector</th><th>kind</th><th>example</th></tr>\n`;
    for (const d of c.detectors) {
      const k = d.kernelEvent;
      const ex =
        d.example !== null
          ? `<code>${esc(d.example.text)}</code> <small>${esc(shownPath(d.example.file))}:${d.example.line}</small>`
          : k !== undefined
            ? `<code>${esc(k.line)}</code> <small>kernel${xidText(k) === null ? '' : `, ${esc(xidText(k)!)}`}</small>`
            : '';
      body += `<tr><td>${d.trials}</td><td><code>${esc(d.id)}</code></td><td>${d.kind}</td><td>${ex}</td></tr>\n`;
    }
    body += '</table>\n';
  }
  for (const c of report.cells) {
    if (c.conditionErrors.length === 0) continue;
    body += `<h3>${esc(c.cell)}: conditions that raised</h3>\n<ul>\n`;
    for (const e of c.conditionErrors) body += `<li><code>${esc(conditionErrorsText(e))}</code></li>\n`;
    body += '</ul>\n';
  }
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
td:first-child, th:first-child { text-align: left; }
svg text { font: 12px system-ui, sans-serif; }
code { font-size: 0.9em; }
</style>
</head>
<body>
${body}</body>
</html>
`;
}
