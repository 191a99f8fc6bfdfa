/**
 * `report --format markdown`: a table per sweep and a detector list per cell, for issues and pull requests.
 * Everything a record or a log chose (cell names, detector ids, example lines, paths, reasons) is a code span,
 * where neither Markdown nor GitHub renders an image, a link, an @mention or HTML.
 */
import { inertLine } from '../text/inert.js';
import { conditionErrorsText, type SweepReport } from './aggregate.js';
import { mib, seconds } from './format-text.js';
import { shownPath } from './paths.js';
import { xidText } from './kernel-events.js';

function longestBacktickRun(s: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    run = s.charCodeAt(i) === 0x60 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * A CommonMark code span showing `s` as it is (controls escaped by `inertLine`): backslashes are literal in a code
 * span, so none is added; the fence is one backtick longer than the longest run inside; a space pads each side
 * when the content starts or ends with a backtick or a space (CommonMark strips exactly one from each side).
 */
export function codeSpan(s: string): string {
  const t = inertLine(s);
  if (t === '') return '';
  const fence = '`'.repeat(longestBacktickRun(t) + 1);
  const pad = /^[` ]|[` ]$/.test(t) && !/^ +$/.test(t) ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * A code span in a GFM table cell: a `|` ends the cell even inside a code span, unless escaped; GFM takes that
 * backslash away before it parses the span (and a backslash before it stays literal: `\\|` shows `\|`).
 */
function tableCode(s: string): string {
  return codeSpan(s).replace(/\|/g, '\\|');
}

export function formatMarkdown(report: SweepReport): string {
  const t = report.totals;
  const withUnfinished = t.unfinished > 0;
  let out = `**${t.trials} trials** in ${report.cells.length} cells: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ${t.flakyCells} flaky cells`;
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
