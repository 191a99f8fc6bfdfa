/**
 * `report` does not trust a result.json (issue 33 §3, §4): a record's log is read only inside the record's own
 * directory, its recipe only when the bytes hash to the recorded sha256, FIFOs and devices are never opened,
 * a sweep's own summary counts only records with its run id and at trial depths, and trial directories without a
 * result.json are counted as unfinished. Each case is a variant of the repro (other names, other sizes).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateResults, formatReport, readResults, type ReadResults } from '../src/report/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-report-trust-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cwd = process.cwd();
beforeAll(() => process.chdir(root)); // paths in the reports are shown relative to the current directory
afterAll(() => process.chdir(cwd));

const MAIN = join(cwd, 'dist', 'src', 'cli', 'main.cjs');

function put(path: string, content: string | object): string {
  const p = join(root, path);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return p;
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function rec(extra: object = {}): object {
  return {
    verdict: 'fail',
    exit_code: 0,
    walltime_sec: 1.5,
    peak_vram_mib: null,
    failure_detectors_fired: ['custom:leak'],
    error_detectors_fired: [],
    warn_detectors_fired: [],
    log: { file: 'output.log', bytes: 0 },
    ...extra,
  };
}

const RECIPE = 'custom_patterns:\n  - id: leak\n    match:\n      regex: "session_cookie"\n';

async function exampleOf(dir: string, id = 'custom:leak'): Promise<unknown> {
  const { records, problems } = await readResults([dir]);
  const report = await aggregateResults(records, { problems });
  const d = report.cells[0]?.detectors.find((x) => x.id === id);
  return d === undefined ? 'no such detector' : d.example;
}

/** The built CLI in a child with a deadline, so a `report` that would block on a FIFO fails instead of hanging. */
function cliChild(args: string[]): { code: number | null; out: string; err: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: root, encoding: 'utf8', timeout: 15_000 });
  return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - t0 };
}

describe('a record cannot make report read a file outside its directory', () => {
  beforeAll(() => {
    put('vault/keys.txt', 'user=ops\nsession_cookie=4f7a9c\n');
    put('recipes/leak.yaml', RECIPE);
  });
  const recipe = () => ({ file: join(root, 'recipes/leak.yaml'), sha256: sha(RECIPE) });

  it('log.file with ../ components (or absolute): no example; its own log still gives one', async () => {
    put('dots/T2/gpu-b/trial_1/result.json', rec({ recipe: recipe(), log: { file: '../../../../vault/keys.txt' } }));
    expect(await exampleOf('dots')).toBeNull();
    // A `..` that would come back inside is refused too: the rule is on the components, not the result.
    put('dots2/T/c/trial_0/sub/x.log', 'session_cookie=inside\n');
    put('dots2/T/c/trial_0/result.json', rec({ recipe: recipe(), log: { file: 'sub/../sub/x.log' } }));
    expect(await exampleOf('dots2')).toBeNull();
    put('abs/T2/gpu-c/trial_0/result.json', rec({ recipe: recipe(), log: { file: join(root, 'vault/keys.txt') } }));
    expect(await exampleOf('abs')).toBeNull();
    // The control: the same recipe, the record's own log.
    put('own/T2/gpu-a/trial_3/output.log', 'start\nsession_cookie=own-log\n');
    put('own/T2/gpu-a/trial_3/result.json', rec({ recipe: recipe() }));
    expect(await exampleOf('own')).toEqual({
      file: 'own/T2/gpu-a/trial_3/output.log',
      line: 2,
      text: 'session_cookie=own-log',
    });
  });

  it('a symbolic link as the log or as a directory on its way: no example', async () => {
    put('link1/T/gpu-d/trial_2/result.json', rec({ recipe: recipe() }));
    symlinkSync(join(root, 'vault/keys.txt'), join(root, 'link1/T/gpu-d/trial_2/output.log'));
    expect(await exampleOf('link1')).toBeNull();
    put('link2/T/gpu-e/trial_0/result.json', rec({ recipe: recipe(), log: { file: 'logs/keys.txt' } }));
    symlinkSync(join(root, 'vault'), join(root, 'link2/T/gpu-e/trial_0/logs'));
    expect(await exampleOf('link2')).toBeNull();
  });
});

