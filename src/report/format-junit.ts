/**
 * `report --format junit`: one `<testsuite>` per cell (with its flaky / retried / passed-on-retry counts as
 * properties), one `<testcase>` per trial, a `<skipped/>` one per unfinished trial, and a last suite, `skipped
 * files`, with a `<skipped/>` case per file that was not a usable record, so a CI page shows what was left out.
 * The XML itself is junit.ts's, the one JUnit writer. Strings from records go through `inertLine`: a CI page
 * shows them as text, and XML 1.0 allows the C1 controls a terminal would act on.
 */
import { inertLine, inertLines } from '../text/inert.js';
import { priorAttemptText, type SweepReport } from './aggregate.js';
import { junitDocument, junitSkippedTestcase, junitTestcase, junitTestsuite, type JUnitRerun } from './junit.js';
import type { TrialRecord, UnfinishedTrial } from './records.js';
import type { XmlElement } from './xml.js';

/** The suite of skipped files. */
export const SKIPPED_FILES_SUITE = 'skipped files';

function caseName(r: TrialRecord): string {
  return inertLine(r.trial === null ? r.path : `trial_${r.trial}`);
}

/** A suite's name must be a non-empty xs:token once its whitespace collapses: a blank cell name is quoted. */
function suiteName(cell: string): string {
  const s = inertLine(cell);
  return /^[ \t]*$/.test(s) ? inertLine(JSON.stringify(cell)) : s;
}

function groupBy<T extends { readonly cell: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of items) {
    const list = out.get(x.cell);
    if (list === undefined) out.set(x.cell, [x]);
    else list.push(x);
  }
  return out;
}

function totalSeconds(rs: readonly TrialRecord[]): number {
  let s = 0;
  for (const r of rs) s += r.walltimeSec;
  return s;
}

/** The fired log lines of `ids`, one per line, as `run --format junit` shows them (`id at line N: text`). */
function firedLines(r: TrialRecord, ids: readonly string[]): string {
  let out = '';
  for (const id of ids) {
    const f = r.firings?.get(id);
    if (f !== undefined) out += `${id} at line ${f.line}: ${f.match}\n`;
  }
  return out;
}

/** Each earlier attempt of a retried trial: `flaky*` when the trial passed in the end, `rerun*` when it did not. */
function reruns(r: TrialRecord): JUnitRerun[] {
  return (r.priorAttempts ?? [])
    .filter((a) => a.verdict !== 'pass')
    .map((a) => {
      const ids = a.verdict === 'fail' ? a.failureDetectors : a.errorDetectors;
      const kind = a.verdict === 'fail' ? 'Failure' : 'Error';
      return {
        tag: `${r.verdict === 'pass' ? 'flaky' : 'rerun'}${kind}` as JUnitRerun['tag'],
        attrs: { message: inertLine(ids.join(', ') || a.verdict), type: inertLine(ids[0] ?? a.verdict) },
        // The attempt's fired log lines (its own result.json), as the final <failure> shows the last attempt's.
        stackTrace: inertLines(
          `${a.firings
            .filter((f) => ids.includes(f.id))
            .map((f) => `${f.id} at line ${f.line}: ${f.match}\n`)
            .join('')}${priorAttemptText(a)}; exit_code ${a.exitCode ?? '?'}${a.dir === null ? '' : `; ${a.dir}`}`,
        ),
      };
    });
}

function trialCase(r: TrialRecord, classname: string): XmlElement {
  if (r.verdict === 'pass') return junitTestcase(caseName(r), classname, r.walltimeSec, null, '', reruns(r));
  const ids = r.verdict === 'fail' ? r.failureDetectors : r.errorDetectors;
  return junitTestcase(
    caseName(r),
    classname,
    r.walltimeSec,
    {
      verdict: r.verdict,
      attrs: { message: inertLine(ids.join(', ') || r.verdict), type: inertLine(ids[0] ?? r.verdict) },
      body: inertLines(`${firedLines(r, ids)}exit_code ${r.exitCode}; ${r.path}`),
    },
    '',
    reruns(r),
  );
}

export function formatJunit(report: SweepReport, records: readonly TrialRecord[]): string {
  const t = report.totals;
  const recordsByCell = groupBy(records);
  const unfinishedByCell = groupBy<UnfinishedTrial>(report.unfinished);
  const suites = report.cells.map((c, id) => {
    const name = suiteName(c.cell);
    const rs = (recordsByCell.get(c.cell) ?? []).sort(
      (a, b) => (a.trial ?? Infinity) - (b.trial ?? Infinity) || (a.path < b.path ? -1 : 1),
    );
    const cases = rs.map((r) => trialCase(r, name));
    for (const u of unfinishedByCell.get(c.cell) ?? [])
      cases.push(junitSkippedTestcase(`trial_${u.trial}`, name, 'unfinished: no result.json'));
    return junitTestsuite(
      name,
      {
        tests: c.trials + c.unfinished,
        failures: c.fail,
        errors: c.error,
        skipped: c.unfinished,
        seconds: totalSeconds(rs),
      },
      cases,
      { id, package: 'aorta-probe' },
      [
        ['flaky', c.flaky ? c.flakyReasons.join(', ') : 'no'],
        ['retried', c.retried],
        ['passed_on_retry', c.passedOnRetry],
      ],
    );
  });
  const problems = report.problems;
  if (problems.length > 0) {
    const cases = problems.map((p) =>
      junitSkippedTestcase(inertLine(p.path), SKIPPED_FILES_SUITE, inertLine(p.reason)),
    );
    suites.push(
      junitTestsuite(
        SKIPPED_FILES_SUITE,
        { tests: problems.length, failures: 0, errors: 0, skipped: problems.length, seconds: 0 },
        cases,
        { id: report.cells.length, package: 'aorta-probe' },
      ),
    );
  }
  return junitDocument(
    'aorta-probe',
    {
      tests: t.trials + t.unfinished + problems.length,
      failures: t.fail,
      errors: t.error,
      seconds: totalSeconds(records),
    },
    suites,
  );
}
