import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findTool } from '../src/gpu/find-tool.js';
import { GpuSampler, type GpuSamplerOptions, type GpuSummary } from '../src/gpu/index.js';
import { readProcessTree } from '../src/gpu/proc-tree.js';

// ---------------------------------------------------------------------------------------------
// helpers: a scenario is a temp dir with a bin/ holding the fake tools (and the few utilities the
// fakes use), plus the files the fakes answer from (see test/support/fake-gpu-tools/amd-smi).

type Tool = 'amd-smi' | 'nvidia-smi';
const FAKES = fileURLToPath(new URL('./support/fake-gpu-tools/', import.meta.url));
const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/gpu-tools/${name}`, import.meta.url), 'utf8');
/** The fakes need these on PATH; the PATH holds nothing else, so a real GPU tool cannot leak in. */
const UTILITIES = ['cat', 'sleep'].map((u) =>
  execFileSync('sh', ['-c', `command -v ${u}`], { encoding: 'utf8' }).trim(),
);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

interface Scenario {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** How many times the fake ran `cmd` so far. */
  count(cmd: string): number;
  calls(): string[];
  overlaps(): string;
  pids(cmd: string): number[];
}

function scenario(tools: Tool[], files: Record<string, string>): Scenario {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-sampler-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const t of tools) symlinkSync(join(FAKES, t), join(bin, t));
  for (const u of UTILITIES) symlinkSync(u, join(bin, u.slice(u.lastIndexOf('/') + 1)));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const read = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  return {
    dir,
    env: { PATH: bin, FAKE_GPU_SCENARIO: dir, ROCM_PATH: join(dir, 'no-rocm') },
    count: (cmd) => Number(read(`${cmd}.count`) || 0),
    calls: () =>
      read('calls.log')
        .split('\n')
        .filter((l) => l !== ''),
    overlaps: () => read('overlap.log'),
    pids: (cmd) =>
      read(`${cmd}.pids`)
        .split('\n')
        .filter((l) => l !== '')
        .map(Number),
  };
}

/** A trial: a shell (the root) with a `sleep` child. */
interface Trial {
  root: number;
  child: number;
}
async function startTrial(): Promise<Trial> {
  const proc: ChildProcess = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
  cleanups.push(() => {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      /* gone */
    }
    proc.kill('SIGKILL');
  });
  let child = 0;
  child = await new Promise<number>((resolve) =>
    proc.stdout!.once('data', (b: Buffer) => resolve(Number(b.toString().trim()))),
  );
  return { root: proc.pid!, child };
}

/** Process fixture text with the placeholder pids replaced by the trial's. */
function withTrialPids(text: string, t: Trial): string {
  return text.replaceAll('424242', String(t.root)).replaceAll('424243', String(t.child));
}

async function waitFor(what: string, pred: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Runs a sampler over a trial until the fakes have been called `calls` times, then stops it. Calls
 * never overlap and the next one starts only after the previous result was recorded, so when call n
 * has started, calls 1..n-1 are fully accounted for.
 */
async function sample(s: Scenario, options: GpuSamplerOptions, calls: number, trial?: Trial): Promise<GpuSummary> {
  const t = trial ?? (await startTrial());
  const sampler = await GpuSampler.create({ intervalMs: 20, callTimeoutMs: 10000, env: s.env, ...options });
  sampler.start(t.root);
  await waitFor(`${calls} tool calls`, () => s.calls().length >= calls);
  return sampler.stop();
}

/** Like `sample` for a tool that fails every call: waits until the sampler has given up (6 calls, all ended). */
async function sampleUntilGivenUp(s: Scenario, options: GpuSamplerOptions = {}): Promise<GpuSummary> {
  const t = await startTrial();
  const sampler = await GpuSampler.create({ intervalMs: 20, callTimeoutMs: 10000, env: s.env, ...options });
  sampler.start(t.root);
  await waitFor('6 tool calls', () => s.calls().length >= 6);
  const pids = (): number[] => ['metric', 'process', 'query-gpu', 'compute-apps'].flatMap((cmd) => s.pids(cmd));
  await waitFor('the last call to end', () => pids().every((p) => !isAlive(p)));
  await new Promise((r) => setTimeout(r, 100)); // its exit and pipes reach the event loop
  const summary = await sampler.stop();
  expect(s.calls().length).toBe(6); // given up: no further calls
  return summary;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const SUMMARY_BASE = { toolVersion: null, intervalMs: 20, failedCalls: 0, warnings: [] };

/**
 * A tool failing every call: peakVramMib null and exactly one warning. A query failing 3 times in a
 * row is given up, so the counts are exact: the device query 3 times (baseline included), the
 * process query 3 times.
 */
const FAILING = {
  ...SUMMARY_BASE,
  tool: 'amd-smi',
  attribution: null,
  baselineMib: null,
  peakVramMib: null,
  samples: 0,
  failedCalls: 6,
} as const;

// ---------------------------------------------------------------------------------------------

// Generous timeouts: a loaded CI host may take a second per fake call.
describe('GpuSampler with a fake amd-smi', { timeout: 30000 }, () => {
  it('attributes the per-process VRAM of the trial tree (root and child), not other processes', async () => {
    const t = await startTrial();
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/metric-rocm7.x-2gpu.json'),
      process: withTrialPids(fixture('amd-smi/process-rocm7.x-2gpu.json'), t),
      version: fixture('amd-smi/version-rocm7.x-distro.txt'),
    });
    const { samples, ...summary } = await sample(s, {}, 7, t);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      toolVersion: '26.2.0+unknown',
      attribution: 'process',
      baselineMib: 768,
      peakVramMib: 2048, // 1536 (root, GPU 0) + 512 (child, GPU 1); pid 9999's 4096 is not the trial's
    });
    expect(samples).toBeGreaterThanOrEqual(2);
    // Baseline, then per tick: metric, process; `version` once after the first tick.
    expect(s.calls().slice(0, 6)).toEqual([
      'metric -m --json',
      'metric -m --json',
      'process --json',
      'version',
      'metric -m --json',
      'process --json',
    ]);
    expect(s.overlaps()).toBe('');
  });

  it('catches a peak between two of the before/after samples the original took (device minus baseline)', async () => {
    const idle = fixture('amd-smi/metric-rocm7.x-2gpu.json');
    const s = scenario(['amd-smi'], {
      'metric.1': idle, // baseline, before spawn
      'metric.2': fixture('amd-smi/metric-rocm7.x-2gpu-peak.json'), // GPU 0: 512 -> 2560 MiB, for one sample
      metric: idle, // back to idle: a before/after pair sees 768 and 768, a delta of 0
      process: fixture('amd-smi/process-rocm7.x-none.json'),
      version: fixture('amd-smi/version-rocm6.4.txt'),
    });
    const { samples, ...summary } = await sample(s, {}, 7);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      toolVersion: '25.3.0+ede62f2',
      attribution: 'device-minus-baseline',
      baselineMib: 768,
      peakVramMib: 2048,
    });
    expect(samples).toBeGreaterThanOrEqual(2);
    expect(s.overlaps()).toBe('');
  });

  it('sums the increase over GPUs, each clamped at 0 (memory freed on one GPU does not cancel another)', async () => {
    const busy = fixture('amd-smi/metric-rocm7.x-2gpu-both-busy.json'); // 1536 + 1280
    const s = scenario(['amd-smi'], {
      'metric.1': fixture('amd-smi/metric-rocm7.x-2gpu.json'), // 512 + 256
      metric: busy,
      process: fixture('amd-smi/process-rocm7.x-none.json'),
    });
    const up = await sample(s, {}, 4);
    expect([up.attribution, up.baselineMib, up.peakVramMib]).toEqual(['device-minus-baseline', 768, 2048]);

    const s2 = scenario(['amd-smi'], {
      'metric.1': busy, // baseline 1536 + 1280
      metric: fixture('amd-smi/metric-rocm7.x-2gpu-peak.json'), // 2560 (+1024) and 256 (-1024, counted as 0)
      process: fixture('amd-smi/process-rocm7.x-none.json'),
    });
    const mixed = await sample(s2, {}, 4);
    expect([mixed.attribution, mixed.baselineMib, mixed.peakVramMib]).toEqual(['device-minus-baseline', 2816, 1024]);
  });

  it.each([
    ['6.0, one GPU (bare object)', 'metric-rocm6.0-1gpu.json', 512],
    ['6.0, two GPUs (list of ints)', 'metric-rocm6.0-2gpu.json', 768],
    ['6.1–6.4 (list of {value, unit})', 'metric-rocm6.1-6.4-2gpu.json', 768],
    ['7.x ({"gpu_data": [...]})', 'metric-rocm7.x-2gpu.json', 768],
    ['the groups WARNING before the JSON', 'metric-rocm6.4-groups-warning.txt', 768],
    ['watch-mode output (last iteration)', 'metric-watch-2-iterations.txt', 1024],
    ['duplicated documents', 'metric-rocm7.2-duplicated.txt', 512],
    ['CPU, core and GPU documents', 'metric-rocm6.1-epyc-cpu-core-gpu.txt', 512],
    ['an APU (VRAM + GTT)', 'metric-rocm7.x-apu.json', 2048],
    ['one GPU N/A, the other known', 'metric-rocm7.x-na-value-object.json', 768],
  ])('reads the metric shape: %s', async (_name, file, baselineMib) => {
    const s = scenario(['amd-smi'], {
      metric: fixture(`amd-smi/${file}`),
      process: fixture('amd-smi/process-rocm6.0-none.json'),
    });
    const { samples, ...summary } = await sample(s, {}, 4);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: 'device-minus-baseline',
      baselineMib,
      peakVramMib: 0,
    });
    expect(samples).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['6.0–6.1.0 values[]', 'process-rocm6.0-2proc.json', 2048],
    ['6.1.2 last process only', 'process-rocm6.1.2-last-only.json', 1024],
    ['6.2–6.4 process_list', 'process-rocm6.2-6.4-2gpu.json', 2048],
    ['the groups WARNING before the JSON', 'process-rocm6.4-groups-warning.txt', 2048],
  ])('reads the process layout: %s', async (_name, file, peakVramMib) => {
    const t = await startTrial();
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/metric-rocm6.0-2gpu.json'),
      process: withTrialPids(fixture(`amd-smi/${file}`), t),
    });
    const { samples, ...summary } = await sample(s, {}, 4, t);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: 'process',
      baselineMib: 768,
      peakVramMib,
    });
    expect(samples).toBeGreaterThanOrEqual(1);
  });

  it('crashes (non-zero exit, message on stderr)', async () => {
    const s = scenario(['amd-smi'], {
      'metric.exit': '255',
      'metric.stderr': fixture('amd-smi/driver-not-loaded.stderr.txt'),
      'process.exit': '255',
      'process.stderr': fixture('amd-smi/driver-not-loaded.stderr.txt'),
    });
    const summary = await sampleUntilGivenUp(s);
    expect(summary).toEqual({
      ...FAILING,
      warnings: [
        'amd-smi metric -m --json exited with status 255: ERROR: Driver not loaded (amdgpu not found in modules)',
      ],
    });
  });

  it('prints garbage (a traceback) with exit status 0', async () => {
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/garbage-traceback.txt'),
      process: fixture('amd-smi/garbage-traceback.txt'),
    });
    const summary = await sampleUntilGivenUp(s);
    expect(summary).toEqual({
      ...FAILING,
      warnings: [
        'amd-smi metric -m --json printed no JSON: "Traceback (most recent call last): File "/opt/rocm/bin/amd-smi", line 37, in <m…"',
      ],
    });
  });

  it('prints a JSON error with exit status 0 (6.x)', async () => {
    const err = fixture('amd-smi/error-rocm6.x-exit0.txt');
    const s = scenario(['amd-smi'], { metric: err, process: err });
    const summary = await sampleUntilGivenUp(s);
    expect(summary).toEqual({
      ...FAILING,
      warnings: ["amd-smi metric -m --json reported an error: Can not find a device: GPU '9' (code -3)"],
    });
  });

  it('prints a prefixed JSON error with a non-zero exit (7.x)', async () => {
    const err = fixture('amd-smi/error-rocm7.x-prefixed.txt');
    const s = scenario(['amd-smi'], { metric: err, 'metric.exit': '3', process: err, 'process.exit': '3' });
    const summary = await sampleUntilGivenUp(s);
    expect(summary).toEqual({
      ...FAILING,
      warnings: [
        'amd-smi metric -m --json exited with status 3: AmdSmiDeviceNotFoundException {"error": "Can not find a device: GPU \'9\'", "code": -3}',
      ],
    });
  });

  it('reports used VRAM as N/A everywhere: one warning, no peak', async () => {
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/metric-rocm7.x-mem-usage-na.json'),
      process: fixture('amd-smi/process-rocm7.x-none.json'),
    });
    const { samples, ...summary } = await sample(s, {}, 8);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: null,
      baselineMib: null,
      peakVramMib: null,
      failedCalls: 3,
      warnings: ['amd-smi metric -m --json reported used memory as N/A for every GPU'],
    });
    expect(samples).toBeGreaterThanOrEqual(2); // the process listing worked
  });

  it('falls back to device minus baseline when `process` needs elevation', async () => {
    const s = scenario(['amd-smi'], {
      'metric.1': fixture('amd-smi/metric-rocm6.1-6.4-2gpu.json'),
      metric: fixture('amd-smi/metric-rocm7.x-2gpu-peak.json'),
      'process.exit': '11',
      'process.stderr': 'AmdSmiRequiresElevationException: Command requires elevation\n',
    });
    const { samples, ...summary } = await sample(s, {}, 9);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: 'device-minus-baseline',
      baselineMib: 768,
      peakVramMib: 2048,
      failedCalls: 3,
      warnings: [
        'amd-smi process --json exited with status 11: AmdSmiRequiresElevationException: Command requires elevation',
      ],
    });
    expect(samples).toBeGreaterThanOrEqual(3);
  });

  it('survives one failed call among good ones', async () => {
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/metric-rocm6.0-1gpu.json'),
      'metric.2': 'Segmentation fault\n',
      'metric.2.exit': '139',
      'metric.3': fixture('amd-smi/metric-rocm6.0-2gpu.json'), // GPU 1 appears: no baseline for it, not counted
      process: fixture('amd-smi/process-rocm6.0-none.json'),
    });
    const { samples, ...summary } = await sample(s, {}, 7);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: 'device-minus-baseline',
      baselineMib: 512,
      peakVramMib: 0,
      failedCalls: 1,
      warnings: ['amd-smi metric -m --json exited with status 139: Segmentation fault'],
    });
    expect(samples).toBeGreaterThanOrEqual(2);
  });
});

describe('GpuSampler with a fake nvidia-smi', { timeout: 30000 }, () => {
  it('attributes per-process memory (one row per pid and GPU) and reads the driver version', async () => {
    const t = await startTrial();
    const s = scenario(['nvidia-smi'], {
      'query-gpu': fixture('nvidia-smi/query-gpu-2gpu.csv'),
      'compute-apps': withTrialPids(fixture('nvidia-smi/compute-apps-2gpu.csv'), t),
    });
    const { samples, ...summary } = await sample(s, {}, 4, t);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'nvidia-smi',
      toolVersion: '550.54.15',
      attribution: 'process',
      baselineMib: 768,
      peakVramMib: 2048, // 1536 on GPU 0 + 512 on GPU 1; pid 9999 is not the trial's
    });
    expect(samples).toBeGreaterThanOrEqual(1);
    expect(s.calls().slice(0, 3)).toEqual([
      '--query-gpu=index,uuid,memory.used,memory.total,driver_version --format=csv,noheader,nounits',
      '--query-gpu=index,uuid,memory.used,memory.total,driver_version --format=csv,noheader,nounits',
      '--query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits',
    ]);
    expect(s.overlaps()).toBe('');
  });

  it.each([
    ['no compute process (empty output)', 'compute-apps-empty.csv'],
    ['per-process memory [N/A] (WDDM)', 'compute-apps-wddm-na.csv'],
  ])('falls back to device minus baseline: %s, and catches the peak', async (_name, apps) => {
    const idle = fixture('nvidia-smi/query-gpu-2gpu.csv');
    const t = await startTrial();
    const s = scenario(['nvidia-smi'], {
      'query-gpu.1': idle,
      'query-gpu.2': fixture('nvidia-smi/query-gpu-2gpu-peak.csv'),
      'query-gpu': idle,
      'compute-apps': withTrialPids(fixture(`nvidia-smi/${apps}`), t),
    });
    const { samples, ...summary } = await sample(s, {}, 4, t);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'nvidia-smi',
      toolVersion: '550.54.15',
      attribution: 'device-minus-baseline',
      baselineMib: 768,
      peakVramMib: 2048,
    });
    expect(samples).toBeGreaterThanOrEqual(1);
  });

  it('driver failure (exit 9, message on stdout)', async () => {
    const msg = fixture('nvidia-smi/driver-failure.txt');
    const s = scenario(['nvidia-smi'], {
      'query-gpu': msg,
      'query-gpu.exit': '9',
      'compute-apps': msg,
      'compute-apps.exit': '9',
    });
    const summary = await sampleUntilGivenUp(s);
    expect(summary).toEqual({
      ...FAILING,
      tool: 'nvidia-smi',
      warnings: [
        "nvidia-smi --query-gpu exited with status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver i…",
      ],
    });
  });

  it('output in another format', async () => {
    const s = scenario(['nvidia-smi'], {
      'query-gpu': fixture('nvidia-smi/query-gpu-wrong-fields.csv'),
      'compute-apps': fixture('nvidia-smi/compute-apps-empty.csv'),
    });
    const { samples, ...summary } = await sample(s, {}, 6);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'nvidia-smi',
      attribution: null,
      baselineMib: null,
      peakVramMib: null,
      failedCalls: 3,
      warnings: [
        'nvidia-smi --query-gpu printed a line that is not index, uuid, memory.used, memory.total, driver_version: "memory.used [MiB], memory.total [MiB]"',
      ],
    });
    expect(samples).toBeGreaterThanOrEqual(2);
  });
});

describe('GpuSampler timing with a fake amd-smi', { timeout: 30000 }, () => {
  it('hangs past the timeout: each call is killed at callTimeoutMs, create() and the trial are not held up', async () => {
    const s = scenario(['amd-smi'], {
      metric: fixture('amd-smi/metric-rocm7.x-2gpu.json'),
      'metric.sleep': '30',
      'process.sleep': '30',
    });
    const t = await startTrial();
    const t0 = performance.now();
    const sampler = await GpuSampler.create({ intervalMs: 20, callTimeoutMs: 150, env: s.env });
    const createMs = performance.now() - t0;
    sampler.start(t.root);
    await waitFor('6 killed calls', () => s.calls().length >= 6);
    await waitFor('the last call to be killed', () =>
      [...s.pids('metric'), ...s.pids('process')].every((p) => !isAlive(p)),
    );
    await new Promise((r) => setTimeout(r, 100));
    const summary = await sampler.stop();
    expect(s.calls().length).toBe(6);
    expect(summary).toEqual({
      ...FAILING,
      warnings: ['amd-smi metric -m --json timed out after 150 ms and was killed'],
    });
    expect(createMs).toBeGreaterThanOrEqual(140);
    expect(createMs).toBeLessThan(1000);
    expect(isAlive(t.root)).toBe(true); // the trial was not touched
  });

  it('stop() kills the call in flight at once; a run without a completed sample says so', async () => {
    const s = scenario(['amd-smi'], { metric: fixture('amd-smi/metric-rocm7.x-2gpu.json'), 'metric.2.sleep': '30' });
    const t = await startTrial();
    const sampler = await GpuSampler.create({ intervalMs: 20, callTimeoutMs: 5000, env: s.env });
    sampler.start(t.root);
    await waitFor('the second metric call', () => s.count('metric') >= 2);
    const t0 = performance.now();
    const summary = await sampler.stop();
    expect(performance.now() - t0).toBeLessThan(500);
    expect(summary).toEqual({
      ...SUMMARY_BASE,
      tool: 'amd-smi',
      attribution: null,
      baselineMib: 768,
      peakVramMib: null,
      samples: 0,
      warnings: ['no GPU memory sample completed during the run (it was shorter than one amd-smi call)'],
    });
    await waitFor('the killed call to be reaped', () => s.pids('metric').every((p) => !isAlive(p)), 2000);
    expect(await sampler.stop()).toBe(summary); // idempotent
  });
});

describe('tool choice', () => {
  const quiet = {
    metric: fixture('amd-smi/metric-rocm6.0-1gpu.json'),
    'query-gpu': fixture('nvidia-smi/query-gpu-1gpu-with-units.csv'),
  };

  it('auto: amd-smi when both exist, nvidia-smi when only it exists', async () => {
    const both = await GpuSampler.create({ env: scenario(['amd-smi', 'nvidia-smi'], quiet).env });
    expect((await both.stop()).tool).toBe('amd-smi');
    const nv = await GpuSampler.create({ env: scenario(['nvidia-smi'], quiet).env });
    expect(await nv.stop()).toEqual({
      tool: 'nvidia-smi',
      toolVersion: '570.86.10',
      attribution: null,
      baselineMib: 512,
      peakVramMib: null,
      samples: 0,
      failedCalls: 0,
      intervalMs: 1000,
      warnings: [],
    });
  });

  it('an explicit choice overrides detection', async () => {
    const s = scenario(['amd-smi', 'nvidia-smi'], quiet);
    const sampler = await GpuSampler.create({ tool: 'nvidia-smi', env: s.env });
    expect((await sampler.stop()).tool).toBe('nvidia-smi');
    expect(s.count('metric')).toBe(0);
  });

  it('none found: one warning, nothing sampled', async () => {
    const s = scenario([], {});
    const empty = {
      toolVersion: null,
      attribution: null,
      baselineMib: null,
      peakVramMib: null,
      samples: 0,
      failedCalls: 0,
      intervalMs: 50,
    };
    const auto = await GpuSampler.create({ intervalMs: 50, env: s.env });
    auto.start(process.pid);
    expect(await auto.stop()).toEqual({
      ...empty,
      tool: null,
      warnings: ['GPU memory not sampled: neither amd-smi nor nvidia-smi was found on PATH'],
    });
    const amd = await GpuSampler.create({ tool: 'amd-smi', intervalMs: 50, env: s.env });
    expect(await amd.stop()).toEqual({
      ...empty,
      tool: null,
      warnings: ['GPU memory not sampled: amd-smi was not found on PATH'],
    });
  });

  it("'none' runs nothing, even with tools present", async () => {
    const s = scenario(['amd-smi', 'nvidia-smi'], quiet);
    const sampler = await GpuSampler.create({ tool: 'none', env: s.env });
    sampler.start(process.pid);
    expect(await sampler.stop()).toEqual({
      tool: null,
      toolVersion: null,
      attribution: null,
      baselineMib: null,
      peakVramMib: null,
      samples: 0,
      failedCalls: 0,
      intervalMs: 1000,
      warnings: [],
    });
    expect(s.calls()).toEqual([]);
  });

  it('finds amd-smi in $ROCM_PATH/bin, and skips a file that is not executable', async () => {
    const s = scenario([], {});
    const rocmBin = join(s.dir, 'rocm', 'bin');
    mkdirSync(rocmBin, { recursive: true });
    copyFileSync(join(FAKES, 'amd-smi'), join(rocmBin, 'amd-smi'));
    chmodSync(join(rocmBin, 'amd-smi'), 0o644);
    const env = { ...s.env, ROCM_PATH: join(s.dir, 'rocm') };
    expect(await findTool('amd-smi', env)).toBeNull();
    chmodSync(join(rocmBin, 'amd-smi'), 0o755);
    expect(await findTool('amd-smi', env)).toBe(join(rocmBin, 'amd-smi'));
    expect(await findTool('nvidia-smi', env)).toBeNull();
  });

  it('rejects invalid options', async () => {
    await expect(GpuSampler.create({ intervalMs: 0 })).rejects.toThrow(
      'GpuSampler: intervalMs must be a positive number of milliseconds, not 0',
    );
    await expect(GpuSampler.create({ callTimeoutMs: Number.NaN })).rejects.toThrow(
      'GpuSampler: callTimeoutMs must be a positive number of milliseconds, not NaN',
    );
    await expect(GpuSampler.create({ tool: 'rocm-smi' as 'none' })).rejects.toThrow(
      `GpuSampler: tool must be 'auto', 'amd-smi', 'nvidia-smi' or 'none', not "rocm-smi"`,
    );
  });
});

describe('readProcessTree', () => {
  it.skipIf(process.platform !== 'linux')('holds the root and its descendants, and nothing else', async () => {
    const t = await startTrial();
    const tree = await readProcessTree(t.root);
    expect([...tree].sort((a, b) => a - b)).toEqual([t.root, t.child].sort((a, b) => a - b));
    expect(tree.has(process.pid)).toBe(false);
  });
});

// Runs only where a real tool exists; what it prints is the host's, so only the invariants are exact.
const realAmd = (await findTool('amd-smi', process.env)) !== null;
const realNvidia = (await findTool('nvidia-smi', process.env)) !== null;
describe('a real GPU tool', () => {
  it.skipIf(!realAmd && !realNvidia)(
    'samples this host without warnings',
    async () => {
      const t = await startTrial();
      const sampler = await GpuSampler.create({ intervalMs: 200, callTimeoutMs: 20000 });
      sampler.start(t.root);
      await new Promise((r) => setTimeout(r, 4000));
      const summary = await sampler.stop();
      expect(summary.tool).toBe(realAmd ? 'amd-smi' : 'nvidia-smi');
      expect(summary.warnings).toEqual([]);
      expect(summary.failedCalls).toBe(0);
      expect(Number.isInteger(summary.baselineMib)).toBe(true);
      expect(summary.samples).toBeGreaterThan(0);
      expect(summary.peakVramMib).not.toBeNull();
    },
    60000,
  );
});

describe('implausible samples (issue 12 §5)', () => {
  it('a 2^64 MiB reading is dropped with one warning and never becomes the peak', async () => {
    const absurd = fixture('amd-smi/metric-rocm7.x-2gpu-peak.json').replace(
      '"value": 2560',
      '"value": 18446744073709551616',
    );
    const s = scenario(['amd-smi'], {
      'metric.1': fixture('amd-smi/metric-rocm7.x-2gpu.json'), // 512 + 256
      metric: absurd,
      process: fixture('amd-smi/process-rocm7.x-none.json'),
    });
    const r = await sample(s, {}, 4);
    expect([r.attribution, r.baselineMib, r.peakVramMib]).toEqual(['device-minus-baseline', 768, 0]);
    expect(r.warnings).toEqual([
      'GPU memory sample ignored: gpu0 reported 18446744073709552000 MiB, over the plausible 67108864 MiB (a tool bug)',
    ]);
  });
});
