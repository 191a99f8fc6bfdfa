/**
 * `aorta-probe eval`: one condition checked and evaluated (or listed as bytecode), or many as JSON Lines
 * (eval-jsonl.ts):
 *
 *   aorta-probe eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
 *   aorta-probe eval --jsonl
 *   aorta-probe eval --disasm EXPR
 *
 * Options take their value as the next argument or after '=' (`--exit-code=-9`). `--` ends the
 * options, for an expression that starts with '-'.
 *
 * Exit status: 0 evaluated (fired or not) or listed, 1 the condition is rejected (message on stderr; like check's
 * invalid recipe), 2 usage error, 3 an internal error (with --jsonl: on any input line).
 *
 * Cold start matters here: the condition compiler is imported when a condition is evaluated, not to print --help
 * or a usage error.
 */
import type { ConditionVars, DetailedResult } from '../../condition/evaluate.js';

import { parseCommandArgs, parseNumber, UsageError, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine } from '../json-output.js';
import { NO_PALETTE, type Palette } from '../tty.js';

export { UsageError };

const EVAL_SYNOPSIS = `Usage: aorta-probe eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
       aorta-probe eval --jsonl
       aorta-probe eval --disasm EXPR
`;

export const EVAL_USAGE = `${EVAL_SYNOPSIS}
With EXPR: checks the condition against the sandbox rules, evaluates it once and prints
  value: <Python repr of the value>
  type:  <Python type name>
  fired: yes|no
or, when evaluating raised an exception (which means the condition did not fire),
  error: <exception class, e.g. KeyError>
  fired: no
A rejected condition's SandboxError message goes to stderr instead (exit status 1).

  --capture NAME=VALUE   A named regex capture, capture['NAME'] == 'VALUE'. Repeatable; the
                         value may contain '='. Default: no captures.
  --exit-code N          exit_code, an integer (negative: killed by a signal). Default: 0.
  --walltime SECONDS     walltime_sec, a finite number. Default: 0.0.
  --peak-vram MIB        peak_vram_mib, an integer. Default: unavailable (null, which the
                         condition sees as 0).
Each option may be given once (--capture once per NAME), as '--exit-code 3' or '--exit-code=3'.
An expression that starts with '-' goes after '--', which ends the options.

With --jsonl: reads JSON Lines on stdin, one object per line:
  {"condition": str, "capture": {str: str}, "exit_code": int,
   "walltime_sec": number, "peak_vram_mib": int|null}
and writes exactly one JSON line per input line (blank lines included) to stdout, in order:
  {"valid": true, "fired": bool, "value": {"type": str, "repr": str}}
  {"valid": true, "fired": false, "exception": "<exception class>"}
  {"valid": false, "error": {"type": "SandboxError", "message": str, "detail": str,
                             "file": null, "line": int, "col": int, "node": str|null}}
  {"valid": false, "error": {"type": "InputError", "message": str, "detail": str,
                             "file": null, "line": <input line>, "col": 1, "node": null}}
A SandboxError's line/col point into the condition; an InputError's line is the input line.

With --disasm: prints the bytecode EXPR compiles to, one instruction a line (index, stack
depth before it, opcode, argument, what the argument means); see docs/bytecode.md.

Options:
  --json         EXPR form: print the condition's --jsonl record instead (one line).
  --jsonl        JSON Lines in and out; takes no EXPR and no variable options.
  --disasm       Print EXPR's bytecode instead of evaluating it.
  -h, --help     Show this help and exit.

Exit status:
  EXPR form: 0 when the condition was evaluated (fired or not, exception or not),
    1 when it was rejected, 2 on a usage error, 3 on an internal error.
  --jsonl form: 0 when the input was read to the end (rejected conditions and malformed
    lines are answered on stdout, not by the exit status), 2 on a usage error, 3 on an
    I/O or internal error.

Examples:
  aorta-probe eval "math.isnan(float(capture['loss']))" --capture loss=nan
  aorta-probe eval "exit_code == 137 or exit_code == -9" --exit-code -9
  aorta-probe eval --jsonl < fixtures/demo/conditions.jsonl
`;

