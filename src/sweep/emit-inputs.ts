/**
 * What `sweep --emit slurm|k8s` (emit.ts) is built from, as the sweep was given on this machine: the paths each
 * task's command names where the node will see them, the recipe files a Kubernetes ConfigMap carries and their
 * keys, and the warnings about what does not apply on a cluster. The CLI parses the options and prints; the rest
 * is here, so that every front door emits the same files.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CONFIG_MOUNT, type TaskCommandOptions } from './emit.js';
import type { SweepPlan } from './plan.js';

/** The sweep as given: paths relative to this machine's working directory. */
export interface EmitSource {
  readonly recipe: string;
  readonly mitigationsFiles: readonly string[];
  readonly outDir: string;
  /** Options a task must repeat (`--trials`, `--ticket`, `--timeout`, `--gpu-*`, `--disable-detector`, …). */
  readonly passThrough: readonly string[];
  readonly argv: readonly string[];
}

/**
 * What the plan asks for that a cluster's independent tasks cannot do, in words, or null. `stop_after` (the recipe's,
 * or --stop-after-events / --max-trials) cannot hold: each array task runs one trial on its own, so no task knows how
 * many events its cell had; emitting the script anyway would run every cell to max_trials, silently.
 */
export function clusterRefusal(plan: SweepPlan, emit: 'slurm' | 'k8s'): string | null {
  const rule = plan.config.stopAfter;
  if (rule === null) return null;
  return (
    `--emit ${emit}: stop_after {events: ${rule.events}, max_trials: ${rule.maxTrials}, event_verdict: ${rule.eventVerdict}} cannot hold on a cluster: ` +
    `each array task runs one trial independently, so no task can stop its cell after ${rule.events} ${rule.eventVerdict} event(s). ` +
    `Run this sweep on one machine (without --emit) to stop early, or remove stop_after (recipe, --stop-after-events, --max-trials) and set 'trials' (or --trials) to emit every trial`
  );
}

/** What does not apply on a cluster but stops nothing (none today: stop_after is refused, `clusterRefusal`). */
export function clusterWarnings(_plan: SweepPlan): string[] {
  return [];
}

/** Slurm: the nodes share this file system, so every path is made absolute. */
export function slurmTaskOptions(src: EmitSource, probeCommand: readonly string[]): TaskCommandOptions {
  return {
    probeCommand,
    recipe: resolve(src.recipe),
    mitigationsFiles: src.mitigationsFiles.map((f) => resolve(f)),
    outDir: resolve(src.outDir),
    passThrough: src.passThrough,
    argv: src.argv,
  };
}

/** Where the array's tasks write their Slurm logs (sbatch does not create the --output directory). */
export function slurmLogDir(outDir: string): string {
  return join(outDir, 'slurm');
}

/** One file of the ConfigMap: its key (file name in the pod) and text. */
export interface ConfigFile {
  readonly name: string;
  readonly text: string;
}

/** The recipe and the mitigations files as ConfigMap entries (the recipe's first), or the first that cannot be read. */
export function configMapFiles(
  src: EmitSource,
): { readonly files: ConfigFile[] } | { readonly unreadable: string; readonly error: unknown } {
  const files: ConfigFile[] = [];
  for (const [i, f] of [src.recipe, ...src.mitigationsFiles].entries()) {
    try {
      files.push({ name: configKey(f, i), text: readFileSync(f, 'utf8') });
    } catch (error) {
      return { unreadable: f, error };
    }
  }
  return { files };
}

/** Kubernetes: the recipe files come from the ConfigMap, the results go to the volume mounted at the output path. */
export function k8sTaskOptions(
  src: EmitSource,
  files: readonly ConfigFile[],
  probeCommand: readonly string[],
): TaskCommandOptions {
  return {
    probeCommand,
    recipe: `${CONFIG_MOUNT}/${files[0]!.name}`,
    mitigationsFiles: files.slice(1).map((f) => `${CONFIG_MOUNT}/${f.name}`),
    outDir: src.outDir,
    passThrough: src.passThrough,
    argv: src.argv,
  };
}

/**
 * A ConfigMap key (file name) for the i-th file: its base name made a valid key ([-._a-zA-Z0-9], at most 253
 * characters, not starting with '.'). Keys never collide, or one file's text would stand for another's: the
 * others' keys start `<i>-`, and the recipe's (i = 0) never starts with a digit.
 */
export function configKey(path: string, i: number): string {
  const base = basename(path)
    .replace(/[^-._a-zA-Z0-9]/g, '_')
    .slice(0, 240);
  if (i > 0) return `${i}-${base}`;
  return /^[0-9.]/.test(base) ? `_${base}` : base;
}
