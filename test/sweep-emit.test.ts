/**
 * `sweep --emit k8s` checked structurally against the Job API (a trimmed schema, fixtures/k8s/, plus the API
 * server's cross-field rules the schema cannot express), and `--emit slurm`'s script text. No cluster needed:
 * the real Slurm run is test/sweep-slurm.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_MOUNT, emitK8s, emitSlurm, loadSweepPlan, type SweepPlan } from '../src/sweep/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-emit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const RECIPE_TEXT = `schema_version: 1
mode: probe
ticket: GPU-42
trials: 3
mitigation_axis: [none, cache_off]
diagnostic_axis: [none]
mitigations:
  cache_off: {PYTORCH_NO_CUDA_MEMORY_CACHING: 1}
`;
const recipePath = join(root, 'sweep.yaml');
writeFileSync(recipePath, RECIPE_TEXT);
const plan: Promise<SweepPlan> = loadSweepPlan(recipePath);

const schema = JSON.parse(
  readFileSync(new URL('../fixtures/k8s/job-batch-v1.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addSchema(schema, 'k8s');
const validJob = ajv.getSchema('k8s#/definitions/Job')!;
const validConfigMap = ajv.getSchema('k8s#/definitions/ConfigMap')!;

async function k8s(extra: { gpusPerTrial?: number } = {}) {
  const p = await plan;
  const emitted = emitK8s(p, {
    probeCommand: ['aorta-probe'],
    recipe: `${CONFIG_MOUNT}/sweep.yaml`,
    mitigationsFiles: [],
    outDir: '/results',
    passThrough: ['--gpu-tool', 'amd-smi'],
    argv: ['python', 'train.py', '--steps', '100'],
    image: 'registry.example/train:1',
    pvc: 'sweep-results',
    parallel: 2,
    files: [{ name: 'sweep.yaml', text: RECIPE_TEXT }],
    ...extra,
  });
  return { ...emitted, docs: parseAllDocuments(emitted.text).map((d) => d.toJS() as Record<string, unknown>) };
}

type Job = {
  spec: {
    completionMode: string;
    completions: number;
    parallelism: number;
    backoffLimitPerIndex?: number;
    podFailurePolicy: {
      rules: Array<{
        action: string;
        onExitCodes?: { containerName?: string; operator: string; values: number[] };
        onPodConditions?: unknown[];
      }>;
    };
    template: {
      spec: {
        restartPolicy: string;
        containers: Array<{
          name: string;
          command: string[];
          resources?: { limits: Record<string, string> };
          volumeMounts: Array<{ name: string; mountPath: string }>;
        }>;
        volumes: Array<{ name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }>;
      };
    };
  };
};

describe('--emit k8s', () => {
  it('is a ConfigMap and an Indexed Job that the trimmed Job API schema accepts', async () => {
    const { docs } = await k8s({ gpusPerTrial: 1 });
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'Job']);
    expect(validConfigMap(docs[0]), JSON.stringify(validConfigMap.errors)).toBe(true);
    expect(validJob(docs[1]), JSON.stringify(validJob.errors)).toBe(true);
  });

  it('satisfies the API server rules the schema cannot express', async () => {
    const { docs } = await k8s();
    const job = docs[1] as unknown as Job;
    const pod = job.spec.template.spec;
    // podFailurePolicy requires restartPolicy Never; backoffLimitPerIndex requires Indexed; FailIndex requires backoffLimitPerIndex.
    expect(pod.restartPolicy).toBe('Never');
    expect(job.spec.completionMode).toBe('Indexed');
    expect(job.spec.backoffLimitPerIndex).toBe(1);
    for (const rule of job.spec.podFailurePolicy.rules) {
      expect(Number(rule.onExitCodes !== undefined) + Number(rule.onPodConditions !== undefined)).toBe(1);
      if (rule.onExitCodes !== undefined) {
        expect(pod.containers.map((c) => c.name)).toContain(rule.onExitCodes.containerName);
        if (rule.onExitCodes.operator === 'In') expect(rule.onExitCodes.values).not.toContain(0);
      }
    }
    const mounts = new Set(pod.containers[0]!.volumeMounts.map((m) => m.name));
    expect(pod.volumes.map((v) => v.name).sort()).toEqual([...mounts].sort());
    expect(pod.volumes.find((v) => v.configMap)?.configMap?.name).toBe((docs[0]!.metadata as { name: string }).name);
  });

  it('maps completion indexes to the plan and exit statuses to the pod failure policy', async () => {
    const { docs, text } = await k8s({ gpusPerTrial: 2 });
    const job = docs[1] as unknown as Job;
    expect([job.spec.completions, job.spec.parallelism]).toEqual([6, 2]);
    expect(job.spec.podFailurePolicy.rules).toEqual([
      { action: 'FailJob', onExitCodes: { containerName: 'trial', operator: 'In', values: [2] } },
      { action: 'FailIndex', onExitCodes: { containerName: 'trial', operator: 'In', values: [1, 3] } },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ]);
    const c = job.spec.template.spec.containers[0]!;
    expect(c.command).toEqual([
      'aorta-probe',
      'sweep',
      '--recipe',
      '/etc/aorta-probe/sweep.yaml',
      '--out',
      '/results',
      '--gpu-tool',
      'amd-smi',
      '--task-env',
      'JOB_COMPLETION_INDEX',
      '--',
      'python',
      'train.py',
      '--steps',
      '100',
    ]);
    expect(c.resources).toEqual({ limits: { 'amd.com/gpu': '2' } });
    expect((docs[0]!.data as Record<string, string>)['sweep.yaml']).toBe(RECIPE_TEXT);
    expect(text).toContain('#    3  cache_off-none/trial_0  PYTORCH_NO_CUDA_MEMORY_CACHING=1\n');
    expect((docs[1]!.metadata as { name: string }).name).toBe('aorta-probe-gpu-42');
  });

  it("builds the pod failure policy from the recipe's exit_codes: transient/platform statuses rerun (counted), others fail the index", async () => {
    const text = `schema_version: 1
mode: probe
ticket: GPU-43
trials: 1
mitigation_axis: [none]
diagnostic_axis: [none]
custom_patterns:
  - id: flake
    match: {regex: "NCCL flake"}
  - id: rccl_timeout
    match: {regex: "RCCL watchdog timeout"}
    category: rccl_hang
detector_categories:
  custom:flake: {who: platform, transient: false}
exit_codes:
  detector: {custom:flake: 70, custom:rccl_timeout: 71, tier4:python_traceback: 7}
  category: {transient: 75, platform: 75, user: 4}
  verdict: {error: 5}
`;
    const path = join(root, 'exit-codes.yaml');
    writeFileSync(path, text);
    const p = await loadSweepPlan(path);
    const emitted = emitK8s(p, {
      probeCommand: ['aorta-probe'],
      recipe: `${CONFIG_MOUNT}/exit-codes.yaml`,
      mitigationsFiles: [],
      outDir: '/results',
      passThrough: [],
      argv: ['python', 'train.py'],
      image: 'registry.example/train:1',
      pvc: 'sweep-results',
      files: [{ name: 'exit-codes.yaml', text }],
    });
    const on = (values: number[]) => ({ containerName: 'trial', operator: 'In', values });
    // custom:flake is platform (its override), rccl_hang is transient, a Python traceback is the user's.
    expect((emitted.job as unknown as Job).spec.podFailurePolicy.rules).toEqual([
      { action: 'FailJob', onExitCodes: on([2]) },
      { action: 'FailIndex', onExitCodes: on([1, 3, 4, 5, 7]) },
      { action: 'Count', onExitCodes: on([70, 71, 75]) },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ]);
    expect(validJob(emitted.job)).toBe(true);
    const script = emitSlurm(p, {
      probeCommand: ['aorta-probe'],
      recipe: path,
      mitigationsFiles: [],
      outDir: '/shared/runs',
      passThrough: [],
      argv: ['true'],
    });
    expect(script).toContain(
      "# Task exit status: 0 pass, 1 fail, 3 error, 2 usage or recipe error; from the recipe's exit_codes: 70, 71, 75 transient or platform failure; 4, 5, 7 other failure.\n",
    );
  });

  it('the schema check can fail: a misspelt field or a wrong enum is rejected', async () => {
    const { docs } = await k8s();
    const bad = structuredClone(docs[1]) as unknown as Job & { spec: Record<string, unknown> };
    bad.spec.completionMode = 'indexed';
    expect(validJob(bad)).toBe(false);
    const typo = structuredClone(docs[1]) as { spec: Record<string, unknown> };
    typo.spec.podFailurePolicies = typo.spec.podFailurePolicy;
    expect(validJob(typo)).toBe(false);
  });
});

describe('--emit slurm', () => {
  it('writes an sbatch array script, one task per cell and trial, each running that task of the plan', async () => {
    const text = emitSlurm(await plan, {
      probeCommand: ['/usr/bin/node', '/opt/aorta-probe/dist/src/cli/main.cjs'],
      recipe: recipePath,
      mitigationsFiles: [],
      outDir: '/shared/runs',
      passThrough: [],
      argv: ['sh', '-c', "echo 'it''s' $X"],
      parallel: 2,
      gpusPerTrial: 1,
      sbatch: ['--partition=gpu'],
    });
    expect(text).toBe(`#!/bin/bash
#SBATCH --job-name=aorta-probe-GPU-42
#SBATCH --array=0-5%2
#SBATCH --output=/shared/runs/slurm/%A_%a.out
#SBATCH --gpus-per-task=1
#SBATCH --partition=gpu
# aorta-probe sweep --emit slurm: 2 cells x 3 trials = 6 array tasks.
# Results: /shared/runs/<ticket>/<cell>/trial_<n>/result.json. Slurm binds the GPUs (--gpus-per-task).
# Submit, then report once every task has ended:
#   jobid=$(sbatch --parsable THIS_SCRIPT)
#   sbatch --dependency=afterany:$jobid --wrap '/usr/bin/node /opt/aorta-probe/dist/src/cli/main.cjs report /shared/runs'
# Task exit status: 0 pass, 1 fail, 3 error, 2 usage or recipe error.
# task  cell/trial  environment
#    0  none-none/trial_0  (no env)
#    1  none-none/trial_1  (no env)
#    2  none-none/trial_2  (no env)
#    3  cache_off-none/trial_0  PYTORCH_NO_CUDA_MEMORY_CACHING=1
#    4  cache_off-none/trial_1  PYTORCH_NO_CUDA_MEMORY_CACHING=1
#    5  cache_off-none/trial_2  PYTORCH_NO_CUDA_MEMORY_CACHING=1
set -euo pipefail
exec /usr/bin/node /opt/aorta-probe/dist/src/cli/main.cjs sweep --recipe ${recipePath} --out /shared/runs --task-env SLURM_ARRAY_TASK_ID -- sh -c 'echo '\\''it'\\'''\\''s'\\'' $X'
`);
  });
});
