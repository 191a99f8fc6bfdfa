/**
 * `report --format markdown`: a table per sweep and a detector list per cell, for issues and pull requests.
 * Everything a record or a log chose (cell names, detector ids, example lines, paths, reasons) is a code span,
 * where neither Markdown nor GitHub renders an image, a link, an @mention or HTML.
 */
import { codeSpan, tableCode } from '../text/markdown.js';
import { matrixMarkdownBody } from '../matrix/markdown.js';
import { conditionErrorsText, priorAttemptText, type SweepReport } from './aggregate.js';
import { mib, seconds } from './format-text.js';
import { shownPath } from './paths.js';
import { xidText } from './kernel-events.js';

export function formatMarkdown(report: SweepReport): string {
  const t = report.totals;
  const withUnfinished = t.unfinished > 0;
  let out =
    report.matrix === null
      ? ''
      : `## Matrix\n\n${matrixMarkdownBody(report.matrix).replace('\n## Notes\n', '\n### Notes\n')}\n## Trials\n\n`;
  out += `**${t.trials} trials** in ${report.cells.length} cells: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ${t.flakyCells} flaky cells`;
  out += withUnfinished ? `; ${t.unfinished} unfinished trials\n\n` : '\n\n';
  out += `| cell | trials | pass | fail | error | flaky |${withUnfinished ? ' unfinished |' : ''} walltime median / p95 / max (s) | peak VRAM median / p95 / max (MiB) |\n`;
  out += `|---|---:|---:|---:|---:|---|${withUnfinished ? '---:|' : ''}---|---|\n`;
  for (const c of report.cells) {
    const w =
      c.walltimeSec === null
        ? '–'
        : `${seconds(c.walltimeSec.median)} / ${seconds(c.walltimeSec.p95)} / ${seconds(c.walltimeSec.max)}`;
    const v =
      c.peakVramMib === null
        ? '–'
        : `${mib(c.peakVramMib.median)} / ${mib(c.peakVramMib.p95)} / ${mib(c.peakVramMib.max)}`;
    out += `| ${tableCode(c.cell)} | ${c.trials} | ${c.pass} | ${c.fail} | ${c.error} | ${c.flaky ? `yes (${c.flakyReasons.join(', ')})` : 'no'} |${withUnfinished ? ` ${c.unfinished} |` : ''} ${w} | ${v} |\n`;
  }
  for (const c of report.cells) {
    if (c.detectors.length === 0) continue;
    out += `\n### ${codeSpan(c.cell)}: detectors\n\n| trials | detector | kind | example |\n|---:|---|---|---|\n`;
    for (const d of c.detectors) {
      const k = d.kernelEvent;
      const ex =
        d.example !== null
          ? `${tableCode(d.example.text)} (${tableCode(`${shownPath(d.example.file)}:${d.example.line}`)})`
          : k !== undefined
            ? `${tableCode(k.line)} (kernel${xidText(k) === null ? '' : `, ${tableCode(xidText(k)!)}`})`
            : '';
      out += `| ${d.trials} | ${tableCode(d.id)} | ${d.kind} | ${ex} |\n`;
    }
  }
  for (const c of report.cells) {
    if (c.retriedTrials.length === 0) continue;
    out += `\n### ${codeSpan(c.cell)}: retried trials\n\n`;
    for (const r of c.retriedTrials)
      out += `- trial ${r.trial ?? '?'}: ${r.prior.map((a) => codeSpan(priorAttemptText(a))).join('; ')}; final: ${r.verdict}\n`;
  }
  for (const c of report.cells) {
    if (c.conditionErrors.length === 0) continue;
    out += `\n### ${codeSpan(c.cell)}: conditions that raised\n\n`;
    for (const e of c.conditionErrors) out += `- ${tableCode(conditionErrorsText(e))}\n`;
  }
  if (report.problems.length > 0) {
    out += `\n### Skipped files\n\n`;
    for (const p of report.problems) out += `- ${codeSpan(shownPath(p.path))}: ${codeSpan(p.reason)}\n`;
  }
  return out;
}
