/**
 * Which conditions need the trial's final values. `exit_code`, `walltime_sec` and `peak_vram_mib` are known only
 * when the trial has ended, while the log is scanned as it arrives. A condition that names none of them gives the
 * same answer whatever their values, so it can be decided live; one that names any is decided after the exit.
 */
import type { CheckedCondition } from '../condition/validate.js';

export const TRIAL_VAR_NAMES: ReadonlySet<string> = new Set(['exit_code', 'walltime_sec', 'peak_vram_mib']);

/** True when the checked tree reads `exit_code`, `walltime_sec` or `peak_vram_mib`. */
export function readsTrialVars(condition: CheckedCondition): boolean {
  const stack: unknown[] = [condition.tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const rec = node as Record<string, unknown>;
    if (rec.type === 'Name' && typeof rec.id === 'string' && TRIAL_VAR_NAMES.has(rec.id)) return true;
    for (const [k, v] of Object.entries(rec)) if (k !== 'loc' && typeof v === 'object') stack.push(v);
  }
  return false;
}
