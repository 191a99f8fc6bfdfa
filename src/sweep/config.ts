/**
 * A sweep's configuration: the recipe's sweep keys (validated by the loader, src/recipe/sweep-keys.ts) with the
 * `--mitigations-file` tables merged under the recipe's own `mitigations:`.
 */
import { RecipeError, type EnvBundle, type MitigationTable, type Recipe, type SweepKeys } from '../recipe/index.js';
import type { KeyContext } from '../recipe/classifier-keys.js';
import type { FilePos } from '../recipe/errors.js';
import { parseMitigationTable } from '../recipe/sweep-keys.js';
import { parseYaml, spanPos } from '../recipe/tree.js';

/** The recipe's sweep keys, with `mitigations` the table the cells are built from (`none` always defined, empty). */
export type SweepConfig = SweepKeys;

type Span = { readonly start: number; readonly end: number };

/** Reads a `--mitigations-file` (YAML or JSON: `name: {VAR: value}`); later files override earlier names. */
export function parseMitigationsFile(text: string, file: string, into: Map<string, EnvBundle>): void {
  const parsed = parseYaml(text, file.toLowerCase().endsWith('.json'));
  if (parsed.root === null) return;
  const pos = (at: Span): FilePos => spanPos(parsed.text, parsed.lineCounter, at.start, at.end);
  const ctx: KeyContext = {
    fail: (reason: string, at: Span, suggestion: string | null = null): never => {
      throw new RecipeError(reason, file, pos(at), parsed.text, suggestion);
    },
    pos,
  };
  parseMitigationTable(ctx, parsed.root, 'mitigations', into);
}

/** `recipe`'s sweep keys; `extraMitigations` (the `--mitigations-file` tables) yield to the recipe's name by name. */
export function readSweepConfig(recipe: Recipe, extraMitigations: MitigationTable = new Map()): SweepConfig {
  const mitigations = new Map<string, EnvBundle>(extraMitigations);
  mitigations.set('none', new Map());
  for (const [name, bundle] of recipe.mitigations) mitigations.set(name, bundle);
  return { mitigations, stopAfter: recipe.stopAfter, retain: recipe.retain, retry: recipe.retry };
}
