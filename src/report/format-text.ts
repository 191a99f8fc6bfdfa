/**
 * `report --format text` (the default) and the number formatting every human format shares. Every string from a
 * record or a log goes through `inertLine`, so an ESC sequence in a cell name or a log line cannot set a window
 * title or fake a line of the report on the terminal.
 */
import { inertLine } from '../text/inert.js';
import {
  conditionErrorsText,
  priorAttemptText,
  type CellSummary,
  type Distribution,
  type SweepReport,
} from './aggregate.js';
import { formatMatrixText } from '../matrix/text.js';
import { shownPath } from './paths.js';
import { kernelEventLine } from './kernel-events.js';

/** Seconds with millisecond precision; MiB as whole numbers unless a median falls between two. */
export function seconds(x: number): string {
  return x.toFixed(3);
}
export function mib(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

export function describeDistribution(
  d: Distribution | null,
  unit: (x: number) => string,
  suffix: string,
  none: string,
): string {
  if (d === null) return none;
  return `median ${unit(d.median)}${suffix}, p95 ${unit(d.p95)}${suffix}, max ${unit(d.max)}${suffix} (n=${d.n})`;
}

export function flakyText(c: CellSummary): string {
  return c.flaky ? `flaky (${c.flakyReasons.join(', ')})` : 'not flaky';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The report's first line: totals, then earlier attempts and unfinished trials when there are any. */
function totalsLine(report: SweepReport): string {
  const t = report.totals;
  let out =
    `${plural(t.trials, 'trial')} in ${plural(report.cells.length, 'cell')}: pass ${t.pass}, fail ${t.fail}, error ${t.error}; ` +
    `${plural(t.flakyCells, 'flaky cell')}`;
  if (report.earlierAttempts > 0) out += `; ${plural(report.earlierAttempts, 'earlier attempt')} of retried trials`;
  if (t.unfinished > 0) out += `; ${plural(t.unfinished, 'unfinished trial')}`;
  return out;
}

export function formatText(report: SweepReport): string {
  let out = report.matrix === null ? '' : `${formatMatrixText(report.matrix)}\n`;
  out += `${totalsLine(report)}\n`;
  for (const c of report.cells) {
    out += `\ncell ${inertLine(c.cell)}: ${plural(c.trials, 'trial')}: pass ${c.pass}, fail ${c.fail}, error ${c.error}; ${flakyText(c)}\n`;
    if (c.unfinished > 0) out += `  unfinished: ${c.unfinished} (trial directories without result.json)\n`;
    if (c.retried > 0) out += `  retried: ${c.retried} (${c.passedOnRetry} passed on retry)\n`;
    for (const t of c.retriedTrials)
      out += `    trial ${t.trial ?? '?'}: ${t.prior.map(priorAttemptText).join('; ')}; final: ${t.verdict}\n`;
    out += `  walltime: ${describeDistribution(c.walltimeSec, seconds, ' s', 'none')}\n`;
    out += `  peak VRAM: ${describeDistribution(c.peakVramMib, mib, ' MiB', 'not sampled')}\n`;
    if (c.detectors.length === 0) out += '  detectors: none fired\n';
    else {
      out += '  detectors (trials fired in):\n';
      let most = 0;
      for (const d of c.detectors) most = Math.max(most, d.trials);
      const w = String(most).length;
      for (const d of c.detectors) {
        out += `    ${String(d.trials).padStart(w)}  ${inertLine(d.id)} (${d.kind})\n`;
        if (d.example !== null)
          out += `    ${' '.repeat(w)}  e.g. ${inertLine(shownPath(d.example.file))}:${d.example.line}: ${inertLine(d.example.text)}\n`;
        if (d.kernelEvent !== undefined) out += `    ${' '.repeat(w)}  e.g. ${kernelEventLine(d.kernelEvent)}\n`;
      }
    }
    for (const e of c.conditionErrors) out += `  ${conditionErrorsText(e)}\n`;
  }
  if (report.problems.length > 0) {
    out += `\nskipped ${plural(report.problems.length, 'file')}:\n`;
    for (const p of report.problems) out += `  ${inertLine(shownPath(p.path))}: ${inertLine(p.reason)}\n`;
  }
  return out;
}
