/**
 * `lintRecipe`: runs the condition checker over every custom pattern of a loaded recipe, with
 * what that pattern's regex puts in `capture`, and positions each finding in the recipe file.
 * Warnings never reject a recipe: the loader has already accepted it.
 */
import type { Recipe } from '../recipe/types.js';
import { analyzeCondition, type Finding } from './analyze.js';
import { conditionLocators, fileExcerpt, type ConditionLocator } from './position.js';
import { startOfTextCarets } from './regex-caret.js';
import { endOfTextDollars, regexLocators } from './regex-dollar.js';
import { captureModel } from './regex-groups.js';

export interface LintWarning {
  /** e.g. 'never-fires/key-error'; the README lists every code. */
  readonly code: string;
  readonly severity: 'warning';
  /** One line. */
  readonly message: string;
  /** Replacement text for the marked range (file line:col to endLine:endCol), or null. */
  readonly suggestion: string | null;
  /** `custom_patterns[i].id`. */
  readonly patternId: string;
  readonly file: string;
  /** 1-based; columns count code points; `endCol` is exclusive. */
  readonly line: number;
  readonly col: number;
  readonly endLine: number;
  readonly endCol: number;
  /** The file line with carets under the range, like the loader's errors ('' without the recipe text). */
  readonly excerpt: string;
}

/** `regex/caret-start-of-text`: a `^` without MULTILINE (src/lint/regex-caret.ts). */
const CARET = {
  code: 'regex/caret-start-of-text',
  message:
    "'^' without MULTILINE matches only at the start of the whole log (Python's meaning too), not at the start of " +
    'each line; for the start of any line write (?m:^), or begin the pattern with (?m)',
  suggestion: '(?m:^)',
} as const;

/** `regex/dollar-end-of-text`: a `$` without MULTILINE (src/lint/regex-dollar.ts). */
const DOLLAR = {
  code: 'regex/dollar-end-of-text',
  message:
    "'$' matches only at the very end of the log in RE2 (Python's re also matched just before a final newline, " +
    'so a pattern for the last line of a log ending in "\\n" no longer fires); for the end of any line write (?m:$)',
  suggestion: '(?m:$)',
} as const;

/**
 * Lints every condition of `recipe`. `recipeText` is the file's text, as given to `loadRecipe`
 * (decode bytes as UTF-8 first): positions point into it. Without it, each warning is placed at
 * its pattern entry and has no excerpt.
 */
export function lintRecipe(recipe: Recipe, recipeText?: string): LintWarning[] {
  const locators = recipeText === undefined ? [] : conditionLocators(recipeText, recipe.fileName);
  const regexAt = recipeText === undefined ? [] : regexLocators(recipeText, recipe.fileName);
  const out: LintWarning[] = [];
  recipe.customPatterns.forEach((p, i) => {
    // The regex's anchors, in pattern order: each `^` and `$` that means the start or end of the whole log.
    const anchors = [
      ...startOfTextCarets(p.regex, p.flags).map((at) => ({ at, anchor: CARET })),
      ...(p.flags.includes('m') ? [] : endOfTextDollars(p.regex)).map((at) => ({ at, anchor: DOLLAR })),
    ].sort((a, b) => a.at - b.at);
    for (const { at, anchor } of anchors) {
      const span = regexAt[i]?.(at) ?? { line: p.line, col: p.col, endLine: p.line, endCol: p.col + 1 };
      out.push({
        code: anchor.code,
        severity: 'warning',
        message: anchor.message,
        suggestion: anchor.suggestion,
        patternId: p.id,
        file: recipe.fileName,
        ...span,
        excerpt: recipeText === undefined || regexAt[i]?.(at) == null ? '' : fileExcerpt(recipeText, span),
      });
    }
    if (p.condition === null) return;
    const model = captureModel(p.regex, p.flags);
    const { findings } = analyzeCondition(p.condition, model);
    const locator = locators[i] ?? null;
    // Findings come in evaluation order; a reader (and an editor's marks) wants text order.
    const ordered = [...findings].sort((a, b) => a.loc.line - b.loc.line || a.loc.col - b.loc.col);
    for (const f of ordered) out.push(toWarning(f, p.id, recipe.fileName, locator, p.line, p.col));
  });
  return out;
}

function toWarning(
  f: Finding,
  patternId: string,
  file: string,
  locator: ConditionLocator | null,
  line: number,
  col: number,
): LintWarning {
  const span = locator?.span(f.loc) ?? { line, col, endLine: line, endCol: col + 1 };
  return {
    code: f.code,
    severity: 'warning',
    message: f.message,
    suggestion: f.suggestion,
    patternId,
    file,
    ...span,
    excerpt: locator?.excerpt(span) ?? '',
  };
}

/** `file:line:col: warning: message [code]`, the excerpt, and the suggestion, for terminals. */
export function formatWarning(w: LintWarning): string {
  let s = `${w.file}:${w.line}:${w.col}: warning: ${w.message} [${w.code}]`;
  if (w.excerpt !== '') s += `\n${w.excerpt}`;
  if (w.suggestion !== null) s += `\n  suggestion: ${w.suggestion}`;
  return s;
}
