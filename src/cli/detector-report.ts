/**
 * A classified log (scan) or trial (run) in each output format, from one plain record, so `scan` and `run` show
 * the same thing the same way: compiler-style location lines (`train.log:42: tier4:hip_error — hipError_…`), JUnit
 * test cases and GitHub annotations. Every string here that comes from the log or the recipe (a match, an id, the
 * log's name) is made inert (text/inert.ts): these outputs reach a terminal or a CI runner.
 */
import { strRepr } from '../condition/repr.js';
import type { Verdict } from '../detectors/verdict.js';
import { inertLine } from '../text/inert.js';
import type { DetectorHit } from '../scan/index.js';
import type { Annotation } from '../report/github.js';
import type { JUnitCase } from '../report/junit.js';
import type { Palette } from './tty.js';

export interface Classified {
  /** The log as the user named it (`-` for stdin is shown as `<stdin>`). */
  readonly log: string;
  readonly verdict: Verdict;
  readonly detectors: readonly DetectorHit[];
  /** Failure (and, for run, error) detector ids, including those with no position (tier1:*, meta:*). */
  readonly failures: readonly string[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly seconds: number;
}

/** What a classified log (`scan`) or trial (`run`, result.json) has that the plain record needs. */
type ClassifiedFields = {
  readonly verdict: Verdict;
  readonly detectors: readonly DetectorHit[];
  readonly failure_detectors_fired: readonly string[];
  readonly error_detectors_fired: readonly string[];
  readonly warn_detectors_fired: readonly string[];
};

/** The plain record of a classified log or trial, shown as `log`, that took `seconds`. */
export function classifiedOf(log: string, r: ClassifiedFields, seconds: number): Classified {
  return {
    log,
    verdict: r.verdict,
    detectors: r.detectors,
    failures: r.failure_detectors_fired,
    errors: r.error_detectors_fired,
    warnings: r.warn_detectors_fired,
    seconds,
  };
}

const captureRepr = (c: Readonly<Record<string, string>>): string =>
  `{${Object.entries(c)
    .map(([k, v]) => `${strRepr(k)}: ${strRepr(v)}`)
    .join(', ')}}`;

/** `LOG:LINE: ID — MATCH`, with ` (warn)`/` (info)` for the detectors that do not fail, and a non-empty capture. */
export function detectorLine(log: string, d: DetectorHit, c: Palette): string {
  const failing = d.kind === 'tier4' || d.kind === 'fail';
  const shownId = inertLine(d.id);
  const id = failing ? c.red(shownId) : d.kind === 'warn' ? c.yellow(shownId) : shownId;
  const kind = failing ? '' : ` (${d.kind})`;
  const capture = Object.keys(d.capture).length > 0 ? `  ${c.dim(captureRepr(d.capture))}` : '';
  return `${c.bold(`${inertLine(log)}:${d.line}:`)} ${id}${kind} — ${oneLine(d.match)}${capture}\n`;
}

/**
 * A match shown on one inert line: a regex with DOTALL or `\s` may span lines (each break becomes ⏎), and the log
 * may hold ESC sequences or other controls (escaped).
 */
const oneLine = (s: string): string => inertLine(s.replace(/\r?\n/g, '⏎'));

function describe(d: DetectorHit): string {
  const capture = Object.keys(d.capture).length > 0 ? ` ${captureRepr(d.capture)}` : '';
  return `line ${d.line} (byte ${d.byte_offset}): ${inertLine(d.id)}${d.kind === 'tier4' || d.kind === 'fail' ? '' : ` (${d.kind})`} — ${oneLine(d.match)}${capture}`;
}

/** The JUnit test case of one log or trial. */
export function junitCase(r: Classified, name: string, classname: string, systemOut: string): JUnitCase {
  const positioned = new Set(r.detectors.map((d) => d.id));
  const unpositioned = [...r.errors, ...r.failures].filter((id) => !positioned.has(id));
  const bad = r.detectors.filter((d) => d.kind === 'tier4' || d.kind === 'fail');
  const first = [
    ...r.errors,
    ...bad.map((d) => `${d.id} at line ${d.line}`),
    ...unpositioned.filter((id) => !r.errors.includes(id)),
  ];
  return {
    name,
    classname,
    time: r.seconds,
    outcome: r.verdict,
    message:
      r.verdict === 'pass'
        ? ''
        : `${r.verdict}: ${first.slice(0, 3).map(inertLine).join(', ')}${first.length > 3 ? `, and ${first.length - 3} more` : ''}`,
    details: [...unpositioned.map(inertLine), ...r.detectors.map(describe)].map((l) => `${l}\n`).join(''),
    systemOut,
  };
}

/** GitHub annotations: an error per failing or error detector, a warning per warn detector; info ones are silent. */
export function detectorAnnotations(r: Classified, log: string | undefined): Annotation[] {
  const file = log === undefined ? undefined : inertLine(log);
  const out: Annotation[] = [];
  const positioned = new Set(r.detectors.map((d) => d.id));
  for (const id of [...r.errors, ...r.failures]) {
    if (!positioned.has(id))
      out.push({
        level: 'error',
        ...(file === undefined ? {} : { file }),
        title: inertLine(id),
        message: `${inertLine(r.log)}: ${inertLine(id)} (verdict ${r.verdict})`,
      });
  }
  for (const d of r.detectors) {
    if (d.kind === 'info' || d.kind === 'required') continue; // neither fails nor warns
    out.push({
      level: d.kind === 'warn' ? 'warning' : 'error',
      ...(file === undefined ? {} : { file, line: d.line }),
      title: inertLine(d.id),
      message: `${inertLine(r.log)}:${d.line}: ${oneLine(d.match)}${Object.keys(d.capture).length > 0 ? ` ${captureRepr(d.capture)}` : ''}`,
    });
  }
  return out;
}
