/**
 * Memory quantities as amd-smi and nvidia-smi print them, converted to MiB.
 *
 * Both tools use binary units everywhere: amd-smi labels MiB as "MB" (its CLI computes
 * `bytes // (1024*1024)`), and nvidia-smi prints "MiB". So "MB" and "MiB" are the same factor here,
 * and "GB"/"GiB" are both 1024 MiB.
 */

/** Units a memory value can carry; matched case-insensitively. */
const MIB_PER_UNIT: ReadonlyMap<string, number> = new Map([
  ['b', 1 / 1048576],
  ['kb', 1 / 1024],
  ['kib', 1 / 1024],
  ['mb', 1],
  ['mib', 1],
  ['gb', 1024],
  ['gib', 1024],
  ['tb', 1048576],
  ['tib', 1048576],
]);

/** A memory unit name accepted as the default unit of a field. */
export type MemoryUnit = 'B' | 'KB' | 'KiB' | 'MB' | 'MiB' | 'GB' | 'GiB' | 'TB' | 'TiB';

/** `"202"`, `"202 MB"`, `"1.9 GB"`, `"7524MiB"`: a non-negative decimal and an optional unit. */
const NUMBER_WITH_UNIT = /^\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)\s*$/;

/**
 * Converts one reported value to MiB, or `null` when it is unknown.
 *
 * Accepts what the tools print: a bare number (in `defaultUnit`), a `{"value", "unit"}` object (the
 * unit may be missing), a string with a number and an optional unit, and every "unknown" form
 * (`"N/A"`, `"[N/A]"`, `"[Not Supported]"`, `{"value": "N/A", ...}`, null). Unknown is never 0: a
 * field the tool could not read must not look like an idle GPU. A unit that is not a memory unit
 * (`"%"`, `"W"`) or a negative or non-finite number is unknown too.
 */
export function toMiB(value: unknown, defaultUnit: MemoryUnit): number | null {
  if (typeof value === 'number') return scale(value, defaultUnit);
  if (typeof value === 'string') {
    const m = NUMBER_WITH_UNIT.exec(value);
    if (m === null) return null;
    return scale(Number(m[1]), m[2] === '' ? defaultUnit : m[2]!);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'value' in value) {
    const unit = (value as { unit?: unknown }).unit;
    const inner = (value as { value: unknown }).value;
    // A unit object never nests another unit object; refuse rather than recurse on hostile input.
    if (inner !== null && typeof inner === 'object') return null;
    if (typeof unit === 'string' && unit.trim() !== '') {
      if (!MIB_PER_UNIT.has(unit.trim().toLowerCase())) return null;
      if (typeof inner === 'number') return scale(inner, unit.trim());
      if (typeof inner === 'string') {
        const m = NUMBER_WITH_UNIT.exec(inner);
        if (m === null) return null;
        return scale(Number(m[1]), m[2] === '' ? unit.trim() : m[2]!);
      }
      return null;
    }
    return toMiB(inner, defaultUnit);
  }
  return null;
}

function scale(n: number, unit: string): number | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const factor = MIB_PER_UNIT.get(unit.toLowerCase());
  return factor === undefined ? null : n * factor;
}