export type EvalArgs =
  | { help: true; mode: 'help' }
  | { help: false; mode: 'jsonl' }
  | { help: false; mode: 'disasm'; condition: string }
  | { help: false; mode: 'expr'; condition: string; vars: ConditionVars; json: boolean };

export const EVAL_OPTIONS = {
  capture: { type: 'string', multiple: true, metavar: 'NAME=VALUE' },
  'exit-code': { type: 'string', metavar: 'N' },
  walltime: { type: 'string', metavar: 'SECONDS' },
  'peak-vram': { type: 'string', metavar: 'MIB' },
  json: { type: 'boolean' },
  jsonl: { type: 'boolean' },
  disasm: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

/** The options that set a variable: none of them goes with --jsonl or --disasm. */
const VARIABLE_OPTIONS = ['capture', 'exit-code', 'walltime', 'peak-vram'] as const;

/** Parses the arguments after `eval`. Throws a UsageError for anything malformed. */
export function parseEvalArgs(args: readonly string[]): EvalArgs {
  const { values: v, positionals } = parseCommandArgs(args, EVAL_OPTIONS);
  if (v.help === true) return { help: true, mode: 'help' };
  if (positionals.length > 1)
    throw new UsageError(`unexpected argument '${positionals[1]}' (the expression is one argument: quote it)`);
  const condition = positionals[0];
  // A Map: the options' order is the dict's order (an object would list integer-like names first).
  const capture = new Map<string, string>();
  for (const value of v.capture ?? []) {
    const sep = value.indexOf('=');
    if (sep === -1) throw new UsageError(`--capture needs NAME=VALUE, got '${value}'`);
    const key = value.slice(0, sep);
    if (key === '') throw new UsageError(`--capture needs a non-empty NAME in NAME=VALUE, got '${value}'`);
    if (capture.has(key)) throw new UsageError(`--capture '${key}' is given more than once`);
    capture.set(key, value.slice(sep + 1));
  }
  // In the order given, so that the message names the first one.
  const varOptionSeen = args
    .map((a) => a.replace(/=.*$/s, ''))
    .find((a) => (VARIABLE_OPTIONS as readonly string[]).some((o) => a === `--${o}`));
  if (v.jsonl === true) {
    if (v.disasm === true) throw new UsageError('--disasm takes an EXPR, not --jsonl');
    if (v.json === true) throw new UsageError('--jsonl already writes JSON: drop --json');
    if (condition !== undefined)
      throw new UsageError(`--jsonl reads the conditions from stdin: unexpected argument '${condition}'`);
    if (varOptionSeen !== undefined)
      throw new UsageError(`--jsonl reads the variables from stdin: '${varOptionSeen}' cannot be used with it`);
    return { help: false, mode: 'jsonl' };
  }
  const exitCode = v['exit-code'] === undefined ? 0 : parseNumber('--exit-code', v['exit-code'], { integer: true });
  const walltime = v.walltime === undefined ? 0 : parseNumber('--walltime', v.walltime, { unit: 'seconds' });
  const peakVram = v['peak-vram'] === undefined ? null : parseNumber('--peak-vram', v['peak-vram'], { integer: true });
  if (condition === undefined) throw new UsageError('missing expression (or --jsonl)');
  if (v.disasm === true) {
    if (varOptionSeen !== undefined)
      throw new UsageError(
        `--disasm prints the bytecode, which no variable changes: '${varOptionSeen}' cannot be used with it`,
      );
    // The listing is text; with --json stdout would hold something that is not JSON.
    if (v.json === true) throw new UsageError('--disasm prints a text listing: drop --json');
    return { help: false, mode: 'disasm', condition };
  }
  return {
    help: false,
    mode: 'expr',
    condition,
    vars: { capture, exit_code: exitCode, walltime_sec: walltime, peak_vram_mib: peakVram },
    json: v.json === true,
  };
}

/**
 * The human-readable result:
 *   value: <repr>        or    error: <ExceptionClass>
 *   type:  <type name>         fired: no
 *   fired: yes|no
 * On a terminal (or with FORCE_COLOR) as the other commands colour a verdict: `fired: yes` bold green, `no` dim,
 * an exception yellow.
 */
export function formatDetailed(result: DetailedResult, c: Palette = NO_PALETTE): string {
  const fired = (yes: boolean): string => (yes ? c.bold(c.green('yes')) : c.dim('no'));
  if ('error' in result) return `error: ${c.yellow(result.error)}\nfired: ${fired(false)}\n`;
  const repr = result.value.repr ?? '(repr() raises ValueError: more than 4300 digits)';
  return `value: ${c.bold(repr)}\ntype:  ${result.value.type}\nfired: ${fired(result.fired)}\n`;
}

export const command: Command<EvalArgs> = {
  name: 'eval',
  usage: EVAL_USAGE,
  parse: parseEvalArgs,
  async run(a, io) {
    if (a.mode === 'expr') return evalExpression(a.condition, a.vars, a.json, io);
    if (a.mode === 'disasm') return disasmExpression(a.condition, io);
    if (a.mode === 'help') return EXIT.ok; // the dispatcher has printed the help
    const { evalJsonl } = await import('../eval-jsonl.js');
    const summary = await evalJsonl(io.stdin, io.stdout, {
      onInternalError: (err, line) => {
        io.stderr.write(`aorta-probe: internal error on input line ${line}: ${describeInternalError(err)}\n`);
      },
    });
    return summary.internalErrors > 0 ? EXIT.error : EXIT.ok;
  },
};

/** --disasm EXPR: 0 listed, 1 rejected (message on stderr). */
async function disasmExpression(condition: string, io: CommandIo): Promise<number> {
  const [{ compileCondition }, { SandboxError, withHint }, { disassemble }] = await Promise.all([
    import('../../condition/evaluate.js'),
    import('../../condition/errors.js'),
    import('../../condition/disasm.js'),
  ]);
  let text: string;
  try {
    text = disassemble(compileCondition(condition).program);
  } catch (err) {
    if (err instanceof SandboxError) {
      await io.writeErr(`${withHint(err)}\n`);
      return EXIT.fail;
    }
    throw err;
  }
  await io.writeOut(text);
  return EXIT.ok;
}

/**
 * The EXPR form: 0 evaluated (fired or not), 1 rejected (message on stderr; like check's invalid recipe), 3 an
 * internal error. With --json, stdout holds eval --jsonl's record for the condition.
 */
async function evalExpression(condition: string, vars: ConditionVars, json: boolean, io: CommandIo): Promise<number> {
  const [{ compileCondition }, { SandboxError, withHint }, records] = await Promise.all([
    import('../../condition/evaluate.js'),
    import('../../condition/errors.js'),
    import('../result-record.js'),
  ]);
  let result: DetailedResult;
  try {
    result = compileCondition(condition).evaluateDetailed(vars);
  } catch (err) {
    if (err instanceof SandboxError) {
      if (json) await io.writeOut(jsonLine(records.sandboxErrorResult(err)));
      await io.writeErr(`${withHint(err)}\n`);
      return EXIT.fail;
    }
    if (json) await io.writeOut(jsonLine({ valid: false, error: errorRecord(err) }));
    await io.writeErr(`aorta-probe: internal error: ${describeInternalError(err)}\n`);
    return EXIT.error;
  }
  await io.writeOut(json ? jsonLine(records.evaluatedResult(result)) : formatDetailed(result, io.stdoutPalette()));
  return EXIT.ok;
}

function describeInternalError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
