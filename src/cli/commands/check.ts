/**
 * `aorta-probe check RECIPE... [--format text|json|sarif|github] [--strict]`: loads each recipe (full probe recipe
 * or bare `custom_patterns:` file; '-' reads stdin) with every check the loader makes — schema, conditions,
 * regexes on RE2 — and reports every independent error at its `file:line:col`, in the order of the loader's checks
 * (`loadRecipeCollecting`; src/recipe/load.ts says which errors are independent). A valid recipe is then linted (src/lint/):
 * conditions that can never fire, and the like, are reported as warnings, which never make the recipe invalid.
 *
 * Exit status (exit-status.ts), the worst over the files: 0 valid, 1 invalid (or warnings with --strict), 2 usage
 * error or an unreadable file.
 */
import type { Readable } from 'node:stream';
import { SandboxError, withHint } from '../../condition/errors.js';
import { formatWarning, lintRecipe, type LintWarning } from '../../lint/index.js';
import { builtinRegistry, loadRecipeCollecting, RecipeError, type MitigationRegistry } from '../../recipe/index.js';
import { parseMitigationsFile } from '../../sweep/config.js';
import { RecipeSchemaError } from '../../condition/errors.js';
import { readFileSync } from 'node:fs';
import {
  formatSelfTestFailure,
  formatSelfTestRaises,
  runSelfTests,
  type SelfTestOutcome,
} from '../../classifier/self-test.js';
import { githubAnnotations, type Annotation } from '../../report/github.js';
import { sarifLog, type SarifFinding } from '../../report/sarif.js';
import { packageInfo } from '../../trial/package-info.js';
import { parseCommandArgs, pickFormat, UsageError, type OptionSpecs } from '../args.js';
import { EXIT, worstExit } from '../exit-status.js';
import { errorRecord, jsonLine, ReadError, type ErrorRecord } from '../json-output.js';
import { readInput, STDIN_NAME } from '../recipe-file.js';
import type { Command } from '../command.js';
import type { CommandIo } from '../io.js';

export const CHECK_USAGE = `Usage: aorta-probe check RECIPE... [--format text|json|sarif|github] [--strict]

Loads each RECIPE (a probe recipe or a bare custom_patterns: file; '-' reads stdin) with all of
the loader's checks: the schema, each condition against the sandbox rules, each regex on RE2
(Python-only syntax is an error with a hint). Prints every independent error (one per top-level
key, custom pattern and tests: sample; a YAML syntax error stops at itself), in the order of
the checks, each at its file:line:col with the offending line and a caret; or, for a valid recipe, one warning per lint finding (a
condition that can never fire, a capture group the regex lacks or may leave unset, a constant
condition), each at its file:line:col with a caret, its code and a suggested fix, one line
per failing self-test (the recipe's tests: samples, at their file:line:col with expected vs
got), then 'RECIPE: valid (N custom patterns)' (with ', W warnings' and the self-test count
when there are any).

  --format FORMAT  text (default); json: one object {"valid": bool, "files": [{"file", "valid",
                   "custom_patterns", "warnings", "self_tests", "error", "errors"}]}
                   ("error" is the first of "errors"; schemas/check.schema.json);
                   sarif: SARIF 2.1.0, a result per error and warning, with the suggested fix;
                   github: GitHub Actions annotations (::error / ::warning).
  --json           The same as --format json.
  --strict         Exit 1 when there are warnings (the recipe is still reported valid).
  --mitigations-file F
                   Names an axis value may take besides the 18 built-ins and the recipe's own
                   'mitigations:' (as 'sweep --mitigations-file'; see 'list-mitigations').
                   Repeatable.
  -h, --help       Show this help and exit.

Exit status, the worst over the files: 0 valid, 1 invalid, a failing self-test, or (with
--strict) valid with warnings, 2 usage error or an unreadable file.

Examples:
  aorta-probe check fixtures/recipes/example-probe-smoke.yaml
  aorta-probe check --strict fixtures/recipes/lint-four-bugs.yaml   # exit 1: four warnings
  aorta-probe check --format sarif recipes/*.yaml > check.sarif
  cat recipe.yaml | aorta-probe check -
`;

export const CHECK_FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