describe('the recipe is read only when its bytes hash to the recorded sha256', () => {
  it('a recipe.file whose bytes differ from the recorded sha256: no custom example', async () => {
    const other = 'custom_patterns:\n  - id: leak\n    match:\n      regex: "."\n';
    const file = put('recipes/other.yaml', other);
    put('badsha/T/m/trial_0/output.log', 'line one\n');
    put('badsha/T/m/trial_0/result.json', rec({ recipe: { file, sha256: sha(RECIPE) } }));
    expect(await exampleOf('badsha')).toBeNull();
    // No sha256 recorded at all: not read either.
    put('nosha/T/m/trial_0/output.log', 'line one\n');
    put('nosha/T/m/trial_0/result.json', rec({ recipe: { file } }));
    expect(await exampleOf('nosha')).toBeNull();
    // /dev/null and a directory as recipe.file: no example, and no error.
    put('devnull/T/c/trial_0/output.log', 'session_cookie=x\n');
    put('devnull/T/c/trial_0/result.json', rec({ recipe: { file: '/dev/null', sha256: sha('') } }));
    expect(await exampleOf('devnull')).toBeNull();
    put('dirrecipe/T/c/trial_0/output.log', 'session_cookie=x\n');
    put('dirrecipe/T/c/trial_0/result.json', rec({ recipe: { file: join(root, 'recipes'), sha256: sha('') } }));
    expect(await exampleOf('dirrecipe')).toBeNull();
  });

  it("falls back to the sweep's copy, <run dir>/recipe.yaml, under the same check", async () => {
    put('copy/TICKET-9/recipe.yaml', RECIPE);
    put('copy/TICKET-9/mi300-x/trial_4/output.log', 'a\nb\nsession_cookie=from-copy\n');
    put(
      'copy/TICKET-9/mi300-x/trial_4/result.json',
      rec({ recipe: { file: 'gone/recipe.yaml', sha256: sha(RECIPE) } }),
    );
    expect(await exampleOf('copy')).toEqual({
      file: 'copy/TICKET-9/mi300-x/trial_4/output.log',
      line: 3,
      text: 'session_cookie=from-copy',
    });
    // A copy with other bytes is not used.
    put('copy2/T/c/recipe.yaml', `${RECIPE}# changed\n`);
    put('copy2/T/c/trial_0/output.log', 'session_cookie=x\n');
    put('copy2/T/c/trial_0/result.json', rec({ recipe: { file: 'gone/recipe.yaml', sha256: sha(RECIPE) } }));
    expect(await exampleOf('copy2')).toBeNull();
  });
});

describe('FIFOs and devices never block report nor grow its memory (the built CLI, with a deadline)', () => {
  it('a FIFO as the log, as recipe.file and as a result.json given by name; /dev/zero as recipe.file', () => {
    put('fifo/T/gfx942/trial_1/result.json', rec({ recipe: { file: join(root, 'fifo/pipe.yaml'), sha256: sha('') } }));
    spawnSync('mkfifo', [join(root, 'fifo/T/gfx942/trial_1/output.log'), join(root, 'fifo/pipe.yaml')]);
    put('zero/T/gfx90a/trial_0/output.log', 'session_cookie=z\n');
    put('zero/T/gfx90a/trial_0/result.json', rec({ recipe: { file: '/dev/zero', sha256: sha('') } }));
    mkdirSync(join(root, 'fifo-rec'));
    spawnSync('mkfifo', [join(root, 'fifo-rec/result.json')]);
    const r = cliChild(['report', '--format', 'json', 'fifo', 'zero', 'fifo-rec/result.json']);
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    const doc = JSON.parse(r.out) as {
      cells: { cell: string; detectors: { example: unknown }[] }[];
      problems: unknown[];
    };
    expect(doc.cells.map((c) => [c.cell, c.detectors[0]!.example])).toEqual([
      ['gfx90a', null],
      ['gfx942', null],
    ]);
    expect(doc.problems).toEqual([
      { path: 'fifo-rec/result.json', reason: 'not a regular file or directory (a FIFO)' },
    ]);
  });
});

