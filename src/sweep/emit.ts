/**
 * `sweep --emit slurm|k8s`: the sweep handed to a cluster's own scheduler. Each array task / completion index
 * runs `aorta-probe sweep --task-env VAR` on the node, which runs exactly that task of the same plan (cell
 * environment, retry, retention and result.json exactly as a local sweep), so the two stay one implementation.
 * `stop_after` needs to see other tasks' verdicts and does not apply on a cluster.
 */
import { stringify } from 'yaml';
import { exitStatusClasses } from '../classifier/exit-codes.js';
import { slug } from './cells.js';
import type { SweepPlan } from './plan.js';
import { shellJoin } from './shell.js';
import { TASK_EXIT } from './task-exit.js';

export interface TaskCommandOptions {
  /** How the node starts aorta-probe (words), e.g. ['aorta-probe'] or [node, /abs/dist/src/cli/main.cjs]. */
  readonly probeCommand: readonly string[];
  /** Recipe, mitigations files and output directory as the node sees them. */
  readonly recipe: string;
  readonly mitigationsFiles: readonly string[];
  readonly outDir: string;
  /** Options passed through unchanged (`--trials`, `--ticket`, `--timeout`, `--gpu-tool`, …). */
  readonly passThrough: readonly string[];
  readonly argv: readonly string[];
}

function taskCommand(o: TaskCommandOptions, indexVar: string): string[] {
  return [
    ...o.probeCommand,
    'sweep',
    '--recipe',
    o.recipe,
    ...o.mitigationsFiles.flatMap((f) => ['--mitigations-file', f]),
    '--out',
    o.outDir,
    ...o.passThrough,
    '--task-env',
    indexVar,
    '--',
    ...o.argv,
  ];
}

function taskTable(plan: SweepPlan, prefix: string): string {
  return plan.tasks
    .map(
      (t) =>
        `${prefix}${String(t.index).padStart(5)}  ${t.cell.name}/trial_${t.trial}  ${[...t.cell.env].map(([k, v]) => `${k}=${v}`).join(' ') || '(no env)'}`,
    )
    .join('\n');
}

export interface SlurmOptions extends TaskCommandOptions {
  /** `%K`: array tasks running at once. */
  readonly parallel?: number;
  readonly gpusPerTrial?: number;
  /** Extra `#SBATCH` options, as written after `#SBATCH ` (e.g. `--partition=gpu`). */
  readonly sbatch?: readonly string[];
}

export function emitSlurm(plan: SweepPlan, o: SlurmOptions): string {
  const n = plan.tasks.length;
  const lines = [
    '#!/bin/bash',
    `#SBATCH --job-name=${shellJoin([`aorta-probe-${slug(plan.ticket)}`])}`,
    `#SBATCH --array=0-${n - 1}${o.parallel === undefined ? '' : `%${o.parallel}`}`,
    `#SBATCH --output=${o.outDir}/slurm/%A_%a.out`,
    ...(o.gpusPerTrial === undefined ? [] : [`#SBATCH --gpus-per-task=${o.gpusPerTrial}`]),
    ...(o.sbatch ?? []).map((s) => `#SBATCH ${s}`),
    `# aorta-probe sweep --emit slurm: ${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${n} array tasks.`,
    `# Results: ${o.outDir}/<ticket>/<cell>/trial_<n>/result.json. Slurm binds the GPUs (--gpus-per-task).`,
    '# Submit, then report once every task has ended:',
    `#   jobid=$(sbatch --parsable THIS_SCRIPT)`,
    `#   sbatch --dependency=afterany:$jobid --wrap ${shellJoin([shellJoin([...o.probeCommand, 'report', o.outDir])])}`,
    `# Task exit status: ${TASK_EXIT.pass} pass, ${TASK_EXIT.fail} fail, ${TASK_EXIT.error} error, ${TASK_EXIT.usage} usage or recipe error${exitCodesNote(plan)}.`,
    '# task  cell/trial  environment',
    taskTable(plan, '#'),
    'set -euo pipefail',
    `exec ${shellJoin(taskCommand(o, 'SLURM_ARRAY_TASK_ID'))}`,
    '',
  ];
  return lines.join('\n');
}

/** The recipe's own `exit_codes:` statuses, for the script's header: what else a task's status can mean. */
function exitCodesNote(plan: SweepPlan): string {
  const c = exitStatusClasses(plan.recipe.exitCodes, plan.recipe);
  const own = (xs: readonly number[]) => xs.filter((s) => s !== TASK_EXIT.fail && s !== TASK_EXIT.error);
  const parts = [
    ...(c.retryable.length === 0 ? [] : [`${c.retryable.join(', ')} transient or platform failure`]),
    ...(own(c.final).length === 0 ? [] : [`${own(c.final).join(', ')} other failure`]),
  ];
  return parts.length === 0 ? '' : `; from the recipe's exit_codes: ${parts.join('; ')}`;
}

