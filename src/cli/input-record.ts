/**
 * Validation of one `eval --jsonl` input line: JSON text → typed record, or an {@link InputError}
 * that names the offending field.
 *
 * Input object shape (extra keys are ignored):
 *   {"condition": <any>, "capture": {str: str}, "exit_code": int, "walltime_sec": number,
 *    "peak_vram_mib": int | null}
 *
 * `condition` is required but its type is not checked here: `validateCondition` reports a non-string
 * condition itself, as a SandboxError, exactly like the recipe loader would.
 */
import { fieldKeyOrder } from './json-key-order.js';

/** The one-line reason an input line was not usable; `field` is null when no single field is to blame. */
export class InputError extends Error {
  override name = 'InputError';
  readonly field: string | null;

  constructor(message: string, field: string | null = null) {
    super(message);
    this.field = field;
  }
}

export interface InputRecord {
  /** Passed to `validateCondition` as-is (any JSON value). */
  readonly condition: unknown;
  /** In the order the line wrote the keys (as Python's `json.loads`); `__proto__` is a key like any other. */
  readonly capture: ReadonlyMap<string, string>;
  readonly exit_code: number;
  readonly walltime_sec: number;
  readonly peak_vram_mib: number | null;
}

/** Field names in the order they are checked; the first one that is missing or ill-typed is reported. */
export const INPUT_FIELDS = ['condition', 'capture', 'exit_code', 'walltime_sec', 'peak_vram_mib'] as const;

/**
 * Parses one input line (already stripped of its line terminator). Whitespace-only lines are an
 * error rather than skipped, so every input line gets exactly one output line.
 */
export function parseInputLine(text: string): InputRecord {
  if (text.trim() === '') {
    throw new InputError('blank line; expected a JSON object');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message}`);
  }
  return checkInputRecord(value, fieldKeyOrder(text, 'capture') ?? undefined);
}

/**
 * Checks an already-parsed JSON value against the input shape. `captureOrder` is the order the
 * capture's keys were written in, which the parsed object cannot tell (integer-like keys move first).
 */
export function checkInputRecord(value: unknown, captureOrder?: readonly string[]): InputRecord {
  if (!isPlainObject(value)) {
    throw new InputError(`expected a JSON object, got ${describe(value)}`);
  }
  const field = (name: (typeof INPUT_FIELDS)[number]): unknown => {
    if (!Object.hasOwn(value, name)) throw new InputError(`missing field "${name}"`, name);
    return value[name];
  };

  const condition = field('condition');

  const capture = field('capture');
  if (!isPlainObject(capture)) {
    throw new InputError(`field "capture" must be an object of string values, got ${describe(capture)}`, 'capture');
  }
  const captureCopy = new Map<string, string>();
  for (const key of captureOrder ?? Object.keys(capture)) {
    const v = capture[key];
    if (typeof v !== 'string') {
      throw new InputError(
        `field "capture" key ${JSON.stringify(key)} must map to a string, got ${describe(v)}`,
        'capture',
      );
    }
    captureCopy.set(key, v);
  }

  const exitCode = field('exit_code');
  if (!isSafeInteger(exitCode)) {
    throw new InputError(`field "exit_code" must be ${integerRange(exitCode)}, got ${describe(exitCode)}`, 'exit_code');
  }

  const walltime = field('walltime_sec');
  if (typeof walltime !== 'number' || !Number.isFinite(walltime)) {
    throw new InputError(`field "walltime_sec" must be a finite number, got ${describe(walltime)}`, 'walltime_sec');
  }

  const vram = field('peak_vram_mib');
  if (vram !== null && !isSafeInteger(vram)) {
    throw new InputError(
      `field "peak_vram_mib" must be ${integerRange(vram)} or null, got ${describe(vram)}`,
      'peak_vram_mib',
    );
  }

  return {
    condition,
    capture: captureCopy,
    exit_code: exitCode,
    walltime_sec: walltime,
    peak_vram_mib: vram,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON cannot tell `137` from `137.0`, so both are accepted; integers outside ±(2^53 − 1) are
 * rejected because JSON.parse has already rounded them.
 */
function isSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** "an integer", plus the range when the value is an integer JSON.parse could not hold exactly. */
function integerRange(value: unknown): string {
  return Number.isInteger(value) ? `an integer within ±${Number.MAX_SAFE_INTEGER}` : 'an integer';
}

/** Short, one-line description of a JSON value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const chars = Array.from(value);
      const shown = chars.length > 32 ? `${chars.slice(0, 32).join('')}…` : value;
      return `the string ${JSON.stringify(shown)}`;
    }
    case 'number':
      return `the number ${String(value)}`;
    case 'boolean':
      return `${String(value)}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}
