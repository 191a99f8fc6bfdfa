/** Public API of aorta-probe. */
export { validateCondition, MAX_EXPR_LEN, MAX_INT_CONSTANT } from './condition/validate.js';
export type { CheckedCondition } from './condition/validate.js';
export { SandboxError, RecipeSchemaError } from './condition/errors.js';
export type { SandboxErrorKind } from './condition/errors.js';
export { compileCondition } from './condition/evaluate.js';
export type { CompiledCondition, ConditionVars, DetailedResult, EvaluatedValue, CompileOptions } from './condition/evaluate.js';
export { DEFAULT_HEAP_LIMIT_BYTES, VerifyError } from './condition/vm-host.js';
export * from './recipe/index.js';
export * from './scan/index.js';
export { openFileChunks, readFileChunks, scanFile } from './scan/file.js';
export * from './regex/index.js';
export * from './trial/index.js';
export * from './lint/index.js';
