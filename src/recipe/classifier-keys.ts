/**
 * The recipe keys the classifier consumes beyond Tier 4/5: Tier 2 (`progress_regex`, `hang_action`), Tier 3
 * (`tier3_vram_growth`), `disable_detectors` / `disable_detector_tiers`, `detector_categories`, `exit_codes`
 * and the `tests:` self-test samples. Each rejection names the key path and is positioned at the node.
 */
import { unknownKeysReason, type UnknownKeysWording } from './unknown-keys.js';
import { strRepr } from '../condition/repr.js';
import type { FilePos } from './errors.js';
import { reprNode, type PyNode } from './tree.js';
import {
  BUILTIN_DETECTORS,
  TIER_NAMES,
  unknownDetectorReason,
  WHO_VALUES,
  type DetectorCategory,
  type TierName,
  type Who,
} from '../detectors/catalogue.js';
import type { Verdict } from '../detectors/verdict.js';
import {
  HANG_ACTIONS,
  type ClassifierKeys,
  type CustomPattern,
  type ExitCodeMap,
  type HangAction,
  type SelfTestSample,
} from './types.js';

/** What this module needs of the loader's context. */
export interface KeyContext {
  fail(reason: string, at: PyNode | { start: number; end: number }, suggestion?: string | null): never;
  pos(at: { start: number; end: number }): FilePos;
  /**
   * Runs one independent part of the validation; a loader collecting every error records a rejection and returns
   * `fallback` (src/recipe/load.ts). Absent: just `run()`.
   */
  part?<T>(run: () => T, fallback: T): T;
}

/** `ctx.part(run, fallback)`, or `run()` for a context that stops at the first error. */
export function part<T>(ctx: KeyContext, run: () => T, fallback: T): T {
  return ctx.part === undefined ? run() : ctx.part(run, fallback);
}

/**
 * What the keys may rely on, and what they report back: `patternsComplete` false (a custom pattern failed to load,
 * while collecting errors) skips the checks of `custom:` ids; `disablesComplete` is set false when
 * `disable_detectors` or `disable_detector_tiers` failed.
 */
export interface KeysLoaded {
  readonly patternsComplete: boolean;
  disablesComplete?: boolean;
}

/** The regex check the loader makes where the original calls `re.compile`. */
export type RegexCheck = (node: PyNode, template: () => string) => void;

export const CLASSIFIER_KEYS: readonly string[] = [
  'detector_categories',
  'disable_detector_tiers',
  'disable_detectors',
  'exit_codes',
  'hang_action',
  'progress_regex',
  'tests',
  'tier3_vram_growth',
];

export const DEFAULT_CLASSIFIER_KEYS: ClassifierKeys = Object.freeze({
  progressRegex: null,
  hangAction: 'record',
  tier3VramGrowth: true,
  disableDetectors: [],
  disableDetectorTiers: [],
  detectorCategories: new Map(),
  exitCodes: null,
  tests: [],
});

/** Exit statuses a recipe may map to: 1..125 minus 2 (our usage error); 126+ mean "cannot execute" and signals. */
export function validExitStatus(n: bigint): boolean {
  return n >= 1n && n <= 125n && n !== 2n;
}

export function dictGet(d: PyNode, key: string): PyNode | undefined {
  for (const e of d.entries ?? []) if (e.key.kind === 'str' && e.key.value === key) return e.value;
  return undefined;
}

const listRepr = (items: readonly string[]): string => `[${items.map((s) => strRepr(s)).join(', ')}]`;

function strList(ctx: KeyContext, node: PyNode, path: string): PyNode[] {
  if (node.kind !== 'list' || node.items!.some((i) => i.kind !== 'str'))
    ctx.fail(`${path}: must be a list[str], got ${node.typeName} (${reprNode(node)})`, node);
  return [...node.items!];
}

function stringKeys(ctx: KeyContext, node: PyNode, path: string): { key: string; keyNode: PyNode; value: PyNode }[] {
  if (node.kind !== 'dict') ctx.fail(`${path}: must be a mapping, got ${node.typeName}`, node);
  return node.entries!.map((e) => {
    if (e.key.kind !== 'str')
      ctx.fail(`${path}: keys must be strings, got ${e.key.typeName} (${reprNode(e.key)})`, e.key);
    return { key: e.key.value as string, keyNode: e.key, value: e.value };
  });
}

