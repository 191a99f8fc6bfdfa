/** Recipe loader public API. */
export {
  loadRecipe,
  loadRecipeCollecting,
  loadRedactionBlock,
  recipeErrors,
  VALID_TOP_LEVEL,
  PHASE_3_KEYS,
  TRIAGE_ONLY_KEYS,
  PROBE_ONLY_KEYS,
  COMMON_KEYS,
} from './load.js';
export type { RecipeCollected } from './load.js';
export { RecipeError, RecipeSandboxError } from './errors.js';
export type { FilePos } from './errors.js';
export { ON_MATCH_VALUES, DEFAULT_CONFOUND, DEFAULT_HANG_WINDOW_SEC, DEFAULT_HANG_GRACE_SEC } from './types.js';
export type {
  CustomPattern,
  EnvBundle,
  LoadRecipeOptions,
  ConfoundKeys,
  MitigationTable,
  RedactionKeys,
  OnMatch,
  Recipe,
  RecipeMode,
  RegexCompileHook,
  Retention,
  RetentionLevel,
  RetryPolicy,
  StopAfter,
  SweepKeys,
} from './types.js';
export { FULL_RETENTION, NO_RETRY, RETENTION_LEVELS, SWEEP_KEYS } from './sweep-keys.js';
export { BUILTIN_MITIGATION_NAMES, BUILTIN_SOURCE, builtinRegistry } from './mitigation-registry.js';
export type { MitigationRegistry, RegistryEntry } from './mitigation-registry.js';
export { MAX_EXPANDED_NODES, MAX_DEPTH } from './tree.js';
