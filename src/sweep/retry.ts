/**
 * The retry policy's question: is this failed attempt transient? It is when one of its fired failure or error
 * detectors is listed in `retry.on` by id, or by a category word it carries as the classifier joined it in
 * (`detector_categories[id]`): `transient` when it is transient, its `who` (`platform`, `user`, `unknown`), or a
 * custom pattern's `category`. The loader has refused words that no detector of the recipe can carry
 * (src/recipe/retry-on.ts). Reads the trial's typed result, the one the runner returned, not its `result.json`.
 */
import type { RetryPolicy } from '../recipe/index.js';
import type { TrialResult } from '../trial/index.js';

/** What the policy reads of a result. */
export type RetryFacts = Pick<
  TrialResult,
  'verdict' | 'failure_detectors_fired' | 'error_detectors_fired' | 'detector_categories'
>;

/** The entries of `retry.on` this attempt matched, in the order they were hit (empty: not transient, or a pass). */
export function retryReasons(result: RetryFacts, policy: RetryPolicy): string[] {
  if (result.verdict === 'pass' || policy.on.length === 0) return [];
  const hits = new Set<string>();
  for (const id of [...result.failure_detectors_fired, ...result.error_detectors_fired]) {
    if (policy.on.includes(id)) hits.add(id);
    if (!Object.hasOwn(result.detector_categories, id)) continue;
    const d = result.detector_categories[id]!;
    const words = [d.transient ? 'transient' : null, d.who, d.category];
    for (const w of words) if (w !== null && policy.on.includes(w)) hits.add(w);
  }
  return [...hits];
}
