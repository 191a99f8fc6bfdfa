/**
 * `sweep --json`: the one JSON document a sweep prints (schemas/sweep.schema.json). `mode` says which of the
 * sweep's jobs it did — `dry-run` (the plan), `emit` (what was written where), `run` (the trials, and the report of
 * DIR as `report --json` has it) — and every mode carries the plan and the exit status. Paths under DIR are shown
 * as DIR was given (`--out runs` → `runs/T/none-none/trial_0`), as every other command shows its inputs.
 */
import { join, relative, resolve } from 'node:path';
import { RESULT_FILE } from '../trial/index.js';
import type { SweepReport } from '../report/index.js';
import { reportJson } from '../report/format-json.js';
import type { AttemptSummary, SweepPlan, SweepSummary, SweepTask, SweepTrial } from '../sweep/index.js';

export interface PlanJson {
  readonly recipe: string;
  readonly ticket: string;
  readonly out: string;
  readonly argv: readonly string[];
  readonly trials_per_cell: number;
  readonly tasks: number;
  readonly cells: readonly {
    readonly name: string;
    readonly mitigation: string;
    readonly diagnostic: string;
    readonly env: Readonly<Record<string, string>>;
  }[];
}

export interface TaskJson {
  readonly task: number;
  readonly cell: string;
  readonly trial: number;
}

export interface TrialJson extends TaskJson {
  readonly verdict: SweepTrial['verdict'];
  /** The final attempt's exit status as `run` has it (the recipe's `exit_codes:` included). */
  readonly exit_status: number;
  readonly dir: string;
  /** The trial's record (retention never removes it). */
  readonly result_json: string;
  readonly devices: readonly string[] | null;
  readonly interrupted: boolean;
  readonly retention: SweepTrial['retention'];
  readonly resumed: boolean;
  readonly attempts: readonly AttemptSummary[];
}

/** The sweep's plan: what every mode prints first. */
export function planJson(plan: SweepPlan, out: string, argv: readonly string[]): PlanJson {
  return {
    recipe: plan.recipePath,
    ticket: plan.ticket,
    out,
    argv,
    trials_per_cell: plan.trialsPerCell,
    tasks: plan.tasks.length,
    cells: plan.cells.map((c) => ({
      name: c.name,
      mitigation: c.mitigations[0],
      diagnostic: c.mitigations[1],
      env: Object.fromEntries(c.env),
    })),
  };
}

/** An absolute path under DIR, shown under DIR as the user gave it. */
export function underOut(out: string, path: string): string {
  return join(out, relative(resolve(out), path));
}

function taskJson(t: SweepTask): TaskJson {
  return { task: t.index, cell: t.cell.name, trial: t.trial };
}

function trialJson(t: SweepTrial, out: string): TrialJson {
  const dir = underOut(out, t.dir);
  return {
    ...taskJson(t.task),
    verdict: t.verdict,
    exit_status: t.exitStatus,
    dir,
    result_json: join(dir, RESULT_FILE),
    devices: t.devices,
    interrupted: t.interrupted,
    retention: t.retention,
    resumed: t.resumed,
    attempts: t.attempts,
  };
}

/** `mode: run`: the finished trials, the tasks not run, and the report of DIR (null for one `--task`). */
export function runJson(
  plan: PlanJson,
  summary: SweepSummary,
  task: number | undefined,
  report: SweepReport | null,
  exitStatus: number,
): object {
  return {
    mode: 'run',
    plan,
    task: task ?? null,
    run_id: summary.runId,
    moved_aside: summary.movedAside === null ? null : underOut(plan.out, summary.movedAside),
    trials: summary.trials.map((t) => trialJson(t, plan.out)),
    skipped: summary.skipped.map(taskJson),
    stopped_cells: summary.stoppedCells,
    interrupted: summary.interrupted,
    counts: summary.counts,
    matrix: summary.matrix,
    report: report === null ? null : reportJson(report),
    exit_status: exitStatus,
  };
}