describe('readResults(paths, { runId }): a sweep counts only the records it wrote', () => {
  const sweepRec = (runId: unknown, extra: object = {}) =>
    rec({ run_id: runId, failure_detectors_fired: [], log: { file: 'output.log' }, ...extra });
  let read: ReadResults;
  beforeAll(async () => {
    put('sw/OPS-7/cell-1/trial_0/result.json', sweepRec('run-42'));
    put('sw/OPS-7/cell-1/trial_1/attempt_1/result.json', sweepRec('run-42', { final: false }));
    put('sw/OPS-7/cell-1/trial_1/result.json', sweepRec('run-42', { final: true }));
    put('sw/OPS-7/cell-1/trial_2/result.json', sweepRec('run-41'));
    put('sw/OPS-7/cell-1/trial_3/result.json', sweepRec(undefined));
    put('sw/OPS-7/cell-2/trial_0/result.json', sweepRec('run-42\u001b]0;x\u0007'));
    put('sw/OPS-7/cell-2/trial_9/result.json', sweepRec(42));
    // The right run id at the wrong depth: forged.
    put('sw/OPS-7/cell-2/trial_1/extra/result.json', sweepRec('run-42'));
    put('sw/OPS-7/cell-2/result.json', sweepRec('run-42'));
    put('sw/OPS-7/result.json', sweepRec('run-42'));
    put('sw/OPS-7/cell-2/not-a-trial/result.json', sweepRec('run-42'));
    read = await readResults([join(root, 'sw/OPS-7')], { runId: 'run-42' });
  });

  it('keeps the records with that run_id at <cell>/trial_<n>[/attempt_<k>]/result.json', async () => {
    expect(read.records.map((r) => [r.cell, r.trial])).toEqual([
      ['cell-1', 0],
      ['cell-1', 1],
    ]);
    expect(read.earlierAttempts).toBe(1);
    // Without runId every record counts, as before.
    const all = await readResults([join(root, 'sw/OPS-7')]);
    expect([all.records.length, all.earlierAttempts, all.problems]).toEqual([10, 1, []]);
  });

  it('reports every other file with why', () => {
    const p = (s: string) => join(root, 'sw/OPS-7', s);
    expect(read.problems).toEqual([
      { path: p('cell-1/trial_2/result.json'), reason: 'not written by this sweep (run_id "run-41")' },
      { path: p('cell-1/trial_3/result.json'), reason: 'not written by this sweep (no run_id)' },
      { path: p('cell-2/not-a-trial/result.json'), reason: 'not a trial record of this sweep' },
      { path: p('cell-2/result.json'), reason: 'not a trial record of this sweep' },
      {
        path: p('cell-2/trial_0/result.json'),
        reason: 'not written by this sweep (run_id "run-42\\u001b]0;x\\u0007")',
      },
      { path: p('cell-2/trial_1/extra/result.json'), reason: 'not a trial record of this sweep' },
      { path: p('cell-2/trial_9/result.json'), reason: 'not written by this sweep (run_id 42)' },
      { path: p('result.json'), reason: 'not a trial record of this sweep' },
    ]);
  });
});

describe('numbers a record may not hold', () => {
  it('a negative or fractional trial_index and a negative peak_vram_mib are skipped with a reason', async () => {
    put('nums/T/c/trial_0/result.json', rec({ trial_index: -3 }));
    put('nums/T/c/trial_1/result.json', rec({ trial_index: 1.5 }));
    put('nums/T/c/trial_2/result.json', rec({ peak_vram_mib: -0.5 }));
    put('nums/T/c/trial_3/result.json', rec({ trial_index: 3, peak_vram_mib: 0 }));
    const { records, problems } = await readResults(['nums']);
    expect(records.map((r) => [r.trial, r.peakVramMib])).toEqual([[3, 0]]);
    expect(problems).toEqual([
      { path: 'nums/T/c/trial_0/result.json', reason: "'trial_index' is not a non-negative integer" },
      { path: 'nums/T/c/trial_1/result.json', reason: "'trial_index' is not a non-negative integer" },
      { path: 'nums/T/c/trial_2/result.json', reason: "'peak_vram_mib' is neither a non-negative number nor null" },
    ]);
  });
});

