/**
 * Reading a raw `ScanResult` (scanLog, scanStream, scanFile, `ScanSession.result()`) in tests whose subject is the
 * scan stage itself: the scan decides no verdict and lists no failures or warnings, it reports `DetectorHit`s with
 * their `kind`. These helpers pick the hits the classifier would count, in report order, mirroring `logFindings` in
 * src/classifier/classify-log.ts (a `tier4` or `fail` hit is a failure, a `warn` hit a warning; `info` and
 * `required` hits neither). They do NOT add the metas `logFindings` derives from `missing_required`
 * (`meta:missing_pass_signal`) and `engine_failures` (`meta:regex_engine_failure`): assert those raw fields
 * directly, or call `classifyLog` when the test is about the verdict or its lists.
 */
import type { HitKind, ScanResult } from '../../src/scan/index.js';

type Hits = Pick<ScanResult, 'detectors'>;

/** The ids of the hits of the given kinds, in report order. */
export function idsOfKind(r: Hits, ...kinds: HitKind[]): string[] {
  return r.detectors.filter((d) => kinds.includes(d.kind)).map((d) => d.id);
}

/** The ids of the hits the classifier counts as failures (`tier4` and `fail`), in report order. */
export function failingIds(r: Hits): string[] {
  return idsOfKind(r, 'tier4', 'fail');
}

/** The ids of the hits the classifier counts as warnings (`warn`), in report order. */
export function warningIds(r: Hits): string[] {
  return idsOfKind(r, 'warn');
}
