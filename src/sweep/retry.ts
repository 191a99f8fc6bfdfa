/**
 * The retry policy's question: is this failed attempt transient? It is when one of its fired failure or error
 * detectors is listed in `retry.on`, by id or by category.
 *
 * A detector's category comes, in this order, from the record itself — a fired-detector entry that is an object
 * `{id, category}`, or a `detector_categories` map from id to a category or to the classifier's
 * `{kind, who, transient, category}` (what `aorta-probe run` writes) — and else from the recipe's
 * `custom_patterns[].category`.
 */
import type { Recipe } from '../recipe/index.js';
import type { RetryPolicy } from '../recipe/index.js';

export interface FiredDetector {
  readonly id: string;
  readonly category: string | null;
}

/** The fired failure and error detectors of a `result.json` object, with categories where known. */
export function firedDetectors(
  record: Readonly<Record<string, unknown>>,
  recipeCategories: ReadonlyMap<string, string> = new Map(),
): FiredDetector[] {
  const map = record.detector_categories;
  const fromMap = (id: string): string | null => {
    const v = map !== null && typeof map === 'object' ? (map as Record<string, unknown>)[id] : undefined;
    if (typeof v === 'string') return v;
    // The classifier's shape: {kind, who, transient, category} per id; its category is the pattern's, when it has one.
    if (v !== null && typeof v === 'object' && typeof (v as { category?: unknown }).category === 'string')
      return (v as { category: string }).category;
    return recipeCategories.get(id) ?? null;
  };
  const out: FiredDetector[] = [];
  for (const key of ['failure_detectors_fired', 'error_detectors_fired']) {
    const list = record[key];
    if (!Array.isArray(list)) continue;
    for (const e of list as unknown[]) {
      if (typeof e === 'string') out.push({ id: e, category: fromMap(e) });
      else if (e !== null && typeof e === 'object' && typeof (e as { id?: unknown }).id === 'string') {
        const { id, category } = e as { id: string; category?: unknown };
        out.push({ id, category: typeof category === 'string' ? category : fromMap(id) });
      }
    }
  }
  return out;
}

/** `custom:<id>` → category, from the recipe's patterns that name one. */
export function recipeCategories(recipe: Recipe | null): Map<string, string> {
  const m = new Map<string, string>();
  for (const p of recipe?.customPatterns ?? []) if (p.category !== null) m.set(p.detectorId, p.category);
  return m;
}

/** The entries of `retry.on` this attempt matched (empty: not transient, or a pass). */
export function retryReasons(
  record: Readonly<Record<string, unknown>>,
  policy: RetryPolicy,
  categories: ReadonlyMap<string, string>,
): string[] {
  if (record.verdict === 'pass' || policy.on.length === 0) return [];
  const hits = new Set<string>();
  for (const d of firedDetectors(record, categories)) {
    if (policy.on.includes(d.id)) hits.add(d.id);
    if (d.category !== null && policy.on.includes(d.category)) hits.add(d.category);
  }
  return [...hits];
}
