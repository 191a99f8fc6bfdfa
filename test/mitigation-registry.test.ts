/**
 * The mitigation registry (issue 36 §4): the original's 18 built-ins with their exact env, the original's sidecar
 * format and our flat map as --mitigations-file, a name defined twice an error naming both sources, an unknown axis
 * value rejected when the recipe loads (so `check` says it), `list-mitigations`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_MITIGATION_NAMES, builtinRegistry, loadRecipe, RecipeError } from '../src/recipe/index.js';
import { parseMitigationsFile } from '../src/sweep/config.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-registry-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
};

describe('the built-in registry', () => {
  it("holds the original's 18 bundles, in its order, with its exact variables", () => {
    const env = Object.fromEntries([...builtinRegistry()].map(([n, e]) => [n, Object.fromEntries(e.env)]));
    expect(env).toEqual({
      none: {},
      tf32_off: { DISABLE_TF32: '1' },
      xnack: { HSA_XNACK: '1' },
      gpu_max_hw_queues_2: { GPU_MAX_HW_QUEUES: '2' },
      roc_aql_queue_size_1024: { ROC_AQL_QUEUE_SIZE: '1024' },
      hsa_no_sdma: { HSA_ENABLE_SDMA: '0' },
      hsa_no_scratch_reclaim: { HSA_NO_SCRATCH_RECLAIM: '1' },
      roc_signal_pool_16k: { ROC_SIGNAL_POOL_SIZE: '16384' },
      gpu_force_blit_copy_128: { GPU_FORCE_BLIT_COPY_SIZE: '128' },
      debug_clr_no_batch_cpu_sync: { DEBUG_CLR_BATCH_CPU_SYNC_SIZE: '0' },
      nccl_launch_order_implicit: { NCCL_LAUNCH_ORDER_IMPLICIT: '1' },
      rccl_gfx942_cheap_fence_off: { RCCL_GFX942_CHEAP_FENCE_OFF: '1' },
      pytorch_no_cuda_memory_caching: { PYTORCH_NO_CUDA_MEMORY_CACHING: '1' },
      pytorch_alloc_expandable_segments: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' },
      hip_launch_blocking: { HIP_LAUNCH_BLOCKING: '1' },
      amd_log_level_4: { AMD_LOG_LEVEL: '4' },
      fa_prefer_ck: { TORCH_ROCM_FA_PREFER_CK: '1' },
      fa_prefer_aotriton: { TORCH_ROCM_FA_PREFER_CK: '0' },
    });
    expect(BUILTIN_MITIGATION_NAMES).toHaveLength(18);
    expect(new Set([...builtinRegistry().values()].map((e) => e.source))).toEqual(new Set(['builtin']));
  });
});

describe('--mitigations-file', () => {
  it("takes the original's sidecar, labelled sidecar:<basename>", () => {
    const reg = builtinRegistry();
    parseMitigationsFile(
      '{"version": 1, "mitigations": {"site_a": {"A": "1"}}, "environments": {}}',
      '/x/site.json',
      reg,
    );
    expect(reg.get('site_a')).toEqual({ env: new Map([['A', '1']]), source: 'sidecar:site.json' });
  });

  it.each([
    ['{"version": 2, "mitigations": {}}', 'site.json:1:13: site.json.version: must be 1, got 2'],
    [
      '{"version": 1, "mitigation": {}}',
      "site.json:1:16: site.json: unknown sidecar key 'mitigation' (a sidecar has version, mitigations, environments)",
    ],
    ['{"version": 1, "environments": []}', 'site.json:1:32: site.json.environments: must be a mapping, got list'],
    [
      '{"version": 1, "mitigations": {"xnack": {"HSA_XNACK": "0"}}}',
      "site.json:1:32: site.json.mitigations.xnack: mitigation 'xnack' is already defined by builtin; sidecar:site.json defines it again (a name may come from one source only: rename one)",
    ],
  ])('rejects %s', (text, message) => {
    let err: unknown = null;
    try {
      parseMitigationsFile(text, 'site.json', builtinRegistry());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RecipeError);
    expect((err as Error).message.split('\n')[0]).toBe(message);
  });

  it('a name in two files is an error naming both', () => {
    const reg = builtinRegistry();
    parseMitigationsFile('site_a: {A: "1"}\n', 'one.yaml', reg);
    expect(() => parseMitigationsFile('site_a: {A: "2"}\n', 'two.yaml', reg)).toThrow(
      "two.yaml:1:1: mitigations.site_a: mitigation 'site_a' is already defined by file:one.yaml; file:two.yaml defines it again (a name may come from one source only: rename one)",
    );
  });
});

describe('an unknown axis value is rejected when the recipe loads', () => {
  const text = 'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none, site_a]\ndiagnostic_axis: [xnack]\n';

  it('by loadRecipe, at its line:col', () => {
    expect(() => loadRecipe(text, 'r.yaml')).toThrow(
      /^r\.yaml:4:25: recipe\.mitigation_axis\[1\]: unknown mitigation 'site_a'; available: \['amd_log_level_4', /,
    );
    const reg = builtinRegistry();
    parseMitigationsFile('site_a: {A: "1"}\n', 'one.yaml', reg);
    expect(loadRecipe(text, 'r.yaml', { mitigations: reg }).mitigationAxis).toEqual(['none', 'site_a']);
  });

  it('by check, which takes --mitigations-file', async () => {
    const r = file('r.yaml', text);
    const bad = await cliInProcess(['check', r]);
    expect(bad.code).toBe(1);
    expect(bad.out.split('\n')[0]).toMatch(
      new RegExp(`^${r}:4:25: recipe\\.mitigation_axis\\[1\\]: unknown mitigation 'site_a'; available: \\[`),
    );
    const side = file('side.json', '{"version": 1, "mitigations": {"site_a": {"A": "1"}}}');
    const ok = await cliInProcess(['check', '--mitigations-file', side, r]);
    expect([ok.code, ok.out]).toEqual([0, `${r}: valid (0 custom patterns)\n`]);
  });

  it("the original's own example recipe now sweeps (pytorch_no_cuda_memory_caching)", async () => {
    const r = await cliInProcess([
      'sweep',
      '--recipe',
      'fixtures/recipes/example-probe-smoke.yaml',
      '--out',
      join(root, 'x'),
      '--dry-run',
      '--',
      'true',
    ]);
    expect(r).toEqual({
      code: 0,
      err: '',
      out: `2 cells x 2 trials = 4 trials, ticket 'PROBE-188-SMOKE'
  none-none: env=[(no env)] argv=['true']
  pytorch_no_cuda_memory_caching-none: env=[PYTORCH_NO_CUDA_MEMORY_CACHING=1] argv=['true']
`,
    });
  });
});

describe('aorta-probe list-mitigations', () => {
  it('lists the built-ins and each file, with their sources', async () => {
    const r = await cliInProcess(['list-mitigations', '--mitigations-file', 'fixtures/matrix/sidecar.json']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('20 mitigations (name, source, environment):');
    expect(lines[1]).toBe('  none                               builtin               (no env)');
    expect(lines[13]).toBe(
      '  pytorch_no_cuda_memory_caching     builtin               PYTORCH_NO_CUDA_MEMORY_CACHING=1',
    );
    expect(lines[19]).toBe('  site_hsa_no_cache                  sidecar:sidecar.json  HSA_DISABLE_CACHE=1');
    expect(lines[20]).toBe('  site_dyn_queues_2                  sidecar:sidecar.json  DEBUG_HIP_DYNAMIC_QUEUES=2');
  });

  it('--json', async () => {
    const r = await cliInProcess(['list-mitigations', '--json']);
    const doc = JSON.parse(r.out) as { mitigations: { name: string; env: object; source: string }[] };
    expect(doc.mitigations[1]).toEqual({ name: 'tf32_off', env: { DISABLE_TF32: '1' }, source: 'builtin' });
    expect(doc.mitigations).toHaveLength(18);
  });
});

describe('a name defined by two sources', () => {
  const recipe = (own: string): string =>
    `schema_version: 1\nmode: probe\ntrials: 1\nmitigations:\n  ${own}\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n`;

  it("the recipe's own table against a built-in: at the recipe's key", () => {
    expect(() => loadRecipe(recipe('xnack: {HSA_XNACK: "0"}'), 'r.yaml')).toThrow(
      "r.yaml:5:3: recipe.mitigations.xnack: mitigation 'xnack' is already defined by builtin; recipe:r.yaml defines it again (a name may come from one source only: rename one)",
    );
  });

  it("the recipe's own table against a --mitigations-file, via check", async () => {
    const one = file('one.yaml', 'site_a: {A: "1"}\n');
    const r = file('own.yaml', recipe('site_a: {A: "2"}'));
    const out = await cliInProcess(['check', '--mitigations-file', one, r]);
    expect(out.code).toBe(1);
    expect(out.out.split('\n')[0]).toBe(
      `${r}:5:3: recipe.mitigations.site_a: mitigation 'site_a' is already defined by file:${one}; recipe:${r} defines it again (a name may come from one source only: rename one)`,
    );
  });

  it('two sidecars: list-mitigations exits 2, with the error object under --json', async () => {
    const a = file('a.json', '{"version": 1, "mitigations": {"site_a": {"A": "1"}}}');
    const b = file('b.json', '{"version": 1, "mitigations": {"site_a": {"A": "2"}}}');
    const r = await cliInProcess(['list-mitigations', '--json', '--mitigations-file', a, '--mitigations-file', b]);
    expect(r.code).toBe(2);
    const detail =
      "b.json.mitigations.site_a: mitigation 'site_a' is already defined by sidecar:a.json; sidecar:b.json defines it again (a name may come from one source only: rename one)";
    expect(JSON.parse(r.out).error).toMatchObject({ type: 'RecipeSchemaError', detail, file: b, line: 1, col: 32 });
  });
});

describe('--mitigations-file problems', () => {
  it('a sidecar whose mitigations is not a mapping', async () => {
    const t = file('t.json', '{"version": 1, "mitigations": []}');
    const r = await cliInProcess(['list-mitigations', '--mitigations-file', t]);
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err.split('\n')[0]).toBe(
      `${t}:1:31: t.json.mitigations: must be a mapping of name to {VAR: value}, got list`,
    );
  });

  it('check: a file that cannot be read is a usage error (exit 2)', async () => {
    const r = await cliInProcess([
      'check',
      '--mitigations-file',
      join(root, 'nope.json'),
      'fixtures/recipes/nan-loss.yaml',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `aorta-probe check: cannot read ${join(root, 'nope.json')}: ENOENT: no such file or directory, open '${join(root, 'nope.json')}'\n`,
    );
  });

  it('sweep: two files of one file name would clash in sidecars/', async () => {
    const a = join(root, 'd1', 'site.json');
    const b = join(root, 'd2', 'site.json');
    mkdirSync(join(root, 'd1'));
    mkdirSync(join(root, 'd2'));
    writeFileSync(a, '{"version": 1, "mitigations": {"site_a": {"A": "1"}}}');
    writeFileSync(b, '{"version": 1, "mitigations": {"site_b": {"B": "1"}}}');
    const r = await cliInProcess([
      'sweep',
      '--recipe',
      'fixtures/recipes/example-probe-smoke.yaml',
      '--mitigations-file',
      a,
      '--mitigations-file',
      b,
      '--out',
      join(root, 'y'),
      '--dry-run',
      '--',
      'true',
    ]);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(
      `${b}:1:1: --mitigations-file: '${a}' and '${b}' have the same file name 'site.json' (the run keeps each as sidecars/<file name>): rename one`,
    );
  });
});

describe('list-mitigations --json', () => {
  it("a sidecar's names follow the built-ins, with their source", async () => {
    const r = await cliInProcess(['list-mitigations', '--json', '--mitigations-file', 'fixtures/matrix/sidecar.json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { mitigations: { name: string }[] };
    expect(doc.mitigations.map((m) => m.name)).toEqual([
      ...BUILTIN_MITIGATION_NAMES,
      'site_hsa_no_cache',
      'site_dyn_queues_2',
    ]);
    expect(doc.mitigations.slice(18)).toEqual([
      { name: 'site_hsa_no_cache', env: { HSA_DISABLE_CACHE: '1' }, source: 'sidecar:sidecar.json' },
      { name: 'site_dyn_queues_2', env: { DEBUG_HIP_DYNAMIC_QUEUES: '2' }, source: 'sidecar:sidecar.json' },
    ]);
  });
});
