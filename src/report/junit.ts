/**
 * JUnit XML (the Surefire dialect CI servers read: Jenkins, GitLab, GitHub test reporters): the one writer of its
 * elements, for every output that has them — `scan` and `run` (a testsuite per invocation, a testcase per log or
 * trial: `junitXml`) and `report --format junit` (a testsuite per cell, a testcase per trial: format-junit.ts).
 * `<failure>` stands for a `fail` verdict, `<error>` for `error`. Validated in the tests against the Jenkins xUnit
 * plugin's junit-10.xsd and the Ant junit.xsd.
 */
import type { Verdict } from '../detectors/verdict.js';
import { xmlDocument, type XmlAttrs, type XmlElement } from './xml.js';

/**
 * The largest time written: 10^12 s (some 31,700 years). A record may claim 1e308 s, and a sum of such is Infinity,
 * which xs:decimal cannot hold; below this bound milliseconds stay exact and `String` writes no exponent.
 */
export const MAX_JUNIT_SECONDS = 1e12;

/**
 * Seconds as xs:decimal with millisecond precision, no trailing zeros (`1.25`, `16`, `0.004`): clamped to
 * [0, MAX_JUNIT_SECONDS], NaN as 0, so it is always a finite decimal without an exponent.
 */
export function junitSeconds(t: number): string {
  const clamped = t > 0 ? Math.min(t, MAX_JUNIT_SECONDS) : 0;
  return String(Math.round(clamped * 1000) / 1000);
}

export interface JUnitOutcome {
  readonly verdict: 'fail' | 'error';
  /** The `<failure>`/`<error>` attributes, in the order the output wants them (`message`, `type`). */
  readonly attrs: XmlAttrs;
  readonly body: string;
}

/**
 * An earlier attempt of a retried test, as Surefire writes it (surefire-test-report-3.0.xsd), which Jenkins and
 * GitLab read: `rerunFailure`/`rerunError` when the test's final attempt did not pass either, `flakyFailure` /
 * `flakyError` when it did (a flaky test). The attempt's detectors and fired lines are its `stackTrace`.
 */
export interface JUnitRerun {
  readonly tag: 'rerunFailure' | 'rerunError' | 'flakyFailure' | 'flakyError';
  readonly attrs: XmlAttrs;
  readonly stackTrace: string;
}

/** Surefire's order of a testcase's children: failure, rerunFailure, flakyFailure, skipped, error, rerunError, flakyError. */
const CHILD_ORDER = ['failure', 'rerunFailure', 'flakyFailure', 'skipped', 'error', 'rerunError', 'flakyError'];

export function junitTestcase(
  name: string,
  classname: string,
  seconds: number,
  outcome: JUnitOutcome | null,
  systemOut = '',
  reruns: readonly JUnitRerun[] = [],
): XmlElement {
  const children: XmlElement[] = [];
  if (outcome !== null)
    children.push({ tag: outcome.verdict === 'fail' ? 'failure' : 'error', attrs: outcome.attrs, text: outcome.body });
  for (const r of reruns)
    children.push({ tag: r.tag, attrs: r.attrs, children: [{ tag: 'stackTrace', text: r.stackTrace }] });
  children.sort((a, b) => CHILD_ORDER.indexOf(a.tag) - CHILD_ORDER.indexOf(b.tag));
  if (systemOut !== '') children.push({ tag: 'system-out', text: systemOut });
  return { tag: 'testcase', attrs: { name, classname, time: junitSeconds(seconds) }, children };
}

export interface JUnitCounts {
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  /** Of `tests`, those with `<skipped/>`; 0 when left out. */
  readonly skipped?: number;
  readonly seconds: number;
}

/** A test case that did not run to a verdict (an unfinished trial, a record that could not be read). */
export function junitSkippedTestcase(name: string, classname: string, message: string): XmlElement {
  return {
    tag: 'testcase',
    attrs: { name, classname, time: junitSeconds(0) },
    children: [{ tag: 'skipped', attrs: { message } }],
  };
}

/** `<testsuite>`; `extra` attributes (timestamp, id, package) after the counts, `properties` before the cases. */
export function junitTestsuite(
  name: string,
  counts: JUnitCounts,
  cases: readonly XmlElement[],
  extra: XmlAttrs = {},
  properties: readonly (readonly [string, string | number])[] = [],
): XmlElement {
  const props: XmlElement[] =
    properties.length === 0
      ? []
      : [
          {
            tag: 'properties',
            children: properties.map(([n, v]) => ({ tag: 'property', attrs: { name: n, value: v } })),
          },
        ];
  return {
    tag: 'testsuite',
    attrs: {
      name,
      tests: counts.tests,
      failures: counts.failures,
      errors: counts.errors,
      skipped: counts.skipped ?? 0,
      time: junitSeconds(counts.seconds),
      ...extra,
    },
    children: props.concat(cases),
  };
}

export function junitDocument(name: string, counts: JUnitCounts, suites: readonly XmlElement[]): string {
  return xmlDocument({
    tag: 'testsuites',
    attrs: {
      name,
      tests: counts.tests,
      failures: counts.failures,
      errors: counts.errors,
      time: junitSeconds(counts.seconds),
    },
    children: suites,
  });
}

/** One log or trial of a `scan` or `run`. */
export interface JUnitCase {
  readonly name: string;
  readonly classname: string;
  /** Seconds. */
  readonly time: number;
  readonly outcome: Verdict;
  /** One line: why it failed (the first detectors). Ignored for `pass`. */
  readonly message: string;
  /** The body of `<failure>`/`<error>`: one detector per line, with its location and capture. */
  readonly details: string;
  readonly systemOut: string;
}

export interface JUnitSuite {
  readonly name: string;
  /** ISO 8601 without zone is what Surefire writes; any ISO string is accepted by readers. */
  readonly timestamp: string;
  readonly cases: readonly JUnitCase[];
}

/** `scan` and `run`: one testsuite for the invocation, a testcase per log or trial. */
export function junitXml(suite: JUnitSuite): string {
  const counts: JUnitCounts = {
    tests: suite.cases.length,
    failures: suite.cases.filter((c) => c.outcome === 'fail').length,
    errors: suite.cases.filter((c) => c.outcome === 'error').length,
    seconds: suite.cases.reduce((s, c) => s + c.time, 0),
  };
  const cases = suite.cases.map((c) =>
    junitTestcase(
      c.name,
      c.classname,
      c.time,
      c.outcome === 'pass'
        ? null
        : { verdict: c.outcome, attrs: { type: c.outcome, message: c.message }, body: c.details },
      c.systemOut,
    ),
  );
  return junitDocument(suite.name, counts, [junitTestsuite(suite.name, counts, cases, { timestamp: suite.timestamp })]);
}
