/**
 * The sampler's health readings (GPU utilization per tick, the thermal-throttle counter and device VRAM before the
 * spawn and after the exit) from fake amd-smi / nvidia-smi, and what Tier 2 (GPU idle) and Tier 3 (`vram_growth`,
 * `thermal_throttle`) make of them in a real trial.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmdSmiThrottle, parseAmdSmiUsage } from '../src/gpu/amd-smi.js';
import { GpuSampler } from '../src/gpu/index.js';
import { parseNvidiaSmiThrottle, parseNvidiaSmiUtilization } from '../src/gpu/nvidia-smi.js';
import { fakeKernelEnv, probeRecipe, tempRoot, trial } from './support/classifier.js';

const tmp = tempRoot('aorta-gpu-health-');
afterAll(() => tmp.cleanup());
const FAKES = fileURLToPath(new URL('./support/fake-gpu-tools/', import.meta.url));
const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/gpu-tools/${name}`, import.meta.url), 'utf8');

const UUID0 = 'GPU-3f1c9a2e-7b4d-4c8e-a1f0-5d6e7f809a1b';
const UUID1 = 'GPU-b27e4d10-9c3a-4f5b-8e2d-0a1b2c3d4e5f';

/** A scenario dir whose bin/ holds the fake tool; files answer its calls (see the fakes' header comments). */
function gpuEnv(tool: 'amd-smi' | 'nvidia-smi', files: Record<string, string>, base = process.env): NodeJS.ProcessEnv {
  const dir = tmp.dir(tool);
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(FAKES, tool), join(bin, tool));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return {
    ...base,
    PATH: `${bin}${delimiter}${base['PATH'] ?? ''}`,
    FAKE_GPU_SCENARIO: dir,
    ROCM_PATH: join(dir, 'no-rocm'),
  };
}
const calls = (env: NodeJS.ProcessEnv): string[] =>
  readFileSync(join(env['FAKE_GPU_SCENARIO']!, 'calls.log'), 'utf8').split('\n').filter(Boolean);

describe('health parsers', () => {
  it('amd-smi metric -u: gfx_activity per GPU in every value form, N/A as null', () => {
    expect(parseAmdSmiUsage(fixture('amd-smi/usage-rocm6.0-2gpu.json'))).toEqual({
      ok: true,
      value: new Map([
        ['gpu0', 0],
        ['gpu1', 37],
      ]),
    });
    expect(parseAmdSmiUsage(fixture('amd-smi/usage-rocm7.x-2gpu.json'))).toEqual({
      ok: true,
      value: new Map([
        ['gpu0', 98],
        ['gpu1', null],
      ]),
    });
  });

  it('amd-smi metric --throttle: the thermal accumulators summed (per-partition lists too); all N/A is null', () => {
    expect(parseAmdSmiThrottle(fixture('amd-smi/throttle-rocm6.3-mi300-2gpu.json'))).toEqual({
      ok: true,
      value: new Map([
        ['gpu0', 4],
        ['gpu1', 9],
      ]),
    });
    expect(parseAmdSmiThrottle(fixture('amd-smi/throttle-rocm7.x-na.json'))).toEqual({
      ok: true,
      value: new Map([['gpu0', null]]),
    });
    expect(parseAmdSmiThrottle('')).toEqual({ ok: false, error: { kind: 'no-json', message: 'printed nothing' } });
  });

  it('nvidia-smi utilization.gpu and the thermal clocks-event counters, keyed by uuid', () => {
    expect(parseNvidiaSmiUtilization(fixture('nvidia-smi/utilization-2gpu.csv'))).toEqual({
      ok: true,
      value: new Map([
        [UUID0, 3],
        [UUID1, null],
      ]),
    });
    expect(parseNvidiaSmiThrottle(fixture('nvidia-smi/throttle-2gpu.csv'))).toEqual({
      ok: true,
      value: new Map([
        [UUID0, 1200],
        [UUID1, 350],
      ]),
    });
    // A pre-535 driver's answer is not the queried fields: the whole reading is unusable, and says why.
    expect(parseNvidiaSmiThrottle(fixture('nvidia-smi/throttle-unsupported-driver.txt'))).toEqual({
      ok: false,
      error: {
        kind: 'bad-line',
        message:
          'printed a line that is not index, uuid, sw_thermal_slowdown, hw_thermal_slowdown: "Field "clocks_event_reasons_counters.sw_thermal_slowdown" is not a valid field …"',
      },
    });
  });
});

