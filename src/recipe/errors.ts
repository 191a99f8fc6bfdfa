/**
 * Recipe loader errors. Every rejection is a `RecipeSchemaError` (from the condition module) that
 * also carries the YAML position of the offending value; condition rejections stay `SandboxError`s.
 */
import { caretExcerpt, RecipeSchemaError, SandboxError } from '../condition/errors.js';

export interface FilePos {
  /** 1-based line in the recipe file. */
  readonly line: number;
  /** 1-based column, in code points. */
  readonly col: number;
  /** 1-based exclusive end column on `line`, for the caret. */
  readonly endCol: number;
}

/** A schema or parse rejection, positioned in the recipe file. */
export class RecipeError extends RecipeSchemaError {
  // Not exported from the package: users catch `RecipeSchemaError`, so that is the name they see.
  override name = 'RecipeSchemaError';
  override readonly file: string;
  override readonly line: number;
  override readonly col: number;
  override readonly endCol: number;
  /** The original system's one-line message (`recipe.custom_patterns[0].id: must be ...`). */
  override readonly reason: string;
  /** Replacement text for the span at line:col..endCol, when the loader knows one (a misspelt key's correction). */
  readonly suggestion: string | null;

  constructor(reason: string, file: string, pos: FilePos, text: string | undefined, suggestion: string | null = null) {
    super(formatPositioned(reason, file, pos, text));
    this.reason = reason;
    this.suggestion = suggestion;
    this.file = file;
    this.line = pos.line;
    this.col = pos.col;
    this.endCol = pos.endCol;
  }
}

/**
 * A condition rejection re-raised for a recipe entry, as the original does
 * (`SandboxError(f"{path}.match.condition: {exc}")`), but with `line`/`col`/`endCol` moved to the
 * offending node's position inside the YAML file. The position inside the stripped condition is
 * kept as `exprLine`/`exprCol`, and the original error as `cause`.
 */
export class RecipeSandboxError extends SandboxError {
  override name = 'SandboxError';
  override readonly file: string;
  override readonly reason: string;
  readonly exprLine: number;
  readonly exprCol: number;
  /** True when the node's position could not be mapped exactly and the scalar's start is used. */
  readonly approximate: boolean;

  constructor(inner: SandboxError, path: string, file: string, pos: FilePos, text: string, approximate: boolean) {
    const reason = `${path}.match.condition: ${inner.detail}`;
    super({
      kind: inner.kind,
      detail: reason,
      node: inner.node,
      line: pos.line,
      col: pos.col,
      endCol: pos.endCol,
      hint: inner.hint,
    });
    this.message = formatPositioned(reason, file, pos, text);
    this.reason = reason;
    this.file = file;
    this.exprLine = inner.line;
    this.exprCol = inner.col;
    this.approximate = approximate;
    this.cause = inner;
  }
}

function formatPositioned(reason: string, file: string, pos: FilePos, text: string | undefined): string {
  const head = `${file}:${pos.line}:${pos.col}: ${reason}`;
  if (text === undefined) return head;
  return `${head}\n${caretExcerpt(text, pos.line, pos.col, pos.endCol)}`;
}
