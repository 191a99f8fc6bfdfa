/**
 * The one argument layer of every command, on `node:util`'s `parseArgs` (no dependency: it does long and short
 * options, `--opt=value`, `--` and strictness; what it lacks — did-you-mean, "given twice", one number grammar — is
 * here). A malformed command line throws a UsageError; the dispatcher prints its message, the command's synopsis
 * and "see 'aorta-probe CMD --help'", and exits 2.
 */
import { parseArgs } from 'node:util';
import { didYouMean } from './suggest.js';

/** A malformed command line (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** May be given more than once (values collected in order). */
  readonly multiple?: boolean;
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
  const own = sep === -1 ? [...args] : args.slice(0, sep);
  const rest = sep === -1 ? [] : args.slice(sep + 1);
  const names = Object.keys(options).map((n) => `--${n}`);
  // Unknown options first, with a suggestion (parseArgs would say only "Unknown option").
  for (const a of own) {
    if (a === '--') break;
    if (a.startsWith('--')) {
      const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
      if (!names.includes(name)) throw new UsageError(`unknown option '${name}'${didYouMean(name, names)}`);
    } else if (a.length > 1 && a.startsWith('-') && !/^-\d/.test(a)) {
      const shorts = Object.values(options).flatMap((o) => (o.short === undefined ? [] : [o.short]));
      for (const ch of a.slice(1)) {
        if (!shorts.includes(ch)) throw new UsageError(`unknown option '-${ch}'`);
        if (options[Object.keys(options).find((k) => options[k]!.short === ch)!]!.type === 'string') break;
      }
    }
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: own, options: options as never, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw new UsageError(describeParseError(e, own));
  }
  const counts = new Map<string, number>();
  for (const t of parsed.tokens ?? []) {
    if (t.kind !== 'option') continue;
    const n = (counts.get(t.name) ?? 0) + 1;
    counts.set(t.name, n);
    if (n > 1 && options[t.name]?.multiple !== true) throw new UsageError(`--${t.name} is given more than once`);
    if (options[t.name]?.type === 'string' && t.inlineValue !== true && t.value?.startsWith('--') === true) {
      throw new UsageError(
        `--${t.name}: value '${t.value}' looks like another option. Did you forget to set a variable or to quote the value? (common cause: '--${t.name} $VAR' where $VAR is unset)`,
      );
    }
  }
  return { values: parsed.values as Values<O>, positionals: parsed.positionals, rest };
}

/** parseArgs' messages, reworded in this CLI's voice. */
function describeParseError(e: unknown, args: readonly string[]): string {
  const err = e as { code?: string; message?: string };
  const m = err.message ?? String(e);
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = /'(--?[\w-]+)/.exec(m)?.[1];
    if (m.includes('argument missing')) return `option '${name}' needs a value`;
    if (m.includes('does not take an argument')) return `option '${name}' takes no value`;
    const value = name === undefined ? undefined : args[args.indexOf(name) + 1];
    if (m.includes('ambiguous') && value !== undefined) {
      return `${name}: value '${value}' looks like another option. Did you forget to set a variable or to quote the value? (common cause: '${name} $VAR' where $VAR is unset)`;
    }
  }
  return m.replace(/\.$/, '');
}

/** At most `max` positionals (`what` names them in the message). */
export function atMost(positionals: readonly string[], max: number, what: string): void {
  if (positionals.length > max) throw new UsageError(`unexpected argument '${positionals[max]}' (${what})`);
}

const INTEGER = /^[+-]?[0-9]+$/;
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

export interface NumberRule {
  /** An integer within ±Number.MAX_SAFE_INTEGER. */
  readonly integer?: boolean;
  /** Greater than 0. */
  readonly positive?: boolean;
  /** Unit for the message, e.g. 'seconds'. */
  readonly unit?: string;
}

/**
 * The one number grammar of the command line: an optional sign, digits, an optional fraction and exponent (no
 * hex, no `Infinity`, no blanks); a decimal must be finite.
 */
export function parseNumber(option: string, text: string, rule: NumberRule = {}): number {
  const n = Number(text);
  const what = `${rule.positive ? 'a positive ' : rule.integer ? 'an ' : 'a finite '}${rule.integer ? 'integer' : 'number'}${rule.unit ? ` of ${rule.unit}` : ''}`;
  const ok = rule.integer ? INTEGER.test(text) && Number.isSafeInteger(n) : DECIMAL.test(text) && Number.isFinite(n);
  if (!ok || (rule.positive && !(n > 0))) {
    const range = rule.integer && INTEGER.test(text) ? ` within ±${Number.MAX_SAFE_INTEGER}` : '';
    throw new UsageError(`${option} must be ${what}${range}, got '${text}'`);
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
