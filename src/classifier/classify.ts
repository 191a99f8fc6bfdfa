/**
 * Combines the tiers into the trial's verdict, as the newest original's `classify_trial` (`verdict.py`, ROCm/aorta):
 * Tier 1, Tier 2, Tier 3 (split into failures and warnings), then Tiers 4 and 5 from the log scan; disabled tiers
 * and ids are left out (custom patterns are removed before the scan, see `enabledPatterns`); every fired id is then
 * an error (ERROR_DETECTOR_IDS) or a failure, or a warning. Each fired detector carries its category. Pure: the
 * runner and the recipe self-tests both call it.
 */
import type { ClassifierKeys, CustomPattern } from '../recipe/types.js';
import {
  AUTOPSY_CATEGORY_DEFAULTS,
  BUILTIN_DETECTORS,
  tierOf,
  UNCATEGORISED,
  type TierName,
  type Who,
} from '../detectors/catalogue.js';
import { TIER3_WARN_IDS } from '../detectors/tier3.js';
import { partitionDetectors, verdictFromDetectors } from './verdict.js';
import type { Verdict } from '../detectors/verdict.js';

export interface DisableSet {
  readonly tiers: ReadonlySet<TierName>;
  readonly ids: ReadonlySet<string>;
}

/**
 * The recipe's `disable_detector_tiers` / `disable_detectors` united with `--disable-detector` tokens (a tier
 * name or an id, already checked by `unknownDetectorReason`).
 */
export function disableSet(
  keys: Pick<ClassifierKeys, 'disableDetectors' | 'disableDetectorTiers'> | null,
  extra: readonly string[] = [],
): DisableSet {
  const tiers = new Set<TierName>(keys?.disableDetectorTiers ?? []);
  const ids = new Set<string>(keys?.disableDetectors ?? []);
  for (const t of extra) {
    if (t.includes(':')) ids.add(t);
    else tiers.add(t as TierName);
  }
  return { tiers, ids };
}

export const NOTHING_DISABLED: DisableSet = { tiers: new Set(), ids: new Set() };

export function tierDisabled(set: DisableSet, tier: TierName): boolean {
  return set.tiers.has(tier);
}

export function isDisabled(set: DisableSet, id: string): boolean {
  if (set.ids.has(id)) return true;
  const tier = tierOf(id);
  return tier !== null && set.tiers.has(tier);
}

/** The custom patterns the scan runs: a disabled one adds no capture and cannot miss a `required_for_pass`. */
export function enabledPatterns(patterns: readonly CustomPattern[], set: DisableSet): CustomPattern[] {
  return patterns.filter((p) => !isDisabled(set, p.detectorId));
}

export type DetectorKind = 'failure' | 'error' | 'warn';

/** A fired detector as result.json lists it. */
export interface FiredDetector {
  readonly id: string;
  readonly kind: DetectorKind;
  readonly who: Who;
  readonly transient: boolean;
  /** A custom pattern's `category` (the original's autopsy vocabulary), else null. */
  readonly category: string | null;
}

/** What categorising needs of a recipe. */
export type CategorySource = Pick<ClassifierKeys, 'detectorCategories'> & {
  readonly customPatterns: readonly CustomPattern[];
};

/** Category of one id: the recipe's override, else the built-in default, else the custom pattern's category's. */
export function categorize(id: string, kind: DetectorKind, recipe: CategorySource | null): FiredDetector {
  const pattern = id.startsWith('custom:') ? recipe?.customPatterns.find((p) => p.detectorId === id) : undefined;
  const category = pattern?.category ?? null;
  const base =
    recipe?.detectorCategories.get(id) ??
    BUILTIN_DETECTORS.get(id) ??
    (category === null ? UNCATEGORISED : (AUTOPSY_CATEGORY_DEFAULTS[category] ?? UNCATEGORISED));
  return { id, kind, who: base.who, transient: base.transient, category };
}

export interface ClassifyInput {
  readonly tier1: readonly string[];
  readonly tier2: readonly string[];
  readonly tier3: readonly string[];
  /** Tiers 4 and 5 (and `meta:missing_pass_signal`) from the log scan, in report order. */
  readonly scanFailures: readonly string[];
  readonly scanWarnings: readonly string[];
  readonly disabled: DisableSet;
  /** False when the command never started: Tier 1 then stays on whatever was disabled (as the original). */
  readonly launched: boolean;
  readonly recipe: CategorySource | null;
}

export interface Classification {
  readonly verdict: Verdict;
  readonly failures: string[];
  readonly errors: string[];
  readonly warnings: string[];
  /** Failures, errors, then warnings, each with its category. */
  readonly detectors: FiredDetector[];
}

export function classify(input: ClassifyInput): Classification {
  const on = (id: string): boolean => !isDisabled(input.disabled, id) || (!input.launched && tierOf(id) === 'tier1');
  const tier3 = input.tier3.filter(on);
  const fired = [
    ...input.tier1,
    ...input.tier2,
    ...tier3.filter((id) => !TIER3_WARN_IDS.has(id)),
    ...input.scanFailures,
  ].filter(on);
  const { failures, errors } = partitionDetectors(fired);
  const warnings = [...tier3.filter((id) => TIER3_WARN_IDS.has(id)), ...input.scanWarnings.filter(on)];
  const detectors = [
    ...failures.map((id) => categorize(id, 'failure', input.recipe)),
    ...errors.map((id) => categorize(id, 'error', input.recipe)),
    ...warnings.map((id) => categorize(id, 'warn', input.recipe)),
  ];
  return { verdict: verdictFromDetectors(failures, errors), failures, errors, warnings, detectors };
}

/** A detector's category fields, as they join a log detector's location record. */
export interface DetectorCategoryFields {
  readonly who: Who;
  readonly transient: boolean;
  readonly category: string | null;
}

/**
 * Log detectors (where each fired: line, byte offset, match) with their categories joined in: the one record
 * result.json, `scan --json` and the reports list. An info pattern is not in the classification; its category is
 * still the pattern's.
 */
export function withCategories<L extends { readonly id: string }>(
  located: readonly L[],
  classified: readonly FiredDetector[],
  recipe: CategorySource | null,
): (L & DetectorCategoryFields)[] {
  const byId = new Map(classified.map((d) => [d.id, d]));
  return located.map((l) => {
    const d = byId.get(l.id) ?? categorize(l.id, 'warn', recipe);
    return { ...l, who: d.who, transient: d.transient, category: d.category };
  });
}

/** Every fired detector's kind and category by id (Tiers 1–3 included, which have no place in the log). */
export function categoriesById(classified: readonly FiredDetector[]): Record<string, Omit<FiredDetector, 'id'>> {
  const out: Record<string, Omit<FiredDetector, 'id'>> = {};
  for (const { id, ...rest } of classified) out[id] = rest;
  return out;
}
