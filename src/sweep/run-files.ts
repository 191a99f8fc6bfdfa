/**
 * The run-level files of a sweep, as the original writes them in `<out>/<ticket>/` (upstream-probe-runs.md §3.2):
 *
 *   recipe.resolved.yaml  the recipe as this sweep ran it (command-line overrides applied) and its cells
 *   host_env.json         the host and the sweep's environment, keys matching `redaction.scrub_env_keys` left out
 *   sidecars/<name>       each `--mitigations-file`, copied
 *   matrix.json           the answer (src/matrix/), rewritten as cells finish: a killed sweep leaves a true partial one
 *   matrix.md             the same for people
 *
 * Every file is written through the held run directory, created exclusively in its private directory and renamed
 * into place (run-dir.ts `writeInto`): a reader sees the old file or the new one, never half of one, and a link a
 * trial planted under one of these names is replaced, never followed.
 */
import { readFileSync } from 'node:fs';
import { arch, hostname, platform, release } from 'node:os';
import { basename } from 'node:path';
import { stringify } from 'yaml';
import { buildMatrix, formatMatrixMarkdown, type MatrixJson, type MatrixTrial } from '../matrix/index.js';
import { parseYaml, reprNode, type PyNode } from '../recipe/tree.js';
import { fnmatchcase } from '../text/fnmatch.js';
import { packageInfo } from '../trial/package-info.js';
import { checkName, type DirRef } from './dir-ref.js';
import type { SweepPlan } from './plan.js';
import { writeInto, type RunDir } from './run-dir.js';

export const RESOLVED_RECIPE = 'recipe.resolved.yaml';
export const HOST_ENV = 'host_env.json';
export const MATRIX_JSON = 'matrix.json';
export const MATRIX_MD = 'matrix.md';
export const SIDECARS = 'sidecars';

/** A YAML tree as plain data for `stringify`: keys as Python's `str()` of them; what YAML cannot say, its repr. */
function plain(n: PyNode): unknown {
  switch (n.kind) {
    case 'NoneType':
    case 'bool':
    case 'str':
      return n.value;
    case 'int':
      return n.value as bigint;
    case 'float':
      return n.value as number;
    case 'list':
      return n.items!.map(plain);
    case 'dict': {
      const out = new Map<string, unknown>();
      for (const e of n.entries!)
        out.set(e.key.kind === 'str' ? (e.key.value as string) : reprNode(e.key), plain(e.value));
      return out;
    }
    default:
      return reprNode(n);
  }
}

/** The recipe mapping as loaded, with the sweep's overrides and its cells: what the original's `recipe` kind holds. */
export function resolvedRecipeText(plan: SweepPlan, recipeBytes: Uint8Array, argv: readonly string[]): string {
  const parsed = parseYaml(Buffer.from(recipeBytes).toString('utf8'), plan.recipePath.toLowerCase().endsWith('.json'));
  const doc =
    parsed.root !== null && parsed.root.kind === 'dict' ? (plain(parsed.root) as Map<string, unknown>) : new Map();
  doc.set('ticket', plan.ticket);
  doc.set('trials', plan.trialsPerCell);
  if (plan.config.stopAfter !== null)
    doc.set('stop_after', {
      events: plan.config.stopAfter.events,
      max_trials: plan.config.stopAfter.maxTrials,
      event_verdict: plan.config.stopAfter.eventVerdict,
    });
  doc.set('command', [...argv]);
  doc.set(
    'cells',
    plan.cells.map((c) => ({ name: c.name, mitigations: [...c.mitigations], extra_env: Object.fromEntries(c.env) })),
  );
  const v = packageInfo().version;
  return `# ${RESOLVED_RECIPE}: written by aorta-probe ${v}: the recipe ${basename(plan.recipePath)} as this sweep ran it (overrides applied) and its cells\n${stringify(doc, { lineWidth: 0 })}`;
}

/** `host_env.json`: the host, and the environment the sweep started trials from, minus the scrubbed keys. */
export function hostEnvDocument(plan: SweepPlan, env: NodeJS.ProcessEnv, now: Date): Record<string, unknown> {
  const globs = plan.recipe.scrubEnvKeys ?? [];
  const vars: Record<string, string> = {};
  for (const k of Object.keys(env).sort()) {
    const v = env[k];
    if (v === undefined || globs.some((g) => fnmatchcase(k, g))) continue;
    vars[k] = v;
  }
  return {
    schema_version: 1,
    captured_at: now.toISOString(),
    hostname: hostname(),
    platform: platform(),
    release: release(),
    arch: arch(),
    node_version: process.version,
    aorta_probe_version: packageInfo().version,
    scrub_env_keys: globs,
    env_vars: vars,
  };
}

export interface RunFilesOptions {
  readonly plan: SweepPlan;
  readonly argv: readonly string[];
  readonly recipeBytes: Uint8Array;
  readonly env: NodeJS.ProcessEnv;
  /** `--mitigations-file` paths, copied to `sidecars/<basename>`. */
  readonly sidecars: readonly string[];
}

/** Writes the files that do not change while the sweep runs. */
export function writeStartFiles(run: RunDir, o: RunFilesOptions): void {
  writeInto(run.tmp, run.run, RESOLVED_RECIPE, resolvedRecipeText(o.plan, o.recipeBytes, o.argv));
  writeInto(run.tmp, run.run, HOST_ENV, `${JSON.stringify(hostEnvDocument(o.plan, o.env, new Date()), null, 2)}\n`);
  if (o.sidecars.length === 0) return;
  const dir: DirRef = run.run.child(SIDECARS, true);
  try {
    for (const f of o.sidecars) writeInto(run.tmp, dir, checkName(basename(f)), readFileSync(f));
  } finally {
    dir.close();
  }
}

export interface MatrixState {
  readonly trials: readonly MatrixTrial[];
  readonly stoppedCells: ReadonlySet<string>;
  readonly complete: boolean;
}

export function matrixOf(run: RunDir, o: RunFilesOptions, state: MatrixState): MatrixJson {
  const { plan } = o;
  return buildMatrix({
    ticket: plan.ticket,
    runId: run.runId,
    argv: o.argv,
    trialsPerCell: plan.trialsPerCell,
    stopAfter: plan.config.stopAfter,
    confound: { threshold: plan.recipe.confound.threshold, baselineCell: plan.recipe.confound.baselineCell },
    recipeSource: { path: plan.recipePath, sha256: plan.recipe.sourceSha256 },
    version: packageInfo().version,
    complete: state.complete,
    writtenAt: new Date(),
    cells: plan.cells.map((c) => ({ name: c.name, mitigations: c.mitigations, env: Object.fromEntries(c.env) })),
    trials: state.trials,
    stoppedCells: state.stoppedCells,
  });
}

/** matrix.json, then matrix.md, each replaced atomically. */
export function writeMatrix(run: RunDir, matrix: MatrixJson): void {
  writeInto(run.tmp, run.run, MATRIX_JSON, `${JSON.stringify(matrix, null, 2)}\n`);
  writeInto(run.tmp, run.run, MATRIX_MD, formatMatrixMarkdown(matrix));
}
