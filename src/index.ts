/**
 * The package root, `aorta-probe`: conditions, recipes, scanning of strings and streams, lint, regexes.
 *
 * Browser-safe: nothing on any path this module loads imports a Node built-in, and the regex engine loads only on
 * first need (in a browser: after `await ready(...)`). The trial runner, the GPU sampler and file scanning are in
 * `aorta-probe/node` (src/node.ts). Everything exported here is documented in docs/library.md; anything else is
 * internal and may change.
 */

// Conditions
export { validateCondition, MAX_EXPR_LEN, MAX_INT_CONSTANT } from './condition/validate.js';
export type { CheckedCondition } from './condition/validate.js';
export { compileCondition, DEFAULT_REPR_LIMIT } from './condition/evaluate.js';
export type {
  Capture,
  CompiledCondition,
  CompileOptions,
  ConditionVars,
  DetailedResult,
  EvaluatedValue,
} from './condition/evaluate.js';
export { ConditionVarsError } from './condition/vars.js';
export {
  DEFAULT_COST_BUDGET,
  DEFAULT_HEAP_LIMIT_BYTES,
  MAX_HEAP_LIMIT_BYTES,
  MIN_HEAP_LIMIT_BYTES,
  VerifyError,
  VmOptionError,
} from './condition/vm-host.js';
export { disassemble, DisassemblyError } from './condition/disasm.js';

// Errors: every rejection of a recipe or a condition is a RecipeSchemaError.
export { RecipeSchemaError, SandboxError, withHint } from './condition/errors.js';
export type { SandboxErrorKind } from './condition/errors.js';
export { RegexDisposedError, RegexEngineError, RegexSubjectTooLargeError, RegexSyntaxError } from './regex/errors.js';
export type { RegexSyntaxErrorKind } from './regex/errors.js';
export { OptionsError } from './text/options.js';

// Recipes and lint
export {
  loadRecipe,
  loadRecipeCollecting,
  loadRedactionBlock,
  recipeErrors,
  type RecipeCollected,
} from './recipe/load.js';
export type {
  CustomPattern,
  LoadRecipeOptions,
  OnMatch,
  Recipe,
  RecipeMode,
  RegexCompileHook,
} from './recipe/types.js';
export { formatWarning, lintRecipe } from './lint/lint.js';
export type { LintWarning } from './lint/lint.js';

// The detector vocabulary: verdicts, detector ids, tiers, categories, the Tier 3 catalogue (docs/classifier.md)
export { DEFAULT_EXIT_STATUS, VERDICTS } from './detectors/verdict.js';
export type { Verdict } from './detectors/verdict.js';
export { ERROR_DETECTOR_IDS } from './detectors/ids.js';
export { BUILTIN_DETECTORS, TIER_NAMES, WHO_VALUES, unknownDetectorReason } from './detectors/catalogue.js';
export type { BuiltinDetector, DetectorCategory, TierName, Who } from './detectors/catalogue.js';
export { TIER3_IDS, XID_TABLE } from './detectors/tier3.js';
export type { KernelEvent } from './detectors/tier3.js';

// The classifier's pure parts: classifying a log, combining tiers, exit codes, self-tests (docs/classifier.md)
export { classify, disableSet, enabledPatterns } from './classifier/classify.js';
export type { Classification, ClassifyInput, DetectorKind, DisableSet, FiredDetector } from './classifier/classify.js';
export { classifyLog, classifyLogScan, planLogScan } from './classifier/classify-log.js';
export type { ClassifiedLog, ClassifyLogOptions, ClassifyRecipe, LogScanPlan } from './classifier/classify-log.js';
export { resolveExitStatus } from './classifier/exit-codes.js';
export type { ExitDecision } from './classifier/exit-codes.js';
export { formatSelfTestFailure, runSelfTests } from './classifier/self-test.js';
export type { SelfTestOutcome } from './classifier/self-test.js';
export { scanKernelLines } from './classifier/tier3.js';
export type { KernelLine } from './classifier/tier3.js';
export type { ExitCodeMap, SelfTestSample } from './recipe/types.js';

// Scanning: the patterns' raw firings (no disables, no Tier 1, no categories: that is classifyLog)
export { BUILTIN_PATTERN_VERSION, TIER4_PATTERNS } from './scan/tier4.js';
export type { BuiltinPattern } from './scan/tier4.js';
export { DEFAULT_WINDOW_BYTES, MAX_WINDOW_BYTES, MIN_WINDOW_BYTES } from './scan/windows.js';
export { scanLog } from './scan/scan.js';
export type {
  ConditionErrors,
  DetectorHit,
  EngineFailure,
  Firing,
  HitKind,
  ScanOptions,
  ScanRecipe,
  ScanResult,
  ScanVars,
} from './scan/scan.js';
export { scanStream } from './scan/stream.js';
export type { ByteSource } from './scan/stream.js';

// Regexes
export { compileRegex } from './regex/compile.js';
export type { RegexFlagString, RegexHandle } from './regex/compile.js';
export { matchAll, searchRegex, testRegex } from './regex/match.js';
export type { MatchOptions, RegexMatch } from './regex/match.js';
export { MAX_SUBJECT_UTF8_BYTES } from './regex/limits.js';
export { requiredLiterals } from './regex/literals.js';
export type { LiteralSet } from './regex/literals.js';
export { isReady, ready } from './regex/engine-loader.js';
export type { ReadyOptions } from './regex/engine-loader.js';
export { lineWindows, MAX_WINDOW_UTF8_BYTES, SECRET_RULES, TextScrubber, WindowSplitter } from './redact/index.js';
export type { RedactionCounts, TextScrubOptions } from './redact/index.js';
