/**
 * `runSweep` with real trial commands (sh): a seeded flaky command's counts and flaky flags, retries only on the
 * listed detector ids and categories, stop_after, disjoint devices under --parallel with a fake GPU list,
 * retention, and an interrupt that leaves every finished trial complete. Plus the sampler's per-device VRAM.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { aggregateResults, readResults } from '../src/report/index.js';
import { loadSweepPlan, runSweep, type SweepEvent, type SweepPlan } from '../src/sweep/index.js';
import { runTrial } from '../src/trial/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FLAKY = fileURLToPath(new URL('../fixtures/sweep/flaky.sh', import.meta.url));
let n = 0;

async function plan(body: string, trials?: number): Promise<SweepPlan> {
  const p = join(root, `r${++n}.yaml`);
  writeFileSync(p, `schema_version: 1\nmode: probe\nticket: T-${n}\n${body}`);
  return loadSweepPlan(p, { trials });
}
const out = (): string => join(root, `out${n}`);
const trial = { gpuTool: 'none' as const, killGraceMs: 200 };

/** The fixture's rule, computed independently (BigInt: the products exceed 2^53). */
function flakyFails(seed: number, index: number, attempt = 1): boolean {
  const M = 4294967296n;
  let x = (BigInt(index + 1) * 2654435761n + BigInt(seed) * 40503n + BigInt(attempt - 1) * 97n) % M;
  x = ((x ^ (x >> 16n)) * 73244475n) % M;
  x ^= x >> 16n;
  return (x & 1n) === 1n;
}

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