export const CHECK_OPTIONS = {
  format: { type: 'string', metavar: 'FORMAT' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  'mitigations-file': { type: 'string', multiple: true, metavar: 'F' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface CheckArgs {
  files: string[];
  format: CheckFormat;
  strict: boolean;
  help: boolean;
  mitigationsFiles: readonly string[];
}

export function parseCheckArgs(args: readonly string[]): CheckArgs {
  const { values: v, positionals } = parseCommandArgs(args, CHECK_OPTIONS);
  const format = pickFormat(CHECK_FORMATS, v.format, v.json);
  if (v.help === true) return { files: [], format, strict: false, help: true, mitigationsFiles: [] };
  if (positionals.length === 0) throw new UsageError('missing RECIPE');
  if (positionals.filter((f) => f === '-').length > 1) throw new UsageError("'-' (stdin) can be given once");
  return {
    files: positionals,
    format,
    strict: v.strict === true,
    help: false,
    mitigationsFiles: v['mitigations-file'] ?? [],
  };
}

/** What `check` found in one file (the JSON `files[]` entry). */
export interface CheckedFile {
  file: string;
  valid: boolean;
  /** null when the recipe did not load. */
  custom_patterns: number | null;
  warnings: LintWarning[];
  /** The recipe's `tests:` samples, run through the classifier (empty when it has none or did not load). */
  self_tests: SelfTestRecord[];
  /** The first error (null for a valid recipe): `errors[0]`. */
  error: ErrorRecord | null;
  /** Every independent error, in the order of the loader's checks (empty for a valid recipe). */
  errors: ErrorRecord[];
}

export type SelfTestRecord = Pick<SelfTestOutcome, 'name' | 'line' | 'col' | 'passed' | 'got' | 'mismatches'> & {
  readonly condition_errors: SelfTestOutcome['conditionErrors'];
};

interface Checked {
  readonly record: CheckedFile;
  readonly code: number;
  /** The text output's messages for an invalid or unreadable file, one per error. */
  readonly messages: readonly string[];
  readonly failedTests: readonly SelfTestOutcome[];
  /** Samples that passed although a condition raised on them (said so: it may pass for the wrong reason). */
  readonly raisedTests: readonly SelfTestOutcome[];
  /** Per error, the loader's correction for its span (a misspelt key), for SARIF's `fix`. */
  readonly errorFixes: readonly ({ readonly endCol: number; readonly replacement: string } | null)[];
}

async function checkOne(
  path: string,
  strict: boolean,
  stdin: Readable | undefined,
  registry: MitigationRegistry,
): Promise<Checked> {
  const file = path === '-' ? STDIN_NAME : path;
  let bytes: Buffer;
  try {
    bytes = await readInput(path, stdin);
  } catch (err) {
    const e = err as ReadError;
    const error = errorRecord(e);
    return {
      record: { file, valid: false, custom_patterns: null, warnings: [], self_tests: [], error, errors: [error] },
      code: EXIT.usage,
      messages: [`aorta-probe check: ${e.message}`],
      failedTests: [],
      raisedTests: [],
      errorFixes: [null],
    };
  }
  const { recipe, errors } = loadRecipeCollecting(bytes, file, { mitigations: registry });
  if (recipe === null) {
    const records = errors.map((err) => errorRecord(err, file));
    return {
      record: {
        file,
        valid: false,
        custom_patterns: null,
        warnings: [],
        self_tests: [],
        error: records[0]!,
        errors: records,
      },
      code: EXIT.fail,
      // The text output adds the hint line; the JSON error object keeps the message alone.
      messages: errors.map((err) => (err instanceof SandboxError ? withHint(err) : err.message)),
      failedTests: [],
      raisedTests: [],
      errorFixes: errors.map((err) =>
        err instanceof RecipeError && err.suggestion !== null
          ? { endCol: err.endCol, replacement: err.suggestion }
          : null,
      ),
    };
  }
  // The loader accepted the bytes, so they are valid UTF-8; positions point into this text.
  const warnings = lintRecipe(recipe, new TextDecoder('utf-8').decode(bytes));
  // The recipe's own `tests:` samples: a failing one makes check fail (the recipe is still valid).
  const tests = runSelfTests(recipe);
  const failedTests = tests.filter((t) => !t.passed);
  const raisedTests = tests.filter((t) => t.passed && t.conditionErrors.length > 0);
  const self_tests = tests.map((t) => ({
    name: t.name,
    line: t.line,
    col: t.col,
    passed: t.passed,
    got: t.got,
    mismatches: t.mismatches,
    condition_errors: t.conditionErrors,
  }));
  const record = {
    file,
    valid: true,
    custom_patterns: recipe.customPatterns.length,
    warnings,
    self_tests,
    error: null,
    errors: [],
  };
  const code = failedTests.length > 0 || (strict && warnings.length > 0) ? EXIT.fail : EXIT.ok;
  return { record, code, messages: [], failedTests, raisedTests, errorFixes: [] };
}

export async function runCheck(args: CheckArgs, io: CommandIo): Promise<number> {
  const results: Checked[] = [];
  // The registry the axes are checked against: a --mitigations-file that does not load is a usage error.
  const registry = builtinRegistry();
  for (const f of args.mitigationsFiles) {
    try {
      parseMitigationsFile(readFileSync(f, 'utf8'), f, registry);
    } catch (err) {
      const e = err instanceof RecipeSchemaError ? err : new ReadError(f, err);
      if (args.format === 'json') await io.writeOut(jsonLine({ error: errorRecord(e) }));
      await io.writeErr(e instanceof RecipeSchemaError ? `${e.message}\n` : `aorta-probe check: ${e.message}\n`);
      return EXIT.usage;
    }
  }
  for (const f of args.files) results.push(await checkOne(f, args.strict, f === '-' ? io.stdin : undefined, registry));
  const records = results.map((r) => r.record);
  switch (args.format) {
    case 'json':
      await io.writeOut(jsonLine({ valid: records.every((r) => r.valid), files: records }));
      break;
    case 'sarif':
      await io.writeOut(
        `${JSON.stringify(sarifLog({ name: 'aorta-probe', version: packageInfo().version, informationUri: 'https://www.npmjs.com/package/aorta-probe' }, results.flatMap(findings)), null, 2)}\n`,
      );
      break;
    case 'github':
      await io.writeOut(githubAnnotations(records.flatMap(annotations)));
      break;
    case 'text': {
      const c = io.stdoutPalette();
      for (const r of results) {
        const { file, warnings } = r.record;
        if (r.record.error !== null) {
          // An unreadable file is a problem of the invocation (stderr); an invalid recipe is check's answer (stdout).
          if (r.record.error.type === 'ReadError') await io.writeErr(`${r.messages.join('\n')}\n`);
          else await io.writeOut(r.messages.map((m) => `${c.red(m)}\n`).join(''));
          continue;
        }
        const n = r.record.custom_patterns ?? 0;
        const w = warnings.length;
        const tests = r.record.self_tests.length;
        const failed = r.failedTests.length;
        const testNote =
          tests === 0
            ? ''
            : failed === 0
              ? `, ${tests} self-test${tests === 1 ? '' : 's'} passed`
              : `, ${c.red(`${failed} of ${tests} self-test${tests === 1 ? '' : 's'} failed`)}`;
        await io.writeOut(
          warnings.map((x) => `${formatWarning(x)}\n`).join('') +
            r.failedTests.map((t) => `${formatSelfTestFailure(t)}\n`).join('') +
            r.raisedTests.map((t) => `${c.yellow(formatSelfTestRaises(t) ?? '')}\n`).join('') +
            `${file}: ${c.green('valid')} (${n} custom pattern${n === 1 ? '' : 's'}${w > 0 ? `, ${c.yellow(`${w} warning${w === 1 ? '' : 's'}`)}` : ''}${testNote})\n`,
        );
      }
    }
  }
  return worstExit(results.map((r) => r.code));
}

export const command: Command<CheckArgs> = { name: 'check', usage: CHECK_USAGE, parse: parseCheckArgs, run: runCheck };

function findings({ record: r, errorFixes }: Checked): SarifFinding[] {
  const out: SarifFinding[] = [];
  r.errors.forEach((e, i) => {
    const errorFix = errorFixes[i] ?? null;
    out.push({
      ruleId: e.type,
      level: 'error',
      message: e.detail,
      file: e.file ?? r.file,
      line: e.line ?? 1,
      col: e.col ?? 1,
      ...(errorFix === null || e.line === null
        ? {}
        : {
            endLine: e.line,
            endCol: errorFix.endCol,
            fix: { description: `Replace with ${errorFix.replacement}`, replacement: errorFix.replacement },
          }),
    });
  });
  for (const w of r.warnings) {
    out.push({
      ruleId: w.code,
      level: 'warning',
      message: w.message,
      file: w.file,
      line: w.line,
      col: w.col,
      endLine: w.endLine,
      endCol: w.endCol,
      fix: w.suggestion === null ? null : { description: `Replace with ${w.suggestion}`, replacement: w.suggestion },
    });
  }
  return out;
}

function annotations(r: CheckedFile): Annotation[] {
  const out: Annotation[] = [];
  for (const e of r.errors) {
    out.push({
      level: 'error',
      file: e.file ?? r.file,
      ...(e.line === null ? {} : { line: e.line }),
      ...(e.col === null ? {} : { col: e.col }),
      title: e.type,
      message: e.detail,
    });
  }
  for (const w of r.warnings) {
    out.push({
      level: 'warning',
      file: w.file,
      line: w.line,
      col: w.col,
      endLine: w.endLine,
      endColumn: w.endCol,
      title: w.code,
      message: w.suggestion === null ? w.message : `${w.message}\nsuggestion: ${w.suggestion}`,
    });
  }
  return out;
}
