/**
 * The recipe keys only a sweep reads: `mitigations` (env bundles, ours), `stop_after` and `retain` (the original's
 * newest blocks, its recipes/probe/example-probe-smoke.yaml (ROCm/aorta)) and `retry` (ours). The loader validates
 * them like every other key, so `check` and the playground reject what `sweep` would; a `--mitigations-file` is
 * read by the same bundle code. Each rejection names the key path and is positioned at the node.
 */
import { part, type KeyContext } from './classifier-keys.js';
import { reprNode, type PyNode } from './tree.js';
import type { EnvBundle, Retention, RetentionLevel, RetryPolicy, StopAfter, SweepKeys } from './types.js';
import { type Verdict, VERDICTS } from '../detectors/verdict.js';
import { retryOnProblem, type RetryTargets } from './retry-on.js';
import { unknownKeysReason } from './unknown-keys.js';
import { collisionReason, type MitigationRegistry } from './mitigation-registry.js';

export const SWEEP_KEYS: readonly string[] = ['mitigations', 'retain', 'retry', 'stop_after'];

export const RETENTION_LEVELS: readonly RetentionLevel[] = ['full', 'log', 'summary', 'none'];
export const FULL_RETENTION: Retention = Object.freeze({ pass: 'full', fail: 'full', error: 'full' });
export const NO_RETRY: RetryPolicy = Object.freeze({ max: 0, on: Object.freeze([]) });

export const DEFAULT_SWEEP_KEYS: SweepKeys = Object.freeze({
  mitigations: new Map(),
  stopAfter: null,
  retain: FULL_RETENTION,
  retry: NO_RETRY,
});

// In `retain`'s `on_<verdict>` order, which decides the first error reported.

/**
 * YAML 1.1 (PyYAML) reads a bare `on` key as the boolean True, which would make `retry: {on: [...]}` unusable as
 * written; like GitHub Actions' `on:`, a True key counts as `on`.
 */
function keyIs(k: PyNode, name: string): boolean {
  return (k.kind === 'str' && k.value === name) || (name === 'on' && k.kind === 'bool' && k.value === true);
}

function get(node: PyNode, key: string): PyNode | undefined {
  return node.entries?.find((e) => keyIs(e.key, key))?.value;
}

/** Fails on the keys of a mapping that `allowed` lacks (src/recipe/unknown-keys.ts words it). */
function rejectUnknown(ctx: KeyContext, node: PyNode, path: string, allowed: readonly string[]): void {
  const bad = node.entries!.filter((e) => !allowed.some((a) => keyIs(e.key, a)));
  if (bad.length === 0) return;
  const r = unknownKeysReason(
    path,
    bad.map((e) => ({ name: e.key.kind === 'str' ? (e.key.value as string) : null, repr: reprNode(e.key) })),
    allowed,
    { listed: allowed },
  );
  ctx.fail(r.reason, bad[0]!.key, r.suggestion);
}

/** An env value as the child sees it: YAML scalars become the text Python's `str()` gives them. */
function envValue(ctx: KeyContext, n: PyNode, path: string): string {
  if (n.kind === 'str') return n.value as string;
  if (n.kind === 'int') return (n.value as bigint).toString();
  if (n.kind === 'float' || n.kind === 'bool') return reprNode(n);
  return ctx.fail(`${path}: must be a string, number or bool, got ${n.typeName}`, n);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A `name: {VAR: value}` table, the recipe's `mitigations:` or a whole `--mitigations-file`, into `into` (a later
 * definition of a name replaces an earlier one).
 */
export function parseMitigationTable(
  ctx: KeyContext,
  node: PyNode,
  path: string,
  registry: MitigationRegistry,
  source: string,
): Map<string, EnvBundle> {
  if (node.kind !== 'dict') ctx.fail(`${path}: must be a mapping of name to {VAR: value}, got ${node.typeName}`, node);
  const into = new Map<string, EnvBundle>();
  for (const { key, value } of node.entries!) {
    if (key.kind !== 'str') ctx.fail(`${path}: names must be strings, got ${key.typeName}`, key);
    const name = key.value as string;
    const at = `${path}.${name}`;
    if (name === 'none') ctx.fail(`${at}: 'none' is the empty bundle and cannot be redefined`, key);
    const prior = registry.get(name);
    if (prior !== undefined) ctx.fail(collisionReason(at, name, prior.source, source), key);
    const bundle = new Map<string, string>();
    if (value.kind !== 'NoneType') {
      if (value.kind !== 'dict') ctx.fail(`${at}: must be a mapping of VAR: value, got ${value.typeName}`, value);
      for (const e of value.entries!) {
        if (e.key.kind !== 'str' || !ENV_NAME.test(e.key.value as string)) {
          ctx.fail(`${at}: ${reprNode(e.key)} is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)`, e.key);
        }
        bundle.set(e.key.value as string, envValue(ctx, e.value, `${at}.${e.key.value as string}`));
      }
    }
    into.set(name, bundle);
  }
  return into;
}

