/**
 * The variables a condition sees, checked where they enter the library: a value the VM cannot
 * represent exactly is an error naming the field, never coerced (1.5 is not 1, '137' is not 137,
 * 1e20 does not wrap). Captures are read as own properties only, so a polluted
 * `Object.prototype` cannot add keys, and in insertion order (a `Map` keeps integer-like keys
 * where they were put; a plain object lists them first, as JavaScript defines).
 */

/** The capture mapping: a plain object of strings, or a Map for an exact key order. */
export type Capture = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

export interface ConditionVars {
  capture: Capture;
  /** An integer (a safe JavaScript integer). */
  exit_code: number;
  /** A number of seconds (a Python float: NaN and infinities included). */
  walltime_sec: number;
  /** An integer, or null when unavailable: bound to 0, as the original's `evaluate` does. */
  peak_vram_mib: number | null;
}

/** A variable set the VM cannot take as given; `field` names the offending one. */
export class ConditionVarsError extends TypeError {
  override name = 'ConditionVarsError';
  constructor(
    /** e.g. `exit_code`, `capture['loss']`, `[3].walltime_sec` in a batch */
    readonly field: string,
    /** why, without the field: `must be a string, got number` */
    readonly reason: string,
  ) {
    super(`condition variable ${field} ${reason}`);
  }
}

/** The capture entries in order, own properties only; throws ConditionVarsError when malformed. */
export function captureEntries(capture: unknown, where = ''): [string, string][] {
  const out: [string, string][] = [];
  if (capture instanceof Map) {
    for (const [k, v] of capture as Map<unknown, unknown>) {
      if (typeof k !== 'string')
        throw new ConditionVarsError(`${where}capture`, `keys must be strings, got ${describe(k)}`);
      if (typeof v !== 'string')
        throw new ConditionVarsError(`${where}capture[${quote(k)}]`, `must be a string, got ${describe(v)}`);
      out.push([k, v]);
    }
    return out;
  }
  if (typeof capture !== 'object' || capture === null || Array.isArray(capture)) {
    throw new ConditionVarsError(`${where}capture`, `must be an object or a Map of strings, got ${describe(capture)}`);
  }
  const rec = capture as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    if (typeof v !== 'string')
      throw new ConditionVarsError(`${where}capture[${quote(k)}]`, `must be a string, got ${describe(v)}`);
    out.push([k, v]);
  }
  return out;
}

/**
 * Checks the scalar fields and the capture's shape (`checkCapture`: every value, or none when
 * the caller reads the values it needs itself through `ownCapture`).
 */
export function checkVars(v: unknown, where = '', checkCapture = true): asserts v is ConditionVars {
  if (typeof v !== 'object' || v === null)
    throw new ConditionVarsError(where === '' ? 'vars' : where, `must be an object, got ${describe(v)}`);
  const r = v as Record<string, unknown>;
  const exit = r['exit_code'];
  if (typeof exit !== 'number' || !Number.isSafeInteger(exit))
    throw new ConditionVarsError(`${where}exit_code`, `must be ${INTEGER}, got ${describe(exit)}`);
  const wall = r['walltime_sec'];
  // a Python float: NaN and the infinities are values too (the linter's witnesses use them)
  if (typeof wall !== 'number')
    throw new ConditionVarsError(`${where}walltime_sec`, `must be a number, got ${describe(wall)}`);
  const vram = r['peak_vram_mib'];
  if (vram !== null && (typeof vram !== 'number' || !Number.isSafeInteger(vram))) {
    throw new ConditionVarsError(`${where}peak_vram_mib`, `must be ${INTEGER} or null, got ${describe(vram)}`);
  }
  if (checkCapture) captureEntries(r['capture'], where);
}

/** A batch's list, checked before any of it is encoded. */
export function checkVarsList(list: unknown): asserts list is readonly ConditionVars[] {
  if (!Array.isArray(list))
    throw new ConditionVarsError('list', `must be an array of variable sets, got ${describe(list)}`);
}

const INTEGER = `an integer within ±${Number.MAX_SAFE_INTEGER}`;

function quote(k: string): string {
  return `'${k.length > 40 ? `${k.slice(0, 40)}…` : k}'`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v === undefined)
    return `${typeof v} ${String(v)}${typeof v === 'bigint' ? 'n' : ''}`;
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}
