/**
 * `report` / `aggregateResults` on hand-made result.json files, broken ones included: exact numbers in every
 * format, the JUnit XML validated against its XSD (fixtures/junit/junit.xsd, with libxml2 via xmllint-wasm).
 * What a record may not make `report` do is in report-trust.test.ts, report-inert.test.ts and report-scale.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregateResults,
  distribution,
  formatReport,
  readResults,
  type SweepReport,
  type TrialRecord,
} from '../src/report/index.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-report-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cwd = process.cwd();
beforeAll(() => process.chdir(root)); // paths in the reports are shown relative to the current directory
afterAll(() => process.chdir(cwd));

function put(path: string, content: string | object): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

function rec(verdict: string, walltime: number, vram: number | null, extra: object = {}): object {
  return {
    verdict,
    exit_code: verdict === 'pass' ? 0 : 1,
    walltime_sec: walltime,
    peak_vram_mib: vram,
    argv: ['x'],
    failure_detectors_fired: [],
    error_detectors_fired: [],
    warn_detectors_fired: [],
    log: { file: 'output.log', bytes: 0 },
    ...extra,
  };
}

beforeAll(() => {
  put('runs/T/a-none/trial_0/result.json', rec('pass', 1, 100));
  put('runs/T/a-none/trial_1/result.json', rec('pass', 2, 200, { warn_detectors_fired: ['custom:slow_step'] }));
  put(
    'runs/T/a-none/trial_2/result.json',
    rec('fail', 3, null, { failure_detectors_fired: ['tier1:exit_nonzero', 'tier4:nan_signature'] }),
  );
  put('runs/T/a-none/trial_2/output.log', 'step 4 loss=0.3\nstep 5 loss=nan <&>\n');
  put(
    'runs/T/a-none/trial_3/result.json',
    rec('error', 10, 400, { exit_code: -1, error_detectors_fired: ['tier1:timeout'] }),
  );
  // A retried trial: the earlier attempt is kept with final: false, the final one lists both attempts.
  put(
    'runs/T/b/trial_0/attempt_1/result.json',
    rec('fail', 0.75, null, { final: false, cell_name: 'b', trial_index: 0 }),
  );
  put(
    'runs/T/b/trial_0/result.json',
    rec('pass', 0.5, null, {
      cell_name: 'b',
      trial_index: 0,
      final: true,
      attempts: [
        {
          attempt: 1,
          verdict: 'fail',
          exit_code: 1,
          failure_detectors_fired: ['tier1:exit_nonzero'],
          error_detectors_fired: [],
          retry_on: ['tier1:exit_nonzero'],
          dir: 'attempt_1',
        },
        { attempt: 2, verdict: 'pass' },
      ],
    }),
  );
  // A lone `run` output: no cell.
  put('single/result.json', rec('fail', 0.25, null));
  // Broken and partial files.
  put('runs/T/a-none/trial_4/result.json', '');
  put('runs/T/a-none/trial_5/result.json', '{"verdict": "pass", "exit_');
  put('runs/T/a-none/trial_6/result.json', '[]');
  put('runs/T/a-none/trial_7/result.json', rec('flaky', 1, null));
  put('runs/T/a-none/trial_8/result.json', { verdict: 'pass', exit_code: 0 });
});

async function load(): Promise<{ report: SweepReport; records: TrialRecord[] }> {
  const { records, problems, earlierAttempts } = await readResults(['runs', 'single']);
  return { report: await aggregateResults(records, { problems, earlierAttempts }), records };
}

describe('distribution', () => {
  it('median (mean of the middle two), nearest-rank p95, max', () => {
    expect(distribution([3, 1, 2])).toEqual({ n: 3, median: 2, p95: 3, max: 3 });
    expect(distribution([1, 2, 3, 10])).toEqual({ n: 4, median: 2.5, p95: 10, max: 10 });
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(distribution(twenty)).toEqual({ n: 20, median: 10.5, p95: 19, max: 20 });
    expect(distribution([])).toBeNull();
  });
});

describe('aggregateResults on hand-made records', () => {
  it('counts per cell, flags flaky cells, ranks detectors with an example line, and lists every broken file', async () => {
    const { report } = await load();
    expect(report.totals).toEqual({ trials: 6, pass: 3, fail: 2, error: 1, flakyCells: 2, unfinished: 0 });
    expect(report.earlierAttempts).toBe(1);
    expect(report.problems).toEqual([
      { path: 'runs/T/a-none/trial_4/result.json', reason: 'empty file' },
      { path: 'runs/T/a-none/trial_5/result.json', reason: expect.stringMatching(/^not JSON \(/) as unknown as string },
      { path: 'runs/T/a-none/trial_6/result.json', reason: 'not a JSON object (got an array)' },
      { path: 'runs/T/a-none/trial_7/result.json', reason: `'verdict' is "flaky", not pass, fail or error` },
      { path: 'runs/T/a-none/trial_8/result.json', reason: "missing 'walltime_sec'" },
    ]);
    const [u, a, b] = report.cells;
    expect(a).toEqual({
      cell: 'a-none',
      conditionErrors: [],
      trials: 4,
      pass: 2,
      fail: 1,
      error: 1,
      unfinished: 0,
      flaky: true,
      flakyReasons: ['mixed verdicts'],
      retried: 0,
      passedOnRetry: 0,
      retriedTrials: [],
      detectors: [
        { id: 'custom:slow_step', kind: 'warn', trials: 1, example: null },
        { id: 'tier1:exit_nonzero', kind: 'failure', trials: 1, example: null },
        { id: 'tier1:timeout', kind: 'error', trials: 1, example: null },
        {
          id: 'tier4:nan_signature',
          kind: 'failure',
          trials: 1,
          example: { file: 'runs/T/a-none/trial_2/output.log', line: 2, text: 'step 5 loss=nan <&>' },
        },
      ],
      walltimeSec: { n: 4, median: 2.5, p95: 10, max: 10 },
      peakVramMib: { n: 3, median: 200, p95: 400, max: 400 },
    });
    expect([
      b!.cell,
      b!.trials,
      b!.pass,
      b!.flaky,
      b!.flakyReasons,
      b!.retried,
      b!.passedOnRetry,
      b!.peakVramMib,
    ]).toEqual(['b', 1, 1, true, ['passed on retry'], 1, 1, null]);
    expect(b!.retriedTrials).toEqual([
      {
        trial: 0,
        path: 'runs/T/b/trial_0/result.json',
        verdict: 'pass',
        prior: [
          {
            attempt: 1,
            verdict: 'fail',
            exitCode: 1,
            failureDetectors: ['tier1:exit_nonzero'],
            errorDetectors: [],
            retryOn: ['tier1:exit_nonzero'],
            dir: 'attempt_1',
            firings: [],
          },
        ],
      },
    ]);
    expect([u!.cell, u!.trials, u!.fail, u!.flaky]).toEqual(['_unknown_', 1, 1, false]);
  });
});

describe('report formats', () => {
  it('text', async () => {
    const { report, records } = await load();
    expect(
      formatReport('text', report, records),
    ).toBe(`6 trials in 3 cells: pass 3, fail 2, error 1; 2 flaky cells; 1 earlier attempt of retried trials

cell _unknown_: 1 trial: pass 0, fail 1, error 0; not flaky
  walltime: median 0.250 s, p95 0.250 s, max 0.250 s (n=1)
  peak VRAM: not sampled
  detectors: none fired

cell a-none: 4 trials: pass 2, fail 1, error 1; flaky (mixed verdicts)
  walltime: median 2.500 s, p95 10.000 s, max 10.000 s (n=4)
  peak VRAM: median 200 MiB, p95 400 MiB, max 400 MiB (n=3)
  detectors (trials fired in):
    1  custom:slow_step (warn)
    1  tier1:exit_nonzero (failure)
    1  tier1:timeout (error)
    1  tier4:nan_signature (failure)
       e.g. runs/T/a-none/trial_2/output.log:2: step 5 loss=nan <&>

cell b: 1 trial: pass 1, fail 0, error 0; flaky (passed on retry)
  retried: 1 (1 passed on retry)
    trial 0: attempt 1: fail (tier1:exit_nonzero), retried on tier1:exit_nonzero; final: pass
  walltime: median 0.500 s, p95 0.500 s, max 0.500 s (n=1)
  peak VRAM: not sampled
  detectors: none fired

skipped 5 files:
  runs/T/a-none/trial_4/result.json: empty file
  runs/T/a-none/trial_5/result.json: ${report.problems[1]!.reason}
  runs/T/a-none/trial_6/result.json: not a JSON object (got an array)
  runs/T/a-none/trial_7/result.json: 'verdict' is "flaky", not pass, fail or error
  runs/T/a-none/trial_8/result.json: missing 'walltime_sec'
`);
  });

  it('json: the report object with a version, on one line, its keys in snake_case', async () => {
    const { report, records } = await load();
    const text = formatReport('json', report, records);
    expect(text.endsWith('}\n') && !text.slice(0, -1).includes('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      report_version: 2,
      // Written out, not mapped from `report.cells`: a mapping copied from format-json.ts would agree with it
      // whatever it got wrong.
      cells: [
        {
          cell: '_unknown_',
          trials: 1,
          pass: 0,
          fail: 1,
          error: 0,
          unfinished: 0,
          flaky: false,
          flaky_reasons: [],
          retried: 0,
          passed_on_retry: 0,
          retried_trials: [],
          detectors: [],
          condition_errors: [],
          walltime_sec: { n: 1, median: 0.25, p95: 0.25, max: 0.25 },
          peak_vram_mib: null,
        },
        {
          cell: 'a-none',
          trials: 4,
          pass: 2,
          fail: 1,
          error: 1,
          unfinished: 0,
          flaky: true,
          flaky_reasons: ['mixed verdicts'],
          retried: 0,
          passed_on_retry: 0,
          retried_trials: [],
          detectors: [
            { id: 'custom:slow_step', kind: 'warn', trials: 1, example: null },
            { id: 'tier1:exit_nonzero', kind: 'failure', trials: 1, example: null },
            { id: 'tier1:timeout', kind: 'error', trials: 1, example: null },
            {
              id: 'tier4:nan_signature',
              kind: 'failure',
              trials: 1,
              example: { file: 'runs/T/a-none/trial_2/output.log', line: 2, text: 'step 5 loss=nan <&>' },
            },
          ],
          condition_errors: [],
          walltime_sec: { n: 4, median: 2.5, p95: 10, max: 10 },
          peak_vram_mib: { n: 3, median: 200, p95: 400, max: 400 },
        },
        {
          cell: 'b',
          trials: 1,
          pass: 1,
          fail: 0,
          error: 0,
          unfinished: 0,
          flaky: true,
          flaky_reasons: ['passed on retry'],
          retried: 1,
          passed_on_retry: 1,
          retried_trials: [
            {
              trial: 0,
              path: 'runs/T/b/trial_0/result.json',
              verdict: 'pass',
              prior_attempts: [
                {
                  attempt: 1,
                  verdict: 'fail',
                  exit_code: 1,
                  failure_detectors_fired: ['tier1:exit_nonzero'],
                  error_detectors_fired: [],
                  retry_on: ['tier1:exit_nonzero'],
                  dir: 'attempt_1',
                },
              ],
            },
          ],
          detectors: [],
          condition_errors: [],
          walltime_sec: { n: 1, median: 0.5, p95: 0.5, max: 0.5 },
          peak_vram_mib: null,
        },
      ],
      totals: { trials: 6, pass: 3, fail: 2, error: 1, flaky_cells: 2, unfinished: 0 },
      problems: [
        { path: 'runs/T/a-none/trial_4/result.json', reason: 'empty file' },
        // JSON.parse's own message, which differs between node versions.
        { path: 'runs/T/a-none/trial_5/result.json', reason: report.problems[1]!.reason },
        { path: 'runs/T/a-none/trial_6/result.json', reason: 'not a JSON object (got an array)' },
        { path: 'runs/T/a-none/trial_7/result.json', reason: `'verdict' is "flaky", not pass, fail or error` },
        { path: 'runs/T/a-none/trial_8/result.json', reason: "missing 'walltime_sec'" },
      ],
      earlier_attempts: 1,
      matrix: null,
    });
  });

  it('markdown', async () => {
    const { report, records } = await load();
    expect(
      formatReport('markdown', report, records),
    ).toBe(`**6 trials** in 3 cells: pass 3, fail 2, error 1; 2 flaky cells

| cell | trials | pass | fail | error | flaky | walltime median / p95 / max (s) | peak VRAM median / p95 / max (MiB) |
|---|---:|---:|---:|---:|---|---|---|
| \`_unknown_\` | 1 | 0 | 1 | 0 | no | 0.250 / 0.250 / 0.250 | – |
| \`a-none\` | 4 | 2 | 1 | 1 | yes (mixed verdicts) | 2.500 / 10.000 / 10.000 | 200 / 400 / 400 |
| \`b\` | 1 | 1 | 0 | 0 | yes (passed on retry) | 0.500 / 0.500 / 0.500 | – |

### \`a-none\`: detectors

| trials | detector | kind | example |
|---:|---|---|---|
| 1 | \`custom:slow_step\` | warn |  |
| 1 | \`tier1:exit_nonzero\` | failure |  |
| 1 | \`tier1:timeout\` | error |  |
| 1 | \`tier4:nan_signature\` | failure | \`step 5 loss=nan <&>\` (\`runs/T/a-none/trial_2/output.log:2\`) |

### \`b\`: retried trials

- trial 0: \`attempt 1: fail (tier1:exit_nonzero), retried on tier1:exit_nonzero\`; final: pass

### Skipped files

- \`runs/T/a-none/trial_4/result.json\`: \`empty file\`
- \`runs/T/a-none/trial_5/result.json\`: \`${report.problems[1]!.reason}\`
- \`runs/T/a-none/trial_6/result.json\`: \`not a JSON object (got an array)\`
- \`runs/T/a-none/trial_7/result.json\`: \`'verdict' is "flaky", not pass, fail or error\`
- \`runs/T/a-none/trial_8/result.json\`: \`missing 'walltime_sec'\`
`);
  });

  it('junit: valid against the XSD, a testsuite per cell, failure and error elements per trial', async () => {
    const { report, records } = await load();
    const xml = formatReport('junit', report, records);
    // Ant's schema (fixtures/junit/junit.xsd) has no reruns: it checks everything else, Surefire's (the dialect
    // Jenkins and GitLab read) checks each suite with its flakyFailure / rerunFailure elements.
    const xsd = readFileSync(new URL('../fixtures/junit/junit.xsd', import.meta.url), 'utf8');
    const withoutReruns = xml.replace(/\n *<(flaky|rerun)(Failure|Error)\b[\s\S]*?<\/\1\2>/g, '');
    expect(withoutReruns).not.toBe(xml);
    const v = await validateXML({
      xml: [{ fileName: 'report.xml', contents: withoutReruns }],
      schema: [{ fileName: 'junit.xsd', contents: xsd }],
    });
    expect(v.errors).toEqual([]);
    expect(v.valid).toBe(true);
    const surefire = readFileSync(new URL('../fixtures/junit/surefire-test-report-3.0.xsd', import.meta.url), 'utf8');
    for (const suite of xml.match(/<testsuite [\s\S]*?<\/testsuite>/g) ?? []) {
      // Surefire's suite has no id or package (Ant's requires them).
      const alone = suite.replace(/ id="\d+" package="aorta-probe"/, '');
      const s = await validateXML({
        xml: [{ fileName: 'suite.xml', contents: `<?xml version="1.0" encoding="UTF-8"?>\n${alone}` }],
        schema: [{ fileName: 'surefire.xsd', contents: surefire }],
      });
      expect(s.errors).toEqual([]);
    }
    expect(xml).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="aorta-probe" tests="11" failures="2" errors="1" time="16.75">
  <testsuite name="_unknown_" tests="1" failures="1" errors="0" skipped="0" time="0.25" id="0" package="aorta-probe">
    <properties>
      <property name="flaky" value="no"/>
      <property name="retried" value="0"/>
      <property name="passed_on_retry" value="0"/>
    </properties>
    <testcase name="single/result.json" classname="_unknown_" time="0.25">
      <failure message="fail" type="fail">exit_code 1; single/result.json</failure>
    </testcase>
  </testsuite>
  <testsuite name="a-none" tests="4" failures="1" errors="1" skipped="0" time="16" id="1" package="aorta-probe">
    <properties>
      <property name="flaky" value="mixed verdicts"/>
      <property name="retried" value="0"/>
      <property name="passed_on_retry" value="0"/>
    </properties>
    <testcase name="trial_0" classname="a-none" time="1"/>
    <testcase name="trial_1" classname="a-none" time="2"/>
    <testcase name="trial_2" classname="a-none" time="3">
      <failure message="tier1:exit_nonzero, tier4:nan_signature" type="tier1:exit_nonzero">exit_code 1; runs/T/a-none/trial_2/result.json</failure>
    </testcase>
    <testcase name="trial_3" classname="a-none" time="10">
      <error message="tier1:timeout" type="tier1:timeout">exit_code -1; runs/T/a-none/trial_3/result.json</error>
    </testcase>
  </testsuite>
  <testsuite name="b" tests="1" failures="0" errors="0" skipped="0" time="0.5" id="2" package="aorta-probe">
    <properties>
      <property name="flaky" value="passed on retry"/>
      <property name="retried" value="1"/>
      <property name="passed_on_retry" value="1"/>
    </properties>
    <testcase name="trial_0" classname="b" time="0.5">
      <flakyFailure message="tier1:exit_nonzero" type="tier1:exit_nonzero">
        <stackTrace>attempt 1: fail (tier1:exit_nonzero), retried on tier1:exit_nonzero; exit_code 1; attempt_1</stackTrace>
      </flakyFailure>
    </testcase>
  </testsuite>
  <testsuite name="skipped files" tests="5" failures="0" errors="0" skipped="5" time="0" id="3" package="aorta-probe">
    <testcase name="runs/T/a-none/trial_4/result.json" classname="skipped files" time="0">
      <skipped message="empty file"/>
    </testcase>
    <testcase name="runs/T/a-none/trial_5/result.json" classname="skipped files" time="0">
      <skipped message="${report.problems[1]!.reason.replace(/"/g, '&quot;')}"/>
    </testcase>
    <testcase name="runs/T/a-none/trial_6/result.json" classname="skipped files" time="0">
      <skipped message="not a JSON object (got an array)"/>
    </testcase>
    <testcase name="runs/T/a-none/trial_7/result.json" classname="skipped files" time="0">
      <skipped message="'verdict' is &quot;flaky&quot;, not pass, fail or error"/>
    </testcase>
    <testcase name="runs/T/a-none/trial_8/result.json" classname="skipped files" time="0">
      <skipped message="missing 'walltime_sec'"/>
    </testcase>
  </testsuite>
</testsuites>
`);
  });

  it('the XSD check can fail: a testcase without its time is rejected', async () => {
    const xsd = readFileSync(new URL('../fixtures/junit/junit.xsd', import.meta.url), 'utf8');
    const bad =
      '<testsuites><testsuite name="x" tests="1" failures="0" errors="0" time="1"><testcase name="t" classname="x"/></testsuite></testsuites>';
    const v = await validateXML({
      xml: [{ fileName: 'bad.xml', contents: bad }],
      schema: [{ fileName: 'junit.xsd', contents: xsd }],
    });
    expect(v.valid).toBe(false);
    expect(v.errors.map((e) => e.message)).toEqual([
      expect.stringContaining("The attribute 'time' is required but missing") as unknown as string,
    ]);
  });

  it('html: one self-contained page with the verdict bars, the wall-time dots and the tables', async () => {
    const { report, records } = await load();
    const html = formatReport('html', report, records);
    expect(html.startsWith('<!DOCTYPE html>\n')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|\bsrc=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html.match(/<svg /g)).toHaveLength(2);
    // a-none: 2 pass of 4 = half the 480-px bar, then one quarter each for fail and error.
    expect(html).toContain(
      '<rect x="200" y="26" width="240" height="16" fill="#2e7d32"><title>pass: 2</title></rect><rect x="440" y="26" width="120" height="16" fill="#c62828"><title>fail: 1</title></rect><rect x="560" y="26" width="120" height="16" fill="#f9a825"><title>error: 1</title></rect>',
    );
    // The label after each bar (pass/fail/error, "flaky") is explained: in words on hover, as the text report
    // says it, and in a legend line under the bars.
    expect(html).toContain('<text x="688" y="18">0/1/0<title>pass 0, fail 1, error 0; not flaky</title></text>');
    expect(html).toContain(
      '<text x="688" y="40">2/1/1 flaky<title>pass 2, fail 1, error 1; flaky (mixed verdicts)</title></text>',
    );
    expect(html).toContain(
      '<text x="688" y="62">1/0/0 flaky<title>pass 1, fail 0, error 0; flaky (passed on retry)</title></text>',
    );
    expect(html).toContain(
      '<text x="200" y="104">label: pass/fail/error trials; flaky: mixed verdicts or passed on retry</text></svg>',
    );
    expect(html).toContain('The label after it counts them as pass/fail/error (<code>4/1/0</code>: 4 passed');
    // Wall times on one axis whose end is the slowest trial (10 s): trial_3 at x = 200 + 480.
    expect(html).toContain(
      '<circle cx="680" cy="34" r="4" fill="#f9a825" fill-opacity="0.7"><title>trial_3: 10.000 s, error</title></circle>',
    );
    expect(html).toContain(
      '<tr><td class="t">a-none</td><td>4</td><td>2</td><td>1</td><td>1</td><td class="t">mixed verdicts</td><td>2.500</td><td>10.000</td><td>10.000</td><td>200</td><td>400</td><td>400</td></tr>',
    );
    expect(html).toContain('<code>step 5 loss=nan &lt;&amp;&gt;</code>');
    expect(html).toContain('<li><code>runs/T/a-none/trial_6/result.json</code>: not a JSON object (got an array)</li>');
  });
});

describe('aorta-probe report (CLI)', () => {
  const cli = (args: string[]) => cliInProcess(args);

  it('writes the chosen format, lists skipped files on stderr, and exits 0', async () => {
    const r = await cli(['report', 'runs', 'single', '--format', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { totals: object }).totals).toEqual({
      trials: 6,
      pass: 3,
      fail: 2,
      error: 1,
      flaky_cells: 2,
      unfinished: 0,
    });
    expect(r.err.split('\n')[0]).toBe('aorta-probe report: skipped runs/T/a-none/trial_4/result.json: empty file');
  });

  it('exits 1 when nothing usable is found, 2 on a usage error', async () => {
    mkdirSync(join(root, 'empty'));
    expect(await cli(['report', 'empty'])).toEqual({
      code: 1,
      out: '0 trials in 0 cells: pass 0, fail 0, error 0; 0 flaky cells\n',
      err: 'aorta-probe report: no usable result.json under empty\n',
    });
    const u = await cli(['report', 'runs', '--format', 'xml']);
    expect(u.code).toBe(2);
    expect(u.err.split('\n')[0]).toBe(
      "aorta-probe: report: --format must be one of text, json, junit, markdown, html, got 'xml'",
    );
  });
});

describe('Tier 3 kernel events in the report (issue 35 §5)', () => {
  it('a kernel detector shows its kernel line, Xid number and name in text, Markdown and HTML; JSON keeps its schema', async () => {
    const line = 'NVRM: Xid (PCI:0000:3b:00): 79, pid=42, GPU has fallen off the bus. \x1b]0;pwned\x07';
    put(
      'xid/cell-a/trial_0/result.json',
      rec('fail', 1, null, {
        failure_detectors_fired: ['tier3:nvidia_fallen_off_bus'],
        tier3: {
          kernel_source: 'dmesg',
          kernel_lines_in_window: 1,
          events: [
            {
              detector: 'tier3:nvidia_fallen_off_bus',
              time: null,
              line,
              xid: 79,
              xid_name: 'GPU has fallen off the bus',
              pci: '0000:3b:00',
            },
            { detector: 'bogus' }, // malformed: left out
          ],
          disabled_reasons: [],
        },
      }),
    );
    const { records, problems } = await readResults([join(root, 'xid')]);
    expect(problems).toEqual([]);
    const report = await aggregateResults(records);
    const text = formatReport('text', report, records);
    expect(text).toContain(
      '    1  tier3:nvidia_fallen_off_bus (failure)\n' +
        '       e.g. kernel: tier3:nvidia_fallen_off_bus — Xid 79 (GPU has fallen off the bus) — NVRM: Xid (PCI:0000:3b:00): 79, pid=42, GPU has fallen off the bus. \\x1b]0;pwned\\x07\n',
    );
    expect(formatReport('markdown', report, records)).toContain(
      '| 1 | `tier3:nvidia_fallen_off_bus` | failure | `NVRM: Xid (PCI:0000:3b:00): 79, pid=42, GPU has fallen off the bus. \\x1b]0;pwned\\x07` (kernel, `Xid 79 (GPU has fallen off the bus)`) |\n',
    );
    const html = formatReport('html', report, records);
    expect(html).toContain('<small>kernel, Xid 79 (GPU has fallen off the bus)</small>');
    expect(html).toContain('<code>NVRM: Xid (PCI:0000:3b:00): 79, pid=42, GPU has fallen off the bus.');
    expect(html).not.toContain('\x1b');
    const json = JSON.parse(formatReport('json', report, records)) as { cells: { detectors: object[] }[] };
    expect(json.cells[0]!.detectors).toEqual([
      { id: 'tier3:nvidia_fallen_off_bus', kind: 'failure', trials: 1, example: null },
    ]);
  });
});
