/**
 * Tier 4's catalogue ready to compile: src/detectors/tier4.ts's entries with the original's flag names turned into
 * the regex module's flag string (the data stays free of the regex layer; the flags are derived here, once).
 */
import { TIER4_CATALOGUE, type Tier4Entry } from '../detectors/tier4.js';
import { compileRegex, flagsFromPython, type RegexHandle } from '../regex/index.js';

export { BUILTIN_PATTERN_VERSION } from '../detectors/tier4.js';

export interface BuiltinPattern extends Tier4Entry {
  /** `pythonFlags` as the regex module's flag string. */
  readonly flags: string;
}

/** The catalogue, in its order, with RE2 flags. */
export const TIER4_PATTERNS: readonly BuiltinPattern[] = Object.freeze(
  TIER4_CATALOGUE.map((e) => Object.freeze({ ...e, flags: flagsFromPython(e.pythonFlags) })),
);

let compiled: RegexHandle[] | null = null;

/**
 * The catalogue's compiled regexes, in catalogue order. Compiled once per process and kept (seven small programs
 * in the RE2 heap); do not dispose them.
 */
export function tier4Regexes(): readonly RegexHandle[] {
  if (compiled === null || compiled.some((h) => h.disposed)) {
    for (const h of compiled ?? []) h.dispose();
    // Constants that test/regex-deferred-compile.test.ts compiles in RE2: the engine starts only when a window's
    // prefilter lets one of them through (a clean log never starts it).
    compiled = TIER4_PATTERNS.map((p) => compileRegex(p.regex, p.flags, { engineVouched: true }));
  }
  return compiled;
}
