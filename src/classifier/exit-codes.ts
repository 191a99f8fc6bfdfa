/**
 * The exit status of `aorta-probe run`: the defaults (0 pass, 1 fail, 3 error) unless the recipe's `exit_codes:`
 * map says otherwise, so that retry systems that see only exit codes (Kubernetes podFailurePolicy, GitLab
 * retry:exit_codes, Buildkite, Slurm) can act on what the log says. A pass always exits 0.
 *
 * Resolution, first match wins: (1) `detector`: the first fired failure, then error, whose id is mapped;
 * (2) `category`: `transient` if any fired failure or error is transient, then the *who* of the first fired
 * failure or error that has a mapping; (3) `verdict`; (4) the default.
 */
import type { ExitCodeMap } from '../recipe/types.js';
import { type CategorySource, categorize, type FiredDetector } from './classify.js';
import { DEFAULT_EXIT_STATUS, type Verdict } from '../detectors/verdict.js';

export interface ExitDecision {
  readonly status: number;
  /** What chose it: 'default', 'verdict:fail', 'category:transient', 'detector:tier2:hang', ... */
  readonly reason: string;
}

export function resolveExitStatus(
  verdict: Verdict,
  detectors: readonly FiredDetector[],
  map: ExitCodeMap | null,
): ExitDecision {
  if (verdict === 'pass' || map === null) return { status: DEFAULT_EXIT_STATUS[verdict], reason: 'default' };
  const fired = [...detectors.filter((d) => d.kind === 'failure'), ...detectors.filter((d) => d.kind === 'error')];
  for (const d of fired) {
    const s = map.detector.get(d.id);
    if (s !== undefined) return { status: s, reason: `detector:${d.id}` };
  }
  const transient = map.category.get('transient');
  if (transient !== undefined && fired.some((d) => d.transient))
    return { status: transient, reason: 'category:transient' };
  for (const d of fired) {
    const s = map.category.get(d.who);
    if (s !== undefined) return { status: s, reason: `category:${d.who}` };
  }
  const v = map.verdict.get(verdict);
  if (v !== undefined) return { status: v, reason: `verdict:${verdict}` };
  return { status: DEFAULT_EXIT_STATUS[verdict], reason: 'default' };
}

/**
 * Which exit statuses of `run` (and of a sweep task) call for a rerun, for schedulers that act on the status
 * alone (the Kubernetes Job's `podFailurePolicy`). Retryable: a status the recipe maps from `category:
 * transient` or `platform`, or from a detector whose category is transient or platform — infrastructure
 * trouble another attempt (on another node) may not meet. Final: the default fail/error statuses and every
 * other mapped status — the trial's own failure, which a rerun would repeat. A status mapped both ways is
 * retryable: a counted rerun is bounded, a wrongly final status loses the answer.
 */
export function exitStatusClasses(
  map: ExitCodeMap | null,
  recipe: CategorySource | null,
): { readonly retryable: readonly number[]; readonly final: readonly number[] } {
  const retry = new Set<number>();
  const final = new Set<number>([DEFAULT_EXIT_STATUS.fail, DEFAULT_EXIT_STATUS.error]);
  if (map !== null) {
    for (const [id, s] of map.detector) {
      const c = categorize(id, 'failure', recipe);
      (c.transient || c.who === 'platform' ? retry : final).add(s);
    }
    for (const [who, s] of map.category) (who === 'transient' || who === 'platform' ? retry : final).add(s);
    for (const s of map.verdict.values()) final.add(s);
  }
  const sorted = (xs: Iterable<number>): number[] => [...xs].sort((a, b) => a - b);
  return { retryable: sorted(retry), final: sorted([...final].filter((s) => !retry.has(s))) };
}
