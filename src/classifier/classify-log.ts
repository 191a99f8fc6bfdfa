/**
 * Classifying a log under a recipe, the one composition every front door shares (`scan`, `run`, `check`'s
 * self-tests, the playground, the library's `classifyLog`): the recipe's disables decide what is scanned
 * (`planLogScan`), the scan fires raw detectors, then `classifyScanned` adds the other tiers (Tier 1 from the exit
 * code; Tiers 2 and 3 when a live trial has them), combines them (`classify`), joins the categories in and leaves
 * out disabled detectors and the engine failures of a disabled `meta:regex_engine_failure`.
 *
 * Browser-safe: nothing here, nor anything it imports, loads a Node built-in.
 */
import type { Recipe } from '../recipe/types.js';
import {
  scanLogUnchecked,
  type ConditionErrors,
  type DetectorHit,
  type EngineFailure,
  type ScanOptions,
  type ScanRecipe,
  type ScanResult,
  type ScanVars,
} from '../scan/scan.js';
import { MISSING_PASS_SIGNAL, REGEX_ENGINE_FAILURE } from '../detectors/ids.js';
import type { Verdict } from '../detectors/verdict.js';
import {
  classify,
  disableSet,
  enabledPatterns,
  isDisabled,
  tierDisabled,
  withCategories,
  type Classification,
  type DetectorCategoryFields,
  type DisableSet,
} from './classify.js';
import { detectTier1 } from './tier1.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

/** What classifying a log needs of a recipe: its patterns, disables and category overrides. */
export type ClassifyRecipe = Pick<
  Recipe,
  'customPatterns' | 'disableDetectors' | 'disableDetectorTiers' | 'detectorCategories'
> & { readonly fileName?: string };

export interface ClassifyLogOptions extends ScanOptions {
  /** `--disable-detector` tokens (a tier name or an id), united with the recipe's disables. */
  readonly disableDetectors?: readonly string[];
}

/** `classifyLog`'s option keys (text/options.ts). */
export const CLASSIFY_LOG_OPTION_KEYS = {
  windowBytes: OPTION,
  disableDetectors: OPTION,
} satisfies OptionTable<ClassifyLogOptions>;

/** What a scan under a recipe runs: the recipe's enabled custom patterns, and the disables to apply after it. */
export interface LogScanPlan {
  readonly recipe: ClassifyRecipe | null;
  readonly disabled: DisableSet;
  /** Disabled custom patterns are not scanned: they add no capture and cannot miss a `required_for_pass`. */
  readonly scanRecipe: ScanRecipe | null;
}

export function planLogScan(recipe: ClassifyRecipe | null, extraDisables: readonly string[] = []): LogScanPlan {
  const disabled = disableSet(recipe, extraDisables);
  const scanRecipe =
    recipe === null
      ? null
      : {
          customPatterns: tierDisabled(disabled, 'tier5') ? [] : enabledPatterns(recipe.customPatterns, disabled),
          ...(recipe.fileName === undefined ? {} : { fileName: recipe.fileName }),
        };
  return { recipe, disabled, scanRecipe };
}

/** The tiers a log does not show: Tier 1 from the exit, Tiers 2 and 3 from a live trial. */
export interface OtherTiers {
  readonly tier1: readonly string[];
  readonly tier2?: readonly string[];
  readonly tier3?: readonly string[];
  /** False when the command never started (its Tier 1 then stays whatever is disabled). Default true. */
  readonly launched?: boolean;
}

/** A classified log: the verdict of every tier combined, disables applied, categories joined in. */
export interface ClassifiedLog {
  readonly verdict: Verdict;
  /** Failure ids in report order (Tier 1, 2, 3, then the log's, then `meta:missing_pass_signal`). */
  readonly failure_detectors_fired: string[];
  /** Error ids (ERROR_DETECTOR_IDS): `tier1:timeout`, `meta:regex_engine_failure`, … */
  readonly error_detectors_fired: string[];
  readonly warn_detectors_fired: string[];
  /** Patterns the engine could not match to the end (empty when `meta:regex_engine_failure` is disabled). */
  readonly engine_failures: EngineFailure[];
  readonly capture: Record<string, string>;
  /** Patterns whose condition raised on some of their matches (a raise means "did not fire"). */
  readonly condition_errors: ConditionErrors[];
  /** Where each log detector fired, with its category; disabled ids left out. */
  readonly detectors: (DetectorHit & DetectorCategoryFields)[];
  readonly tier_durations_ms: ScanResult['tier_durations_ms'];
  /** Every fired detector (Tiers 1–3 too) with its kind and category: `detector_categories`, exit statuses. */
  readonly classification: Classification;
}

