/**
 * The recipe keys only a sweep reads: `mitigations` (env bundles, ours), `stop_after` and `retain` (the
 * original's newest blocks, the original's recipes/probe/example-probe-smoke.yaml (ROCm/aorta)) and `retry` (ours). `loadRecipe` accepts these keys and validates the
 * rest of the recipe; this module validates them, with the loader's `file:line:col` errors, from the same text.
 */
import type { LineCounter } from 'yaml';
import { RecipeError } from '../recipe/index.js';
import { parseYaml, reprNode, spanPos, type PyNode } from '../recipe/tree.js';
import { unknownKeysReason } from '../recipe/unknown-keys.js';
import { VERDICTS } from '../report/read-results.js';
import type { Verdict } from '../trial/index.js';

export type { Verdict };

/** Environment variables a mitigation (or diagnostic) sets, in the order written. */
export type EnvBundle = ReadonlyMap<string, string>;

/** Mitigation name → its env bundle. `none` is always defined and sets nothing. */
export type MitigationTable = ReadonlyMap<string, EnvBundle>;

export interface StopAfter {
  /** Stop a cell once this many of its trials ended with `eventVerdict`. */
  readonly events: number;
  /** A cell never runs more trials than this (it replaces `trials` as the cell's budget). */
  readonly maxTrials: number;
  readonly eventVerdict: Verdict;
}

export type RetentionLevel = 'full' | 'log' | 'summary' | 'none';
export const RETENTION_LEVELS: readonly RetentionLevel[] = ['full', 'log', 'summary', 'none'];
export type Retention = Readonly<Record<Verdict, RetentionLevel>>;
export const FULL_RETENTION: Retention = { pass: 'full', fail: 'full', error: 'full' };

export interface RetryPolicy {
  /** Attempts after the first; 0 = no retry. */
  readonly max: number;
  /** Detector ids (`tier1:timeout`, `custom:nccl_timeout`) or categories (`rccl_hang`) that make a failure transient. */
  readonly on: readonly string[];
}
export const NO_RETRY: RetryPolicy = { max: 0, on: [] };

export interface SweepConfig {
  readonly mitigations: MitigationTable;
  readonly stopAfter: StopAfter | null;
  readonly retain: Retention;
  readonly retry: RetryPolicy;
}

class Doc {
  constructor(
    readonly text: string,
    readonly file: string,
    readonly lc: LineCounter,
  ) {}
  fail(reason: string, at: PyNode, suggestion: string | null = null): never {
    throw new RecipeError(reason, this.file, spanPos(this.text, this.lc, at.start, at.end), this.text, suggestion);
  }
}

function parse(text: string, file: string): { doc: Doc; root: PyNode | null } {
  const parsed = parseYaml(text, file.toLowerCase().endsWith('.json'));
  return { doc: new Doc(parsed.text, file, parsed.lineCounter), root: parsed.root };
}

function get(node: PyNode, key: string): PyNode | undefined {
  return node.entries?.find((e) => keyIs(e.key, key))?.value;
}

/**
 * YAML 1.1 (PyYAML) reads a bare `on` key as the boolean True, which would make `retry: {on: [...]}` unusable as
 * written; like GitHub Actions' `on:`, a True key counts as `on`.
 */
function keyIs(k: PyNode, name: string): boolean {
  return (k.kind === 'str' && k.value === name) || (name === 'on' && k.kind === 'bool' && k.value === true);
}

function isInt(n: PyNode): boolean {
  return n.kind === 'int';
}

/** Fails on the keys of a mapping that `allowed` lacks (src/recipe/unknown-keys.ts words it). */
function rejectUnknown(doc: Doc, node: PyNode, path: string, allowed: readonly string[]): void {
  const bad = node.entries!.filter((e) => !allowed.some((a) => keyIs(e.key, a)));
  if (bad.length === 0) return;
  const r = unknownKeysReason(
    path,
    bad.map((e) => ({ name: e.key.kind === 'str' ? (e.key.value as string) : null, repr: reprNode(e.key) })),
    allowed,
    { listed: allowed },
  );
  doc.fail(r.reason, bad[0]!.key, r.suggestion);
}

