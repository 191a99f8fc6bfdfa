/**
 * Argument parsing for `aorta-probe eval`, and the human-readable output of its one-expression form:
 *
 *   aorta-probe eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
 *   aorta-probe eval --jsonl
 *   aorta-probe eval --disasm EXPR
 *
 * Options take their value as the next argument or after '=' (`--exit-code=-9`). `--` ends the
 * options, for an expression that starts with '-'.
 */
import type { ConditionVars, DetailedResult } from '../condition/evaluate.js';

import { parseNumber, UsageError } from './args.js';
import { didYouMean } from '../text/suggest.js';

export { UsageError };

export type EvalArgs =
  | { mode: 'help' }
  | { mode: 'jsonl' }
  | { mode: 'disasm'; condition: string }
  | { mode: 'expr'; condition: string; vars: ConditionVars; json: boolean };

const VALUE_OPTIONS = ['--capture', '--exit-code', '--walltime', '--peak-vram'] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];

function isValueOption(name: string): name is ValueOption {
  return (VALUE_OPTIONS as readonly string[]).includes(name);
}

/** Parses the arguments after `eval`. Throws a UsageError for anything malformed. */
export function parseEvalArgs(args: readonly string[]): EvalArgs {
  let jsonl = false;
  let disasm = false;
  let json = false;
  let condition: string | undefined;
  const capture: Record<string, string> = Object.create(null);
  let exitCode: number | undefined;
  let walltime: number | undefined;
  let peakVram: number | undefined;
  let varOptionSeen: string | undefined;

  const positional = (arg: string): void => {
    if (condition !== undefined)
      throw new UsageError(`unexpected argument '${arg}' (the expression is one argument: quote it)`);
    condition = arg;
  };

  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (optionsEnded || arg === '-' || !arg.startsWith('-')) {
      positional(arg);
      continue;
    }
    if (arg === '--') {
      optionsEnded = true;
      continue;
    }
    if (arg === '-h' || arg === '--help') return { mode: 'help' };
    if (arg === '--jsonl') {
      jsonl = true;
      continue;
    }
    if (arg === '--disasm') {
      disasm = true;
      continue;
    }
    if (arg === '--json') {
      json = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!isValueOption(name)) {
      throw new UsageError(
        eq !== -1 && (name === '--jsonl' || name === '--json' || name === '--disasm')
          ? `option '${name}' takes no value`
          : `unknown option '${name}'${didYouMean(name, [...VALUE_OPTIONS, '--jsonl', '--json', '--disasm', '--help'])}`,
      );
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < args.length) value = args[++i]!;
    else throw new UsageError(`option '${name}' needs a value (${name} ${metavar(name)})`);
    varOptionSeen ??= name;

    switch (name) {
      case '--capture': {
        const sep = value.indexOf('=');
        if (sep === -1) throw new UsageError(`--capture needs NAME=VALUE, got '${value}'`);
        const key = value.slice(0, sep);
        if (key === '') throw new UsageError(`--capture needs a non-empty NAME in NAME=VALUE, got '${value}'`);
        if (Object.hasOwn(capture, key)) throw new UsageError(`--capture '${key}' is given more than once`);
        capture[key] = value.slice(sep + 1);
        break;
      }
      case '--exit-code':
        if (exitCode !== undefined) throw new UsageError(`--exit-code is given more than once`);
        exitCode = parseInteger(name, value);
        break;
      case '--walltime':
        if (walltime !== undefined) throw new UsageError(`--walltime is given more than once`);
        walltime = parseNumber(name, value, { unit: 'seconds' });
        break;
      case '--peak-vram':
        if (peakVram !== undefined) throw new UsageError(`--peak-vram is given more than once`);
        peakVram = parseInteger(name, value);
        break;
    }
  }

  if (jsonl) {
    if (disasm) throw new UsageError('--disasm takes an EXPR, not --jsonl');
    if (json) throw new UsageError('--jsonl already writes JSON: drop --json');
    if (condition !== undefined)
      throw new UsageError(`--jsonl reads the conditions from stdin: unexpected argument '${condition}'`);
    if (varOptionSeen !== undefined)
      throw new UsageError(`--jsonl reads the variables from stdin: '${varOptionSeen}' cannot be used with it`);
    return { mode: 'jsonl' };
  }
  if (condition === undefined) throw new UsageError('missing expression (or --jsonl)');
  if (disasm) {
    if (varOptionSeen !== undefined)
      throw new UsageError(
        `--disasm prints the bytecode, which no variable changes: '${varOptionSeen}' cannot be used with it`,
      );
    return { mode: 'disasm', condition };
  }
  return {
    mode: 'expr',
    condition,
    vars: { capture, exit_code: exitCode ?? 0, walltime_sec: walltime ?? 0, peak_vram_mib: peakVram ?? null },
    json,
  };
}

function metavar(name: ValueOption): string {
  switch (name) {
    case '--capture':
      return 'NAME=VALUE';
    case '--exit-code':
      return 'N';
    case '--walltime':
      return 'SECONDS';
    case '--peak-vram':
      return 'MIB';
  }
}

function parseInteger(name: string, value: string): number {
  return parseNumber(name, value, { integer: true });
}

/**
 * The human-readable result:
 *   value: <repr>        or    error: <ExceptionClass>
 *   type:  <type name>         fired: no
 *   fired: yes|no
 */
export function formatDetailed(result: DetailedResult): string {
  if ('error' in result) return `error: ${result.error}\nfired: no\n`;
  const repr = result.value.repr ?? '(repr() raises ValueError: more than 4300 digits)';
  return `value: ${repr}\ntype:  ${result.value.type}\nfired: ${result.fired ? 'yes' : 'no'}\n`;
}