describe('unfinished trials: trial_<n> directories without a result.json', () => {
  beforeAll(() => {
    put('unf/Q-3/fp8-on/trial_0/result.json', rec({ verdict: 'pass', failure_detectors_fired: [] }));
    mkdirSync(join(root, 'unf/Q-3/fp8-on/trial_1'), { recursive: true });
    put('unf/Q-3/fp8-on/trial_2/output.log', 'half a log\n');
    // A retry in progress: the earlier attempt is set aside, the final record not yet written.
    put('unf/Q-3/fp8-on/trial_3/attempt_1/result.json', rec({ final: false }));
    // A cell whose records name it: its unfinished trials count there, not under the directory's name.
    put('unf/Q-3/d2/trial_0/result.json', rec({ verdict: 'pass', cell_name: 'fp8 off', failure_detectors_fired: [] }));
    mkdirSync(join(root, 'unf/Q-3/d2/trial_7'), { recursive: true });
    // A cell none of whose trials finished.
    mkdirSync(join(root, 'unf/Q-3/bf16/trial_0'), { recursive: true });
  });

  it('counted per cell and in total, in the report object and in json', async () => {
    const { records, problems, earlierAttempts, unfinished } = await readResults(['unf']);
    const report = await aggregateResults(records, { problems, earlierAttempts, unfinished });
    expect(report.cells.map((c) => [c.cell, c.trials, c.unfinished])).toEqual([
      ['bf16', 0, 1],
      ['fp8 off', 1, 1],
      ['fp8-on', 1, 3],
    ]);
    expect(report.totals.unfinished).toBe(5);
    const doc = JSON.parse(formatReport('json', report, records)) as {
      cells: { cell: string; unfinished: number }[];
      totals: { unfinished: number };
    };
    expect(doc.cells.map((c) => [c.cell, c.unfinished])).toEqual([
      ['bf16', 1],
      ['fp8 off', 1],
      ['fp8-on', 3],
    ]);
    expect(doc.totals.unfinished).toBe(5);
  });

  it('shown in text, markdown and html', async () => {
    const { records, problems, earlierAttempts, unfinished } = await readResults(['unf/Q-3/fp8-on']);
    const report = await aggregateResults(records, { problems, earlierAttempts, unfinished });
    expect(formatReport('text', report, records)).toBe(
      `1 trial in 1 cell: pass 1, fail 0, error 0; 0 flaky cells; 1 earlier attempt of retried trials; 3 unfinished trials

cell fp8-on: 1 trial: pass 1, fail 0, error 0; not flaky
  unfinished: 3 (trial directories without result.json)
  walltime: median 1.500 s, p95 1.500 s, max 1.500 s (n=1)
  peak VRAM: not sampled
  detectors: none fired
`,
    );
    expect(formatReport('markdown', report, records)).toBe(
      `**1 trials** in 1 cells: pass 1, fail 0, error 0; 0 flaky cells; 3 unfinished trials

| cell | trials | pass | fail | error | flaky | unfinished | walltime median / p95 / max (s) | peak VRAM median / p95 / max (MiB) |
|---|---:|---:|---:|---:|---|---:|---|---|
| \`fp8-on\` | 1 | 1 | 0 | 0 | no | 3 | 1.500 / 1.500 / 1.500 | – |
`,
    );
    const html = formatReport('html', report, records);
    expect(html).toContain('<p>1 trials in 1 cells: pass 1, fail 0, error 0; 0 flaky cells; 3 unfinished trials</p>');
    expect(html).toContain(
      '<tr><td class="t">fp8-on</td><td>1</td><td>1</td><td>0</td><td>0</td><td class="t">no</td><td>3</td><td>1.500</td><td>1.500</td><td>1.500</td><td colspan="3">–</td></tr>',
    );
  });

  it('the walk follows no symbolic link below the paths given (a path given may be one), and lists a linked result.json', async () => {
    put('real/R/k80/trial_0/result.json', rec({ verdict: 'pass', failure_detectors_fired: [] }));
    mkdirSync(join(root, 'viaLink/R/p100/trial_5'), { recursive: true });
    symlinkSync(join(root, 'real/R/k80'), join(root, 'viaLink/R/k80'));
    symlinkSync(join(root, 'real/R/k80/trial_0/result.json'), join(root, 'viaLink/R/p100/trial_5/result.json'));
    symlinkSync(join(root, 'real/R'), join(root, 'givenLink'));
    const via = await readResults(['viaLink']);
    expect([via.records, via.problems, via.unfinished]).toEqual([
      [],
      [{ path: 'viaLink/R/p100/trial_5/result.json', reason: 'not a regular file (a symbolic link)' }],
      [{ dir: 'viaLink/R/p100/trial_5', cell: 'p100', trial: 5 }],
    ]);
    expect((await readResults(['givenLink'])).records.map((r) => r.path)).toEqual([
      'givenLink/k80/trial_0/result.json',
    ]);
  });
});
