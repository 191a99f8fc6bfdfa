/** Recipe lint public API (re-exported from the package root, hence the `Lint` prefixes). */
export { lintRecipe, formatWarning } from './lint.js';
export type { LintWarning } from './lint.js';
export { analyzeCondition } from './analyze.js';
export type {
  CaptureModel as LintCaptureModel,
  Claim as LintClaim,
  ConditionLint,
  Finding as LintFinding,
} from './analyze.js';
export { captureModel, regexGroups } from './regex-groups.js';
export type { RegexGroup, RegexGroups } from './regex-groups.js';
