/**
 * JUnit XML (the Surefire dialect CI servers read: Jenkins, GitLab, GitHub test reporters), from plain data so every
 * command that reports outcomes (scan, run, a sweep's report) writes the same document: one `<testsuite>` per
 * invocation, one `<testcase>` per log or trial, `<failure>` for a `fail` verdict, `<error>` for `error`.
 * Validated in the tests against the Jenkins xUnit plugin's junit-10.xsd.
 */

export interface JUnitCase {
  readonly name: string;
  readonly classname: string;
  /** Seconds. */
  readonly time: number;
  readonly outcome: 'pass' | 'fail' | 'error';
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

/**
 * XML 1.0 text: markup characters escaped, and the characters XML 1.0 cannot carry at all (C0 controls other than
 * tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) replaced by U+FFFD, since a log may contain anything.
 */
export function xmlText(s: string): string {
  return s
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** An attribute value (also escapes quotes and keeps line ends as character references, which attributes drop). */
const attr = (s: string): string =>
  xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

/** Seconds with millisecond precision, as Surefire writes `time`. */
const seconds = (t: number): string => (Math.round(t * 1000) / 1000).toFixed(3);

export function junitXml(suite: JUnitSuite): string {
  const failures = suite.cases.filter((c) => c.outcome === 'fail').length;
  const errors = suite.cases.filter((c) => c.outcome === 'error').length;
  const total = suite.cases.reduce((s, c) => s + c.time, 0);
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n';
  out += `<testsuites name="${attr(suite.name)}" tests="${suite.cases.length}" failures="${failures}" errors="${errors}" time="${seconds(total)}">\n`;
  out += `  <testsuite name="${attr(suite.name)}" tests="${suite.cases.length}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(total)}" timestamp="${attr(suite.timestamp)}">\n`;
  for (const c of suite.cases) {
    out += `    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="${seconds(c.time)}">\n`;
    if (c.outcome !== 'pass') {
      const tag = c.outcome === 'fail' ? 'failure' : 'error';
      out += `      <${tag} type="${c.outcome}" message="${attr(c.message)}">${xmlText(c.details)}</${tag}>\n`;
    }
    if (c.systemOut !== '') out += `      <system-out>${xmlText(c.systemOut)}</system-out>\n`;
    out += '    </testcase>\n';
  }
  out += '  </testsuite>\n</testsuites>\n';
  return out;
}
