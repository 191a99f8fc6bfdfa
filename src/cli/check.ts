/**
 * `aorta-probe check RECIPE [--json]`: loads a recipe (full probe recipe or bare
 * `custom_patterns:` file) with every check the loader makes — schema, conditions, regexes on
 * RE2 — and reports the first error at its `file:line:col`.
 *
 * Exit status: 0 valid, 1 invalid, 2 usage error or unreadable file.
 */
import { readFile } from 'node:fs/promises';
import { RecipeSchemaError, SandboxError } from '../condition/errors.js';
import { loadRecipe } from '../recipe/index.js';

export const CHECK_USAGE = `Usage: aorta-probe check RECIPE [--json]

Loads RECIPE (a probe recipe or a bare custom_patterns: file) with all of the loader's checks:
the schema, each condition against the sandbox rules, each regex on RE2 (Python-only syntax is
an error with a hint). Prints 'RECIPE: valid (N custom patterns)', or the first error at its
file:line:col with the offending line and a caret.

  --json       One JSON object instead: {"valid": true, "file": str, "custom_patterns": int}
               or {"valid": false, "file": str, "error": {"type", "message", "reason",
               "line", "col", "node"}} ("node" only for a condition's SandboxError).
  -h, --help   Show this help and exit.

Exit status: 0 valid, 1 invalid, 2 usage error or unreadable file.
`;

export interface CheckIo {
  write(text: string): Promise<void>;
  writeError(text: string): Promise<void>;
}

export class CheckUsageError extends Error {}

export interface CheckArgs {
  file: string;
  json: boolean;
  help: boolean;
}

export function parseCheckArgs(args: readonly string[]): CheckArgs {
  let file: string | undefined;
  let json = false;
  for (const a of args) {
    if (a === '-h' || a === '--help') return { file: '', json, help: true };
    if (a === '--json') json = true;
    else if (a.startsWith('-')) throw new CheckUsageError(`unknown option '${a}'`);
    else if (file === undefined) file = a;
    else throw new CheckUsageError(`unexpected argument '${a}'`);
  }
  if (file === undefined) throw new CheckUsageError('missing RECIPE');
  return { file, json, help: false };
}

export async function runCheck(args: CheckArgs, io: CheckIo): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = await readFile(args.file);
  } catch (err) {
    await io.writeError(`aorta-probe check: cannot read ${args.file}: ${(err as Error).message}\n`);
    return 2;
  }
  try {
    const recipe = loadRecipe(bytes, args.file);
    const n = recipe.customPatterns.length;
    await io.write(args.json
      ? `${JSON.stringify({ valid: true, file: args.file, custom_patterns: n })}\n`
      : `${args.file}: valid (${n} custom pattern${n === 1 ? '' : 's'})\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RecipeSchemaError)) throw err;
    await io.write(args.json ? `${JSON.stringify({ valid: false, file: args.file, error: errorRecord(err) })}\n` : `${err.message}\n`);
    return 1;
  }
}

interface PositionedFields {
  reason?: string;
  line?: number;
  col?: number;
}

function errorRecord(err: RecipeSchemaError): Record<string, unknown> {
  const p = err as RecipeSchemaError & PositionedFields;
  const record: Record<string, unknown> = {
    type: err.name,
    message: err.message,
    reason: p.reason ?? (err instanceof SandboxError ? err.detail : err.message),
    line: p.line ?? null,
    col: p.col ?? null,
  };
  if (err instanceof SandboxError) record.node = err.node;
  return record;
}
