/**
 * scripts/gpu-check/ (issue 40, docs/gpu.md "Checking against a real GPU") against a fake GPU: the fake nvidia-smi
 * of fixtures/gpu-check/bin/ first on PATH and the fake torch of fixtures/gpu-check/python/ on PYTHONPATH, which
 * share a state directory so that what the trials hold is what nvidia-smi reports. The script runs exactly as on a
 * real machine (run.sh, the built CLI, real trials), with short durations; every line it prints and every value
 * of its JSON record is checked, except the figures that measure time (named below).
 *
 * The fake device: one "H100" of 81559 MiB, 4 MiB used when idle, a 500 MiB CUDA context, driver 580.95.05 that
 * accepts every field aorta-probe queries and rejects `clocks_throttle_reasons.active`; under load (after the first
 * kernel of a live process) utilization.gpu is 100.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const FAKE = join(ROOT, 'fixtures/gpu-check');
const RUN_SH = join(ROOT, 'scripts/gpu-check/run.sh');
const RUN_MJS = join(ROOT, 'scripts/gpu-check/run.mjs');

/** The sampler-cost figures vary from run to run: checked for type and range, then masked with these. */
const SAMPLER_COST_MASK = {
  line: '<figures>',
  cpu_none_sec: '<sec>',
  cpu_sampled_sec: '<sec>',
  samples: '<n>',
  cpu_per_sample_ms: '<ms>',
  loop_rate_none: '<rate>',
  loop_rate_sampled: '<rate>',
  slowdown_pct: '<pct>',
} as const;