/** An env value as the child sees it: YAML scalars become the text Python's `str()` gives them. */
function envValue(doc: Doc, n: PyNode, path: string): string {
  if (n.kind === 'str') return n.value as string;
  if (n.kind === 'int') return (n.value as bigint).toString();
  if (n.kind === 'float' || n.kind === 'bool') return reprNode(n);
  return doc.fail(`${path}: must be a string, number or bool, got ${n.typeName}`, n);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseMitigationMap(doc: Doc, node: PyNode, path: string, into: Map<string, EnvBundle>): void {
  if (node.kind !== 'dict') doc.fail(`${path}: must be a mapping of name to {VAR: value}, got ${node.typeName}`, node);
  for (const { key, value } of node.entries!) {
    if (key.kind !== 'str') doc.fail(`${path}: names must be strings, got ${key.typeName}`, key);
    const name = key.value as string;
    const at = `${path}.${name}`;
    if (name === 'none') doc.fail(`${at}: 'none' is the empty bundle and cannot be redefined`, key);
    const bundle = new Map<string, string>();
    if (value.kind !== 'NoneType') {
      if (value.kind !== 'dict') doc.fail(`${at}: must be a mapping of VAR: value, got ${value.typeName}`, value);
      for (const e of value.entries!) {
        if (e.key.kind !== 'str' || !ENV_NAME.test(e.key.value as string)) {
          doc.fail(`${at}: ${reprNode(e.key)} is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)`, e.key);
        }
        bundle.set(e.key.value as string, envValue(doc, e.value, `${at}.${e.key.value as string}`));
      }
    }
    into.set(name, bundle);
  }
}

/** Reads a `--mitigations-file` (YAML or JSON: `name: {VAR: value}`); later files override earlier names. */
export function parseMitigationsFile(text: string, file: string, into: Map<string, EnvBundle>): void {
  const { doc, root } = parse(text, file);
  if (root === null) return;
  parseMitigationMap(doc, root, 'mitigations', into);
}

function positiveInt(doc: Doc, n: PyNode, path: string, min: number): number {
  if (!isInt(n) || (n.value as bigint) < BigInt(min))
    doc.fail(`${path}: must be an int >= ${min}, got ${reprNode(n)}`, n);
  return Number(n.value);
}

function parseStopAfter(doc: Doc, n: PyNode): StopAfter | null {
  if (n.kind === 'NoneType') return null;
  if (n.kind !== 'dict') doc.fail(`recipe.stop_after: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(doc, n, 'recipe.stop_after', ['event_verdict', 'events', 'max_trials']);
  const ev = get(n, 'events');
  if (ev === undefined || ev.kind === 'NoneType') return null;
  const events = positiveInt(doc, ev, 'recipe.stop_after.events', 1);
  const mt = get(n, 'max_trials');
  if (mt === undefined || mt.kind === 'NoneType')
    doc.fail('recipe.stop_after.max_trials: required when events is set', ev);
  const maxTrials = positiveInt(doc, mt, 'recipe.stop_after.max_trials', 1);
  const vn = get(n, 'event_verdict');
  let eventVerdict: Verdict = 'fail';
  if (vn !== undefined && vn.kind !== 'NoneType') {
    if (vn.kind !== 'str' || !VERDICTS.includes(vn.value as Verdict))
      doc.fail(`recipe.stop_after.event_verdict: must be 'fail', 'pass' or 'error', got ${reprNode(vn)}`, vn);
    eventVerdict = vn.value as Verdict;
  }
  return { events, maxTrials, eventVerdict };
}

function parseRetain(doc: Doc, n: PyNode): Retention {
  if (n.kind === 'NoneType') return FULL_RETENTION;
  if (n.kind !== 'dict') doc.fail(`recipe.retain: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(doc, n, 'recipe.retain', ['on_error', 'on_fail', 'on_pass']);
  const out: Record<Verdict, RetentionLevel> = { ...FULL_RETENTION };
  for (const v of VERDICTS) {
    const x = get(n, `on_${v}`);
    if (x === undefined || x.kind === 'NoneType') continue;
    if (x.kind !== 'str' || !RETENTION_LEVELS.includes(x.value as RetentionLevel)) {
      doc.fail(`recipe.retain.on_${v}: must be one of 'full', 'log', 'summary', 'none', got ${reprNode(x)}`, x);
    }
    out[v] = x.value as RetentionLevel;
  }
  return out;
}

function parseRetry(doc: Doc, n: PyNode): RetryPolicy {
  if (n.kind === 'NoneType') return NO_RETRY;
  if (n.kind !== 'dict') doc.fail(`recipe.retry: must be a mapping, got ${n.typeName}`, n);
  rejectUnknown(doc, n, 'recipe.retry', ['max', 'on']);
  const m = get(n, 'max');
  if (m === undefined) doc.fail("recipe.retry: missing required key 'max'", n);
  const max = positiveInt(doc, m, 'recipe.retry.max', 0);
  const on = get(n, 'on');
  if (on === undefined) doc.fail("recipe.retry: missing required key 'on'", n);
  if (on.kind !== 'list' || on.items!.some((i) => i.kind !== 'str' || i.value === '')) {
    doc.fail(`recipe.retry.on: must be a list of detector ids or categories, got ${reprNode(on)}`, on);
  }
  return { max, on: on.items!.map((i) => i.value as string) };
}

/**
 * The sweep keys of an already loaded (so already valid YAML, probe-mode) recipe. `extraMitigations`: the
 * `--mitigations-file` tables, which the recipe's own `mitigations:` overrides name by name.
 */
export function readSweepConfig(
  text: string,
  file: string,
  extraMitigations: MitigationTable = new Map(),
): SweepConfig {
  const { doc, root } = parse(text, file);
  const mitigations = new Map<string, EnvBundle>(extraMitigations);
  mitigations.set('none', new Map());
  if (root === null || root.kind !== 'dict')
    return { mitigations, stopAfter: null, retain: FULL_RETENTION, retry: NO_RETRY };
  const mt = get(root, 'mitigations');
  if (mt !== undefined && mt.kind !== 'NoneType') parseMitigationMap(doc, mt, 'recipe.mitigations', mitigations);
  const sa = get(root, 'stop_after');
  const rt = get(root, 'retain');
  const ry = get(root, 'retry');
  return {
    mitigations,
    stopAfter: sa === undefined ? null : parseStopAfter(doc, sa),
    retain: rt === undefined ? FULL_RETENTION : parseRetain(doc, rt),
    retry: ry === undefined ? NO_RETRY : parseRetry(doc, ry),
  };
}

/** Positions of the axis entries, for `UnknownMitigationError`-style messages at the right line. */
export function axisNodes(
  text: string,
  file: string,
): { doc: Doc; mitigation: readonly PyNode[]; diagnostic: readonly PyNode[] } {
  const { doc, root } = parse(text, file);
  const items = (k: string): readonly PyNode[] => (root === null ? [] : (get(root, k)?.items ?? []));
  return { doc, mitigation: items('mitigation_axis'), diagnostic: items('diagnostic_axis') };
}

export type { Doc as SweepDoc };
