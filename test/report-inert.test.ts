/**
 * `report` output that reaches a terminal, a pull request or a CI runner is inert (issue 33 §5): controls from a
 * record or a log are escaped in every text format while JSON keeps them exact, Markdown renders no image, link,
 * mention or HTML of a record's, and the JUnit XML is valid whatever numbers a record holds.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregateResults,
  formatReport,
  readResults,
  type SweepReport,
  type TrialRecord,
} from '../src/report/index.js';
import { junitSeconds } from '../src/report/junit.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-report-inert-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cwd = process.cwd();
beforeAll(() => process.chdir(root));
afterAll(() => process.chdir(cwd));

function put(path: string, content: string | object): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

function rec(extra: object = {}): object {
  return {
    verdict: 'fail',
    exit_code: 1,
    walltime_sec: 2,
    peak_vram_mib: null,
    failure_detectors_fired: [],
    error_detectors_fired: [],
    warn_detectors_fired: [],
    log: { file: 'output.log', bytes: 0 },
    ...extra,
  };
}

const TITLE_CELL = 'node\u001b]0;owned\u0007-7';

async function load(dir: string): Promise<{ report: SweepReport; records: TrialRecord[] }> {
  const { records, problems, earlierAttempts, unfinished } = await readResults([dir]);
  return { report: await aggregateResults(records, { problems, earlierAttempts, unfinished }), records };
}

/** libxml2's complaints against both schemas the JUnit writers are held to: the Ant one and Jenkins' junit-10. */
async function junitErrors(xml: string): Promise<string[]> {
  const errors: string[] = [];
  for (const xsdPath of ['fixtures/junit/junit.xsd', 'fixtures/schemas/junit-10.xsd']) {
    const v = await validateXML({
      xml: [{ fileName: 'report.xml', contents: xml }],
      schema: [{ fileName: 'schema.xsd', contents: readFileSync(join(cwd, xsdPath), 'utf8') }],
    });
    for (const e of v.errors) errors.push(`${xsdPath}: ${e.message}`);
  }
  return errors;
}

beforeAll(() => {
  put(
    'ctl/T/x/trial_0/result.json',
    rec({ cell_name: TITLE_CELL, failure_detectors_fired: ['tier4:nan_signature', 'custom:\u009b31m'] }),
  );
  put('ctl/T/x/trial_0/output.log', 'ok\nloss=nan \u001b[2K\rverdict: pass\u2028x\n');
  put('ctl/T/c\u001b[31m/trial_0/result.json', '');
});

