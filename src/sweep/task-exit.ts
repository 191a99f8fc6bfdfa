/**
 * Exit statuses of `aorta-probe sweep --task` — one (cell, trial) on a cluster node — which the Slurm array's
 * task states and the Kubernetes Job's `podFailurePolicy` are built on. The verdict statuses are `run`'s.
 */
export const TASK_EXIT = {
  /** The trial passed. */
  pass: 0,
  /** The trial failed; its result.json is written, rerunning it answers nothing new. */
  fail: 1,
  /** Bad options, recipe or task index: every task would fail the same way. */
  usage: 2,
  /** The trial's verdict is error (timeout, the command could not start); result.json is written. */
  error: 3,
} as const;
