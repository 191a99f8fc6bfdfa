/** Reading and loading a recipe file for a command, with the command's error output. */
import { readFile } from 'node:fs/promises';
import { RecipeSchemaError } from '../condition/errors.js';
import { loadRecipe, type Recipe } from '../recipe/index.js';

/** A loaded recipe, or why not (the message is already written): the file could not be read, or was rejected. */
export type RecipeFile = { readonly recipe: Recipe } | { readonly failure: 'unreadable' | 'rejected' };

/**
 * Reads and loads `path`; on failure writes `aorta-probe COMMAND: cannot read …` or the loader's error
 * (`file:line:col` + caret) through `writeError`.
 */
export async function loadRecipeFile(path: string, command: string, writeError: (text: string) => unknown): Promise<RecipeFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    await writeError(`aorta-probe ${command}: cannot read ${path}: ${(err as Error).message}\n`);
    return { failure: 'unreadable' };
  }
  try {
    return { recipe: loadRecipe(bytes, path) };
  } catch (err) {
    if (!(err instanceof RecipeSchemaError)) throw err;
    await writeError(`${err.message}\n`);
    return { failure: 'rejected' };
  }
}
