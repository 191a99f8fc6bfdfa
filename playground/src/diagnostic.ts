/**
 * Loader and sandbox rejections as editor marks: plain data for the page, built in the engine worker. No worker
 * globals here, so Node tests drive it directly.
 */
import { RecipeSchemaError, SandboxError } from '../../src/index.js';
import type { Diagnostic } from './protocol.js';

/** The sandbox's own prefix on every condition rejection (`condition: forbidden AST node: In`). */
const CONDITION_PREFIX = 'condition: ';

export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * The one-line text of a condition rejected inside a recipe. The loader's reason keeps the original's wording,
 * `recipe.custom_patterns[0].match.condition: condition: forbidden AST node: In`, where the path already ends in
 * "condition"; the mark says it once: `recipe.custom_patterns[0].match.condition: forbidden AST node: In`.
 */
function recipeConditionMessage(e: SandboxError & { reason: string }): string {
  const inner = e.cause instanceof SandboxError ? e.cause.detail : null;
  if (inner === null || !inner.startsWith(CONDITION_PREFIX) || !e.reason.endsWith(`: ${inner}`)) return e.reason;
  return e.reason.slice(0, e.reason.length - inner.length) + inner.slice(CONDITION_PREFIX.length);
}

/** A loader or sandbox rejection as an editor mark. */
export function toDiagnostic(e: unknown): Diagnostic {
  const hint = e instanceof SandboxError && e.hint !== null ? { hint: e.hint } : {};
  // loadRecipe's errors carry the recipe file's position and the original's one-line reason.
  if (e instanceof SandboxError && e.reason !== undefined) {
    const node = e.node;
    const message = recipeConditionMessage(e as SandboxError & { reason: string });
    return {
      severity: 'error',
      source: 'sandbox',
      line: e.line,
      col: e.col,
      endLine: e.line,
      endCol: Math.max(e.endCol, e.col + 1),
      message: node !== null && !message.includes(node) ? `${message} (node: ${node})` : message,
      node,
      detail: e.message,
      ...hint,
    };
  }
  if (e instanceof RecipeSchemaError && e.line !== undefined && e.col !== undefined && e.reason !== undefined) {
    return {
      severity: 'error',
      source: 'recipe',
      line: e.line,
      col: e.col,
      endLine: e.line,
      endCol: Math.max(e.endCol ?? e.col + 1, e.col + 1),
      message: e.reason,
      node: null,
      detail: e.message,
    };
  }
  if (e instanceof SandboxError) {
    return {
      severity: 'error',
      source: 'sandbox',
      line: e.line,
      col: e.col,
      endLine: e.line,
      endCol: Math.max(e.endCol ?? e.col + 1, e.col + 1),
      message: e.detail,
      node: e.node,
      detail: e.message,
      ...hint,
    };
  }
  return {
    severity: 'error',
    source: 'internal',
    line: 1,
    col: 1,
    endLine: 1,
    endCol: 2,
    message: errorText(e),
    node: null,
    detail: errorText(e),
  };
}
