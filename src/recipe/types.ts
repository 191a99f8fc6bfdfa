/** The typed recipe a loader call returns. */
import type { CheckedCondition } from '../condition/validate.js';
import type { DetectorCategory, TierName, Who } from '../detectors/catalogue.js';
import type { Verdict } from '../detectors/verdict.js';
import type { FilePos } from './errors.js';
import { OPTION, type OptionTable } from '../text/options.js';

export type OnMatch = 'fail' | 'warn' | 'info';

export const ON_MATCH_VALUES: readonly OnMatch[] = ['fail', 'info', 'warn'];

/** One validated `custom_patterns` entry (the original's `CompiledPattern`, before regex compilation). */
export interface CustomPattern {
  /** The entry's `id`. */
  readonly id: string;
  /** `custom:{id}`. */
  readonly detectorId: string;
  /** The regex source, in Python `re` syntax, not yet compiled. */
  readonly regex: string;
  /** Regex flags; the original compiles with none. */
  readonly flags: string;
  /** The validated condition, or null when absent / `null`. */
  readonly condition: CheckedCondition | null;
  /** The condition text as written (before strip), or null. */
  readonly conditionSource: string | null;
  readonly onMatch: OnMatch;
  readonly requiredForPass: boolean;
  readonly category: string | null;
  /** 1-based position of the entry in the recipe file. */
  readonly line: number;
  readonly col: number;
}

export type RecipeMode = 'triage' | 'probe';

/** What Tier 2 does once a hang is detected: only record it, or also stop the trial. */
export type HangAction = 'record' | 'kill';
export const HANG_ACTIONS: readonly HangAction[] = ['kill', 'record'];

/** The recipe's `exit_codes:` map (what `aorta-probe run` exits with), see src/trial/exit-codes.ts. */
export interface ExitCodeMap {
  readonly detector: ReadonlyMap<string, number>;
  readonly category: ReadonlyMap<Who | 'transient', number>;
  readonly verdict: ReadonlyMap<'fail' | 'error', number>;
}

/** One recipe `tests:` sample: a log snippet and trial values, and what classifying them must give. */
export interface SelfTestSample {
  readonly name: string;
  readonly log: string;
  readonly exitCode: number;
  readonly walltimeSec: number;
  readonly peakVramMib: number | null;
  readonly expectVerdict: Verdict;
  /** The exact set of fired detectors (failure, error and warn), or null when not checked. */
  readonly expectDetectors: readonly string[] | null;
  /** Captures that must be present with these values (others may be too), or null. */
  readonly expectCapture: Readonly<Record<string, string>> | null;
  readonly line: number;
  readonly col: number;
}

/** The classifier keys (Tiers 2 and 3, disabling, categories, exit codes, self-tests) with their defaults applied. */
export interface ClassifierKeys {
  /** When set, Tier 2's output signal is "no new line matching it" instead of "no new output". */
  readonly progressRegex: string | null;
  readonly hangAction: HangAction;
  readonly tier3VramGrowth: boolean;
  /** Sorted, as the loader read them. */
  readonly disableDetectors: readonly string[];
  readonly disableDetectorTiers: readonly TierName[];
  /** Category overrides by detector id (built-in or custom). */
  readonly detectorCategories: ReadonlyMap<string, DetectorCategory>;
  readonly exitCodes: ExitCodeMap | null;
  readonly tests: readonly SelfTestSample[];
}

/** Environment variables a mitigation (or diagnostic) sets, in the order written. */
export type EnvBundle = ReadonlyMap<string, string>;

/** Mitigation name → its env bundle. */
export type MitigationTable = ReadonlyMap<string, EnvBundle>;

export interface StopAfter {
  /** Stop a cell once this many of its trials ended with `eventVerdict`. */
  readonly events: number;
  /** A cell never runs more trials than this (it replaces `trials` as the cell's budget). */
  readonly maxTrials: number;
  readonly eventVerdict: Verdict;
}

export type RetentionLevel = 'full' | 'log' | 'summary' | 'none';
export type Retention = Readonly<Record<Verdict, RetentionLevel>>;

export interface RetryPolicy {
  /** Attempts after the first; 0 = no retry. */
  readonly max: number;
  /** Detector ids (`tier1:timeout`, `custom:nccl_timeout`) or categories (`rccl_hang`) that make a failure transient. */
  readonly on: readonly string[];
}