export interface K8sOptions extends TaskCommandOptions {
  readonly image: string;
  /** Job name (DNS label); default from the ticket. */
  readonly name?: string;
  readonly parallel?: number;
  readonly gpusPerTrial?: number;
  /** Extended resource name for GPUs (default amd.com/gpu). */
  readonly gpuResource?: string;
  /** PersistentVolumeClaim holding `outDir` (shared by every pod). */
  readonly pvc: string;
  /** Reruns of an index after a pod failure the policy counts (evictions are not counted). */
  readonly backoffLimitPerIndex?: number;
  /** Recipe and mitigations files' text, shipped in a ConfigMap mounted at `CONFIG_MOUNT`. */
  readonly files: ReadonlyArray<{ readonly name: string; readonly text: string }>;
}

export const CONFIG_MOUNT = '/etc/aorta-probe';
export const CONTAINER = 'trial';

/** A DNS-1123 label from a ticket: lower case, [a-z0-9-], at most 63 characters. */
export function dnsLabel(s: string): string {
  const out = s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 52)
    .replace(/-+$/, '');
  return `aorta-probe${out === '' ? '' : `-${out}`}`;
}

/**
 * The pod failure policy, from the exit statuses a task can end with (`exitStatusClasses`: the defaults plus the
 * recipe's `exit_codes:` map). A usage or recipe error fails the Job at once (every index would repeat it). A
 * trial that ran and failed for its own reasons fails its index without a rerun (its result.json is the answer,
 * and `retry:` has already run inside the pod). A status the recipe maps from transient or platform causes is
 * rerun, counted against `backoffLimitPerIndex` so that a node that keeps failing cannot loop. An eviction or
 * preemption is rerun without counting. Anything else (the node died, the container was OOM-killed) is counted.
 */
export function podFailurePolicy(classes: ReturnType<typeof exitStatusClasses>): object {
  const onExitCodes = (values: readonly number[]) => ({ containerName: CONTAINER, operator: 'In', values });
  return {
    rules: [
      { action: 'FailJob', onExitCodes: onExitCodes([TASK_EXIT.usage]) },
      ...(classes.final.length === 0 ? [] : [{ action: 'FailIndex', onExitCodes: onExitCodes(classes.final) }]),
      ...(classes.retryable.length === 0 ? [] : [{ action: 'Count', onExitCodes: onExitCodes(classes.retryable) }]),
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    ],
  };
}

/** A ConfigMap with the recipe files and the Indexed Job, as one multi-document YAML text. */
export function emitK8s(
  plan: SweepPlan,
  o: K8sOptions,
): { text: string; job: Record<string, unknown>; configMap: Record<string, unknown> } {
  const name = o.name ?? dnsLabel(plan.ticket);
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${name}-recipe` },
    data: Object.fromEntries(o.files.map((f) => [f.name, f.text])),
  };
  const limits =
    o.gpusPerTrial === undefined ? undefined : { [o.gpuResource ?? 'amd.com/gpu']: String(o.gpusPerTrial) };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      labels: { 'app.kubernetes.io/name': 'aorta-probe', 'aorta-probe/ticket': dnsLabel(plan.ticket).slice(0, 63) },
    },
    spec: {
      completionMode: 'Indexed',
      completions: plan.tasks.length,
      parallelism: o.parallel ?? 1,
      backoffLimitPerIndex: o.backoffLimitPerIndex ?? 1,
      podFailurePolicy: podFailurePolicy(exitStatusClasses(plan.recipe.exitCodes, plan.recipe)),
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'aorta-probe' } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: CONTAINER,
              image: o.image,
              command: taskCommand(o, 'JOB_COMPLETION_INDEX'),
              ...(limits === undefined ? {} : { resources: { limits } }),
              volumeMounts: [
                { name: 'results', mountPath: o.outDir },
                { name: 'recipe', mountPath: CONFIG_MOUNT, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'results', persistentVolumeClaim: { claimName: o.pvc } },
            { name: 'recipe', configMap: { name: `${name}-recipe` } },
          ],
        },
      },
    },
  };
  const header =
    `# aorta-probe sweep --emit k8s: ${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${plan.tasks.length} completion indexes.\n` +
    `# Apply: kubectl apply -f THIS_FILE; report: run 'aorta-probe report ${o.outDir}' where the volume is mounted.\n` +
    `# index  cell/trial  environment\n${taskTable(plan, '#')}\n`;
  return { text: `${header}${stringify(configMap)}---\n${stringify(job)}`, job, configMap };
}
