/**
 * result.json's layout version (`result_version`, docs/runner.md): version 2 writes `gpu` with snake_case keys. A
 * run directory of version 1 records (no `result_version`, `gpu` with the sampler's camelCase keys:
 * fixtures/report/result-v1) is read as one of version 2 is: `report` of an old run, a sweep resumed across the
 * upgrade, a bundle of an old run.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBundle } from '../src/bundle/index.js';
import { aggregateResults, readResults } from '../src/report/index.js';
import { loadSweepPlan, runSweep } from '../src/sweep/index.js';
import { cliInProcess as cli } from './support/run-cli.js';
import { isValid } from './support/json-schemas.js';

const V1 = 'fixtures/report/result-v1/DOC-1';
const RECIPE = 'fixtures/sweep/two-cells.yaml';
const CELLS = ['none-none', 'cache_off-none'];
const root = mkdtempSync(join(tmpdir(), 'aorta-result-version-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Doc = Record<string, unknown>;
const read = (path: string): Doc => JSON.parse(readFileSync(path, 'utf8')) as Doc;
const record = (runDir: string, cell: string): string => join(runDir, cell, 'trial_0', 'result.json');

const SNAKE: Record<string, string> = {
  toolVersion: 'tool_version',
  baselineMib: 'baseline_mib',
  peakVramMib: 'peak_vram_mib',
  failedCalls: 'failed_calls',
  intervalMs: 'interval_ms',
};

/** A version 1 record as version 2 writes it: `gpu`'s keys renamed, `result_version` after `versions`. */
function asVersion2(doc: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) {
    out[k] =
      k === 'gpu' ? Object.fromEntries(Object.entries(v as Doc).map(([g, x]) => [SNAKE[g] ?? g, x])) : (v as unknown);
    if (k === 'versions') out.result_version = 2;
  }
  return out;
}

/** A copy of the fixture's run directory under `dir`, its records rewritten to version 2 when `v2`. */
function copyRun(dir: string, v2: boolean): string {
  const runDir = join(root, dir, 'DOC-1');
  cpSync(V1, runDir, { recursive: true });
  if (v2)
    for (const c of CELLS)
      writeFileSync(record(runDir, c), `${JSON.stringify(asVersion2(read(record(V1, c))), null, 2)}\n`);
  return runDir;
}

describe('result_version 1 records (camelCase gpu) are still read', { timeout: 60_000 }, () => {
  it('the fixture is version 1; the same records in version 2 are what schemas/result.schema.json describes', () => {
    for (const c of CELLS) {
      const v1 = read(record(V1, c));
      expect(v1.result_version).toBeUndefined();
      expect(Object.keys(v1.gpu as Doc)).toEqual([
        'tool',
        'toolVersion',
        'attribution',
        'baselineMib',
        'peakVramMib',
        'samples',
        'failedCalls',
        'intervalMs',
        'warnings',
      ]);
      expect(isValid('result', v1)).toBe(false);
      expect(isValid('result', asVersion2(v1))).toBe(true);
    }
  });

  it('report reads an old run directory as it reads the same run written by version 2', async () => {
    const old = copyRun('report-old', false);
    const now = copyRun('report-new', true);
    const a = await readResults([old]);
    const b = await readResults([now]);
    expect([a.problems, b.problems]).toEqual([[], []]);
    const shown = (r: typeof a, dir: string) =>
      JSON.parse(JSON.stringify(r.records).replaceAll(dir, '<run>')) as unknown;
    expect(a.records).toHaveLength(2);
    expect(shown(a, old)).toEqual(shown(b, now));
    expect((await aggregateResults(a.records)).totals).toMatchObject({ trials: 2, pass: 1, fail: 1, error: 0 });

    const ra = await cli(['report', '--json', old]);
    const rb = await cli(['report', '--json', now]);
    expect([ra.code, ra.err]).toEqual([0, '']);
    // The same document, but for the directories and the time of the matrix report computed (no matrix.json).
    const same = (out: string, dir: string) =>
      out.replaceAll(dir, '<run>').replace(/"run_timestamp":"[^"]*"/, '"run_timestamp":"<now>"');
    expect(same(ra.out, old)).toBe(same(rb.out, now));
  });

  it('a sweep resumed across the upgrade keeps the version 1 trial and writes version 2 for the one it runs', async () => {
    const runDir = copyRun('resume', false);
    rmSync(join(runDir, 'cache_off-none'), { recursive: true });
    const plan = await loadSweepPlan(RECIPE);
    const argv = (read(join(V1, 'run.json')).identity as { argv: string[] }).argv;
    const s = await runSweep({ plan, argv, outDir: join(root, 'resume'), trial: { gpuTool: 'none' } });
    expect(s.trials.map((t) => [t.task.cell.name, t.verdict, t.resumed, t.exitStatus])).toEqual([
      ['none-none', 'pass', true, 0],
      ['cache_off-none', 'fail', false, 1],
    ]);
    // The kept record is untouched; the new one is version 2.
    expect(readFileSync(record(runDir, 'none-none'), 'utf8')).toBe(readFileSync(record(V1, 'none-none'), 'utf8'));
    const fresh = read(record(runDir, 'cache_off-none'));
    expect(fresh.result_version).toBe(2);
    expect(Object.keys(fresh.gpu as Doc)).toContain('failed_calls');
    expect(isValid('result', fresh)).toBe(true);
    // Both versions in one run directory: one report, nothing skipped.
    const mixed = await readResults([runDir]);
    expect(mixed.problems).toEqual([]);
    expect((await aggregateResults(mixed.records)).totals).toMatchObject({ trials: 2, pass: 1, fail: 1 });
  });

  it('a bundle of an old run directory takes its records as they are', async () => {
    const runDir = copyRun('bundle', false);
    const { manifest } = await createBundle({ runDir, output: join(root, 'bundle.tar.gz') });
    expect(manifest.files.map((f) => f.path).filter((p) => p.endsWith('result.json'))).toEqual([
      'cache_off-none/trial_0/result.json',
      'none-none/trial_0/result.json',
    ]);
  });
});
