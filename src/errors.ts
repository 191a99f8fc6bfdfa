/**
 * The project-wide base of every "this recipe is wrong" error.
 *
 * It lives here, above the modules, because both the condition sandbox and the regex layer raise
 * recipe faults and neither should depend on the other for it. The hierarchy mirrors the original
 * system (`SandboxError(RecipeSchemaError(ValueError))`), so a caller that catches
 * `RecipeSchemaError` catches every rejection a recipe can get at load time.
 */
export class RecipeSchemaError extends Error {
  override name = 'RecipeSchemaError';
  // Set on every error `loadRecipe` throws (the recipe-file position of the offending value); absent on a
  // rejection raised outside a recipe file, e.g. by `validateCondition` or `compileRegex`.
  /** The recipe's file name, as passed to `loadRecipe`. */
  declare readonly file?: string;
  /** 1-based line in the recipe file (for a `SandboxError` outside a recipe: in the expression). */
  declare readonly line?: number;
  /** 1-based column, in code points. */
  declare readonly col?: number;
  /** 1-based exclusive end column on `line`, for a caret under the offending text. */
  declare readonly endCol?: number;
  /** The one-line reason without position or excerpt, in the original system's wording. */
  declare readonly reason?: string;
}