/**
 * What the log's firings say, before the other tiers and the disables: a `tier4` or `fail` hit is a failure, a
 * `warn` hit a warning (`info` and `required` hits neither); a missed required pattern is
 * `meta:missing_pass_signal`, an engine failure `meta:regex_engine_failure`.
 */
function logFindings(scanned: ScanResult): { failures: string[]; warnings: string[] } {
  const failures = scanned.detectors.filter((d) => d.kind === 'tier4' || d.kind === 'fail').map((d) => d.id);
  if (scanned.missing_required.length > 0) failures.push(MISSING_PASS_SIGNAL);
  if (scanned.engine_failures.length > 0) failures.push(REGEX_ENGINE_FAILURE);
  const warnings = scanned.detectors.filter((d) => d.kind === 'warn').map((d) => d.id);
  return { failures, warnings };
}

/** Tier 1 of a process that ran to its exit with `exitCode` (Popen's convention: −N for signal N), as `run`'s. */
function exitTier1(exitCode: number): string[] {
  return detectTier1({ exitCode, timedOut: false, execFailed: false, interrupted: false, coreFile: false });
}

/** The post-scan part: combines a plan's scan with the other tiers. */
export function classifyScanned(plan: LogScanPlan, scanned: ScanResult, tiers: OtherTiers): ClassifiedLog {
  const { disabled, recipe } = plan;
  const found = logFindings(scanned);
  const c = classify({
    tier1: tiers.tier1,
    tier2: tiers.tier2 ?? [],
    tier3: tiers.tier3 ?? [],
    scanFailures: found.failures,
    scanWarnings: found.warnings,
    disabled,
    launched: tiers.launched ?? true,
    recipe,
  });
  return {
    verdict: c.verdict,
    failure_detectors_fired: c.failures,
    error_detectors_fired: c.errors,
    warn_detectors_fired: c.warnings,
    engine_failures: isDisabled(disabled, REGEX_ENGINE_FAILURE) ? [] : scanned.engine_failures,
    capture: scanned.capture,
    condition_errors: scanned.condition_errors,
    detectors: withCategories(
      scanned.detectors.filter((d) => !isDisabled(disabled, d.id)),
      c.detectors,
      recipe,
    ),
    tier_durations_ms: scanned.tier_durations_ms,
    classification: c,
  };
}

/**
 * The post-scan part for a log without a live trial (`scan`, the playground, `classifyLog`): Tier 1 from the exit
 * code the scan's conditions saw.
 */
export function classifyLogScan(plan: LogScanPlan, scanned: ScanResult, vars: ScanVars): ClassifiedLog {
  return classifyScanned(plan, scanned, { tier1: exitTier1(vars.exit_code) });
}

/**
 * Classifies `logText` the way `aorta-probe run` classifies a trial that printed it and exited with
 * `vars.exit_code`: the recipe's disables (and `options.disableDetectors`), Tier 1 from the exit code, Tiers 4
 * and 5 from the log, categories. `recipe` null: Tier 1 and Tier 4 only.
 */
export function classifyLog(
  recipe: ClassifyRecipe | null,
  logText: string,
  vars: ScanVars,
  options: ClassifyLogOptions = {},
): ClassifiedLog {
  checkOptions('classifyLog', options, CLASSIFY_LOG_OPTION_KEYS);
  const plan = planLogScan(recipe, options.disableDetectors);
  return classifyLogScan(plan, scanLogUnchecked(plan.scanRecipe, logText, vars, options), vars);
}
