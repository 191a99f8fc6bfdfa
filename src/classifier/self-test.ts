/**
 * Recipe self-tests: each `tests:` sample (a log snippet with an exit code, wall time and VRAM) is classified the
 * way `aorta-probe run` would classify a trial that printed it — Tier 1 from the exit code, Tiers 4 and 5 from the
 * log, the recipe's disables and categories — and compared with its expected verdict, detectors and captures.
 * Tiers 2 and 3 need a live trial and are not part of a sample. The classification is `classifyLog`'s; a plain
 * function without I/O, for `check` and the playground.
 */
import type { Recipe, SelfTestSample } from '../recipe/types.js';
import { classifyLog } from './classify-log.js';
import type { Verdict } from '../detectors/verdict.js';

export interface SelfTestOutcome {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly passed: boolean;
  readonly got: { readonly verdict: Verdict; readonly detectors: string[]; readonly capture: Record<string, string> };
  /** One line per mismatch ("verdict: expected pass, got fail"); empty when passed. */
  readonly mismatches: string[];
}

const list = (ids: readonly string[]): string => `[${ids.join(', ')}]`;

export function runSelfTest(recipe: Recipe, sample: SelfTestSample): SelfTestOutcome {
  const c = classifyLog(recipe, sample.log, {
    exit_code: sample.exitCode,
    walltime_sec: sample.walltimeSec,
    peak_vram_mib: sample.peakVramMib,
  });
  const detectors = c.classification.detectors.map((d) => d.id);
  const mismatches: string[] = [];
  if (c.verdict !== sample.expectVerdict)
    mismatches.push(`verdict: expected ${sample.expectVerdict}, got ${c.verdict}`);
  if (sample.expectDetectors !== null) {
    const want = [...sample.expectDetectors].sort();
    const got = [...detectors].sort();
    if (want.join('\n') !== got.join('\n')) mismatches.push(`detectors: expected ${list(want)}, got ${list(got)}`);
  }
  for (const [k, v] of Object.entries(sample.expectCapture ?? {})) {
    const got = Object.hasOwn(c.capture, k) ? c.capture[k] : undefined;
    if (got !== v)
      mismatches.push(
        `capture[${JSON.stringify(k)}]: expected ${JSON.stringify(v)}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`,
      );
  }
  return {
    name: sample.name,
    file: recipe.fileName,
    line: sample.line,
    col: sample.col,
    passed: mismatches.length === 0,
    got: { verdict: c.verdict, detectors, capture: c.capture },
    mismatches,
  };
}

/** Runs every sample of the recipe, in order. */
export function runSelfTests(recipe: Recipe): SelfTestOutcome[] {
  return recipe.tests.map((t) => runSelfTest(recipe, t));
}

/** `file:line:col: self-test 'name' failed: <mismatch>; <mismatch>`. */
export function formatSelfTestFailure(o: SelfTestOutcome): string {
  return `${o.file}:${o.line}:${o.col}: self-test ${JSON.stringify(o.name)} failed: ${o.mismatches.join('; ')}`;
}