describe('controls from records and logs', () => {
  it('text: escaped in cell names, detector ids, example lines and skipped paths; json: exact', async () => {
    const { report, records } = await load('ctl');
    expect(formatReport('text', report, records)).toBe(`1 trial in 1 cell: pass 0, fail 1, error 0; 0 flaky cells

cell node\\x1b]0;owned\\x07-7: 1 trial: pass 0, fail 1, error 0; not flaky
  walltime: median 2.000 s, p95 2.000 s, max 2.000 s (n=1)
  peak VRAM: not sampled
  detectors (trials fired in):
    1  custom:\\x9b31m (failure)
    1  tier4:nan_signature (failure)
       e.g. ctl/T/x/trial_0/output.log:2: loss=nan \\x1b[2K\\x0dverdict: pass\\u2028x

skipped 1 file:
  ctl/T/c\\x1b[31m/trial_0/result.json: empty file
`);
    const doc = JSON.parse(formatReport('json', report, records)) as {
      cells: { cell: string; detectors: { id: string; example: { text: string } | null }[] }[];
      problems: { path: string }[];
    };
    expect(doc.cells[0]!.cell).toBe(TITLE_CELL);
    expect(doc.cells[0]!.detectors.map((d) => [d.id, d.example?.text ?? null])).toEqual([
      ['custom:\u009b31m', null],
      ['tier4:nan_signature', 'loss=nan \u001b[2K\rverdict: pass\u2028x'],
    ]);
    expect(doc.problems[0]!.path).toBe('ctl/T/c\u001b[31m/trial_0/result.json');
  });

  it('html: escaped the same way', async () => {
    const { report, records } = await load('ctl');
    const html = formatReport('html', report, records);
    expect(html).toContain('<td class="t">node\\x1b]0;owned\\x07-7</td>');
    expect(html).toContain('<code>loss=nan \\x1b[2K\\x0dverdict: pass\\u2028x</code>');
    expect(html).toContain('<li><code>ctl/T/c\\x1b[31m/trial_0/result.json</code>: empty file</li>');
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
  });

  it('the CLI: stderr lines about skipped files are escaped too', async () => {
    const r = await cliInProcess(['report', 'ctl', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('aorta-probe report: skipped ctl/T/c\\x1b[31m/trial_0/result.json: empty file\n');
  });
});

describe('markdown: nothing of a record renders as markup', () => {
  const CELL = 'img ![p](https://e.example/t.png) @octo <b>x</b> C:\\tmp |pipe| `tick`';
  beforeAll(() => {
    put('md/T/a/trial_0/result.json', rec({ cell_name: CELL, failure_detectors_fired: ['tier1:exit``nonzero'] }));
    put('md/T/b/trial_1/result.json', rec({ verdict: '<img src=x onerror=alert(1)> @admin [l](http://x)' }));
  });

  it('code spans with a long enough fence, backslashes as they are, pipes escaped in tables', async () => {
    const { report, records } = await load('md');
    expect(formatReport('markdown', report, records)).toBe(
      `**1 trials** in 1 cells: pass 0, fail 1, error 0; 0 flaky cells

| cell | trials | pass | fail | error | flaky | walltime median / p95 / max (s) | peak VRAM median / p95 / max (MiB) |
|---|---:|---:|---:|---:|---|---|---|
| \`\` img ![p](https://e.example/t.png) @octo <b>x</b> C:\\tmp \\|pipe\\| \`tick\` \`\` | 1 | 0 | 1 | 0 | no | 2.000 / 2.000 / 2.000 | – |

### \`\` img ![p](https://e.example/t.png) @octo <b>x</b> C:\\tmp |pipe| \`tick\` \`\`: detectors

| trials | detector | kind | example |
|---:|---|---|---|
| 1 | \`\`\`tier1:exit\`\`nonzero\`\`\` | failure |  |

### Skipped files

- \`md/T/b/trial_1/result.json\`: \`'verdict' is "<img src=x onerror=alert(1)> @admin [l](http://x)", not pass, fail or error\`
`,
    );
  });
});

describe('junit: valid XML whatever the record holds', () => {
  beforeAll(() => {
    put('big/T/huge/trial_0/result.json', rec({ walltime_sec: 1e308 }));
    put('big/T/huge/trial_1/result.json', rec({ walltime_sec: 1e308, verdict: 'pass', exit_code: 0 }));
    put('big/T/tiny/trial_0/result.json', rec({ walltime_sec: 1e-9, verdict: 'pass', exit_code: 0 }));
    put('big/T/blank/trial_2/result.json', rec({ cell_name: ' \t ', verdict: 'pass', exit_code: 0 }));
    put('big/T/ctl/trial_0/result.json', rec({ cell_name: TITLE_CELL, failure_detectors_fired: ['custom:\u009bx'] }));
  });

  it('seconds are clamped to 1e12 and never an exponent', () => {
    expect([1e308, Infinity, 1e21, 123456.7894, 1e-9, 0.0005, -1, Number.NaN].map(junitSeconds)).toEqual([
      '1000000000000',
      '1000000000000',
      '1000000000000',
      '123456.789',
      '0',
      '0.001',
      '0',
      '0',
    ]);
  });

  it('huge times, a blank cell name and controls: valid against the XSD, controls escaped', async () => {
    const { report, records } = await load('big');
    const xml = formatReport('junit', report, records);
    expect(await junitErrors(xml)).toEqual([]);
    expect(xml).toContain('<testsuites name="aorta-probe" tests="5" failures="2" errors="0" time="1000000000000">');
    expect(xml).toContain('<testcase name="trial_0" classname="huge" time="1000000000000">');
    expect(xml).toContain('<testsuite name="&quot; \\t &quot;" tests="1"');
    expect(xml).toContain('<testsuite name="node\\x1b]0;owned\\x07-7" tests="1"');
    expect(xml).toContain('<failure message="custom:\\x9bx" type="custom:\\x9bx">');
    expect(xml).not.toMatch(/[\u007f-\u009f]/);
  });

  it('skipped files and unfinished trials are <skipped/> test cases', async () => {
    put('skip/T/c/trial_0/result.json', rec({ verdict: 'pass', exit_code: 0 }));
    put('skip/T/c/trial_1/result.json', '{');
    mkdirSync(join(root, 'skip/T/c/trial_2'));
    const { report, records } = await load('skip');
    const xml = formatReport('junit', report, records);
    expect(await junitErrors(xml)).toEqual([]);
    expect(xml).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="aorta-probe" tests="3" failures="0" errors="0" time="2">
  <testsuite name="c" tests="2" failures="0" errors="0" skipped="1" time="2" id="0" package="aorta-probe">
    <properties>
      <property name="flaky" value="no"/>
      <property name="retried" value="0"/>
      <property name="passed_on_retry" value="0"/>
    </properties>
    <testcase name="trial_0" classname="c" time="2"/>
    <testcase name="trial_2" classname="c" time="0">
      <skipped message="unfinished: no result.json"/>
    </testcase>
  </testsuite>
  <testsuite name="skipped files" tests="1" failures="0" errors="0" skipped="1" time="0" id="1" package="aorta-probe">
    <testcase name="skip/T/c/trial_1/result.json" classname="skipped files" time="0">
      <skipped message="${report.problems[0]!.reason.replace(/"/g, '&quot;')}"/>
    </testcase>
  </testsuite>
</testsuites>
`);
  });
});