/** The interpreter itself (python3 on PATH may be a wrapper script that needs more of PATH); null without one. */
const PYTHON = realPython();
function realPython(): string | null {
  try {
    return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}
const CI = process.env.CI === 'true';

const tmp = mkdtempSync(join(tmpdir(), 'aorta-gpu-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  code: number;
  out: string;
  err: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((done) => {
    execFile(cmd, args, { env, cwd: ROOT, timeout: 170_000, maxBuffer: 1 << 24 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      done({ code, out, err });
    });
  });
}

/** The short durations of the fake run (the real run's defaults are in docs/gpu.md). */
const FAST = {
  GPU_CHECK_HOLD_SEC: '0.6',
  GPU_CHECK_SILENT_SEC: '3',
  GPU_CHECK_HANG_WINDOW_SEC: '0.5',
  GPU_CHECK_HANG_GRACE_SEC: '2',
  GPU_CHECK_LOAD_DELAY_SEC: '0.2',
  GPU_CHECK_COST_SEC: '1',
  GPU_CHECK_SWEEP_HOLD_SEC: '0.5',
  // The fake loop's rate is the host's scheduling noise: only the plumbing of this check is tested.
  GPU_CHECK_MAX_SLOWDOWN_PCT: '100',
};

const UUID = 'GPU-6a1f0c3e-2b7d-4e59-9c8a-13f5d2e4b7a0';
const REJECTED = 'Field "clocks_throttle_reasons.active" is not a valid field to query.';

const LINES = [
  'ok vram 4 GiB: peak 4596 MiB, expected 4596 MiB (max reserved 4096 + context 500), off by 0.00% (process)',
  'ok vram 16 GiB: peak 16884 MiB, expected 16884 MiB (max reserved 16384 + context 500), off by 0.00% (process)',
  'ok vram 40 GiB: peak 41460 MiB, expected 41460 MiB (max reserved 40960 + context 500), off by 0.00% (process)',
  // Tier 2's rule is two of three signals: silence and no I/O make a hang even with the GPU busy.
  'SHORT hang silent-compute: 3 s of silent GPU compute was called a hang (output silent, I/O idle, GPU not idle), dropped at exit 0 (reconciled)',
  'ok fields: 16 of 17 accepted; rejected, not used: gpu:clocks_throttle_reasons.active',
  'ok utilization: utilization.gpu idle 0%, under load 100% (GPU idle means < 5%); thermal counters idle -> load (us): sw 0 -> 0, hw 0 -> 0',
  'ok hang silent-sleep: tier2:hang (output silent, I/O idle, GPU idle), the trial was stopped, verdict fail',
  'ok oom: verdict fail, exit 1: tier1:exit_nonzero, tier4:python_traceback, custom:cuda_oom; raised torch.OutOfMemoryError',
  'ok nan: verdict fail, exit 0: custom:nan_loss, tier4:nan_signature; capture step=4, loss=nan',
  'ok degrade: utilization.gpu and clocks_event_reasons_counters rejected: verdict pass, peak 1524 MiB, 2 reasons in tier3.disabled_reasons, 0 memory warnings',
  // The one line with measured figures (checked apart, below).
  'ok sampler-cost: <figures>',
  'ok gpus: --gpus 0 --parallel 2: 2 trials, one at a time, each with CUDA_VISIBLE_DEVICES=0 and HIP_VISIBLE_DEVICES=0, devices ["0"], peak VRAM 1524 and 1524 MiB',
];
const COST_LINE =
  /^ok sampler-cost: (-?\d+\.\d) ms CPU per sample \((\d+) samples at 0\.2 s\); a tight CUDA loop (-?\d+\.\d)% slower \((\d+) vs (\d+) it\/s; at most 100%\)$/;

/** A check's record, as far as this test reads it. */
interface Check {
  name: string;
  [key: string]: unknown;
}

const field = (idle: string, load: string) => ({
  accepted: true,
  value: idle,
  load: { accepted: true, value: load },
});
const apps = { accepted: true, rows: 0, load: { accepted: true, rows: 1 } };

describe.skipIf(PYTHON === null && !CI)('scripts/gpu-check against the fake nvidia-smi and torch', () => {
  it('python3 is there (CI=true)', () => {
    expect(PYTHON, 'test/gpu-check.test.ts needs python3 on PATH').not.toBeNull();
  });

  it('prints one ok/SHORT line per check and records every figure', { timeout: 180_000 }, async () => {
    const state = join(tmp, 'state');
    const work = join(tmp, 'work');
    const record = join(tmp, 'out', 'gpu-check.json');
    mkdirSync(state);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...FAST,
      PATH: `${join(FAKE, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      PYTHONPATH: join(FAKE, 'python'),
      PYTHONDONTWRITEBYTECODE: '1',
      FAKE_GPU_SCENARIO: join(FAKE, 'scenario'),
      FAKE_GPU_STATE: state,
      NODE: process.execPath,
      // The interpreter itself, not a version manager's wrapper: it starts 14 trials.
      GPU_CHECK_PYTHON: PYTHON ?? 'python3',
      GPU_CHECK_WORK: work,
      GPU_CHECK_JSON: record,
    };
    const r = await run(RUN_SH, [], env);
    expect(r.err).toContain('gpu-check: done in');
    const lines = r.out.split('\n').filter((l) => l !== '');
    const cost = lines.findIndex((l) => l.startsWith('ok sampler-cost: '));
    const m = COST_LINE.exec(lines[cost] ?? '');
    expect(m, lines[cost]).not.toBeNull();
    expect(lines.map((l, i) => (i === cost ? 'ok sampler-cost: <figures>' : l))).toEqual(LINES);
    expect(r.code).toBe(1); // one SHORT line

    const rec = JSON.parse(readFileSync(record, 'utf8'));
    // The figures that measure time: their type here, their value nowhere.
    expect(Date.parse(rec.started_at)).toBeLessThanOrEqual(Date.parse(rec.finished_at));
    expect(rec.duration_sec).toBeGreaterThan(0);
    expect(rec.versions.python).toMatch(/^3\.\d+\.\d+$/);
    const checks = rec.checks as Check[];
    const byName = (n: string) => checks.find((c) => c.name === n) as Check;
    for (const gib of [4, 16, 40]) {
      expect(byName(`vram ${gib} GiB`).samples).toBeGreaterThanOrEqual(1);
      byName(`vram ${gib} GiB`).samples = '<n>';
    }
    for (const n of ['hang silent-compute', 'hang silent-sleep']) {
      expect(byName(n).detected_after_sec).toBeGreaterThanOrEqual(2);
      byName(n).detected_after_sec = '<sec>';
    }
    const c = byName('sampler-cost');
    const fixed = (x: unknown, digits: number) => (x as number).toFixed(digits);
    expect(c.samples).toBe(Number(m?.[2]));
    expect(fixed(c.cpu_per_sample_ms, 1)).toBe(m?.[1]);
    expect(fixed(c.slowdown_pct, 1)).toBe(m?.[3]);
    expect(fixed(c.loop_rate_sampled, 0)).toBe(m?.[4]);
    expect(fixed(c.loop_rate_none, 0)).toBe(m?.[5]);
    expect(c.cpu_sampled_sec).toBeGreaterThan(0);
    expect(c.cpu_none_sec).toBeGreaterThan(0);
    const trials = byName('gpus').trials as { start: number | string; end: number | string }[];
    const [t0, t1] = [...trials].sort((a, b) => (a.start as number) - (b.start as number));
    expect(t0?.end).toBeLessThanOrEqual(t1?.start as number); // one at a time
    for (const t of trials) {
      expect(t.end).toBeGreaterThan(t.start as number);
      t.start = '<time>';
      t.end = '<time>';
    }
    Object.assign(c, SAMPLER_COST_MASK);
    Object.assign(rec, { started_at: '<time>', finished_at: '<time>', duration_sec: '<sec>' });
    rec.versions.python = '<version>';

    expect(rec).toEqual({
      schema: 'aorta-probe-gpu-check/1',
      started_at: '<time>',
      finished_at: '<time>',
      duration_sec: '<sec>',
      ok: false,
      work_dir: work,
      versions: { node: process.version, aorta_probe: '0.1.0', python: '<version>' },
      device: [
        {
          index: '0',
          name: 'NVIDIA H100 80GB HBM3 (fake)',
          uuid: UUID,
          memory_total_mib: 81559,
          driver_version: '580.95.05',
        },
      ],
      torch: { version: '2.11.0+fake', cuda: '13.0', device_name: 'NVIDIA H100 80GB HBM3 (fake)' },
      context: {
        context_mib: 500,
        device_used_before_mib: 4,
        device_used_after_mib: 506,
        reserved_mib: 2,
        process_used_mib: 502,
        sampler_peak_vram_mib: 502,
        attribution: 'process',
      },
      config: {
        python: PYTHON ?? 'python3',
        sizes_gib: [4, 16, 40],
        hold_sec: 0.6,
        interval_sec: 0.2,
        vram_tolerance_pct: 3,
        silent_sec: 3,
        hang_window_sec: 0.5,
        hang_grace_sec: 2,
        sleep_gib: 1,
        load_delay_sec: 0.2,
        cost_sec: 1,
        max_slowdown_pct: 100,
        degrade_gib: 1,
        degrade_reject: ['utilization.gpu', 'clocks_event_reasons_counters'],
        gpus: '0',
        sweep_hold_sec: 0.5,
        sweep_gib: 1,
        trial_timeout_sec: 120,
        used_fields: [
          'index',
          'uuid',
          'memory.used',
          'memory.total',
          'driver_version',
          'utilization.gpu',
          'clocks_event_reasons_counters.sw_thermal_slowdown',
          'clocks_event_reasons_counters.hw_thermal_slowdown',
        ],
        extra_fields: [
          'utilization.memory',
          'temperature.gpu',
          'clocks_event_reasons.active',
          'clocks_event_reasons.sw_thermal_slowdown',
          'clocks_event_reasons.hw_thermal_slowdown',
          'clocks_throttle_reasons.active',
        ],
        app_fields: ['pid', 'gpu_uuid', 'used_memory'],
      },
      fields: {
        'gpu:index': field('0', '0'),
        'gpu:uuid': field(UUID, UUID),
        // 4 idle + 500 context + three 256 MiB matrices (a, the product, the next product).
        'gpu:memory.used': field('4', '1272'),
        'gpu:memory.total': field('81559', '81559'),
        'gpu:driver_version': field('580.95.05', '580.95.05'),
        'gpu:utilization.gpu': field('0', '100'),
        'gpu:clocks_event_reasons_counters.sw_thermal_slowdown': field('0', '0'),
        'gpu:clocks_event_reasons_counters.hw_thermal_slowdown': field('0', '0'),
        'gpu:utilization.memory': field('0', '37'),
        'gpu:temperature.gpu': field('31', '58'),
        'gpu:clocks_event_reasons.active': field('0x0000000000000001', '0x0000000000000000'),
        'gpu:clocks_event_reasons.sw_thermal_slowdown': field('Not Active', 'Not Active'),
        'gpu:clocks_event_reasons.hw_thermal_slowdown': field('Not Active', 'Not Active'),
        'gpu:clocks_throttle_reasons.active': {
          accepted: false,
          reason: REJECTED,
          load: { accepted: false, reason: REJECTED },
        },
        'apps:pid': apps,
        'apps:gpu_uuid': apps,
        'apps:used_memory': apps,
      },
      checks: [
        ...[
          [4, 4096, 4596],
          [16, 16384, 16884],
          [40, 40960, 41460],
        ].map(([gib, reserved, peak], i) => ({
          name: `vram ${gib} GiB`,
          ok: true,
          line: LINES[i],
          gib,
          verdict: 'pass',
          peak_vram_mib: peak,
          max_reserved_mib: reserved,
          context_mib: 500,
          attribution: 'process',
          samples: '<n>',
          warnings: [],
          expected_mib: peak,
          error_pct: 0,
        })),
        {
          name: 'hang silent-compute',
          ok: false,
          line: LINES[3],
          verdict: 'pass',
          exit_code: 0,
          computed: true,
          hang_detected: true,
          hang_signals: { output_silent: true, io_idle: true, gpu_idle: false },
          hang_reconciled: true,
          gpu_readable: true,
          detected_after_sec: '<sec>',
          detectors: [],
        },
        {
          name: 'fields',
          ok: true,
          line: LINES[4],
          accepted: 16,
          queried: 17,
          rejected_used: [],
          rejected_other: ['gpu:clocks_throttle_reasons.active'],
        },
        { name: 'utilization', ok: true, line: LINES[5], idle_pct: 0, load_pct: 100 },
        {
          name: 'hang silent-sleep',
          ok: true,
          line: LINES[6],
          verdict: 'fail',
          exit_code: -1,
          held: true,
          hang_detected: true,
          hang_signals: { output_silent: true, io_idle: true, gpu_idle: true },
          killed: true,
          detected_after_sec: '<sec>',
          detectors: ['tier2:hang'],
        },
        {
          name: 'oom',
          ok: true,
          line: LINES[7],
          verdict: 'fail',
          exit_code: 1,
          failure_detectors_fired: ['tier1:exit_nonzero', 'tier4:python_traceback', 'custom:cuda_oom'],
          error_detectors_fired: [],
          capture: {},
          raised: { phase: 'oom', type: 'torch.OutOfMemoryError', is_cuda_oom: true },
        },
        {
          name: 'nan',
          ok: true,
          line: LINES[8],
          verdict: 'fail',
          exit_code: 0,
          failure_detectors_fired: ['custom:nan_loss', 'tier4:nan_signature'],
          error_detectors_fired: [],
          capture: { step: '4', loss: 'nan' },
        },
        {
          name: 'degrade',
          ok: true,
          line: LINES[9],
          rejected: ['utilization.gpu', 'clocks_event_reasons_counters'],
          verdict: 'pass',
          exit_code: 0,
          peak_vram_mib: 1524,
          gpu_warnings: [],
          failed_calls: 0,
          disabled_reasons: [
            'GPU: nvidia-smi --query-gpu=clocks_event_reasons_counters exited with status 2: Field "clocks_event_reasons_counters.sw_thermal_slowdown" is not a valid field to query.',
            'GPU: GPU utilization: nvidia-smi --query-gpu=utilization.gpu exited with status 2: Field "utilization.gpu" is not a valid field to query.',
          ],
          gpu_readable: false,
        },
        {
          name: 'sampler-cost',
          ok: true,
          ...SAMPLER_COST_MASK,
        },
        {
          name: 'gpus',
          ok: true,
          line: LINES[11],
          exit_status: 0,
          overlap: false,
          trials: [0, 1].map((trial) => ({
            trial,
            verdict: 'pass',
            devices: ['0'],
            peak_vram_mib: 1524,
            cuda_visible_devices: '0',
            hip_visible_devices: '0',
            device_count: 1,
            start: '<time>',
            end: '<time>',
          })),
        },
      ],
    });

    // The trials ran through the built CLI with the fake nvidia-smi: the sampler's queries are in its log.
    const calls = readFileSync(join(state, 'calls.log'), 'utf8');
    expect(calls).toContain(
      '--query-gpu=index,uuid,memory.used,memory.total,driver_version --format=csv,noheader,nounits',
    );
    expect(calls).toContain('--query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits');
  });

  it('stops at a SHORT preflight line when nvidia-smi is not on PATH', { timeout: 30_000 }, async () => {
    const bin = join(tmp, 'bare-bin');
    mkdirSync(bin);
    symlinkSync(PYTHON ?? 'python3', join(bin, 'python3'));
    const record = join(tmp, 'preflight.json');
    const r = await run(process.execPath, [RUN_MJS, '--json', record], {
      ...process.env,
      PATH: bin,
      PYTHONPATH: join(FAKE, 'python'),
      PYTHONDONTWRITEBYTECODE: '1',
      GPU_CHECK_WORK: join(tmp, 'preflight-work'),
    });
    expect(r.code).toBe(2);
    expect(r.out).toBe('SHORT preflight: nvidia-smi is not on PATH\n');
    const rec = JSON.parse(readFileSync(record, 'utf8'));
    expect(rec.ok).toBe(false);
    expect(rec.checks).toEqual([{ name: 'preflight', ok: false, line: 'SHORT preflight: nvidia-smi is not on PATH' }]);
  });
});