const AMD_BASE = {
  metric: fixture('amd-smi/metric-rocm6.0-2gpu.json'),
  process: fixture('amd-smi/process-rocm6.0-none.json'),
  version: fixture('amd-smi/version-rocm6.4.txt'),
};

describe('GpuSampler health readings', () => {
  it('off by default: no utilization or throttle call, and health() says so', async () => {
    const env = gpuEnv('amd-smi', { ...AMD_BASE, usage: fixture('amd-smi/usage-rocm6.0-2gpu.json') });
    const s = await GpuSampler.create({ tool: 'amd-smi', intervalMs: 50, env });
    s.start(process.pid);
    await new Promise((r) => setTimeout(r, 300));
    await s.stop();
    expect(calls(env).filter((c) => c.includes('-u') || c.includes('--throttle'))).toEqual([]);
    expect(s.utilizationPct()).toBeNull();
    expect(s.health()).toBe('health readings were not asked for');
  });

  it('amd-smi: the busiest GPU utilization each tick; throttle and VRAM before and after', async () => {
    const env = gpuEnv('amd-smi', {
      ...AMD_BASE,
      usage: fixture('amd-smi/usage-rocm6.0-2gpu.json'),
      'throttle.1': fixture('amd-smi/throttle-rocm6.3-mi300-2gpu.json'),
      'throttle.2': fixture('amd-smi/throttle-rocm6.3-mi300-2gpu.json').replace(
        '"socket_thermal_accumulated": 3',
        '"socket_thermal_accumulated": 7',
      ),
    });
    const s = await GpuSampler.create({ tool: 'amd-smi', intervalMs: 50, env, health: true });
    s.start(process.pid);
    for (let i = 0; i < 100 && s.utilizationPct() === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(s.utilizationPct()).toBe(37);
    const summary = await s.stop();
    expect(summary.warnings).toEqual([]);
    expect(s.health()).toEqual({
      vramBeforeMib: 768,
      vramAfterMib: 768,
      throttleBefore: 13,
      throttleAfter: 17,
      unavailable: [],
    });
    // Only the sampled devices count: gpu1 alone.
    const env1 = gpuEnv('amd-smi', { ...AMD_BASE, usage: fixture('amd-smi/usage-rocm7.x-2gpu.json') });
    const one = await GpuSampler.create({ tool: 'amd-smi', intervalMs: 50, env: env1, health: true, devices: ['1'] });
    one.start(process.pid);
    await new Promise((r) => setTimeout(r, 400));
    expect(one.utilizationPct()).toBeNull(); // gpu1's utilization is N/A; gpu0's 98 % is not this trial's
    await one.stop();
  });

  it('nvidia-smi on a driver without the throttle counters: memory and utilization unaffected, the reason kept', async () => {
    const env = gpuEnv('nvidia-smi', {
      'query-gpu': fixture('nvidia-smi/query-gpu-2gpu.csv'),
      'compute-apps': fixture('nvidia-smi/compute-apps-empty.csv'),
      utilization: fixture('nvidia-smi/utilization-2gpu.csv'),
      throttle: fixture('nvidia-smi/throttle-unsupported-driver.txt'),
      'throttle.exit': '2\n',
    });
    const s = await GpuSampler.create({ tool: 'nvidia-smi', intervalMs: 50, env, health: true });
    s.start(process.pid);
    for (let i = 0; i < 100 && s.utilizationPct() === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect(s.utilizationPct()).toBe(3);
    const summary = await s.stop();
    expect(summary.warnings).toEqual([]);
    expect(summary.baselineMib).toBe(768);
    expect(s.health()).toEqual({
      vramBeforeMib: 768,
      vramAfterMib: 768,
      throttleBefore: null,
      throttleAfter: null,
      unavailable: [
        'nvidia-smi --query-gpu=clocks_event_reasons_counters exited with status 2: Field "clocks_event_reasons_counters.sw_thermal_slowdown" is not a valid field to query.',
      ],
    });
  });
});

describe('health readings in a trial (real sampler, fake tools)', () => {
  const kernel = (): NodeJS.ProcessEnv => fakeKernelEnv('/nonexistent/kernel.log');

  it('Tier 3: VRAM left allocated after the exit is vram_growth (warn); a thermal counter that rose fails the trial', async () => {
    const grown = fixture('amd-smi/metric-rocm6.0-2gpu.json').replace('"used_vram": 512', '"used_vram": 1536');
    const env = gpuEnv(
      'amd-smi',
      {
        ...AMD_BASE,
        'metric.1': AMD_BASE.metric,
        metric: grown,
        usage: fixture('amd-smi/usage-rocm6.0-2gpu.json'),
        'throttle.1': fixture('amd-smi/throttle-rocm6.3-mi300-2gpu.json'),
        'throttle.2': fixture('amd-smi/throttle-rocm6.3-mi300-2gpu.json').replace(
          '"hbm_thermal_accumulated": 1',
          '"hbm_thermal_accumulated": 2',
        ),
      },
      kernel(),
    );
    const { result } = await trial(null, ['sleep', '0.3'], {
      outDir: tmp.dir('tier3'),
      env,
      gpuTool: 'amd-smi',
      gpuIntervalMs: 100,
    });
    expect(result.failure_detectors_fired).toEqual(['tier3:thermal_throttle']);
    expect(result.warn_detectors_fired).toEqual(['tier3:vram_growth']);
    expect(result.verdict).toBe('fail');
  }, 30_000);

  // A trial that prints nothing but keeps copying 64 KiB to /dev/null (far above the 4 KiB idle slack even on a
  // loaded host): output silent, I/O busy. With 1 s windows the
  // third signal decides: GPU idle (utilization 3 %) makes it a hang; a busy GPU (90 %) does not.
  const QUIET_IO = [
    'sh',
    '-c',
    'i=0; while [ $i -lt 30 ]; do head -c 65536 /dev/zero > /dev/null; sleep 0.1; i=$((i+1)); done',
  ];
  const NV = (util: string): Record<string, string> => ({
    'query-gpu': fixture('nvidia-smi/query-gpu-2gpu.csv'),
    'compute-apps': fixture('nvidia-smi/compute-apps-empty.csv'),
    utilization: util,
    throttle: fixture('nvidia-smi/throttle-2gpu.csv'),
  });

  it('Tier 2: an idle GPU is the signal that makes a silent trial busy with I/O a hang', async () => {
    const recipe = probeRecipe('hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\n');
    const idle = gpuEnv('nvidia-smi', NV(fixture('nvidia-smi/utilization-2gpu.csv')), kernel());
    const { result } = await trial(recipe, QUIET_IO, {
      outDir: tmp.dir('idle'),
      env: idle,
      gpuTool: 'nvidia-smi',
      gpuIntervalMs: 100,
    });
    expect(result.failure_detectors_fired).toEqual(['tier2:hang']);
    expect(result.hang).toMatchObject({
      detected: true,
      signals: { output_silent: true, io_idle: false, gpu_idle: true },
    });

    const busy = gpuEnv('nvidia-smi', NV(`0, ${UUID0}, 90\n1, ${UUID1}, 0\n`), kernel());
    const { result: r2 } = await trial(recipe, QUIET_IO, {
      outDir: tmp.dir('busy'),
      env: busy,
      gpuTool: 'nvidia-smi',
      gpuIntervalMs: 100,
    });
    expect(r2.verdict).toBe('pass');
    expect(r2.hang).toMatchObject({ detected: false });
  }, 60_000);
});
