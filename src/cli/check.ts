/**
 * `aorta-probe check RECIPE [--json] [--strict]`: loads a recipe (full probe recipe or bare
 * `custom_patterns:` file) with every check the loader makes — schema, conditions, regexes on
 * RE2 — and reports the first error at its `file:line:col`. A valid recipe is then linted
 * (src/lint/): conditions that can never fire, and the like, are reported as warnings, which never
 * make the recipe invalid.
 *
 * Exit status: 0 valid, 1 invalid (or warnings with --strict), 2 usage error or unreadable file.
 */
import { readFile } from 'node:fs/promises';
import { RecipeSchemaError, SandboxError } from '../condition/errors.js';
import { formatWarning, lintRecipe } from '../lint/index.js';
import { loadRecipe } from '../recipe/index.js';
import { formatSelfTestFailure, runSelfTests } from '../classifier/self-test.js';

export const CHECK_USAGE = `Usage: aorta-probe check RECIPE [--json] [--strict]

Loads RECIPE (a probe recipe or a bare custom_patterns: file) with all of the loader's checks:
the schema, each condition against the sandbox rules, each regex on RE2 (Python-only syntax is
an error with a hint). Prints the first error at its file:line:col with the offending line and
a caret; or, for a valid recipe, one line per failing self-test (the recipe's tests: samples,
at their file:line:col with expected vs got), one warning per lint finding (a condition that can never fire,
a capture group the regex lacks or may leave unset, a constant condition), each at its
file:line:col with a caret, its code and a suggested fix, then
'RECIPE: valid (N custom patterns)' (with ', W warnings' when there are any).

  --json       One JSON object instead: {"valid": true, "file": str, "custom_patterns": int,
               "warnings": [{"code", "severity", "message", "suggestion", "patternId",
               "file", "line", "col", "endLine", "endCol", "excerpt"}],
               "self_tests": [{"name", "line", "col", "passed", "got": {"verdict",
               "detectors", "capture"}, "mismatches": [str]}]}
               or {"valid": false, "file": str, "error": {"type", "message", "reason",
               "line", "col", "node"}} ("node" only for a condition's SandboxError).
  --strict     Exit 1 when there are warnings (the recipe is still reported valid).
  -h, --help   Show this help and exit.

Exit status: 0 valid, 1 invalid, a failing self-test, or (with --strict) warnings, 2 usage
error or unreadable file.

Examples:
  aorta-probe check fixtures/recipes/example-probe-smoke.yaml
  aorta-probe check --strict fixtures/recipes/lint-four-bugs.yaml
  aorta-probe check --json fixtures/recipes/invalid-condition.yaml
`;

export interface CheckIo {
  write(text: string): Promise<void>;
  writeError(text: string): Promise<void>;
}

export class CheckUsageError extends Error {}

export interface CheckArgs {
  file: string;
  json: boolean;
  strict: boolean;
  help: boolean;
}

export function parseCheckArgs(args: readonly string[]): CheckArgs {
  let file: string | undefined;
  let json = false;
  let strict = false;
  for (const a of args) {
    if (a === '-h' || a === '--help') return { file: '', json, strict, help: true };
    if (a === '--json') json = true;
    else if (a === '--strict') strict = true;
    else if (a.startsWith('-')) throw new CheckUsageError(`unknown option '${a}'`);
    else if (file === undefined) file = a;
    else throw new CheckUsageError(`unexpected argument '${a}'`);
  }
  if (file === undefined) throw new CheckUsageError('missing RECIPE');
  return { file, json, strict, help: false };
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
    // The loader accepted the bytes, so they are valid UTF-8; positions point into this text.
    const warnings = lintRecipe(recipe, new TextDecoder('utf-8').decode(bytes));
    const w = warnings.length;
    // The recipe's own `tests:` samples: a failing one makes check fail (the recipe is still valid).
    const tests = runSelfTests(recipe);
    const failed = tests.filter((t) => !t.passed);
    const testNote = tests.length === 0 ? '' : failed.length === 0
      ? `, ${tests.length} self-test${tests.length === 1 ? '' : 's'} passed`
      : `, ${failed.length} of ${tests.length} self-test${tests.length === 1 ? '' : 's'} failed`;
    await io.write(args.json
      ? `${JSON.stringify({
        valid: true, file: args.file, custom_patterns: n, warnings,
        self_tests: tests.map((t) => ({ name: t.name, line: t.line, col: t.col, passed: t.passed, got: t.got, mismatches: t.mismatches })),
      })}\n`
      : warnings.map((x) => `${formatWarning(x)}\n`).join('') + failed.map((t) => `${formatSelfTestFailure(t)}\n`).join('') +
        `${args.file}: valid (${n} custom pattern${n === 1 ? '' : 's'}${w > 0 ? `, ${w} warning${w === 1 ? '' : 's'}` : ''}${testNote})\n`);
    return failed.length > 0 || (args.strict && w > 0) ? 1 : 0;
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