// Real processes on a shared, busy machine: generous limits (speed is the benchmark's business, not these tests').
describe('runSweep', { timeout: 60_000 }, () => {
  it('runs a seeded flaky command 20 times per cell: exact counts, the flaky cell flagged, the stable one not', async () => {
    const p = await plan(
      'trials: 20\nmitigation_axis: [none, stable]\ndiagnostic_axis: [none]\nmitigations:\n  stable: {FLAKY_FORCE: pass}\n',
    );
    const s = await runSweep({
      plan: p,
      argv: ['sh', FLAKY],
      outDir: out(),
      parallel: 4,
      env: { ...process.env, FLAKY_SEED: '7' },
      trial,
    });
    const fails = Array.from({ length: 20 }, (_, i) => i).filter((i) => flakyFails(7, i));
    expect(fails.length).toBeGreaterThanOrEqual(6); // the fixture is about half, not all or nothing
    expect(fails.length).toBeLessThanOrEqual(14);
    expect(s.counts).toEqual({ pass: 40 - fails.length, fail: fails.length, error: 0 });
    expect(
      s.trials.filter((t) => t.task.cell.name === 'none-none' && t.verdict === 'fail').map((t) => t.task.trial),
    ).toEqual(fails);

    const { records, problems } = await readResults([out()]);
    expect(problems).toEqual([]);
    const r = await aggregateResults(records);
    expect(r.cells.map((c) => [c.cell, c.trials, c.pass, c.fail, c.error, c.flaky, c.flakyReasons])).toEqual([
      ['none-none', 20, 20 - fails.length, fails.length, 0, true, ['mixed verdicts']],
      ['stable-none', 20, 20, 0, 0, false, []],
    ]);
    expect(r.cells[0]!.detectors.map((d) => [d.id, d.trials, d.example?.text])).toEqual([
      ['tier1:exit_nonzero', fails.length, undefined],
      ['tier4:nan_signature', fails.length, 'step 3 loss=nan'],
    ]);
    const rec = json(join(out(), p.ticket, 'none-none', `trial_${fails[0]}`, 'result.json'));
    expect([rec.cell_name, rec.trial_index, rec.mitigations, rec.cell_env, rec.final, rec.attempt]).toEqual([
      'none-none',
      fails[0],
      ['none', 'none'],
      {},
      true,
      1,
    ]);
    expect(json(join(out(), p.ticket, 'stable-none', 'trial_0', 'result.json')).cell_env).toEqual({
      FLAKY_FORCE: 'pass',
    });
  });

  it('retries only failures whose detector id or category is listed, up to max, and keeps every attempt', async () => {
    const p = await plan(`trials: 5
mitigation_axis: [none]
diagnostic_axis: [none]
retry: {max: 2, on: [rccl_hang, tier1:timeout]}
custom_patterns:
  - id: nccl_timeout
    match: {regex: 'NCCL watchdog timeout'}
    on_match: fail
    category: rccl_hang
  - id: illegal_access
    match: {regex: 'illegal memory access'}
    on_match: fail
    category: illegal_mem
`);
    // trial 0: hang category on attempt 1 only; 1: illegal_mem (not listed); 2: a plain exit 3 (not listed);
    // 3: timeout on attempt 1; 4: hang on every attempt.
    const script = `case "$AORTA_PROBE_TRIAL_INDEX:$AORTA_PROBE_ATTEMPT" in
  0:1) echo 'NCCL watchdog timeout'; exit 1;;
  1:*) echo 'an illegal memory access was encountered'; exit 1;;
  2:*) exit 3;;
  3:1) sleep 5;;
  4:*) echo 'NCCL watchdog timeout'; exit 1;;
esac
echo ok`;
    const events: SweepEvent[] = [];
    const s = await runSweep({
      plan: p,
      argv: ['sh', '-c', script],
      outDir: out(),
      trial: { ...trial, timeoutSec: 0.5 },
      onEvent: (e) => events.push(e),
    });
    expect(
      s.trials.map((t) => [t.task.trial, t.verdict, t.attempts.map((a) => `${a.verdict}:${a.retry_on.join('+')}`)]),
    ).toEqual([
      [0, 'pass', ['fail:rccl_hang', 'pass:']],
      [1, 'fail', ['fail:']],
      [2, 'fail', ['fail:']],
      [3, 'pass', ['error:tier1:timeout', 'pass:']],
      [4, 'fail', ['fail:rccl_hang', 'fail:rccl_hang', 'fail:rccl_hang']],
    ]);
    expect(
      events.filter((e) => e.type === 'retry').map((e) => e.type === 'retry' && `${e.task.trial}/${e.attempt}`),
    ).toEqual(['0/1', '3/1', '4/1', '4/2']);
    const dir = join(out(), p.ticket, 'none-none');
    expect(readdirSync(join(dir, 'trial_4')).sort()).toEqual(['attempt_1', 'attempt_2', 'output.log', 'result.json']);
    const first = json(join(dir, 'trial_0', 'attempt_1', 'result.json'));
    expect([first.final, first.attempt, first.failure_detectors_fired]).toEqual([
      false,
      1,
      ['tier1:exit_nonzero', 'custom:nccl_timeout'],
    ]);
    expect(readFileSync(join(dir, 'trial_0', 'attempt_1', 'output.log'), 'utf8')).toBe('NCCL watchdog timeout\n');
    const final = json(join(dir, 'trial_0', 'result.json'));
    expect((final.attempts as Array<{ dir: string }>).map((a) => a.dir)).toEqual(['attempt_1', '.']);

    const { records, earlierAttempts } = await readResults([out()]);
    expect(earlierAttempts).toBe(4);
    const [cell] = (await aggregateResults(records)).cells;
    expect([cell!.trials, cell!.pass, cell!.fail, cell!.retried, cell!.passedOnRetry, cell!.flakyReasons]).toEqual([
      5,
      2,
      3,
      3,
      2,
      ['mixed verdicts', 'passed on retry'],
    ]);
  });

  it('stop_after: a cell stops once `events` trials had the event verdict; other cells go on', async () => {
    const p = await plan(`trials: 1
mitigation_axis: [none, other]
diagnostic_axis: [none]
mitigations: {other: {NEVER_FAIL: '1'}}
stop_after: {events: 2, max_trials: 10}
`);
    const script = '[ -z "$NEVER_FAIL" ] && [ $((AORTA_PROBE_TRIAL_INDEX % 2)) = 1 ] && exit 1; exit 0';
    const stops: string[] = [];
    const s = await runSweep({
      plan: p,
      argv: ['sh', '-c', script],
      outDir: out(),
      trial,
      onEvent: (e) => e.type === 'stop-cell' && stops.push(`${e.cell}:${e.events}`),
    });
    const ran = (cell: string): number[] => s.trials.filter((t) => t.task.cell.name === cell).map((t) => t.task.trial);
    expect(ran('none-none')).toEqual([0, 1, 2, 3]);
    expect(ran('other-none')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.skipped.map((t) => `${t.cell.name}/${t.trial}`)).toEqual([4, 5, 6, 7, 8, 9].map((i) => `none-none/${i}`));
    expect([s.stoppedCells, stops]).toEqual([['none-none'], ['none-none:2']]);

    const q = await plan(
      'trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nstop_after: {events: 1, max_trials: 5, event_verdict: pass}\n',
    );
    const t = await runSweep({
      plan: q,
      argv: ['sh', '-c', '[ $AORTA_PROBE_TRIAL_INDEX -lt 2 ] && exit 1; exit 0'],
      outDir: out(),
      trial,
    });
    expect(t.trials.map((x) => x.verdict)).toEqual(['fail', 'fail', 'pass']);
  });

  it('gives each running trial its own devices from the GPU list, never one device to two trials at once', async () => {
    const p = await plan('trials: 8\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const log = join(root, 'gpu-log');
    mkdirSync(log);
    const script = `s=$(date +%s%N); sleep 0.3; echo "$s $(date +%s%N) $CUDA_VISIBLE_DEVICES $HIP_VISIBLE_DEVICES \${ROCR_VISIBLE_DEVICES:-unset}" > ${log}/$AORTA_PROBE_TRIAL_INDEX`;
    const starts: Array<readonly string[] | null> = [];
    await runSweep({
      plan: p,
      argv: ['sh', '-c', script],
      outDir: out(),
      parallel: 3,
      gpus: { devices: ['0', '1', '2', '3', '4', '5'], perTrial: 2 },
      env: { ...process.env, ROCR_VISIBLE_DEVICES: '0' },
      trial,
      onEvent: (e) => e.type === 'start' && starts.push(e.devices),
    });
    const rows = readdirSync(log).map((f) => readFileSync(join(log, f), 'utf8').trim().split(' '));
    expect(rows).toHaveLength(8);
    for (const [, , cuda, hip, rocr] of rows) {
      expect(['0,1', '2,3', '4,5']).toContain(cuda);
      expect([hip, rocr]).toEqual([cuda, 'unset']);
    }
    let overlaps = 0;
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        const [a0, a1, ad] = rows[i]!;
        const [b0, b1, bd] = rows[j]!;
        if (BigInt(a0!) < BigInt(b1!) && BigInt(b0!) < BigInt(a1!)) {
          overlaps++;
          expect(ad).not.toBe(bd);
        }
      }
    }
    expect(overlaps).toBeGreaterThan(0); // they did run side by side
    const rec = json(join(out(), p.ticket, 'none-none', 'trial_0', 'result.json'));
    expect(rec.devices).toEqual(['0', '1']);
    expect(starts.every((d) => d !== null && d.length === 2)).toBe(true);
  });

  it('retain: none < log < summary < full, result.json always kept, what went recorded in it', async () => {
    const p = await plan(
      'trials: 4\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nretain: {on_pass: summary, on_fail: log, on_error: none}\n',
    );
    // extra.bin (5 bytes) is heavy, step.summary.json (3 bytes) a summary file, a subdirectory with 7 bytes heavy.
    const script =
      'cd "$AORTA_PROBE_TRIAL_DIR"; printf 12345 > extra.bin; printf abc > step.summary.json; mkdir ckpt; printf 1234567 > ckpt/w; case $AORTA_PROBE_TRIAL_INDEX in 0) exit 0;; 1) echo boom; exit 1;; 2) exit 1;; esac';
    const s = await runSweep({ plan: p, argv: ['sh', '-c', script], outDir: out(), trial });
    expect(s.trials.map((t) => `${t.verdict}:${t.retention}`)).toEqual([
      'pass:summary',
      'fail:log',
      'fail:log',
      'pass:summary',
    ]);
    const dir = join(out(), p.ticket, 'none-none');
    expect(readdirSync(join(dir, 'trial_0')).sort()).toEqual(['output.log', 'result.json', 'step.summary.json']);
    expect(json(join(dir, 'trial_0', 'result.json')).retention).toEqual({
      level: 'summary',
      deleted: ['ckpt/', 'extra.bin'],
      deleted_count: 2,
      freed_bytes: 12,
    });
    expect(readdirSync(join(dir, 'trial_1')).sort()).toEqual(['output.log', 'result.json']);
    expect(json(join(dir, 'trial_1', 'result.json')).retention).toEqual({
      level: 'log',
      deleted: ['ckpt/', 'extra.bin', 'step.summary.json'],
      deleted_count: 3,
      freed_bytes: 15,
    });

    const q = await plan('trials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nretain: {on_error: none}\n');
    const t = await runSweep({ plan: q, argv: ['/nonexistent/cmd'], outDir: out(), trial });
    expect(t.trials.map((x) => `${x.verdict}:${x.retention}`)).toEqual(['error:none', 'error:none']);
    const qdir = join(out(), q.ticket, 'none-none', 'trial_1');
    // retain: none keeps the record (the original never deletes result.json), and says what it removed.
    expect(readdirSync(qdir)).toEqual(['result.json']);
    const logBytes = (json(join(qdir, 'result.json')).log as { bytes: number }).bytes;
    expect(logBytes).toBeGreaterThan(0);
    expect(json(join(qdir, 'result.json')).retention).toEqual({
      level: 'none',
      deleted: ['output.log'],
      deleted_count: 1,
      freed_bytes: logBytes,
    });
    const full = await plan('trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    await runSweep({ plan: full, argv: ['sh', '-c', script], outDir: out(), trial });
    expect(readdirSync(join(out(), full.ticket, 'none-none', 'trial_0')).sort()).toEqual([
      'ckpt',
      'extra.bin',
      'output.log',
      'result.json',
      'step.summary.json',
    ]);
  });

  it('an interrupt stops launching, stops the running trial with a result, and leaves finished trials complete', async () => {
    const p = await plan('trials: 4\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const stop = new AbortController();
    const s = await runSweep({
      plan: p,
      argv: ['sh', '-c', 'echo started; [ $AORTA_PROBE_TRIAL_INDEX = 1 ] && sleep 30; echo done'],
      outDir: out(),
      trial,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'start' && e.task.trial === 1) setTimeout(() => stop.abort('SIGINT'), 300);
      },
    });
    expect(s.interrupted).toBe(true);
    expect(s.trials.map((t) => [t.task.trial, t.verdict, t.interrupted, t.retention])).toEqual([
      [0, 'pass', false, 'full'],
      [1, 'error', true, 'full'],
    ]);
    expect(s.skipped.map((t) => t.trial)).toEqual([2, 3]);
    const dir = join(out(), p.ticket, 'none-none');
    expect(readFileSync(join(dir, 'trial_0', 'output.log'), 'utf8')).toBe('started\ndone\n');
    const r1 = json(join(dir, 'trial_1', 'result.json'));
    expect([r1.interrupted, r1.exit_code, r1.error_detectors_fired, r1.final]).toEqual([
      true,
      -2,
      ['tier1:interrupted'],
      true,
    ]);
    expect(existsSync(join(dir, 'trial_2'))).toBe(false);
  });
});

