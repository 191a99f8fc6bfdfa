/**
 * The trial runner with the GPU memory sampler and a fake amd-smi (test/support/fake-gpu-tools/amd-smi, which
 * answers its n-th `metric` call from the scenario file `metric.<n>`, else `metric`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { runTrial } from '../src/trial/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-trial-gpu-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FAKE_AMD_SMI = fileURLToPath(new URL('./support/fake-gpu-tools/amd-smi', import.meta.url));

/** `amd-smi metric -m --json` as ROCm 7.x prints it, for two GPUs with the given used VRAM (MB = MiB in amd-smi). */
function metric(used0: number, used1: number): string {
  const gpu = (gpu: number, used: number) => ({
    gpu,
    mem_usage: {
      total_vram: { value: 49136, unit: 'MB' },
      used_vram: { value: used, unit: 'MB' },
      free_vram: { value: 49136 - used, unit: 'MB' },
    },
  });
  return `${JSON.stringify({ gpu_data: [gpu(0, used0), gpu(1, used1)] }, null, 4)}\n`;
}
const NO_PROCESSES = `${JSON.stringify(
  [0, 1].map((gpu) => ({ gpu, process_list: [{ process_info: 'No running processes detected' }] })),
  null,
  4,
)}\n`;

function scenario(files: Record<string, string>): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(root, 'scenario-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(FAKE_AMD_SMI, join(bin, 'amd-smi'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    FAKE_GPU_SCENARIO: dir,
    ROCM_PATH: join(dir, 'no-rocm'),
  };
}

const RECIPE = loadRecipe(
  `custom_patterns:
  - id: big_vram
    match:
      regex: "training done"
      condition: "peak_vram_mib > 4000"
    on_match: warn
`,
  'gpu.yaml',
);

describe('runTrial with the GPU sampler', () => {
  it('reports the VRAM peak between the before and after samples, which the original two-sample method missed', async () => {
    // Call 1 is the baseline before the spawn; call 3 (during the run) is the peak; every later call — including
    // the last, "after" — is back at the baseline. The original's max(before, after) would say 768 MiB.
    const env = scenario({
      version: 'AMD-SMI 26.2.0+unknown  amdgpu version: 6.16.3  ROCm version: N/A\n',
      'metric.1': metric(512, 256),
      'metric.3': metric(512 + 4096, 256),
      metric: metric(512, 256),
      process: NO_PROCESSES,
    });
    const code = "setTimeout(() => console.log('training done'), 2000)";
    const { result, resultPath } = await runTrial(RECIPE, [process.execPath, '-e', code], {
      outDir: join(root, 'peak'),
      gpuTool: 'amd-smi',
      gpuIntervalMs: 100,
      env,
      runnerEnv: env,
    });
    const scenarioDir = env.FAKE_GPU_SCENARIO!;
    const metricCalls = Number(readFileSync(join(scenarioDir, 'metric.count'), 'utf8'));
    expect(metricCalls).toBeGreaterThanOrEqual(4); // baseline, the peak, and samples after it
    expect(result).toMatchObject({
      verdict: 'pass',
      peak_vram_mib: 4096,
      warn_detectors_fired: ['custom:big_vram'],
      gpu: {
        tool: 'amd-smi',
        tool_version: '26.2.0+unknown',
        attribution: 'device-minus-baseline',
        baseline_mib: 768,
        peak_vram_mib: 4096,
        failed_calls: 0,
        interval_ms: 100,
      },
      versions: { gpu_tool: expect.stringMatching(/^amd-smi /) },
      result_version: 2,
    });
    expect(result.gpu.samples).toBeGreaterThanOrEqual(3);
    // result.json holds the same object: `gpu` in snake_case (result_version 2), no camelCase key left.
    const written = JSON.parse(readFileSync(resultPath, 'utf8')) as typeof result;
    expect(written).toEqual(result);
    expect(Object.keys(written.gpu)).toEqual([
      'tool',
      'tool_version',
      'attribution',
      'baseline_mib',
      'peak_vram_mib',
      'samples',
      'failed_calls',
      'interval_ms',
      'warnings',
    ]);
  }, 30_000);

  it('a broken GPU tool never changes the trial: peak null (conditions see 0), a warning, the verdict from the trial', async () => {
    const env = scenario({
      metric: 'Traceback (most recent call last):\n  garbage\n',
      'metric.exit': '1',
      process: 'garbage\n',
      version: 'garbage\n',
    });
    const { result } = await runTrial(RECIPE, [process.execPath, '-e', "console.log('training done')"], {
      outDir: join(root, 'broken'),
      gpuTool: 'amd-smi',
      gpuIntervalMs: 100,
      env,
      runnerEnv: env,
    });
    expect(result).toMatchObject({
      verdict: 'pass',
      exit_code: 0,
      peak_vram_mib: null,
      warn_detectors_fired: [],
      gpu: { tool: 'amd-smi', peak_vram_mib: null },
    });
    expect(result.gpu.warnings.length).toBeGreaterThan(0);
  }, 30_000);

  it('a sampler that throws is contained: the trial still runs and the failure is a warning', async () => {
    const { result } = await runTrial(null, [process.execPath, '-e', "console.log('ok')"], {
      outDir: join(root, 'throws'),
      gpuTool: 'amd-smi',
      gpuSamplerFactory: () =>
        Promise.resolve({
          start: () => {
            throw new Error('boom');
          },
          stop: () => Promise.reject(new Error('bang')),
        }),
    });
    expect(result).toMatchObject({ verdict: 'pass', exit_code: 0, peak_vram_mib: null });
    expect(result.gpu.warnings).toEqual(['GPU sampler could not start sampling: boom', 'GPU sampler failed: bang']);
  });
});
