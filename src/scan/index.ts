/** Log scanning: Tier 4 built-in patterns, Tier 5 recipe custom patterns, the two-tier verdict. */
export { BUILTIN_PATTERN_VERSION, TIER4_PATTERNS, tier4Regexes } from './tier4.js';
export type { BuiltinPattern } from './tier4.js';
export {
  DEFAULT_WINDOW_BYTES,
  MAX_OVERLAP_BYTES,
  MAX_WINDOW_BYTES,
  MIN_WINDOW_BYTES,
  iterWindows,
  overlapFor,
  resolveWindowBytes,
  windowedMatches,
  WindowedMatcher,
} from './windows.js';
export type { AbsoluteMatch, ScanWindow, WindowOptions } from './windows.js';
export {
  cutMatchText,
  detectorHit,
  conditionErrorsLine,
  evaluateMatches,
  makeFiring,
  MATCH_TEXT_CHARS,
  orderFirings,
  resolveFirings,
  ScanSession,
  scanLog,
  scanTier4,
  scanTier5,
} from './scan.js';
export type {
  ConditionErrors,
  EngineFailure,
  DetectorHit,
  HitKind,
  MatchEvaluation,
  Firing,
  ScanObserver,
  ScanOptions,
  ScanPattern,
  ScanRecipe,
  ScanResult,
  ScanSessionOptions,
  ScanVars,
} from './scan.js';
export { LogPosition } from './position.js';
export type { LogLocation } from './position.js';
export { feedSource, scanStream } from './stream.js';
export { StreamWindower } from './text-windows.js';
export { ByteWindower } from './byte-windows.js';
export type { ByteSource } from './stream.js';
