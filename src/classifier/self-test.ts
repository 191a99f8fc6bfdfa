/**
 * Recipe self-tests: each `tests:` sample (a log snippet with an exit code, wall time and VRAM) is classified the
 * way `aorta-probe run` would classify a trial that printed it — Tier 1 from the exit code, Tiers 4 and 5 from the
 * log, the recipe's disables and categories — and compared with its expected verdict, detectors and captures.
 * Tiers 2 and 3 need a live trial and are not part of a sample. The classification is `classifyLog`'s; a plain
 * function without I/O, for `check` and the playground.
 */
import type { Recipe, SelfTestSample } from '../recipe/types.js';
import { strRepr } from '../condition/repr.js';
import { MISSING_PASS_SIGNAL, REGEX_ENGINE_FAILURE } from '../detectors/ids.js';
import { conditionErrorsLine, type ConditionErrors } from '../scan/scan.js';
import { classifyLog, type ClassifiedLog } from './classify-log.js';
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
  /**
   * What fired, one line per detector in classification order, with where: `custom:oom at log line 2: 'CUDA out
   * of memory'`, `tier1:exit_nonzero (exit_code 1)`. So a failure shows why, not only that the verdict differs.
   */
  readonly fired: string[];
  /** The sample's matches whose condition raised (such a match does not fire), per pattern. */
  readonly conditionErrors: ConditionErrors[];
}

const list = (ids: readonly string[]): string => `[${ids.join(', ')}]`;

/** One line per classified detector: where in the sample's log it fired, or what else decided it. */
function describeFired(c: ClassifiedLog, recipe: Recipe, sample: SelfTestSample): string[] {
  const hits = new Map(c.detectors.map((d) => [d.id, d]));
  return c.classification.detectors.map((d) => {
    const kind = d.kind === 'failure' ? '' : ` (${d.kind})`;
    const hit = hits.get(d.id);
    if (hit !== undefined) return `${d.id}${kind} at log line ${hit.line}: ${strRepr(hit.match)}`;
    if (d.id.startsWith('tier1:')) return `${d.id}${kind} (exit_code ${sample.exitCode})`;
    if (d.id === MISSING_PASS_SIGNAL) {
      const missing = recipe.customPatterns.filter((p) => p.requiredForPass && !hits.has(p.detectorId));
      return `${d.id}${kind} (required, did not fire: ${missing.map((p) => p.detectorId).join(', ')})`;
    }
    if (d.id === REGEX_ENGINE_FAILURE) {
      const f = c.engine_failures[0];
      return `${d.id}${kind}${f === undefined ? '' : ` (${f.pattern} from log line ${f.line})`}`;
    }
    return `${d.id}${kind}`;
  });
}

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
    fired: describeFired(c, recipe, sample),
    conditionErrors: c.condition_errors,
  };
}

/** Runs every sample of the recipe, in order. */
export function runSelfTests(recipe: Recipe): SelfTestOutcome[] {
  return recipe.tests.map((t) => runSelfTest(recipe, t));
}

/**
 * `file:line:col: self-test "name" failed: <mismatch>; <mismatch>`, then one indented `fired: …` line per
 * detector that fired (or `fired: nothing`) and one `raised: …` line per condition that raised, so the reader sees
 * what the sample actually triggered.
 */
export function formatSelfTestFailure(o: SelfTestOutcome): string {
  const head = `${o.file}:${o.line}:${o.col}: self-test ${JSON.stringify(o.name)} failed: ${o.mismatches.join('; ')}`;
  const fired = o.fired.length === 0 ? ['  fired: nothing'] : o.fired.map((f) => `  fired: ${f}`);
  return [head, ...fired, ...raisedLines(o)].join('\n');
}

/** One `  raised: custom:x: condition raised ValueError on 1 of 1 match, first at log:2` line per pattern. */
export function raisedLines(o: SelfTestOutcome): string[] {
  return o.conditionErrors.map((e) => `  raised: ${conditionErrorsLine(e, 'log')}`);
}

/**
 * For a sample that passed although a condition raised on it: `file:line:col: self-test "name" passed, but a
 * condition raised:` and its `raised:` lines (a raise never fires, so the sample may pass for the wrong reason);
 * null when nothing raised.
 */
export function formatSelfTestRaises(o: SelfTestOutcome): string | null {
  if (o.conditionErrors.length === 0) return null;
  return [
    `${o.file}:${o.line}:${o.col}: self-test ${JSON.stringify(o.name)} passed, but a condition raised:`,
    ...raisedLines(o),
  ].join('\n');
}
