/**
 * Sweep plans: cell synthesis as the original's recipe builder does it (the original's recipe_builder.py (ROCm/aorta): names, slugs, duplicate and
 * conflict rules, unknown mitigations) and the sweep keys (mitigations, stop_after, retain, retry) with the
 * loader's file:line:col errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecipeError } from '../src/recipe/index.js';
import {
  loadSweepPlan,
  parseGpuList,
  slug,
  synthesizeCells,
  withDevices,
  GpuPool,
  trialDir,
} from '../src/sweep/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-plan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function recipe(text: string, name = `r${++n}.yaml`): string {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
}
const HEAD = 'schema_version: 1\nmode: probe\ntrials: 2\n';

async function planError(text: string, mitigationsFiles: string[] = []): Promise<RecipeError> {
  const err = await loadSweepPlan(recipe(text), { mitigationsFiles }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RecipeError);
  return err as RecipeError;
}

describe('slug (the original recipe_builder.py (ROCm/aorta))', () => {
  it.each([
    ['none', 'none'],
    ['tf32_off', 'tf32_off'],
    ['a b/c', 'a_b_c'],
    ['', '_'],
    ['.hidden', '_.hidden'],
    ['-x', '_-x'],
    ['ünï', '_n_'],
    ['v1.2-rc', 'v1.2-rc'],
  ])('%j → %j', (input, want) => {
    expect(slug(input)).toBe(want);
  });
});

describe('cell synthesis', () => {
  const table = new Map([
    ['none', new Map()],
    ['tf32_off', new Map([['NVIDIA_TF32_OVERRIDE', '0']])],
    ['dbg', new Map([['AMD_LOG_LEVEL', '4']])],
  ]);

  it('names cells mitigation-diagnostic, mitigation-major, each with both mitigations (the original test: ["none-none", "tf32_off-none"])', () => {
    const cells = synthesizeCells(['none', 'tf32_off'], ['none'], table);
    expect(cells.map((c) => c.name)).toEqual(['none-none', 'tf32_off-none']);
    expect(cells.map((c) => c.mitigations)).toEqual([
      ['none', 'none'],
      ['tf32_off', 'none'],
    ]);
    expect(Object.fromEntries(cells[1]!.env)).toEqual({ NVIDIA_TF32_OVERRIDE: '0' });
  });

  it('merges the two bundles, mitigation first', () => {
    const [cell] = synthesizeCells(['tf32_off'], ['dbg'], table);
    expect([...cell!.env]).toEqual([
      ['NVIDIA_TF32_OVERRIDE', '0'],
      ['AMD_LOG_LEVEL', '4'],
    ]);
  });

  it('rejects a slug collision (the original test: ["a-b", "a"] x ["c", "b-c"])', async () => {
    const e = await planError(
      `${HEAD}mitigation_axis: [a-b, a]\ndiagnostic_axis: [c, b-c]\nmitigations:\n  a-b: {}\n  a: {}\n  c: {}\n  b-c: {}\n`,
    );
    expect(e.reason).toBe(
      "probe-mode cell synthesis: ('a', 'b-c') and ('a-b', 'c') both slug to 'a-b-c'; rename one of the axis values",
    );
    expect([e.line, e.col]).toEqual([5, 22]);
  });

  it('rejects two bundles that set one variable differently, and accepts the same value twice', async () => {
    const e = await planError(
      `${HEAD}mitigation_axis: [m]\ndiagnostic_axis: [d]\nmitigations:\n  m: {X: 1}\n  d: {X: 2}\n`,
    );
    expect(e.reason).toBe(
      "probe-mode cell synthesis: mitigation_axis value 'm' sets X='1' but diagnostic_axis value 'd' sets X='2'; the two bundles conflict",
    );
    const ok = await loadSweepPlan(
      recipe(`${HEAD}mitigation_axis: [m]\ndiagnostic_axis: [d]\nmitigations:\n  m: {X: 1}\n  d: {X: 1, Y: on}\n`),
    );
    expect([...ok.cells[0]!.env]).toEqual([
      ['X', '1'],
      ['Y', 'True'],
    ]);
  });

  it('rejects an axis value that names no mitigation when the recipe loads, at its position', async () => {
    const e = await planError(
      `${HEAD}mitigation_axis: [none, my_tf32]\ndiagnostic_axis: [none]\nmitigations:\n  my_tf33: {NVIDIA_TF32_OVERRIDE: '0'}\n`,
    );
    expect(e.message.split('\n')[0]).toBe(
      `${join(root, `r${n}.yaml`)}:4:25: recipe.mitigation_axis[1]: unknown mitigation 'my_tf32'; available: ['amd_log_level_4', 'debug_clr_no_batch_cpu_sync', 'fa_prefer_aotriton', 'fa_prefer_ck', 'gpu_force_blit_copy_128', 'gpu_max_hw_queues_2', 'hip_launch_blocking', 'hsa_no_scratch_reclaim', 'hsa_no_sdma', 'my_tf33', 'nccl_launch_order_implicit', 'none', 'pytorch_alloc_expandable_segments', 'pytorch_no_cuda_memory_caching', 'rccl_gfx942_cheap_fence_off', 'roc_aql_queue_size_1024', 'roc_signal_pool_16k', 'tf32_off', 'xnack']; define it under 'mitigations:' or in a --mitigations-file`,
    );
    expect((e as RecipeError).suggestion).toBe('my_tf33');
  });

  it('takes mitigations from the built-ins, a --mitigations-file and the recipe; a name defined twice is an error', async () => {
    const file = recipe('site_fix: {SITE_FIX: "1"}\ncache_off: {PYTORCH_NO_CUDA_MEMORY_CACHING: 1}\n', 'mit.yaml');
    const plan = await loadSweepPlan(
      recipe(
        `${HEAD}mitigation_axis: [tf32_off, cache_off, site_fix, mine]\ndiagnostic_axis: [none]\nmitigations:\n  mine: {MINE: "1"}\n`,
      ),
      { mitigationsFiles: [file] },
    );
    expect(plan.cells.map((c) => [c.name, Object.fromEntries(c.env)])).toEqual([
      ['tf32_off-none', { DISABLE_TF32: '1' }],
      ['cache_off-none', { PYTORCH_NO_CUDA_MEMORY_CACHING: '1' }],
      ['site_fix-none', { SITE_FIX: '1' }],
      ['mine-none', { MINE: '1' }],
    ]);
    const clash = await planError(
      `${HEAD}mitigation_axis: [site_fix]\ndiagnostic_axis: [none]\nmitigations:\n  site_fix: {SITE_FIX: "2"}\n`,
      [file],
    );
    expect(clash.message.split('\n')[0]).toBe(
      `${join(root, `r${n}.yaml`)}:7:3: recipe.mitigations.site_fix: mitigation 'site_fix' is already defined by file:${file}; recipe:${join(root, `r${n}.yaml`)} defines it again (a name may come from one source only: rename one)`,
    );
  });
});

describe('the plan', () => {
  it('numbers tasks cell-major, with trials from --trials over the recipe, and the ticket directory', async () => {
    const plan = await loadSweepPlan(
      recipe(`${HEAD}ticket: 'T 1'\nmitigation_axis: [none, m]\ndiagnostic_axis: [none]\nmitigations: {m: {A: b}}\n`),
      { trials: 3 },
    );
    expect(plan.tasks.map((t) => `${t.index}:${t.cell.name}/${t.trial}`)).toEqual([
      '0:none-none/0',
      '1:none-none/1',
      '2:none-none/2',
      '3:m-none/0',
      '4:m-none/1',
      '5:m-none/2',
    ]);
    expect(trialDir('/o', plan.ticket, 'm-none', 2)).toBe('/o/T_1/m-none/trial_2');
    const dflt = await loadSweepPlan(recipe(`${HEAD}mitigation_axis: [none]\ndiagnostic_axis: [none]\n`));
    expect([dflt.ticket, dflt.trialsPerCell]).toEqual(['_no_ticket_', 2]);
  });

  it('budgets max_trials per cell with stop_after, and reads its defaults', async () => {
    const plan = await loadSweepPlan(
      recipe(`${HEAD}mitigation_axis: [none]\ndiagnostic_axis: [none]\nstop_after: {events: 2, max_trials: 5}\n`),
    );
    expect(plan.trialsPerCell).toBe(5);
    expect(plan.config.stopAfter).toEqual({ events: 2, maxTrials: 5, eventVerdict: 'fail' });
  });

  it('reads retain and retry (a bare `on:` key, which YAML 1.1 reads as True, counts as on)', async () => {
    const plan = await loadSweepPlan(
      recipe(
        `${HEAD}mitigation_axis: [none]\ndiagnostic_axis: [none]\nretain: {on_pass: summary, on_error: none}\nretry: {max: 2, on: [transient, tier1:timeout]}\n`,
      ),
    );
    expect(plan.config.retain).toEqual({ pass: 'summary', fail: 'full', error: 'none' });
    expect(plan.config.retry).toEqual({ max: 2, on: ['transient', 'tier1:timeout'] });
  });

  it.each([
    ['stop_after: {events: 2}', 'recipe.stop_after.max_trials: required when events is set'],
    ['stop_after: {events: 0, max_trials: 3}', 'recipe.stop_after.events: must be an int >= 1, got 0'],
    [
      'stop_after: {events: 1, max_trials: 3, event_verdict: flaky}',
      "recipe.stop_after.event_verdict: must be 'fail', 'pass' or 'error', got 'flaky'",
    ],
    ['stop_after: {event: 1}', "recipe.stop_after: unknown key 'event'; did you mean 'events'?"],
    ['retain: {on_fail: logs}', "recipe.retain.on_fail: must be one of 'full', 'log', 'summary', 'none', got 'logs'"],
    ['retain: {on_skip: none}', "recipe.retain: unknown keys ['on_skip']; allowed: ['on_error', 'on_fail', 'on_pass']"],
    ['retry: {max: 1}', "recipe.retry: missing required key 'on'"],
    ['retry: {max: -1, on: []}', 'recipe.retry.max: must be an int >= 0, got -1'],
    [
      'retry: {max: 1, on: tier1:timeout}',
      "recipe.retry.on: must be a list of detector ids or categories, got 'tier1:timeout'",
    ],
    [
      'mitigations: {m: {1X: a}}',
      "recipe.mitigations.m: '1X' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
    ],
    ['mitigations: {none: {A: b}}', "recipe.mitigations.none: 'none' is the empty bundle and cannot be redefined"],
  ])('rejects %s', async (line, reason) => {
    const e = await planError(`${HEAD}mitigation_axis: [none]\ndiagnostic_axis: [none]\n${line}\n`);
    expect(e.reason).toBe(reason);
    expect(e.line).toBe(6);
  });

  it('needs a probe recipe', async () => {
    const e = await planError('schema_version: 1\n');
    expect(e.reason).toBe("recipe: a sweep needs a 'mode: probe' recipe (trials, mitigation_axis, diagnostic_axis)");
  });
});

describe('GPU lists and the pool', () => {
  it('parses lists and ranges, and rejects repeats', () => {
    expect(parseGpuList('0-2,5,GPU-8d3c')).toEqual(['0', '1', '2', '5', 'GPU-8d3c']);
    expect(() => parseGpuList('0,0')).toThrow('--gpus: device 0 is listed twice');
    expect(() => parseGpuList('3-1')).toThrow("--gpus: range '3-1' ends before it starts");
  });

  it('hands out disjoint devices, lowest first, and waits when none are free', async () => {
    const pool = new GpuPool(['0', '1', '2', '3'], 2);
    const a = await pool.acquire();
    const b = await pool.acquire();
    expect([a, b]).toEqual([
      ['0', '1'],
      ['2', '3'],
    ]);
    let c: readonly string[] | null = null;
    const waiting = pool.acquire().then((x) => (c = x));
    await new Promise((r) => setTimeout(r, 10));
    expect(c).toBeNull();
    pool.release(b);
    await waiting;
    expect(c).toEqual(['2', '3']);
  });

  it('selects the devices in CUDA and HIP variables and drops an inherited ROCR filter', () => {
    expect(withDevices({ ROCR_VISIBLE_DEVICES: '0', PATH: '/bin' }, ['2', '3'])).toEqual({
      PATH: '/bin',
      CUDA_VISIBLE_DEVICES: '2,3',
      HIP_VISIBLE_DEVICES: '2,3',
    });
    expect(withDevices({ CUDA_VISIBLE_DEVICES: '0' }, ['1'], ['ROCR_VISIBLE_DEVICES'])).toEqual({
      ROCR_VISIBLE_DEVICES: '1',
    });
  });
});
