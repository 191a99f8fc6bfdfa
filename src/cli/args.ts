/**
 * The one argument layer of every command, on `node:util`'s `parseArgs` (no dependency: it does long and short
 * options, `--opt=value`, `--` and strictness; what it lacks — did-you-mean, "given twice", one number grammar — is
 * here). A malformed command line throws a UsageError; the dispatcher prints its message, the command's synopsis
 * and "see 'aorta-probe CMD --help'", and exits 2.
 */
import { parseArgs } from 'node:util';
import { didYouMean } from '../text/suggest.js';

/** A malformed command line (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** May be given more than once (values collected in order). */
  readonly multiple?: boolean;
  /** The value's name in messages and in `--help` (`--capture NAME=VALUE`). */
  readonly metavar?: string;
  /**
   * The value may itself start with `--` (`--sbatch --partition=gpu`). Otherwise such a value is taken for a
   * forgotten one (`--out $UNSET --quiet`) and refused.
   */
  readonly optionLikeValue?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type Values<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]['type'] extends 'string'
    ? O[K]['multiple'] extends true
      ? string[]
      : string
    : O[K]['multiple'] extends true
      ? boolean[]
      : boolean;
};

export interface Parsed<O extends OptionSpecs> {
  readonly values: Values<O>;
  readonly positionals: string[];
  /** Arguments after a literal `--` (when `rest` was asked for), as they are. */
  readonly rest: string[];
}

/**
 * Parses `args` against `options`. With `rest: true`, everything after the first `--` is returned untouched in
 * `rest` (`run -- CMD ARGS`); otherwise `--` ends the options and what follows is positional. `-` is a positional
 * (stdin) and a valid option value.
 */
export function parseCommandArgs<O extends OptionSpecs>(
  args: readonly string[],
  options: O,
  config: { rest?: boolean } = {},
): Parsed<O> {
  const sep = config.rest === true ? args.indexOf('--') : -1;
  const given = sep === -1 ? [...args] : args.slice(0, sep);
  const rest = sep === -1 ? [] : args.slice(sep + 1);
  const names = Object.keys(options).map((n) => `--${n}`);
  const shortName = (ch: string): string | undefined => Object.keys(options).find((k) => options[k]!.short === ch);
  // parseArgs refuses `--exit-code -9` as ambiguous; a value is whatever follows a string option, unless it starts
  // with `--` (then it is most likely the next option and the value was forgotten). Joined as `--opt=value` here.
  const own: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const a = given[i]!;
    if (a === '--') {
      own.push(...given.slice(i));
      break;
    }
    const spec = a.startsWith('--') && !a.includes('=') ? options[a.slice(2)] : undefined;
    const next = given[i + 1];
    if (spec?.type === 'string' && next !== undefined && next !== '--') {
      if (next.startsWith('--') && spec.optionLikeValue !== true)
        throw new UsageError(
          `${a}: value '${next}' looks like another option. Did you forget to set a variable or to quote the value? (common cause: '${a} $VAR' where $VAR is unset)`,
        );
      own.push(`${a}=${next}`);
      i++;
    } else own.push(a);
  }
  // Unknown options first, with a suggestion (parseArgs would say only "Unknown option").
  for (const a of own) {
    if (a === '--') break;
    if (a.startsWith('--')) {
      const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
      if (!names.includes(name)) throw new UsageError(`unknown option '${name}'${didYouMean(name, names)}`);
    } else if (a.length > 1 && a.startsWith('-')) {
      // `-exit-code`: a long option with one dash is one word, not a cluster of short options.
      if (shortName(a[1]!) === undefined)
        throw new UsageError(`unknown option '${a}'${a.length > 2 ? didYouMean(`-${a}`, names) : ''}`);
      for (const ch of a.slice(1)) {
        const long = shortName(ch);
        if (long === undefined) throw new UsageError(`unknown option '-${ch}' in '${a}'`);
        if (options[long]!.type === 'string') break;
      }
    }
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: own, options: options as never, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw new UsageError(describeParseError(e, options));
  }
  const counts = new Map<string, number>();
  for (const t of parsed.tokens ?? []) {
    if (t.kind !== 'option') continue;
    const n = (counts.get(t.name) ?? 0) + 1;
    counts.set(t.name, n);
    if (n > 1 && options[t.name]?.multiple !== true) throw new UsageError(`--${t.name} is given more than once`);
  }
  return { values: parsed.values as Values<O>, positionals: parsed.positionals, rest };
}

/** parseArgs' messages, reworded in this CLI's voice. */
function describeParseError(e: unknown, options: OptionSpecs): string {
  const err = e as { code?: string; message?: string };
  const m = err.message ?? String(e);
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = /'(--?[\w-]+)/.exec(m)?.[1];
    const spec = name === undefined ? undefined : options[name.replace(/^--?/, '')];
    if (m.includes('argument missing'))
      return `option '${name}' needs a value${spec?.metavar === undefined ? '' : ` (${name} ${spec.metavar})`}`;
    if (m.includes('does not take an argument')) return `option '${name}' takes no value`;
  }
  return m.replace(/\.$/, '');
}

/** An option with a fixed set of values (`--gpu-tool`, `--emit`, `--format`): the value, or a UsageError listing them. */
export function pickOne<T extends string>(option: string, choices: readonly T[], value: string): T {
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`${option} must be one of ${choices.join(', ')}, got '${value}'`);
  return value as T;
}

