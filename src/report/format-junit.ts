/**
 * `report --format junit`: one `<testsuite>` per cell (with its flaky / retried / passed-on-retry counts as
 * properties), one `<testcase>` per trial. The XML itself is junit.ts's, the one JUnit writer.
 */
import type { SweepReport } from './aggregate.js';
import { junitDocument, junitTestcase, junitTestsuite } from './junit.js';
import type { TrialRecord } from './read-results.js';

function caseName(r: TrialRecord): string {
  return r.trial === null ? r.path : `trial_${r.trial}`;
}

export function formatJunit(report: SweepReport, records: readonly TrialRecord[]): string {
  const t = report.totals;
  const seconds = (rs: readonly TrialRecord[]): number => rs.reduce((a, r) => a + r.walltimeSec, 0);
  const suites = report.cells.map((c, id) => {
    const rs = records
      .filter((r) => r.cell === c.cell)
      .sort((a, b) => (a.trial ?? Infinity) - (b.trial ?? Infinity) || (a.path < b.path ? -1 : 1));
    const cases = rs.map((r) => {
      if (r.verdict === 'pass') return junitTestcase(caseName(r), c.cell, r.walltimeSec, null);
      const ids = r.verdict === 'fail' ? r.failureDetectors : r.errorDetectors;
      return junitTestcase(caseName(r), c.cell, r.walltimeSec, {
        verdict: r.verdict,
        attrs: { message: ids.join(', ') || r.verdict, type: ids[0] ?? r.verdict },
        body: `exit_code ${r.exitCode}; ${r.path}`,
      });
    });
    return junitTestsuite(
      c.cell,
      { tests: c.trials, failures: c.fail, errors: c.error, seconds: seconds(rs) },
      cases,
      { id, package: 'aorta-probe' },
      [
        ['flaky', c.flaky ? c.flakyReasons.join(', ') : 'no'],
        ['retried', c.retried],
        ['passed_on_retry', c.passedOnRetry],
      ],
    );
  });
  return junitDocument(
    'aorta-probe',
    { tests: t.trials, failures: t.fail, errors: t.error, seconds: seconds(records) },
    suites,
  );
}
