/** `report --format markdown`: a table per sweep and a detector list per cell, for issues and pull requests. */
import type { SweepReport } from './aggregate.js';
import { mib, seconds } from './format-text.js';
import { shownPath } from './paths.js';

/** Table cells: a `|` would end the cell, a newline the row. */
function md(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

function code(s: string): string {
  const ticks = '`'.repeat(Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${md(s)}${ticks.length > 1 ? ' ' : ''}${ticks}`;
}

export function formatMarkdown(report: SweepReport): string {
  const t = report.totals;
  let out = `**${t.trials} trials** in ${report.cells.length} cells: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ${t.flakyCells} flaky cells\n\n`;
  out +=
    '| cell | trials | pass | fail | error | flaky | walltime median / p95 / max (s) | peak VRAM median / p95 / max (MiB) |\n';
  out += '|---|---:|---:|---:|---:|---|---|---|\n';
  for (const c of report.cells) {
    const w =
      c.walltimeSec === null
        ? '–'
        : `${seconds(c.walltimeSec.median)} / ${seconds(c.walltimeSec.p95)} / ${seconds(c.walltimeSec.max)}`;
    const v =
      c.peakVramMib === null
        ? '–'
        : `${mib(c.peakVramMib.median)} / ${mib(c.peakVramMib.p95)} / ${mib(c.peakVramMib.max)}`;
    out += `| ${code(c.cell)} | ${c.trials} | ${c.pass} | ${c.fail} | ${c.error} | ${c.flaky ? `yes (${c.flakyReasons.join(', ')})` : 'no'} | ${w} | ${v} |\n`;
  }
  for (const c of report.cells) {
    if (c.detectors.length === 0) continue;
    out += `\n### ${md(c.cell)}: detectors\n\n| trials | detector | kind | example |\n|---:|---|---|---|\n`;
    for (const d of c.detectors) {
      const ex =
        d.example === null ? '' : `${code(d.example.text)} (${md(shownPath(d.example.file))}:${d.example.line})`;
      out += `| ${d.trials} | ${code(d.id)} | ${d.kind} | ${ex} |\n`;
    }
  }
  if (report.problems.length > 0) {
    out += `\n### Skipped files\n\n`;
    for (const p of report.problems) out += `- ${code(shownPath(p.path))}: ${md(p.reason)}\n`;
  }
  return out;
}
