/**
 * Issue 35 §2: a condition that raises at a match does not fire there (as the original), so one that raises at
 * every match never fires — and every output says so: the scan's and the classification's `condition_errors`,
 * `scan`'s text and JSON, `run`'s result.json (deferred conditions too), `check`'s self-tests. Counted up to the
 * match that fired; a two-thread scan merges its ranges' counts to the single scan's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyLog } from '../src/classifier/classify-log.js';
import { loadRecipe } from '../src/recipe/index.js';
import { conditionErrorsLine, scanLog } from '../src/scan/index.js';
import { mergeRanges } from '../src/scan/split.js';
import { runTrial } from '../src/trial/index.js';
import { scanRecipeLog } from '../playground/src/scan-log.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-condition-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const RECIPE = `custom_patterns:
  - id: slow_step
    match:
      regex: 'step_ms=(?P<step_ms>\\S+)'
      condition: "int(capture['step_ms']) > 1000"
    on_match: warn
`;
const LOG = `${['epoch 1', 'loss 0.9', 'loss 0.8', 'loss 0.7'].join('\n')}\n${Array.from({ length: 8 }, (_, i) => `step_ms=${1253 + i}.0`).join('\n')}\n`;
const VARS = { exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
const EXPECTED = {
  pattern: 'custom:slow_step',
  error: 'ValueError',
  raised: 8,
  evaluated: 8,
  line: 5,
  byte_offset: 35,
};

function write(name: string, text: string): string {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
}

describe('a condition that raises at every match', () => {
  it('the scan counts the raises per pattern, with the first raising line', () => {
    const r = scanLog(loadRecipe(RECIPE, 'r.yaml'), LOG, VARS);
    expect(r.detectors).toEqual([]);
    expect(r.condition_errors).toEqual([EXPECTED]);
    expect(conditionErrorsLine(r.condition_errors[0]!, 'train.log')).toBe(
      'custom:slow_step: condition raised ValueError on 8 of 8 matches, first at train.log:5',
    );
  });

  it('counts up to the match that fired, and none when nothing raised', () => {
    const recipe = loadRecipe(RECIPE.replace("int(capture['step_ms'])", "float(capture['step_ms'])"), 'r.yaml');
    expect(scanLog(recipe, LOG, VARS).condition_errors).toEqual([]);
    const mixed = loadRecipe(RECIPE, 'r.yaml');
    const r = classifyLog(mixed, 'step_ms=1.5\nstep_ms=x\nstep_ms=2000\nstep_ms=y\n', VARS);
    expect(r.condition_errors).toEqual([{ ...EXPECTED, raised: 2, evaluated: 3, line: 1, byte_offset: 0 }]);
    expect(r.warn_detectors_fired).toEqual(['custom:slow_step']);
  });

  it('scan: the text output says it, the JSON lists it', async () => {
    const log = write('train.log', LOG);
    const recipe = write('r.yaml', RECIPE);
    const text = await cliInProcess(['scan', '--recipe', recipe, log]);
    expect(text.code).toBe(0);
    expect(text.out).toBe(
      `custom:slow_step: condition raised ValueError on 8 of 8 matches, first at ${log}:5\n` +
        'verdict: pass\nfailure detectors: (none)\nwarn detectors: (none)\ncapture: {}\n',
    );
    const json = JSON.parse((await cliInProcess(['scan', '--recipe', recipe, '--format', 'json', log])).out) as {
      condition_errors: unknown[];
    };
    expect(json.condition_errors).toEqual([EXPECTED]);
  });

  it('the playground shows the same line', async () => {
    const out = await scanRecipeLog(loadRecipe(RECIPE, 'r.yaml'), LOG, VARS);
    expect(out.condition_errors).toEqual([
      {
        pattern: 'custom:slow_step',
        line: 5,
        text: 'custom:slow_step: condition raised ValueError on 8 of 8 matches, first at log:5',
      },
    ]);
  });

  it("run: result.json lists it, a deferred condition's too", async () => {
    const recipe = loadRecipe(
      `${RECIPE}  - id: oom_late\n    match:\n      regex: 'oom (?P<mib>\\S+)'\n      condition: "int(capture['mib']) > peak_vram_mib"\n`,
      'r.yaml',
    );
    const out = join(root, 'trial');
    const { result } = await runTrial(
      recipe,
      [process.execPath, '-e', `process.stdout.write(${JSON.stringify(`${LOG}oom 12.5\noom 13.5\n`)})`],
      { outDir: out, gpuTool: 'none' },
    );
    expect(result.verdict).toBe('pass');
    expect(result.condition_errors).toEqual([
      EXPECTED,
      { pattern: 'custom:oom_late', error: 'ValueError', raised: 2, evaluated: 2, line: 13, byte_offset: 155 },
    ]);
  });

  it("run: the summary says it under the trial's output", async () => {
    const recipe = write('run.yaml', RECIPE);
    const out = join(root, 'run-out');
    const r = await cliInProcess([
      'run',
      '--recipe',
      recipe,
      '--out',
      out,
      '--timeout',
      '60',
      '--',
      process.execPath,
      '-e',
      `process.stdout.write(${JSON.stringify(LOG)})`,
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `\ncustom:slow_step: condition raised ValueError on 8 of 8 matches, first at ${join(out, 'output.log')}:5\nverdict: pass\n`,
    );
  });

  it('report: a cell sums its trials; text, Markdown, HTML and JSON say it', async () => {
    const recipe = loadRecipe(RECIPE, 'r.yaml');
    const dir = join(root, 'sweep');
    for (const [n, log] of [LOG, 'step_ms=oops\nstep_ms=2000\n'].entries())
      await runTrial(recipe, [process.execPath, '-e', `process.stdout.write(${JSON.stringify(log)})`], {
        outDir: join(dir, 'cell-a', `trial_${n}`),
        gpuTool: 'none',
      });
    const line = 'custom:slow_step: condition raised ValueError on 9 of 10 matches in 2 trials';
    const text = await cliInProcess(['report', dir]);
    expect(text.out).toContain(`\n  ${line}\n`);
    expect((await cliInProcess(['report', '--format', 'markdown', dir])).out).toContain(`\n- \`${line}\`\n`);
    expect((await cliInProcess(['report', '--format', 'html', dir])).out).toContain(`<li><code>${line}</code></li>`);
    const json = JSON.parse((await cliInProcess(['report', '--json', dir])).out) as {
      cells: { condition_errors: unknown }[];
    };
    expect(json.cells[0]!.condition_errors).toEqual([
      { pattern: 'custom:slow_step', error: 'ValueError', trials: 2, raised: 9, evaluated: 10 },
    ]);
  });

  it('check: a self-test sample that passes although the condition raised says so', async () => {
    const recipe = write(
      'tested.yaml',
      `${RECIPE}tests:\n  - name: slow step\n    log: "step_ms=1253.0\\n"\n    expect: {verdict: pass}\n`,
    );
    const r = await cliInProcess(['check', recipe]);
    expect(r).toEqual({
      code: 0,
      out:
        // the lint sees it coming too (int-of-decimal), and the sample shows it happening
        `${recipe}:5:19: warning: int(capture['step_ms']) raises ValueError when group 'step_ms' matches a '.' (int('1253.0') does): use float(capture['step_ms']), or make the group match digits only (\\d+) [int-of-decimal]\n` +
        `        condition: "int(capture['step_ms']) > 1000"\n` +
        `                    ${'^'.repeat(23)}\n` +
        "  suggestion: float(capture['step_ms'])\n" +
        `${recipe}:8:5: self-test "slow step" passed, but a condition raised:\n` +
        '  raised: custom:slow_step: condition raised ValueError on 1 of 1 match, first at log:1\n' +
        `${recipe}: valid (1 custom pattern, 1 warning, 1 self-test passed)\n`,
      err: '',
    });
  });
});

describe('a two-thread scan merges its ranges to the single scan', () => {
  const firing = (line: number) => ({
    detectorId: 'custom:a',
    kind: 'fail' as const,
    offset: 0,
    line,
    byteOffset: 0,
    text: 'x',
    rank: 7,
    named: {},
    requiredForPass: false,
  });
  const raised = (n: number, of: number, line: number) => ({
    pattern: 'custom:a',
    error: 'KeyError',
    raised: n,
    evaluated: of,
    line,
    byte_offset: line * 10,
  });
  const range = (firings: ReturnType<typeof firing>[], errors: ReturnType<typeof raised>[]) => ({
    firings,
    conditionErrors: errors,
    engineFailed: false,
    end: { units: 100, newlines: 10, bytes: 100 },
    tierMs: { tier4: 0, tier5: 0 },
  });

  it('sums the counts up to the range where the pattern fired; the first raise is shifted to the file', () => {
    const merged = mergeRanges(
      [range([], [raised(2, 2, 3)]), range([firing(4)], [raised(1, 2, 1)]), range([], [raised(5, 5, 2)])],
      [],
    );
    expect(merged!.condition_errors).toEqual([{ ...raised(3, 4, 3), byte_offset: 30 }]);
    const later = mergeRanges([range([], []), range([], [raised(1, 1, 2)])], []);
    expect(later!.condition_errors).toEqual([{ ...raised(1, 1, 12), byte_offset: 120 }]);
  });
});
