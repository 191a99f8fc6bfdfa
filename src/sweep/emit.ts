/**
 * `sweep --emit slurm|k8s`: the sweep handed to a cluster's own scheduler. Each array task / completion index
 * runs `aorta-probe sweep --task-env VAR` on the node, which runs exactly that task of the same plan (cell
 * environment, retry, retention and result.json exactly as a local sweep), so the two stay one implementation.
 * `stop_after` needs to see other tasks' verdicts and does not apply on a cluster.
 */
import { Document, type ScalarTag, type Tags } from 'yaml';
import { exitStatusClasses } from '../classifier/exit-codes.js';
import { strRepr } from '../condition/repr.js';
import { inertLine } from '../text/inert.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';
import { slug } from './cells.js';
import type { SweepPlan } from './plan.js';
import { shellJoin, shellQuote } from './shell.js';
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

/** The option keys `emitSlurm` and `emitK8s` share (text/options.ts). */
const TASK_COMMAND_OPTION_KEYS = {
  probeCommand: OPTION,
  recipe: OPTION,
  mitigationsFiles: OPTION,
  outDir: OPTION,
  passThrough: OPTION,
  argv: OPTION,
} satisfies OptionTable<TaskCommandOptions>;

/** The argv a node runs for its task (`indexVar` holds the task's index): what every emitted file must carry intact. */
export function taskCommand(o: TaskCommandOptions, indexVar: string): string[] {
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

/** The header's table, one row a task: its index, cell and trial, and the cell's environment (raw: see commentText). */
function taskRows(plan: SweepPlan): string[] {
  return plan.tasks.map((t) => {
    const env = [...t.cell.env].map(([k, v]) => `${k}=${v}`).join(' ') || '(no env)';
    return `${String(t.index).padStart(4)}  ${t.cell.name}/trial_${t.trial}  ${env}`;
  });
}

/**
 * Text for one comment line, whatever it holds: a comment must end where the emitter ends it, for bash and sbatch
 * (which break lines at LF only) and for YAML 1.1 readers (which also break at CR, NEL, U+2028 and U+2029). So
 * controls and separators are escaped (`inertLine`), and so are what a YAML reader refuses in any text: lone
 * surrogates, the BOM, U+FFFE/FFFF.
 */
function commentText(text: string): string {
  return inertLine(text).replace(/[\ud800-\udfff\ufeff\ufffe\uffff]/gu, hexEscape);
}

export interface SlurmOptions extends TaskCommandOptions {
  /** `%K`: array tasks running at once. */
  readonly parallel?: number;
  readonly gpusPerTrial?: number;
  /** Extra `#SBATCH` options, as written after `#SBATCH ` (e.g. `--partition=gpu`). */
  readonly sbatch?: readonly string[];
}

/** `emitSlurm`'s option keys (text/options.ts). */
export const SLURM_OPTION_KEYS = {
  ...TASK_COMMAND_OPTION_KEYS,
  parallel: OPTION,
  gpusPerTrial: OPTION,
  sbatch: OPTION,
} satisfies OptionTable<SlurmOptions>;

/** An option whose value would go on an `#SBATCH` line. */
export type SbatchOption = '--sbatch' | '--out';

/**
 * A value that cannot go on an `#SBATCH` line as it is: sbatch would read other directives, or a heterogeneous
 * job, from it. A RangeError, which the CLI answers as a usage error.
 */
export class SbatchValueError extends RangeError {
  override name = 'SbatchValueError';
  constructor(
    readonly option: SbatchOption,
    readonly value: string,
    reason: string,
  ) {
    super(`${option} ${strRepr(value)}: ${reason}`);
  }
}

const DIRECTIVE_CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/u;
/** sbatch blanks these words out of any directive line and starts a heterogeneous job component there. */
const HET_JOB = /hetjob|packjob/i;

/**
 * Refuses a value sbatch would misread on an `#SBATCH` line. sbatch reads the lines up to the first command
 * itself (no shell): a line break ends the directive and the rest is a line of its own (another directive, or the
 * script's first command); other controls are no better (a CR LF pair or a NUL makes sbatch refuse the script).
 */
function checkDirectiveValue(option: SbatchOption, value: string): void {
  const control = DIRECTIVE_CONTROL.exec(value);
  if (control !== null)
    throw new SbatchValueError(
      option,
      value,
      `holds a line break or control character (${strRepr(control[0])}), which cannot go on an #SBATCH line`,
    );
  const het = HET_JOB.exec(value);
  if (het !== null)
    throw new SbatchValueError(
      option,
      value,
      `holds ${strRepr(het[0])}; sbatch reads an #SBATCH line holding 'hetjob' or 'packjob' as the start of a heterogeneous job component`,
    );
}

/** A directive value sbatch takes as it is: nothing it splits at, groups with, escapes with or ends a line at. */
const SBATCH_PLAIN = /^[A-Za-z0-9_@%+=:,./~-]+$/;

/**
 * `--output`'s value, read by sbatch as exactly `<outDir>/slurm/%A_%a.out`. `%` is doubled (sbatch expands `%x`
 * patterns in the name). A path with anything else than plainly safe characters is double-quoted, with `\`
 * before `"`, `\` and `#`: current sbatch groups with either quote, older sbatch with `"` only and ends the line
 * at any unescaped `#`, and both take the character after a backslash as it is. The caller has refused controls.
 */
function sbatchOutput(outDir: string): string {
  const path = `${outDir.replace(/%/g, '%%')}/slurm/%A_%a.out`;
  return SBATCH_PLAIN.test(path) ? path : `"${path.replace(/["\\#]/g, '\\$&')}"`;
}

/** The job's name: a slug of the ticket, with 'hetjob' and 'packjob' broken up so sbatch takes it as a name. */
function jobName(ticket: string): string {
  return `aorta-probe-${slug(ticket)}`.replace(/(het|pack)(job)/gi, '$1_$2');
}

/**
 * The sbatch array script. Three parts, each written for its reader: the `#SBATCH` directives (sbatch's own
 * syntax; generated values are safe by construction, `--out` and `--sbatch` values are checked), comment lines
 * (single-line text), and the shell command (every word through `shellQuote`).
 */
export function emitSlurm(plan: SweepPlan, o: SlurmOptions): string {
  checkOptions('emitSlurm', o, SLURM_OPTION_KEYS);
  checkDirectiveValue('--out', o.outDir);
  for (const s of o.sbatch ?? []) checkDirectiveValue('--sbatch', s);
  const n = plan.tasks.length;
  const directives = [
    `--job-name=${jobName(plan.ticket)}`,
    `--array=0-${n - 1}${o.parallel === undefined ? '' : `%${o.parallel}`}`,
    `--output=${sbatchOutput(o.outDir)}`,
    ...(o.gpusPerTrial === undefined ? [] : [`--gpus-per-task=${o.gpusPerTrial}`]),
    ...(o.sbatch ?? []),
  ];
  const comments = [
    `aorta-probe sweep --emit slurm: ${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${n} array tasks.`,
    `Results: ${o.outDir}/<ticket>/<cell>/trial_<n>/result.json. Slurm binds the GPUs (--gpus-per-task).`,
    'Submit, then report once every task has ended:',
    '  jobid=$(sbatch --parsable THIS_SCRIPT)',
    `  sbatch --dependency=afterany:$jobid --wrap ${shellQuote(shellJoin([...o.probeCommand, 'report', o.outDir]))}`,
    `Task exit status: ${TASK_EXIT.pass} pass, ${TASK_EXIT.fail} fail, ${TASK_EXIT.error} error, ${TASK_EXIT.usage} usage or recipe error${exitCodesNote(plan)}.`,
    'task  cell/trial  environment',
    ...taskRows(plan),
  ];
  return [
    '#!/bin/bash',
    ...directives.map((d) => `#SBATCH ${d}`),
    // `# ` first: never `#SBATCH`, `#SLURM`, `#PBS` or `#BSUB`, which sbatch would read as directives.
    ...comments.map((c) => `# ${commentText(c)}`),
    'set -euo pipefail',
    `exec ${shellJoin(taskCommand(o, 'SLURM_ARRAY_TASK_ID'))}`,
    '',
  ].join('\n');
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

/** `emitK8s`'s option keys (text/options.ts). */
export const K8S_OPTION_KEYS = {
  ...TASK_COMMAND_OPTION_KEYS,
  image: OPTION,
  name: OPTION,
  parallel: OPTION,
  gpusPerTrial: OPTION,
  gpuResource: OPTION,
  pvc: OPTION,
  backoffLimitPerIndex: OPTION,
  files: OPTION,
} satisfies OptionTable<K8sOptions>;

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
  checkOptions('emitK8s', o, K8S_OPTION_KEYS);
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
  const header = [
    `aorta-probe sweep --emit k8s: ${plan.cells.length} cells x ${plan.trialsPerCell} trials = ${plan.tasks.length} completion indexes.`,
    `Apply: kubectl apply -f THIS_FILE; report: run ${shellQuote(shellJoin(['aorta-probe', 'report', o.outDir]))} where the volume is mounted.`,
    'index  cell/trial  environment',
    ...taskRows(plan),
  ];
  const text = [manifest(configMap, header), manifest(job, [])]
    .map((d) => d.toString({ directives: true, lineWidth: 0 }))
    .join('');
  return { text, job, configMap };
}

/**
 * One manifest document, with `comment` (single-line texts) before it. Written for a YAML 1.1 reader, as
 * kubectl's is: strings it would take for a boolean, number, date or merge key are quoted.
 */
function manifest(value: object, comment: readonly string[]): Document {
  const doc = new Document(value, { version: '1.1', customTags: withInertStrings });
  if (comment.length > 0) doc.commentBefore = comment.map((c) => ` ${commentText(c)}`).join('\n');
  return doc;
}

/**
 * Characters no YAML text should hold raw: C0 controls but tab and LF, DEL, C1 controls (NEL is a line break to a
 * YAML 1.1 reader, even inside double quotes), U+2028/2029 (line breaks too), lone surrogates, the BOM and the
 * non-characters U+FFFE/FFFF. The `yaml` library writes most of them raw, so such strings are written here.
 */
const YAML_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/u;
const YAML_ESCAPED = /[\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/gu;
const YAML_NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '"': '\\"',
  '\0': '\\0',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\u0085': '\\N',
  '\u2028': '\\L',
  '\u2029': '\\P',
};

/** A YAML double-quoted scalar on one line, every character outside printable text escaped. */
function yamlDoubleQuoted(s: string): string {
  return `"${s.replace(YAML_ESCAPED, (c) => YAML_NAMED_ESCAPES[c] ?? hexEscape(c))}"`;
}

function hexEscape(c: string): string {
  const n = c.charCodeAt(0);
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/**
 * A string every YAML reader takes for that string when it is written plain: it starts with a letter, `_`, `/`, or
 * `-` and a letter or `-`, and holds no space or indicator. Anything else could be a number, a date, a merge or
 * value key, an alias, a tag, a nested sequence, ... to some reader (a YAML 1.1 one such as kubectl's, or a 1.2 one).
 */
const PLAIN_EVERYWHERE = /^(?:[A-Za-z_/]|-[-A-Za-z])[A-Za-z0-9_./:@+=-]*$/;
/** Words that start like a plain string but are booleans or null to a YAML 1.1 reader (`y`, `n`: Go's yaml.v2). */
const RESERVED_WORDS =
  /^(?:[yYnN]|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

/**
 * The YAML 1.1 schema's tags, with the string tag writing each string so that every reader takes it for that
 * string: with an unsafe character, or where a plain scalar could be read as something else, by
 * `yamlDoubleQuoted`; else (plain words, multi-line text as a block scalar) by the library. The merge tag is left
 * out: it would write `<<` plain.
 */
function withInertStrings(tags: Tags): Tags {
  return tags
    .filter((tag) => typeof tag === 'string' || tag.tag !== MERGE_TAG)
    .map((tag) => {
      if (typeof tag === 'string' || tag.tag !== STR_TAG || tag.collection !== undefined) return tag;
      const base: ScalarTag = tag;
      const inert: ScalarTag = {
        ...base,
        stringify(item, ctx, onComment, onChompKeep) {
          const s = String(item.value);
          const libraryWritesIt = !YAML_UNSAFE.test(s) && (s.includes('\n') || isPlainEverywhere(s));
          if (!libraryWritesIt || base.stringify === undefined) return yamlDoubleQuoted(s);
          return base.stringify(item, ctx, onComment, onChompKeep);
        },
      };
      return inert;
    });
}

function isPlainEverywhere(s: string): boolean {
  return PLAIN_EVERYWHERE.test(s) && !RESERVED_WORDS.test(s);
}

const STR_TAG = 'tag:yaml.org,2002:str';
const MERGE_TAG = 'tag:yaml.org,2002:merge';