/** The keys only a sweep reads (src/recipe/sweep-keys.ts), with their defaults applied. */
export interface SweepKeys {
  /** The recipe's own `mitigations:` table, without the implicit `none` and any `--mitigations-file`. */
  readonly mitigations: MitigationTable;
  readonly stopAfter: StopAfter | null;
  readonly retain: Retention;
  readonly retry: RetryPolicy;
}

/** The original's `DEFAULT_HANG_WINDOW_SEC` and `DEFAULT_HANG_GRACE_SEC`: Tier 2's defaults when a recipe sets none. */
export const DEFAULT_HANG_WINDOW_SEC = 30;
export const DEFAULT_HANG_GRACE_SEC = 60;

/** The original's `confound:` block (triage/confound.py): the speed-confound threshold and an explicit baseline cell. */
export interface ConfoundKeys {
  /** A cell slower than the baseline by more than this ratio "works" by being slower (default 1.15). */
  readonly threshold: number;
  readonly baselineCell: string | null;
  /** Where `baseline_cell` is written, for the sweep's error when it names no cell. */
  readonly baselineCellPos: FilePos | null;
}

export const DEFAULT_CONFOUND: ConfoundKeys = Object.freeze({
  threshold: 1.15,
  baselineCell: null,
  baselineCellPos: null,
});

/**
 * The original's `redaction:` block (`probe/redaction.py` `parse_redaction`): env keys removed by fnmatchcase globs,
 * paths and IP addresses rewritten, all off by default; plus ours: `scrub_secrets` (credentials in free text; on by
 * default when the block is present) and `extra_patterns` (regexes whose matches become `<REDACTED:N>`).
 */
export interface RedactionKeys {
  readonly scrubEnvKeys: readonly string[];
  readonly scrubPaths: boolean;
  readonly scrubIpAddresses: boolean;
  readonly scrubSecrets: boolean;
  /** Python `re` sources, checked on RE2 like `custom_patterns` regexes. */
  readonly extraPatterns: readonly string[];
}

/** The subset of recipe keys the scanner and the classifier consume. */
export interface Recipe extends ClassifierKeys, SweepKeys {
  readonly fileName: string;
  /** sha256 (hex) of the recipe text. */
  readonly sourceSha256: string;
  /** True for a bare `custom_patterns:` file (no other top-level keys). */
  readonly bare: boolean;
  readonly mode: RecipeMode;
  readonly schemaVersion: number | null;
  readonly ticket: string | null;
  readonly trials: number | null;
  readonly mitigationAxis: readonly string[];
  readonly diagnosticAxis: readonly string[];
  /** Where each axis value is written, for errors a sweep finds later (an unknown mitigation, a slug clash). */
  readonly axisPositions: Readonly<Record<'mitigation_axis' | 'diagnostic_axis', readonly FilePos[]>>;
  readonly timeoutPerTrial: number | null;
  readonly envPassthroughMode: 'inherit' | 'file';
  readonly confound: ConfoundKeys;
  /** `redaction.scrub_env_keys` (fnmatchcase globs) when the block lists them; null otherwise. */
  readonly scrubEnvKeys: readonly string[] | null;
  /** The `redaction:` block (probe recipes only), or null when the recipe has none. */
  readonly redaction: RedactionKeys | null;
  readonly hangWindowSec: number;
  readonly hangGracePeriodAtStart: number;
  readonly customPatterns: readonly CustomPattern[];
  /** Top-level keys present in the file, in order. */
  readonly keys: readonly string[];
}

/**
 * Regex compilation hook: called once per `match.regex` after its type check, at the position of the
 * original's `re.compile`. Throw an `Error` whose message is the engine's reason to reject the
 * pattern; the loader turns it into `{path}.match.regex: invalid regex ({message}): {regex!r}`.
 * No hook ⇒ regexes are stored unchecked.
 */
export type RegexCompileHook = (source: string, flags: string) => void;

export interface LoadRecipeOptions {
  readonly compileRegex?: RegexCompileHook;
  /**
   * The names an axis value may take besides the recipe's own `mitigations:` (mitigation-registry.ts): the
   * built-ins plus any `--mitigations-file`. Default: the built-ins.
   */
  readonly mitigations?: ReadonlyMap<string, { readonly env: EnvBundle; readonly source: string }>;
}

/** The option keys of `loadRecipe`, `loadRecipeCollecting` and `recipeErrors` (text/options.ts). */
export const LOAD_RECIPE_OPTION_KEYS = {
  compileRegex: OPTION,
  mitigations: OPTION,
} satisfies OptionTable<LoadRecipeOptions>;