function checkDetectorId(
  ctx: KeyContext,
  node: PyNode,
  id: string,
  path: string,
  patterns: readonly CustomPattern[],
  patternsComplete = true,
): void {
  // A `custom:` id may name a pattern that failed to load (collecting errors): not checked.
  if (!patternsComplete && id.startsWith('custom:')) return;
  const reason = unknownDetectorReason(
    id,
    patterns.map((p) => p.id),
  );
  if (reason !== null) ctx.fail(`${path}: ${reason}`, node);
}

function exitStatus(ctx: KeyContext, node: PyNode, path: string): number {
  if (node.kind !== 'int' || !validExitStatus(node.value as bigint)) {
    ctx.fail(
      `${path}: must be an integer exit status in 1..125 other than 2 (2 is aorta-probe's usage error), got ${reprNode(node)}`,
      node,
    );
  }
  return Number(node.value);
}

function loadExitCodes(
  ctx: KeyContext,
  node: PyNode,
  patterns: readonly CustomPattern[],
  patternsComplete: boolean,
): ExitCodeMap {
  const path = 'recipe.exit_codes';
  const detector = new Map<string, number>();
  const category = new Map<Who | 'transient', number>();
  const verdict = new Map<'fail' | 'error', number>();
  for (const { key, keyNode, value } of stringKeys(ctx, node, path)) {
    if (key === 'detector') {
      for (const e of stringKeys(ctx, value, `${path}.detector`)) {
        checkDetectorId(ctx, e.keyNode, e.key, `${path}.detector`, patterns, patternsComplete);
        detector.set(e.key, exitStatus(ctx, e.value, `${path}.detector[${strRepr(e.key)}]`));
      }
    } else if (key === 'category') {
      const allowed = [...WHO_VALUES, 'transient'];
      for (const e of stringKeys(ctx, value, `${path}.category`)) {
        if (!allowed.includes(e.key)) rejectKey(ctx, `${path}.category`, e, allowed, { listed: allowed });
        category.set(e.key as Who | 'transient', exitStatus(ctx, e.value, `${path}.category.${e.key}`));
      }
    } else if (key === 'verdict') {
      for (const e of stringKeys(ctx, value, `${path}.verdict`)) {
        if (e.key !== 'fail' && e.key !== 'error')
          rejectKey(ctx, `${path}.verdict`, e, ['error', 'fail'], { note: '(a pass always exits 0)' });
        verdict.set(e.key, exitStatus(ctx, e.value, `${path}.verdict.${e.key}`));
      }
    } else {
      rejectKey(ctx, path, { key, keyNode }, ['category', 'detector', 'verdict']);
    }
  }
  return { detector, category, verdict };
}

function loadCategories(
  ctx: KeyContext,
  node: PyNode,
  patterns: readonly CustomPattern[],
  patternsComplete: boolean,
): Map<string, DetectorCategory> {
  const path = 'recipe.detector_categories';
  const out = new Map<string, DetectorCategory>();
  for (const { key, keyNode, value } of stringKeys(ctx, node, path)) {
    checkDetectorId(ctx, keyNode, key, path, patterns, patternsComplete);
    const p = `${path}[${strRepr(key)}]`;
    const fields = stringKeys(ctx, value, p);
    const unknown = fields.find((f) => f.key !== 'who' && f.key !== 'transient');
    if (unknown !== undefined) rejectKey(ctx, p, unknown, ['transient', 'who']);
    const base = BUILTIN_DETECTORS.get(key) ?? { who: 'unknown' as Who, transient: false };
    let { who, transient } = base;
    const w = dictGet(value, 'who');
    if (w !== undefined) {
      if (w.kind !== 'str' || !(WHO_VALUES as readonly string[]).includes(w.value as string))
        ctx.fail(`${p}.who: must be one of ${listRepr(WHO_VALUES)}, got ${reprNode(w)}`, w);
      who = w.value as Who;
    }
    const t = dictGet(value, 'transient');
    if (t !== undefined) {
      if (t.kind !== 'bool') ctx.fail(`${p}.transient: must be a boolean, got ${t.typeName}`, t);
      transient = t.value as boolean;
    }
    out.set(key, { who, transient });
  }
  return out;
}

/** One key that `allowed` lacks, in the words of src/recipe/unknown-keys.ts. */
function rejectKey(
  ctx: KeyContext,
  path: string,
  e: { key: string; keyNode: PyNode },
  allowed: readonly string[],
  wording: UnknownKeysWording = {},
): never {
  const r = unknownKeysReason(path, [{ name: e.key, repr: strRepr(e.key) }], allowed, { one: true, ...wording });
  return ctx.fail(r.reason, e.keyNode, r.suggestion);
}

