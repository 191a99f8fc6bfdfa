/** Reading and loading a recipe file for a command ('-' reads stdin), with the command's error output. */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { RecipeSchemaError, SandboxError, withHint } from '../condition/errors.js';
import { loadRecipe, type Recipe } from '../recipe/index.js';
import { ReadError } from './json-output.js';

/** The name a recipe read from stdin has in messages and positions. */
export const STDIN_NAME = '<stdin>';

/** All of stdin. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

/** The bytes of `path` ('-': stdin), or a ReadError. */
export async function readInput(path: string, stdin?: Readable): Promise<Buffer> {
  try {
    if (path === '-') {
      if (stdin === undefined) throw new Error('no stdin');
      return await readAll(stdin);
    }
    // Sync: a recipe is kilobytes, and fs/promises would load ~15 more node modules into a cold process.
    return readFileSync(path);
  } catch (err) {
    throw new ReadError(path, err);
  }
}

/** Reads and loads `path` ('-': stdin): a ReadError, or the loader's RecipeSchemaError, when it cannot. */
export async function readRecipe(path: string, stdin?: Readable): Promise<Recipe> {
  const bytes = await readInput(path, stdin);
  return loadRecipe(bytes, path === '-' ? STDIN_NAME : path);
}

/** A loaded recipe, or why not (the message is already written): the file could not be read, or was rejected. */
export type RecipeFile =
  | { readonly recipe: Recipe }
  | { readonly failure: 'unreadable' | 'rejected'; readonly error: unknown };

/**
 * Reads and loads `path`; on failure writes `aorta-probe COMMAND: cannot read …` or the loader's error
 * (`file:line:col` + caret) through `writeError`.
 */
export async function loadRecipeFile(
  path: string,
  command: string,
  writeError: (text: string) => unknown,
  stdin?: Readable,
): Promise<RecipeFile> {
  try {
    return { recipe: await readRecipe(path, stdin) };
  } catch (err) {
    if (err instanceof ReadError) {
      await writeError(`aorta-probe ${command}: ${err.message}\n`);
      return { failure: 'unreadable', error: err };
    }
    if (!(err instanceof RecipeSchemaError)) throw err;
    await writeError(`${err instanceof SandboxError ? withHint(err) : err.message}\n`);
    return { failure: 'rejected', error: err };
  }
}