function intAtLeast(ctx: KeyContext, n: PyNode, path: string, min: number): number {
  if (n.kind !== 'int' || (n.value as bigint) < BigInt(min))
    ctx.fail(`${path}: must be an int >= ${min}, got ${reprNode(n)}`, n);
  return Number(n.value);
}

function parseStopAfter(ctx: KeyContext, n: PyNode): StopAfter | null {
  if (n.kind === 'NoneType') return null;
  if (n.kind !== 'dict') ctx.fail(`recipe.stop_after: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(ctx, n, 'recipe.stop_after', ['event_verdict', 'events', 'max_trials']);
  const ev = get(n, 'events');
  if (ev === undefined || ev.kind === 'NoneType') return null;
  const events = intAtLeast(ctx, ev, 'recipe.stop_after.events', 1);
  const mt = get(n, 'max_trials');
  if (mt === undefined || mt.kind === 'NoneType')
    ctx.fail('recipe.stop_after.max_trials: required when events is set', ev);
  const maxTrials = intAtLeast(ctx, mt, 'recipe.stop_after.max_trials', 1);
  const vn = get(n, 'event_verdict');
  let eventVerdict: Verdict = 'fail';
  if (vn !== undefined && vn.kind !== 'NoneType') {
    if (vn.kind !== 'str' || !VERDICTS.includes(vn.value as Verdict))
      ctx.fail(`recipe.stop_after.event_verdict: must be 'fail', 'pass' or 'error', got ${reprNode(vn)}`, vn);
    eventVerdict = vn.value as Verdict;
  }
  return { events, maxTrials, eventVerdict };
}

function parseRetain(ctx: KeyContext, n: PyNode): Retention {
  if (n.kind === 'NoneType') return FULL_RETENTION;
  if (n.kind !== 'dict') ctx.fail(`recipe.retain: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(ctx, n, 'recipe.retain', ['on_error', 'on_fail', 'on_pass']);
  const out: Record<Verdict, RetentionLevel> = { ...FULL_RETENTION };
  for (const v of VERDICTS) {
    const x = get(n, `on_${v}`);
    if (x === undefined || x.kind === 'NoneType') continue;
    if (x.kind !== 'str' || !RETENTION_LEVELS.includes(x.value as RetentionLevel)) {
      ctx.fail(`recipe.retain.on_${v}: must be one of 'full', 'log', 'summary', 'none', got ${reprNode(x)}`, x);
    }
    out[v] = x.value as RetentionLevel;
  }
  return out;
}

function parseRetry(ctx: KeyContext, n: PyNode, targets: RetryTargets | null): RetryPolicy {
  if (n.kind === 'NoneType') return NO_RETRY;
  if (n.kind !== 'dict') ctx.fail(`recipe.retry: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(ctx, n, 'recipe.retry', ['max', 'on']);
  const m = get(n, 'max');
  if (m === undefined) ctx.fail("recipe.retry: missing required key 'max'", n);
  const max = intAtLeast(ctx, m, 'recipe.retry.max', 0);
  const on = get(n, 'on');
  if (on === undefined) ctx.fail("recipe.retry: missing required key 'on'", n);
  if (on.kind !== 'list' || on.items!.some((i) => i.kind !== 'str' || i.value === '')) {
    ctx.fail(`recipe.retry.on: must be a list of detector ids or categories, got ${reprNode(on)}`, on);
  }
  // No targets (collecting errors, after an error in the patterns or the disables): the entries are not checked.
  on.items!.forEach((item, i) => {
    if (targets === null) return;
    const problem = retryOnProblem(item.value as string, targets);
    if (problem !== null) ctx.fail(`recipe.retry.on[${i}]: ${problem.reason}`, item, problem.suggestion);
  });
  return { max, on: on.items!.map((i) => i.value as string) };
}

/**
 * Reads the sweep keys of a recipe (the loader has already refused the ones its mode does not allow); `targets`
 * (the recipe's patterns and disables) decide what `retry.on` may name (null: its entries are not checked, as
 * when those failed to load). Each key is a part (`KeyContext.part`).
 */
export function loadSweepKeys(
  ctx: KeyContext,
  root: PyNode,
  targets: RetryTargets | null,
  registry: MitigationRegistry,
  source: string,
): SweepKeys {
  const mt = get(root, 'mitigations');
  const sa = get(root, 'stop_after');
  const rt = get(root, 'retain');
  const ry = get(root, 'retry');
  return {
    mitigations:
      mt === undefined || mt.kind === 'NoneType'
        ? new Map()
        : part(ctx, () => parseMitigationTable(ctx, mt, 'recipe.mitigations', registry, source), new Map()),
    stopAfter: sa === undefined ? null : part(ctx, () => parseStopAfter(ctx, sa), null),
    retain: rt === undefined ? FULL_RETENTION : part(ctx, () => parseRetain(ctx, rt), FULL_RETENTION),
    retry: ry === undefined ? NO_RETRY : part(ctx, () => parseRetry(ctx, ry, targets), NO_RETRY),
  };
}