const TEST_KEYS = ['exit_code', 'expect', 'log', 'name', 'peak_vram_mib', 'walltime_sec'];
const EXPECT_KEYS = ['capture', 'detectors', 'verdict'];

function loadTests(
  ctx: KeyContext,
  node: PyNode,
  patterns: readonly CustomPattern[],
  patternsComplete: boolean,
): SelfTestSample[] {
  if (node.kind !== 'list' || node.items!.length === 0)
    ctx.fail(`recipe.tests: must be a non-empty list, got ${reprNode(node)}`, node);
  const names = new Set<string>();
  // Each sample is a part (collecting errors, the samples that loaded are returned).
  return node.items!.flatMap((entry, i) =>
    part(ctx, () => [loadSample(ctx, entry, i, names, patterns, patternsComplete)], []),
  );
}

function loadSample(
  ctx: KeyContext,
  entry: PyNode,
  i: number,
  names: Set<string>,
  patterns: readonly CustomPattern[],
  patternsComplete: boolean,
): SelfTestSample {
  const path = `recipe.tests[${i}]`;
  const fields = stringKeys(ctx, entry, path);
  const unknown = fields.filter((f) => !TEST_KEYS.includes(f.key));
  if (unknown.length > 0) {
    const r = unknownKeysReason(
      path,
      unknown.map((u) => ({ name: u.key, repr: strRepr(u.key) })),
      TEST_KEYS,
    );
    ctx.fail(r.reason, unknown[0]!.keyNode, r.suggestion);
  }
  const name = dictGet(entry, 'name');
  if (name === undefined || name.kind !== 'str' || name.value === '')
    ctx.fail(`${path}.name: must be a non-empty string`, name ?? entry);
  if (names.has(name.value as string)) ctx.fail(`${path}.name: duplicate name ${strRepr(name.value as string)}`, name);
  names.add(name.value as string);
  const log = dictGet(entry, 'log');
  if (log === undefined || log.kind !== 'str')
    ctx.fail(`${path}.log: must be a string (the log snippet)`, log ?? entry);
  const ec = dictGet(entry, 'exit_code');
  if (ec !== undefined && ec.kind !== 'int') ctx.fail(`${path}.exit_code: must be an integer, got ${ec.typeName}`, ec);
  const wt = dictGet(entry, 'walltime_sec');
  if (wt !== undefined && ((wt.kind !== 'int' && wt.kind !== 'float') || !(Number(wt.value) >= 0)))
    ctx.fail(`${path}.walltime_sec: must be a number >= 0, got ${reprNode(wt)}`, wt);
  const pv = dictGet(entry, 'peak_vram_mib');
  if (pv !== undefined && pv.kind !== 'NoneType' && pv.kind !== 'int')
    ctx.fail(`${path}.peak_vram_mib: must be an integer or null, got ${pv.typeName}`, pv);
  const expect = dictGet(entry, 'expect');
  if (expect === undefined)
    ctx.fail(`${path}.expect: missing (a mapping with 'verdict' and optional 'detectors', 'capture')`, entry);
  const ef = stringKeys(ctx, expect, `${path}.expect`);
  const eu = ef.find((f) => !EXPECT_KEYS.includes(f.key));
  if (eu !== undefined) rejectKey(ctx, `${path}.expect`, eu, EXPECT_KEYS);
  const v = dictGet(expect, 'verdict');
  if (v === undefined || v.kind !== 'str' || !['pass', 'fail', 'error'].includes(v.value as string)) {
    ctx.fail(
      `${path}.expect.verdict: must be one of ['error', 'fail', 'pass'], got ${v === undefined ? 'nothing' : reprNode(v)}`,
      v ?? expect,
    );
  }
  const d = dictGet(expect, 'detectors');
  let detectors: string[] | null = null;
  if (d !== undefined) {
    detectors = strList(ctx, d, `${path}.expect.detectors`).map((n) => {
      checkDetectorId(ctx, n, n.value as string, `${path}.expect.detectors`, patterns, patternsComplete);
      return n.value as string;
    });
  }
  const cap = dictGet(expect, 'capture');
  let capture: Record<string, string> | null = null;
  if (cap !== undefined) {
    capture = {};
    for (const e of stringKeys(ctx, cap, `${path}.expect.capture`)) {
      if (e.value.kind !== 'str')
        ctx.fail(
          `${path}.expect.capture[${strRepr(e.key)}]: must be a string (captures are strings), got ${e.value.typeName}`,
          e.value,
        );
      Object.defineProperty(capture, e.key, {
        value: e.value.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  const at = ctx.pos(entry);
  return {
    name: name.value as string,
    log: log.value as string,
    exitCode: ec === undefined ? 0 : Number(ec.value),
    walltimeSec: wt === undefined ? 0 : Number(wt.value),
    peakVramMib: pv === undefined || pv.kind === 'NoneType' ? null : Number(pv.value),
    expectVerdict: v.value as Verdict,
    expectDetectors: detectors,
    expectCapture: capture,
    line: at.line,
    col: at.col,
  };
}

/**
 * Reads the classifier keys of a probe recipe (or of a bare file, which may carry `tests:`). Each key is a part
 * (`KeyContext.part`); `loaded` says whether every custom pattern loaded and gets whether the disables did.
 */
export function loadClassifierKeys(
  ctx: KeyContext,
  root: PyNode,
  patterns: readonly CustomPattern[],
  checkRegex: RegexCheck,
  loaded: KeysLoaded = { patternsComplete: true },
): ClassifierKeys {
  const { patternsComplete } = loaded;
  const present = (key: string): PyNode | undefined => {
    const n = dictGet(root, key);
    return n === undefined || n.kind === 'NoneType' ? undefined : n;
  };
  const progressRegex = part(
    ctx,
    (): string | null => {
      const pr = present('progress_regex');
      if (pr === undefined) return null;
      if (pr.kind !== 'str' || pr.value === '')
        ctx.fail(`recipe.progress_regex: must be a non-empty string, got ${reprNode(pr)}`, pr);
      checkRegex(pr, () => `recipe.progress_regex: invalid regex ({err}): ${reprNode(pr)}`);
      return pr.value as string;
    },
    null,
  );
  const hangAction = part(
    ctx,
    (): HangAction => {
      const ha = present('hang_action');
      if (ha === undefined) return 'record';
      if (ha.kind !== 'str' || !(HANG_ACTIONS as readonly string[]).includes(ha.value as string))
        ctx.fail(`recipe.hang_action: must be one of ${listRepr(HANG_ACTIONS)}, got ${reprNode(ha)}`, ha);
      return ha.value as HangAction;
    },
    'record',
  );
  const tier3VramGrowth = part(
    ctx,
    (): boolean => {
      const vg = present('tier3_vram_growth');
      if (vg === undefined) return true;
      if (vg.kind !== 'bool') ctx.fail(`recipe.tier3_vram_growth: must be a boolean, got ${vg.typeName}`, vg);
      return vg.value as boolean;
    },
    true,
  );
  const disableDetectorTiers = part(
    ctx,
    (): TierName[] | null => {
      const out: TierName[] = [];
      const dt = present('disable_detector_tiers');
      if (dt === undefined) return out;
      for (const n of strList(ctx, dt, 'recipe.disable_detector_tiers')) {
        if (!(TIER_NAMES as readonly string[]).includes(n.value as string))
          ctx.fail(`recipe.disable_detector_tiers: unknown tier ${reprNode(n)}; allowed: ${listRepr(TIER_NAMES)}`, n);
        if (!out.includes(n.value as TierName)) out.push(n.value as TierName);
      }
      return out;
    },
    null,
  );
  const disableDetectors = part(
    ctx,
    (): string[] | null => {
      const out: string[] = [];
      const dd = present('disable_detectors');
      if (dd === undefined) return out;
      for (const n of strList(ctx, dd, 'recipe.disable_detectors')) {
        checkDetectorId(ctx, n, n.value as string, 'recipe.disable_detectors', patterns, patternsComplete);
        if (!out.includes(n.value as string)) out.push(n.value as string);
      }
      return out;
    },
    null,
  );
  if (disableDetectorTiers === null || disableDetectors === null) loaded.disablesComplete = false;
  const dc = present('detector_categories');
  const ec = present('exit_codes');
  const ts = present('tests');
  return {
    progressRegex,
    hangAction,
    tier3VramGrowth,
    disableDetectors: (disableDetectors ?? []).sort(),
    disableDetectorTiers: (disableDetectorTiers ?? []).sort(),
    detectorCategories:
      dc === undefined ? new Map() : part(ctx, () => loadCategories(ctx, dc, patterns, patternsComplete), new Map()),
    exitCodes: ec === undefined ? null : part(ctx, () => loadExitCodes(ctx, ec, patterns, patternsComplete), null),
    tests: ts === undefined ? [] : part(ctx, () => loadTests(ctx, ts, patterns, patternsComplete), []),
  };
}
