/** Recipe loader public API. */
export { loadRecipe, VALID_TOP_LEVEL, PHASE_3_KEYS, TRIAGE_ONLY_KEYS, PROBE_ONLY_KEYS, COMMON_KEYS } from './load.js';
export { RecipeError, RecipeSandboxError } from './errors.js';
export type { FilePos } from './errors.js';
export { AUTOPSY_CATEGORIES, ON_MATCH_VALUES } from './types.js';
export type { CustomPattern, LoadRecipeOptions, OnMatch, Recipe, RecipeMode, RegexCompileHook } from './types.js';
export { MAX_EXPANDED_NODES, MAX_DEPTH } from './tree.js';
