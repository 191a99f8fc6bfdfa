// Issue 12 §1: a pattern whose match aborts the regex engine even alone (`RegexMatchAbortError`) ends the scan
// with verdict `error` and a `meta:regex_engine_failure` detector naming the pattern at its recipe position; the
// other patterns' results are kept, `run` writes a complete result.json and exits 3.
//
// The abort is injected: a real one needs a subject over re2-wasm's ~5.45 MiB single-call maximum, and the scanner
// never passes more than one window (≤ 1 MiB) per call (test/regex-abort.test.ts shows the real abort on a direct
// call). The injection replaces `matchAll` for patterns containing `BOOM` only, from the first window holding
// `<abort>` on, exactly where a real abort surfaces (inside the match iterator).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cliInProcess } from './support/run-cli.js';
import { isValid } from './support/json-schemas.js';

vi.mock('../src/regex/index.js', async (importOriginal) =>
  (await import('./support/engine-abort.js')).withInjectedAbort(await importOriginal()),
);

const { iterWindows, scanLog, ScanSession } = await import('../src/scan/index.js');
const { loadRecipe } = await import('../src/recipe/index.js');
const { classifyLog, classifyLogScan, planLogScan } = await import('../src/classifier/classify-log.js');

const root = mkdtempSync(join(tmpdir(), 'aorta-engine-failure-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const RECIPE = `custom_patterns:
  - id: loss
    match:
      regex: 'loss=(?P<loss>\\d+)'
    on_match: warn
  - id: boom
    match:
      regex: 'BOOM (?P<b>\\w+)'
    on_match: fail
    required_for_pass: true
  - id: done
    match:
      regex: 'done'
    on_match: info
`;
const recipePath = join(root, 'r.yaml');
writeFileSync(recipePath, RECIPE);
const recipe = loadRecipe(RECIPE, recipePath);
const schemaValid = isValid;

const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

const cli = (args: string[]) => cliInProcess(args);

/** What the user reads: the pattern's recipe position and regex, the window size, the engine's reason. */
const message = (bytes: number, line: number): string =>
  `${recipePath}:6:5: custom pattern "boom" (regex 'BOOM (?P<b>\\\\w+)'): re2-wasm ran out of its fixed 16 MiB heap ` +
  `matching it on a ${bytes}-byte window (match: abort(OOM) (injected)), even alone in a fresh engine; ` +
  `the log from line ${line} on was not scanned for it`;

describe('an engine failure while matching ends in verdict error', () => {
  it('scanLog names the failing pattern at its recipe position, the others kept; classifyLog: error verdict', () => {
    const log = 'loss=3\n<abort> BOOM x\ndone\n';
    const r = scanLog({ ...recipe, fileName: recipePath }, log, VARS);
    expect(r.missing_required).toEqual([]); // the failed pattern is undecided: no missing_pass_signal
    const c = classifyLog({ ...recipe, fileName: recipePath }, log, VARS);
    expect(c.verdict).toBe('error');
    expect(c.failure_detectors_fired).toEqual([]);
    expect(c.error_detectors_fired).toEqual(['meta:regex_engine_failure']);
    expect(c.warn_detectors_fired).toEqual(['custom:loss']);
    expect(c.engine_failures).toEqual(r.engine_failures);
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([
      ['custom:loss', 'warn'],
      ['custom:done', 'info'],
    ]);
    expect(r.capture).toEqual({ loss: '3' });
    expect(r.engine_failures).toEqual([
      {
        id: 'meta:regex_engine_failure',
        pattern: 'custom:boom',
        line: 1,
        byte_offset: 0,
        message: message(27, 1),
      },
    ]);
  });

  it('a failure fired elsewhere still wins (three-way rule); a match found before the abort still fires', () => {
    const failingLog = 'Traceback (most recent call last):\n<abort> BOOM z\n';
    const failingScan = scanLog(recipe, failingLog, VARS);
    expect(failingScan.missing_required).toEqual([]); // no missing_pass_signal
    expect(failingScan.engine_failures.map((f) => f.pattern)).toEqual(['custom:boom']);
    const failing = classifyLog(recipe, failingLog, VARS);
    expect(failing.verdict).toBe('fail');
    expect(failing.failure_detectors_fired).toEqual(['tier4:python_traceback']);
    expect(failing.error_detectors_fired).toEqual(['meta:regex_engine_failure']);
    // Window of 100 bytes: BOOM fires in the first window, the abort would come in a later one.
    // BOOM is required_for_pass: found before the abort, its firing is the pass signal.
    const earlyLog = `BOOM first\n${'x'.repeat(200)}\n<abort>\n`;
    const early = scanLog(recipe, earlyLog, VARS, { windowBytes: 100 });
    expect(classifyLog(recipe, earlyLog, VARS, { windowBytes: 100 }).verdict).toBe('pass');
    expect(early.engine_failures).toEqual([]);
    expect(early.missing_required).toEqual([]);
    expect(early.detectors.map((d) => [d.id, d.line])).toEqual([['custom:boom', 1]]);
    expect(early.detectors.map((d) => d.kind)).toEqual(['required']);
  });

  it('the session keeps matching the other patterns in later windows, and reports the failure to its observer', () => {
    const seen: string[] = [];
    const s = new ScanSession(recipe, VARS, { observer: { engineFailed: (f) => seen.push(`${f.pattern}@${f.line}`) } });
    const log = `${'a\n'.repeat(60)}<abort> BOOM z\n${'b\n'.repeat(60)}loss=9\ndone\n`;
    for (const w of iterWindows(log, { windowBytes: 100 })) s.feed(w);
    const r = s.result();
    s.dispose();
    expect(seen).toEqual(['custom:boom@26']); // the failed window's first owned line (the abort text is on line 61)
    expect(r.detectors.map((d) => [d.id, d.line])).toEqual([
      ['custom:loss', 122],
      ['custom:done', 123],
    ]);
    expect(r.engine_failures.map((f) => [f.pattern, f.line])).toEqual([['custom:boom', 26]]);
    expect(classifyLogScan(planLogScan(recipe), r, VARS).verdict).toBe('error');
  });

  it('scan: exit 3, the failure in the text and in --json (valid against the schema)', async () => {
    const log = join(root, 'a.log');
    writeFileSync(log, 'loss=3\nok <abort> BOOM x\n');
    const text = await cli(['scan', '--recipe', recipePath, log]);
    expect(text.code).toBe(3);
    expect(text.err).toBe('');
    expect(text.out).toBe(
      `${log}:1: custom:loss (warn) — loss=3  {'loss': '3'}\n` +
        `${log}:1: meta:regex_engine_failure — ${message(25, 1)}\n` +
        'verdict: error\nfailure detectors: (none)\nerror detectors: meta:regex_engine_failure\n' +
        "warn detectors: custom:loss\ncapture: {'loss': '3'}\n",
    );
    const json = await cli(['scan', '--recipe', recipePath, '--json', log]);
    expect(json.code).toBe(3);
    const doc = JSON.parse(json.out);
    expect(doc.verdict).toBe('error');
    expect(doc.error_detectors_fired).toEqual(['meta:regex_engine_failure']);
    expect(doc.engine_failures).toEqual([
      { id: 'meta:regex_engine_failure', pattern: 'custom:boom', line: 1, byte_offset: 0, message: message(25, 1) },
    ]);
    expect(schemaValid('scan', doc)).toBe(true);
  });

  it('run: exit 3 and a complete result.json with the error detector and its category', async () => {
    const dir = join(root, 'run');
    const r = await cli([
      'run',
      '--recipe',
      recipePath,
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'node',
      '-e',
      "console.log('loss=5'); console.log('x <abort> BOOM y'); console.log('done')",
    ]);
    expect(r.code).toBe(3);
    const res = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
    expect(res.verdict).toBe('error');
    expect(res.failure_detectors_fired).toEqual([]);
    expect(res.error_detectors_fired).toEqual(['meta:regex_engine_failure']);
    expect(res.warn_detectors_fired).toEqual(['custom:loss']);
    expect(res.detector_categories['meta:regex_engine_failure']).toEqual({
      kind: 'error',
      who: 'unknown',
      transient: false,
      category: null,
    });
    expect(res.engine_failures.map((f: { pattern: string; line: number }) => [f.pattern, f.line])).toEqual([
      ['custom:boom', 1],
    ]);
    expect(res.engine_failures[0].message).toBe(message(29, 1));
    expect(res.exit_status).toEqual({ status: 3, reason: 'default' });
    expect(schemaValid('result', res)).toBe(true);
  });
});
