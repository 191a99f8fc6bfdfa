/**
 * Option objects checked at the library's front doors: a key a function does not know — misspelt, or put at the
 * wrong level (`runSweep({ gpuTool })`, where it belongs under `trial`) — is an `OptionsError` that names it and the
 * key most likely meant, never silently ignored. The CLI checks its flags the same way, with the same did-you-mean
 * rule (suggest.ts).
 *
 * Each options interface has a table of its keys next to it, written so that the two cannot drift:
 *
 *     export const SCAN_OPTION_KEYS = { windowBytes: OPTION } satisfies OptionTable<ScanOptions>;
 *
 * `OptionTable<T>` has exactly the keys of `T`, every one required: a key of `T` the table leaves out is a missing
 * property, a key `T` does not have is an excess property, and either fails to compile. A key whose value is itself
 * an options object maps to `nested(ITS_TABLE)`, and that object is checked too.
 *
 * Only an object's own enumerable string keys are options (`Object.keys`): what it inherits (a class's methods and
 * accessors, `Object.prototype`) is not checked, so a class instance is as good as a plain object. A valid key whose
 * value is `undefined` is the key not given.
 */
import { closest } from './suggest.js';

/** An options object's key that takes a value (any value: the function checks it). */
export const OPTION = true;

/** A key whose value is an options object with keys of its own. */
export interface NestedOptions {
  readonly keys: OptionKeys;
  /** The function takes `null` there as "not given" (else `null` is an `OptionsError`). */
  readonly nullable: boolean;
}

/** A table as the check reads it: each valid key, and whether its value is checked as an options object. */
export interface OptionKeys {
  readonly [key: string]: typeof OPTION | NestedOptions;
}

/** The table of `T`'s options: every key of `T`, no other (see the header). */
export type OptionTable<T> = { readonly [K in keyof T & string]-?: typeof OPTION | NestedOptions };

/**
 * The entry of a key whose value is an options object, checked against `keys`. `nullable`: the function takes `null`
 * there as "not given", so the check lets it through.
 */
export function nested(keys: OptionKeys, { nullable = false }: { readonly nullable?: boolean } = {}): NestedOptions {
  return { keys, nullable };
}

/**
 * `table` without `omitted`: the table of `Omit<T, K>` (a function that sets those keys itself), built from `T`'s so
 * the two cannot drift.
 */
export function withoutKeys<T, K extends keyof T & string>(
  table: OptionTable<T>,
  omitted: readonly K[],
): OptionTable<Omit<T, K>> {
  const out: Record<string, typeof OPTION | NestedOptions> = {};
  for (const [key, entry] of Object.entries(table as OptionKeys))
    if (!(omitted as readonly string[]).includes(key)) out[key] = entry;
  return out as OptionTable<Omit<T, K>>;
}

/**
 * An options object a public function cannot take: a key it does not know (at any depth), or options that are not
 * an object. A `TypeError`, thrown (by an async function: its promise rejected) before the function does anything.
 */
export class OptionsError extends TypeError {
  override name = 'OptionsError';
  constructor(
    /** The function, as the message names it: `runTrial`, `new TextScrubber`, `GpuSampler.create`. */
    readonly functionName: string,
    /** The unknown key, or the key whose value is not an object, as a path (`trial.gpuTol`); null: the options. */
    readonly key: string | null,
    /** The valid key most likely meant, as a path (`trial.gpuTool`), or null. */
    readonly suggestion: string | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Throws an `OptionsError` unless `options` is an object whose own keys, at every depth the table nests, are keys
 * of `keys`. `functionName` heads the message: `runSweep(): unknown option 'gpuTool' — did you mean
 * 'trial.gpuTool'?`.
 */
export function checkOptions(functionName: string, options: unknown, keys: OptionKeys): void {
  checkLevel(functionName, options, keys, keys, []);
}

function checkLevel(fn: string, value: unknown, keys: OptionKeys, root: OptionKeys, at: readonly string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = at.length === 0 ? 'options' : `option ${quote(at.join('.'))}`;
    throw new OptionsError(
      fn,
      at.length === 0 ? null : at.join('.'),
      null,
      `${fn}(): ${what} must be an object, not ${describe(value)}`,
    );
  }
  for (const key of Object.keys(value)) {
    const entry = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (entry === undefined) {
      const path = [...at, key].join('.');
      const suggestion = suggest(keys, root, at, key);
      const hint = suggestion === null ? '' : ` — did you mean ${quote(suggestion)}?`;
      throw new OptionsError(fn, path, suggestion, `${fn}(): unknown option ${quote(path)}${hint}`);
    }
    if (entry === OPTION) continue;
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined || (inner === null && entry.nullable)) continue;
    checkLevel(fn, inner, entry.keys, root, [...at, key]);
  }
}

/** Every key of the table at every depth, as paths, shallowest first (table order within a depth). */
function allPaths(root: OptionKeys): string[][] {
  const out: string[][] = [];
  let level: { keys: OptionKeys; at: string[] }[] = [{ keys: root, at: [] }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (const { keys, at } of level) {
      for (const [key, entry] of Object.entries(keys)) {
        out.push([...at, key]);
        if (entry !== OPTION) next.push({ keys: entry.keys, at: [...at, key] });
      }
    }
    level = next;
  }
  return out;
}

/**
 * The valid key most likely meant by `key`, unknown at `at`: the same name at another level (put at the wrong
 * level), else the nearest key of this level (`closest`: misspelt), else the nearest key of another level.
 */
function suggest(keys: OptionKeys, root: OptionKeys, at: readonly string[], key: string): string | null {
  const here = at.join('.');
  const elsewhere = allPaths(root).filter((p) => p.slice(0, -1).join('.') !== here);
  const moved = elsewhere.find((p) => p[p.length - 1] === key);
  if (moved !== undefined) return moved.join('.');
  const near = closest(key, Object.keys(keys));
  if (near !== null) return [...at, near].join('.');
  const far = closest(
    key,
    elsewhere.map((p) => p[p.length - 1]!),
  );
  return far === null ? null : elsewhere.find((p) => p[p.length - 1] === far)!.join('.');
}

/** `'key'`, or the key as a JSON string when quotes, backslashes or controls would make the plain form misread. */
function quote(key: string): string {
  return /^[^'\\\p{C}\p{Zl}\p{Zp}]*$/u.test(key) ? `'${key}'` : JSON.stringify(key);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`; // string, number, bigint, boolean, symbol, function
}
