/**
 * Issue 36's acceptance sweep: a fake flaky trainer over 3 cells x 30 trials (fixtures/matrix/) — a baseline failing
 * 40%, a mitigation failing 2 of 30, one failing 40% but 1.3x slower — writes the run-level files; matrix.json says
 * `helps` for the second with SciPy's p, a speed confound for the third; the summary says the same. Then a resume
 * of the same sweep (every cell kept, tagged), and a sweep killed mid-way that leaves a true partial matrix.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { roundHalfEven } from '../src/matrix/stats.js';
import type { MatrixJson } from '../src/matrix/types.js';
import { expectValid } from './support/json-schemas.js';
import { cliInProcess } from './support/run-cli.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-matrix-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const out = join(root, 'runs');
const runDir = join(out, 'MATRIX-1');
const args = [
  'sweep',
  '--recipe',
  'fixtures/matrix/recipe.yaml',
  '--out',
  out,
  '--parallel',
  '6',
  '--',
  'fixtures/matrix/flaky-trainer.sh',
];
const env = { ...process.env, STEP_SEC: '0.25', SLOW_STEP_SEC: '0.325' };
const readMatrix = (dir: string): MatrixJson =>
  JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixJson;

async function sweep(): Promise<{ code: number; out: string; err: string }> {
  const saved = { STEP_SEC: process.env.STEP_SEC, SLOW_STEP_SEC: process.env.SLOW_STEP_SEC };
  Object.assign(process.env, { STEP_SEC: env.STEP_SEC, SLOW_STEP_SEC: env.SLOW_STEP_SEC });
  try {
    return await cliInProcess(args);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('the run matrix: 3 cells x 30 trials of a flaky trainer', { timeout: 120_000 }, () => {
  let first: { code: number; out: string; err: string };

  it('writes the run-level files, the matrix valid against its schema', async () => {
    first = await sweep();
    expect(first.err).toBe('');
    expect(first.code).toBe(1);
    for (const f of ['recipe.resolved.yaml', 'host_env.json', 'matrix.json', 'matrix.md', 'run.json', 'recipe.yaml'])
      expect(existsSync(join(runDir, f)), f).toBe(true);
    const m = readMatrix(runDir);
    expectValid('matrix', m);
    expect(m.complete).toBe(true);
    expect(m.cells.map((c) => [c.name, c.trials, c.failed_count, c.failure_rate])).toEqual([
      ['none-none', 30, 12, 0.4],
      ['fix-none', 30, 2, 2 / 30],
      ['slow-none', 30, 12, 0.4],
    ]);
  });

  it('says the fix helps (Fisher p = SciPy to 1e-9) and the slow cell is a speed confound', () => {
    const m = readMatrix(runDir);
    expect(m.baseline_cell).toBe('none-none');
    const [base, fix, slow] = m.cells;
    expect(base!.confound).toBe('(baseline)');
    expect(fix!.vs_baseline!.effect).toBe('helps');
    // scipy.stats.fisher_exact([[2, 28], [12, 18]]).pvalue; statsmodels Newcombe interval (test/matrix-stats.test.ts)
    expect(Math.abs(fix!.vs_baseline!.p_value! - 0.004769170151985977)).toBeLessThan(1e-9);
    expect(Math.abs(fix!.vs_baseline!.ci95![0] - -0.516579637082381)).toBeLessThan(1e-9);
    expect(Math.abs(fix!.vs_baseline!.ci95![1] - -0.12066686097504786)).toBeLessThan(1e-9);
    expect(fix!.confound).toBe('-');
    // The tag is the measured ratio's, rounded as Python rounds: a few ms of start-up make it 1.27–1.3, not 1.3.
    const ratio = slow!.mean_step_time_ms! / base!.mean_step_time_ms!;
    expect(ratio).toBeGreaterThan(1.2);
    expect(ratio).toBeLessThan(1.35);
    expect(slow!.confound).toBe(`speed (+${roundHalfEven((ratio - 1) * 100)}%)`);
    expect(slow!.vs_baseline).toMatchObject({ difference: 0, p_value: 1, effect: 'no evidence', trials_needed: null });
  });

  it("prints the original's summary, with the comparison", () => {
    const m = readMatrix(runDir);
    const slowTag = m.cells[2]!.confound;
    expect(first.out).toBe(`Sweep summary: 3 cell(s) -- 0 clean, 3 with failing trials, 0 with errors.
  [fail] none-none: 12 failed of 30 trial(s) (custom:nan_loss) -> none-none/
  [fail] fix-none: 2 failed of 30 trial(s) (custom:nan_loss) -> fix-none/
  [fail] slow-none: 12 failed of 30 trial(s) (custom:nan_loss) -> slow-none/
Against the baseline none-none (failure rate 40.0%, 12 / 30):
  fix-none: 6.7% (2 / 30), -33.3 pts [-51.7, -12.1], p = 0.0048: helps; confound -
  slow-none: 40.0% (12 / 30), 0.0 pts [-23.5, +23.5], p = 1: no evidence (rates equal); confound ${slowTag}
Full matrix: ${runDir}/matrix.md
Per-cell detectors and example lines: aorta-probe report ${runDir}
`);
  });

  it('matrix.md has the probe columns, the baseline line and the legend', () => {
    const md = readFileSync(join(runDir, 'matrix.md'), 'utf8');
    expect(md).toContain('**Baseline cell**: `none-none` (mean step time = ');
    expect(md).toContain(
      '| Mitigation | Diagnostic | Failure rate | Failures | Errors | Top failure | Top warn | Mean step (ms) | Confound | vs baseline (95% CI) | p | Effect | Directory |',
    );
    expect(md).toMatch(
      /\n\| `fix` \| `none` \| 6\.7% \| 2 \/ 30 \| 0 \| `custom:nan_loss` \| — \| \d+\.\d \| `-` \| -33\.3 pts \[-51\.7, -12\.1\] \| 0\.0048 \| helps \| `fix-none\/` \|\n/,
    );
    expect(md).toContain('\n## Notes\n');
  });

  it('recipe.resolved.yaml holds the cells; host_env.json the environment', () => {
    const resolved = readFileSync(join(runDir, 'recipe.resolved.yaml'), 'utf8');
    expect(resolved).toContain('\ncells:\n  - name: none-none\n');
    expect(resolved).toContain('    extra_env:\n      SLOW: "1"\n');
    const host = JSON.parse(readFileSync(join(runDir, 'host_env.json'), 'utf8')) as Record<string, unknown>;
    expect(host.schema_version).toBe(1);
    expect((host.env_vars as Record<string, string>).PATH).toBe(process.env.PATH);
  });

  it('a re-run keeps every cell (resume) and says so', async () => {
    const again = await sweep();
    expect(again.code).toBe(1);
    expect(again.out).toContain(
      'Sweep summary: 3 cell(s) -- 0 clean, 3 with failing trials, 0 with errors, 3 resumed.\n  [fail] [resumed] none-none: 12 failed of 30 trial(s)',
    );
    expect(again.out).toContain('Note: 3 cells were kept from an earlier run of this sweep (resume)');
    expect(readMatrix(runDir).cells.every((c) => c.resumed)).toBe(true);
  });
});

describe('host_env.json leaves out the keys redaction.scrub_env_keys names', { timeout: 60_000 }, () => {
  it('by fnmatchcase glob', async () => {
    const recipe = join(root, 'scrub.yaml');
    writeFileSync(
      recipe,
      'schema_version: 1\nmode: probe\nticket: S\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nredaction:\n  scrub_env_keys: ["AORTA_TEST_SECRET_*"]\n',
    );
    process.env.AORTA_TEST_SECRET_TOKEN = 'hunter2';
    process.env.AORTA_TEST_PUBLIC = 'ok';
    try {
      const r = await cliInProcess(['sweep', '--recipe', recipe, '--out', join(root, 's'), '--', 'true']);
      expect(r.code).toBe(0);
    } finally {
      delete process.env.AORTA_TEST_SECRET_TOKEN;
      delete process.env.AORTA_TEST_PUBLIC;
    }
    const text = readFileSync(join(root, 's', 'S', 'host_env.json'), 'utf8');
    expect(text).not.toContain('hunter2');
    const host = JSON.parse(text) as { env_vars: Record<string, string>; scrub_env_keys: string[] };
    expect(host.scrub_env_keys).toEqual(['AORTA_TEST_SECRET_*']);
    expect(host.env_vars.AORTA_TEST_PUBLIC).toBe('ok');
  });
});

describe('a sweep killed mid-way leaves a true partial matrix', { timeout: 60_000 }, () => {
  it('the finished cell is in it, complete is false', async () => {
    const recipe = join(root, 'kill.yaml');
    writeFileSync(
      recipe,
      'schema_version: 1\nmode: probe\nticket: K\ntrials: 2\nmitigation_axis: [none, stall]\ndiagnostic_axis: [none]\nmitigations:\n  stall: {STALL: "1"}\n',
    );
    const dir = join(root, 'k', 'K');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'sweep',
        '--recipe',
        recipe,
        '--out',
        join(root, 'k'),
        '--quiet',
        '--',
        'sh',
        '-c',
        '[ -z "$STALL" ] || sleep 30',
      ],
      { stdio: 'ignore' },
    );
    const end = Date.now() + 30_000;
    const firstCellDone = (): boolean => {
      try {
        return readMatrix(dir).cells[0]!.trials === 2;
      } catch {
        return false;
      }
    };
    while (!firstCellDone() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const m = readMatrix(dir);
    expect(m.complete).toBe(false);
    expect(m.cells.map((c) => [c.name, c.trials, c.passed_count, c.confound])).toEqual([
      ['none-none', 2, 2, '(baseline)'],
      ['stall-none', 0, 0, 'did_not_run'],
    ]);
    expect(statSync(join(dir, 'matrix.md')).size).toBeGreaterThan(0);
  });
});