describe('runSweep when a trial cannot be run at all', { timeout: 30_000 }, () => {
  it('rejects with the error (here the trial directory cannot be made) instead of going on', async () => {
    const p = await plan('trials: 5\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const file = join(root, 'not-a-dir');
    writeFileSync(file, '');
    const starts: number[] = [];
    const err = await runSweep({
      plan: p,
      argv: ['true'],
      outDir: file,
      parallel: 2,
      trial,
      onEvent: (e) => e.type === 'start' && starts.push(e.task.trial),
    }).then(
      () => null,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(err?.code).toBe('ENOTDIR');
    expect(starts).toEqual([]); // no trial started: each attempted task failed before its command ran
  });
});

describe('per-device VRAM (the sampler with a device list)', { timeout: 30_000 }, () => {
  const FAKE_AMD_SMI = fileURLToPath(new URL('./support/fake-gpu-tools/amd-smi', import.meta.url));
  const metric = (u0: number, u1: number): string =>
    `${JSON.stringify({
      gpu_data: [u0, u1].map((used, gpu) => ({
        gpu,
        mem_usage: {
          total_vram: { value: 49136, unit: 'MB' },
          used_vram: { value: used, unit: 'MB' },
          free_vram: { value: 49136 - used, unit: 'MB' },
        },
      })),
    })}\n`;
  const NO_PROCESSES = `${JSON.stringify([0, 1].map((gpu) => ({ gpu, process_list: [{ process_info: 'No running processes detected' }] })))}\n`;

  it.each([
    [['0'], 1000],
    [['1'], 3000],
    [undefined, 4000],
  ])('devices %j: peak %d MiB', async (devices, peak) => {
    const dir = mkdtempSync(join(root, 'gpu-'));
    mkdirSync(join(dir, 'bin'));
    symlinkSync(FAKE_AMD_SMI, join(dir, 'bin', 'amd-smi'));
    writeFileSync(join(dir, 'version'), 'AMD-SMI 26.2.0+unknown  amdgpu version: 6.16.3  ROCm version: N/A\n');
    writeFileSync(join(dir, 'metric.1'), metric(512, 256));
    writeFileSync(join(dir, 'metric'), metric(512 + 1000, 256 + 3000));
    writeFileSync(join(dir, 'process'), NO_PROCESSES);
    const env = {
      ...process.env,
      PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      FAKE_GPU_SCENARIO: dir,
      ROCM_PATH: join(dir, 'no-rocm'),
    };
    const { result } = await runTrial(null, ['sleep', '0.5'], {
      outDir: join(dir, 'out'),
      gpuTool: 'amd-smi',
      gpuIntervalMs: 100,
      env,
      runnerEnv: env,
      gpuDevices: devices,
    });
    expect([result.peak_vram_mib, result.gpu.attribution]).toEqual([peak, 'device-minus-baseline']);
  });
});