/** `--format` and `--json` together: one answer (json wins only when they agree). */
export function pickFormat<F extends string>(
  formats: readonly F[],
  format: string | undefined,
  json: boolean | undefined,
): F {
  if (format !== undefined) pickOne('--format', formats, format);
  if (json === true && format !== undefined && format !== 'json')
    throw new UsageError(`--json contradicts --format ${format}`);
  return (json === true ? 'json' : (format ?? 'text')) as F;
}

/**
 * `run` and `sweep`: aorta-probe's options, a literal `--`, then the trial's command as it is. The command line is
 * checked for the separator before the options are (`run node -e 0` is "missing '--'", not "unknown option '-e'").
 * Null for `-h`/`--help` before the `--`.
 */
export function parseWithCommand<O extends OptionSpecs>(
  args: readonly string[],
  options: O,
): (Parsed<O> & { readonly command: readonly string[] }) | null {
  const sep = args.indexOf('--');
  const own = sep === -1 ? args : args.slice(0, sep);
  if (own.includes('-h') || own.includes('--help')) return null;
  const missing = (got: string | undefined): UsageError =>
    new UsageError(
      `missing '--' separator: the command must come after a literal '--', so aorta-probe knows where its own options end${got === undefined ? '' : ` (got '${got}')`}`,
    );
  if (sep === -1) {
    const takesValue = new Set(
      Object.entries(options)
        .filter(([, o]) => o.type === 'string')
        .map(([n]) => `--${n}`),
    );
    const word = own.find((a, i) => !a.startsWith('-') && !takesValue.has(own[i - 1] ?? ''));
    if (word !== undefined) throw missing(word);
  }
  const parsed = parseCommandArgs(args, options, { rest: true });
  const first = parsed.positionals[0];
  if (first !== undefined)
    throw sep === -1 ? missing(first) : new UsageError(`unexpected argument '${first}' before '--'`);
  if (sep === -1) throw missing(undefined);
  const argv0 = parsed.rest[0];
  if (argv0 === undefined) throw new UsageError("no command after '--'");
  if (argv0.startsWith('-'))
    throw new UsageError(
      `the command starts with '${argv0}', which looks like an option. Put aorta-probe's options before '--' and the command after it`,
    );
  return { ...parsed, command: parsed.rest };
}

/** At most `max` positionals (`what` names them in the message). */
export function atMost(positionals: readonly string[], max: number, what: string): void {
  if (positionals.length > max) throw new UsageError(`unexpected argument '${positionals[max]}' (${what})`);
}

/*
 * The one number grammar of the command line, for every numeric option of every command: an optional sign, then
 * digits; a number that need not be an integer may also have a fraction (`1.`, `.5`) and an exponent (`1e3`).
 * No hex, no `inf`/`nan`, no blanks, no `_`. An integer must be exact (within ±2^53−1), a number finite. A sign is
 * always accepted by the grammar; the option's range then decides (`--timeout -1` is "must be a positive number").
 */
const INTEGER = /^[+-]?[0-9]+$/;
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

export interface NumberRule {
  /** An integer within ±Number.MAX_SAFE_INTEGER. */
  readonly integer?: boolean;
  /** Greater than 0. */
  readonly positive?: boolean;
  /** The smallest accepted value (inclusive). */
  readonly min?: number;
  /** The largest accepted value (inclusive). */
  readonly max?: number;
  /** Unit for the message, e.g. 'seconds'. */
  readonly unit?: string;
}

/** "a positive integer", "an integer from 0 to 65535", "a finite number of seconds". */
function describeRule(rule: NumberRule): string {
  const kind = rule.integer ? 'integer' : 'number';
  const unit = rule.unit ? ` of ${rule.unit}` : '';
  if (rule.min !== undefined && rule.max !== undefined) return `an ${kind}${unit} from ${rule.min} to ${rule.max}`;
  if (rule.min === 0) return `a non-negative ${kind}${unit}`;
  if (rule.min !== undefined) return `an ${kind}${unit} >= ${rule.min}`;
  if (rule.positive) return `a positive ${kind}${unit}`;
  return rule.integer ? `an integer${unit}` : `a finite number${unit}`;
}

/** Parses a numeric option's value by the one grammar above; a UsageError names the option, the rule and the text. */
export function parseNumber(option: string, text: string, rule: NumberRule = {}): number {
  const n = Number(text);
  const grammar = rule.integer ? INTEGER.test(text) : DECIMAL.test(text);
  const exact = rule.integer ? Number.isSafeInteger(n) : Number.isFinite(n);
  const inRange =
    (!rule.positive || n > 0) && (rule.min === undefined || n >= rule.min) && (rule.max === undefined || n <= rule.max);
  if (!grammar || !exact || !inRange) {
    const range = rule.integer && grammar && !exact ? ` within ±${Number.MAX_SAFE_INTEGER}` : '';
    throw new UsageError(`${option} must be ${describeRule(rule)}${range}, got '${text}'`);
  }
  return n;
}

/**
 * What a usage error shows after its message: the synopsis (the usage text up to its first blank line) and where
 * the rest is.
 */
export function usageShort(command: string, usage: string): string {
  const synopsis = usage.split('\n\n')[0] ?? usage;
  return `${synopsis.trimEnd()}\nSee 'aorta-probe ${command} --help'.\n`;
}
