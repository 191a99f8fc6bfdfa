/**
 * `loadRecipe`: the original `load_recipe` + `_validate_top_level` + the parts of
 * `build_probe_recipe_from_dict` whose values the scanner consumes, and `validate_custom_patterns`
 * (the original's tier5_custom.py and recipe_builder.py, ROCm/aorta). Every rejection carries the YAML `file:line:col`.
 *
 * `loadRecipe` throws the first error, in the original's order of checks. `recipeErrors` / `loadRecipeCollecting`
 * run the same checks (one implementation: `Ctx.part` wraps each independent part) but record an error and go on
 * with the next part, so `check` can report every independent error of a file in one run; their first error is the
 * one `loadRecipe` throws. The parts, and what an error skips:
 * - Fatal (one error, nothing else checked): invalid UTF-8, a character PyYAML refuses, a YAML/JSON syntax error,
 *   a duplicate key, an alias bomb, a top level that is not a mapping.
 * - Each top-level key is a part; so are each `custom_patterns` entry and each `tests:` sample (within one part
 *   only its first error is reported).
 * - An invalid `mode`: the mode-dependent checks (which keys the mode allows, the required keys, every probe-only
 *   key's value) are skipped; the unknown-key check and `schema_version` still run.
 * - Rejected unknown top-level keys: "missing required key" is not reported (the missing key may be the misspelt one).
 * - A mode's rejected keys (triage-only keys in a probe recipe, probe-only keys in a triage one) are not validated.
 * - A `custom_patterns` error (the list or any entry): references to custom pattern ids (`custom:…` in
 *   `disable_detectors`, `detector_categories`, `exit_codes.detector`, `tests[].expect.detectors`) are not checked,
 *   nor is `retry.on` (its targets depend on the patterns); the same for `retry.on` after an error in
 *   `disable_detectors` or `disable_detector_tiers`. So a dependent error is never reported, at the cost of
 *   sometimes missing one until the first is fixed.
 */
import { isScalar, type LineCounter } from 'yaml';
import { RecipeSchemaError, SandboxError } from '../condition/errors.js';
import { strRepr } from '../condition/repr.js';
import { isPySpace } from '../condition/unicode-tables.js';
import { validateCondition, type CheckedCondition } from '../condition/validate.js';
import { compileRegex, RegexEngineError, RegexSyntaxError } from '../regex/index.js';
import { sha256Hex } from './sha256.js';
import { DEFAULT_SWEEP_KEYS, loadSweepKeys } from './sweep-keys.js';
import { builtinRegistry } from './mitigation-registry.js';
import { checkOptions } from '../text/options.js';
import { closest } from '../text/suggest.js';
import { DEFAULT_CLASSIFIER_KEYS, dictGet as get, loadClassifierKeys } from './classifier-keys.js';
import { bytePos, findInvalidUtf8 } from './decode.js';
import { RecipeError, RecipeSandboxError, type FilePos } from './errors.js';
import { unknownKeysReason, type UnknownKeysWording } from './unknown-keys.js';
import { mapScalarValue } from './scalar-map.js';
import { parseYaml, pyYamlText, reprNode, spanPos, TreeError, type PyNode } from './tree.js';
import {
  DEFAULT_CONFOUND,
  DEFAULT_HANG_GRACE_SEC,
  DEFAULT_HANG_WINDOW_SEC,
  LOAD_RECIPE_OPTION_KEYS,
  ON_MATCH_VALUES,
  type ConfoundKeys,
  type CustomPattern,
  type RedactionKeys,
  type LoadRecipeOptions,
  type OnMatch,
  type Recipe,
  type RecipeMode,
  type RegexCompileHook,
} from './types.js';
import { AUTOPSY_CATEGORIES } from '../detectors/catalogue.js';

/** Top-level keys deferred to Phase 3 (newest version: a top-level `condition:`). */
/**
 * The largest recipe the loader reads (a deviation: PyYAML has no limit). Parsing is linear but not cheap (~2 µs
 * a byte for a document of anchors), so without a bound a hostile file costs seconds before any check can reject
 * it: 230,000 anchors (2.9 MB) took 4.9 s. A catalogue of 10,000 patterns is about 1.2 MB.
 */
export const MAX_RECIPE_BYTES = 2 * 1024 * 1024;

export const PHASE_3_KEYS: readonly string[] = ['condition'];
/** Keys valid in both modes. */
export const COMMON_KEYS: readonly string[] = ['schema_version', 'ticket', 'mode', 'trials', 'collect', 'stop_after'];
export const TRIAGE_ONLY_KEYS: readonly string[] = [
  'workload',
  'steps',
  'cells',
  'workload_config',
  'save_logs',
  'extra_env',
  'trial_isolation',
];
export const PROBE_ONLY_KEYS: readonly string[] = [
  'mitigation_axis',
  'diagnostic_axis',
  'step_time_regex',
  'collect_paths',
  'timeout_per_trial',
  'env_passthrough_mode',
  'confound',
  'custom_patterns',
  'hang_window_sec',
  'hang_grace_period_at_start',
  'tier3_vram_growth',
  'disable_detectors',
  'disable_detector_tiers',
  'retain',
  'redaction',
  // Ours, not the original's: the sweep's env bundles and retry policy (src/recipe/sweep-keys.ts).
  'mitigations',
  'retry',
  // ours: the classifier's keys (docs/classifier.md)
  'progress_regex',
  'hang_action',
  'detector_categories',
  'exit_codes',
  'tests',
];
/**
 * Tier 2's keys: valid in every recipe (probe, triage, a bare patterns file), since one `run` uses them. (The
 * original took them in probe recipes only.)
 */
export const HANG_KEYS: readonly string[] = [
  'hang_window_sec',
  'hang_grace_period_at_start',
  'progress_regex',
  'hang_action',
];
/** The keys of a bare patterns file: `custom_patterns:` (required), its `tests:` samples and the hang keys. */
const BARE_KEYS: readonly string[] = ['custom_patterns', 'tests', ...HANG_KEYS];
export const VALID_TOP_LEVEL: readonly string[] = [...COMMON_KEYS, ...TRIAGE_ONLY_KEYS, ...PROBE_ONLY_KEYS].sort();
const PROBE_REQUIRED = ['schema_version', 'trials', 'mitigation_axis', 'diagnostic_axis'];

const NO_AXIS_POSITIONS: Recipe['axisPositions'] = Object.freeze({ mitigation_axis: [], diagnostic_axis: [] });

const PATTERN_KEYS = ['category', 'id', 'match', 'on_match', 'required_for_pass'];
const MATCH_KEYS = ['condition', 'regex'];

/** Python `repr()` of a sorted list of strings. */
function listRepr(items: readonly string[]): string {
  return `[${items.map((s) => strRepr(s)).join(', ')}]`;
}

class Ctx {
  constructor(
    readonly text: string,
    readonly file: string,
    readonly lc: LineCounter,
    /** Collecting (`recipeErrors`): the errors so far; null: the first error is thrown. */
    readonly errors: RecipeSchemaError[] | null = null,
  ) {}

  /** How many errors were recorded so far (always 0 when not collecting). */
  get errorCount(): number {
    return this.errors?.length ?? 0;
  }

  /**
   * Runs one independent part of the validation. Not collecting, it is just `run()`; collecting, a rejection is
   * recorded and `fallback` returned, so that validation goes on with the next part.
   */
  part<T>(run: () => T, fallback: T): T {
    if (this.errors === null) return run();
    try {
      return run();
    } catch (e) {
      if (!(e instanceof RecipeSchemaError)) throw e;
      this.errors.push(e);
      return fallback;
    }
  }

  fail(reason: string, at: PyNode | { start: number; end: number }, suggestion: string | null = null): never {
    throw new RecipeError(reason, this.file, spanPos(this.text, this.lc, at.start, at.end), this.text, suggestion);
  }

  pos(at: { start: number; end: number }): FilePos {
    return spanPos(this.text, this.lc, at.start, at.end);
  }
}

function keyNode(d: PyNode, key: string): PyNode | undefined {
  for (const e of d.entries ?? []) if (e.key.kind === 'str' && e.key.value === key) return e.key;
  return undefined;
}

function keyName(k: PyNode): string {
  return k.kind === 'str' ? (k.value as string) : reprNode(k);
}

/** Fails on the keys of `d` that `allowed` lacks (src/recipe/unknown-keys.ts words it), at the first one. */
function rejectUnknownKeys(
  ctx: Ctx,
  d: PyNode,
  path: string,
  allowed: readonly string[],
  wording: UnknownKeysWording = {},
): void {
  const unknown = (d.entries ?? []).filter((e) => !(e.key.kind === 'str' && allowed.includes(e.key.value as string)));
  if (unknown.length === 0) return;
  const keys = unknown.map((e) => ({
    name: e.key.kind === 'str' ? (e.key.value as string) : null,
    repr: reprNode(e.key),
  }));
  const r = unknownKeysReason(path, keys, allowed, wording);
  ctx.fail(r.reason, unknown[0]!.key, r.suggestion);
}

/**
 * Loads and validates a recipe. `input` may be text or raw bytes (decoded as strict UTF-8).
 * `fileName` is used in messages and selects the parser: `.json` → JSON, anything else → YAML.
 * Throws the first error (a `RecipeSchemaError`).
 */
export function loadRecipe(input: string | Uint8Array, fileName: string, options: LoadRecipeOptions = {}): Recipe {
  checkOptions('loadRecipe', options, LOAD_RECIPE_OPTION_KEYS);
  return load(input, fileName, options, null);
}

/** What `loadRecipeCollecting` found: the recipe, or every independent error (the module header says which). */
export type RecipeCollected =
  | { readonly recipe: Recipe; readonly errors: readonly [] }
  | { readonly recipe: null; readonly errors: readonly RecipeSchemaError[] };

/**
 * `loadRecipe`, but an error does not stop it: every independent error of the file, in the order of the checks
 * (`errors[0]` is what `loadRecipe` throws), or the recipe when there is none.
 */
/**
 * A `redaction:` block on its own (its value as JSON text), read by the loader's rules for that block inside a
 * minimal probe recipe — as `aorta-probe bundle` reads the block of a run's files, where the rest of the file (an
 * axis name only a sidecar defines, a matrix.json) need not load (the original's
 * test_fallback_redaction_resolves_despite_unresolvable_axis). Throws `RecipeError` as `loadRecipe` does.
 */
export function loadRedactionBlock(blockJson: string, fileName: string): NonNullable<Recipe['redaction']> {
  const wrapper = `schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nredaction: ${blockJson}\n`;
  return loadRecipe(wrapper, fileName).redaction!;
}

export function loadRecipeCollecting(
  input: string | Uint8Array,
  fileName: string,
  options: LoadRecipeOptions = {},
): RecipeCollected {
  checkOptions('loadRecipeCollecting', options, LOAD_RECIPE_OPTION_KEYS);
  const errors: RecipeSchemaError[] = [];
  let recipe: Recipe;
  try {
    recipe = load(input, fileName, options, errors);
  } catch (e) {
    if (!(e instanceof RecipeSchemaError)) throw e;
    errors.push(e);
    return { recipe: null, errors };
  }
  return errors.length === 0 ? { recipe, errors: [] } : { recipe: null, errors };
}

/** Every independent error of a recipe file (empty when it is valid); `[0]` is what `loadRecipe` throws. */
export function recipeErrors(
  input: string | Uint8Array,
  fileName: string,
  options: LoadRecipeOptions = {},
): RecipeSchemaError[] {
  checkOptions('recipeErrors', options, LOAD_RECIPE_OPTION_KEYS);
  return [...loadRecipeCollecting(input, fileName, options).errors];
}

function load(
  input: string | Uint8Array,
  fileName: string,
  options: LoadRecipeOptions,
  errors: RecipeSchemaError[] | null,
): Recipe {
  let text: string;
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  if (bytes.length > MAX_RECIPE_BYTES) {
    throw new RecipeError(
      `recipe ${fileName}: too large (${bytes.length} bytes; a recipe may have at most ${MAX_RECIPE_BYTES} bytes, 2 MiB)`,
      fileName,
      { line: 1, col: 1, endCol: 2 },
      undefined,
    );
  }
  if (typeof input === 'string') text = input;
  else {
    const bad = findInvalidUtf8(bytes);
    if (bad !== null) {
      const p = bytePos(bytes, bad.byteOffset);
      const hex = bad.byte.toString(16).padStart(2, '0');
      throw new RecipeError(
        `recipe ${fileName}: cannot read file ('utf-8' codec can't decode byte 0x${hex} in position ${bad.byteOffset}: ${bad.reason})`,
        fileName,
        { line: p.line, col: p.col, endCol: p.col + 1 },
        undefined,
      );
    }
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  }
  const json = fileName.toLowerCase().endsWith('.json');
  // PyYAML's reader rejects non-printable characters before parsing.
  const badChar = json ? null : /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(text);
  if (badChar !== null) {
    const p = new LineCounterLite(text).pos(badChar.index);
    const hex = badChar[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new RecipeError(
      `recipe ${fileName}: parse error (unacceptable character #x${hex}: special characters are not allowed)`,
      fileName,
      { line: p.line, col: p.col, endCol: p.col + 1 },
      text,
    );
  }

  let root: PyNode | null;
  let lc: LineCounter;
  try {
    const parsed = parseYaml(text, json);
    root = parsed.root;
    lc = parsed.lineCounter;
    text = parsed.text; // CR alone and NEL read as LF, as PyYAML reads them; offsets are unchanged
  } catch (e) {
    if (!(e instanceof TreeError)) throw e;
    // Positions straight from the offsets; the line counter may be incomplete after a failure.
    if (!json) text = pyYamlText(text);
    const lines = new LineCounterLite(text);
    let a = lines.pos(e.offset);
    let b = lines.pos(e.endOffset);
    // An indentation error is reported at the start of the misindented line; point at its first token instead
    // (where PyYAML points too), e.g. the key that is indented too little or too much.
    const indent = a.col === 1 ? /^[ \t]+/.exec(text.slice(e.offset, text.indexOf('\n', e.offset) >>> 0)) : null;
    if (indent !== null) {
      const start = e.offset + indent[0].length;
      const token = /^[^\s:]+/.exec(text.slice(start))?.[0].length ?? 1;
      a = lines.pos(start);
      b = lines.pos(start + token);
    }
    let reason = e.reason;
    if (e.firstOffset !== undefined) {
      const f = lines.pos(e.firstOffset);
      reason += ` (first defined at line ${f.line}, col ${f.col})`;
    }
    throw new RecipeError(
      `recipe ${fileName}: parse error (${reason})`,
      fileName,
      { line: a.line, col: a.col, endCol: b.line === a.line && b.col > a.col ? b.col : a.col + 1 },
      text,
    );
  }
  const ctx: Ctx = new Ctx(text, fileName, lc, errors);
  if (root === null || root.kind !== 'dict') {
    ctx.fail(`recipe top-level must be a mapping, got ${root?.typeName ?? 'NoneType'}`, root ?? { start: 0, end: 0 });
  }
  const keys = root.entries!.map((e) => keyName(e.key));
  // A bare file is `custom_patterns:`, optionally with its `tests:` samples and the hang keys.
  const bare = keys.includes('custom_patterns') && keys.every((k) => BARE_KEYS.includes(k));
  if (bare) {
    const before = ctx.errorCount;
    const customPatterns = validateCustomPatterns(ctx, get(root, 'custom_patterns')!, options);
    const patternsComplete = ctx.errorCount === before;
    const { hangWindowSec, hangGracePeriodAtStart } = hangTimes(ctx, root);
    return withSourceSha256(bytes, {
      fileName,
      bare,
      mode: 'probe',
      schemaVersion: null,
      ticket: null,
      trials: null,
      mitigationAxis: [],
      diagnosticAxis: [],
      axisPositions: NO_AXIS_POSITIONS,
      timeoutPerTrial: null,
      envPassthroughMode: 'inherit',
      confound: DEFAULT_CONFOUND,
      scrubEnvKeys: null,
      redaction: null,
      hangWindowSec,
      hangGracePeriodAtStart,
      customPatterns,
      keys,
      ...loadClassifierKeys(ctx, root, customPatterns, regexCheck(ctx, options), { patternsComplete }),
      ...DEFAULT_SWEEP_KEYS,
    });
  }
  return withSourceSha256(bytes, loadFull(ctx, root, keys, options));
}

/**
 * `recipe` with `sourceSha256` computed on first read: only a trial's result.json records it, and hashing in plain
 * JS (sha256.ts says why) was ~2–3 ms of every cold `check` and `scan`.
 */
function withSourceSha256(bytes: Uint8Array, recipe: Omit<Recipe, 'sourceSha256'>): Recipe {
  let hex: string | null = null;
  return Object.defineProperty(recipe, 'sourceSha256', {
    get: () => (hex ??= sha256Hex(bytes)),
    enumerable: true,
  }) as Recipe;
}

/** Line/column from offsets alone (used when parsing failed). */
class LineCounterLite {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) this.starts.push(i + 1);
    }
  }
  pos(offset: number): { line: number; col: number } {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let line = 0;
    while (line + 1 < this.starts.length && this.starts[line + 1]! <= o) line++;
    return { line: line + 1, col: Array.from(this.text.slice(this.starts[line]!, o)).length + 1 };
  }
}

function loadFull(ctx: Ctx, root: PyNode, keys: string[], options: LoadRecipeOptions): Omit<Recipe, 'sourceSha256'> {
  // 2. Phase-3 intercept.
  const phase3 = keys.filter((k) => PHASE_3_KEYS.includes(k)).sort();
  ctx.part(() => {
    if (phase3.length > 0) {
      ctx.fail(
        `recipe: keys ${listRepr(phase3)} are deferred to Phase 3 (bundle integration + redaction + handout templates); see docs/plans/aorta-probe-188-rubric.md §PHASE 3. Remove these keys from your recipe.`,
        keyNode(root, phase3[0]!)!,
      );
    }
  }, undefined);
  // 3. mode.
  const mode = ctx.part((): RecipeMode | null => {
    const modeNode = get(root, 'mode');
    if (modeNode === undefined) return 'triage';
    if (modeNode.kind !== 'str' || (modeNode.value !== 'triage' && modeNode.value !== 'probe')) {
      ctx.fail(`recipe.mode: must be 'triage' or 'probe', got ${reprNode(modeNode)}`, modeNode);
    }
    return modeNode.value as RecipeMode;
  }, null);
  // 4. Unknown keys (a Phase-3 key was rejected above: only reached with none, unless collecting).
  const beforeUnknown = ctx.errorCount;
  const topLevel = { ...root, entries: root.entries!.filter((e) => !PHASE_3_KEYS.includes(keyName(e.key))) };
  ctx.part(() => rejectUnknownKeys(ctx, topLevel, 'recipe', VALID_TOP_LEVEL, { plural: 'top-level keys' }), undefined);
  const unknownRejected = ctx.errorCount > beforeUnknown;
  // 5. Mode-specific keys.
  if (mode === 'probe') {
    ctx.part(() => {
      const triageOnly = keys.filter((k) => TRIAGE_ONLY_KEYS.includes(k));
      if (triageOnly.length > 0) {
        ctx.fail(
          `recipe: keys ${listRepr([...triageOnly].sort())} are triage-mode only and are not valid in a 'mode: probe' recipe (probe-mode synthesises cells from mitigation_axis x diagnostic_axis and fixes the workload internally). Remove these keys.`,
          keyNode(root, triageOnly[0]!)!,
        );
      }
    }, undefined);
    for (const k of PROBE_REQUIRED) {
      // Collecting, a misspelt key already reported may be this one: say nothing (the module header).
      if (!keys.includes(k) && !unknownRejected)
        ctx.part(
          () =>
            ctx.fail(`recipe (mode: probe): missing required key '${k}'`, { start: root.start, end: root.start + 1 }),
          undefined,
        );
    }
  } else if (mode === 'triage') {
    ctx.part(() => {
      const probeOnly = keys.filter((k) => PROBE_ONLY_KEYS.includes(k) && !HANG_KEYS.includes(k));
      if (probeOnly.includes('custom_patterns')) {
        // A bare patterns file takes custom_patterns without a mode: say what keeps this file from being one.
        const others = keys.filter((k) => !BARE_KEYS.includes(k)).sort();
        ctx.fail(
          `recipe: keys ${listRepr([...probeOnly].sort())} are valid in a 'mode: probe' recipe or in a bare patterns file (only custom_patterns, tests and the hang keys); this file also has ${listRepr(others)}: set 'mode: probe' at the recipe top level, or remove ${others.length === 1 ? 'that key' : 'those keys'} to make it a bare patterns file`,
          keyNode(root, probeOnly[0]!)!,
        );
      }
      if (probeOnly.length > 0) {
        ctx.fail(
          `recipe: keys ${listRepr([...probeOnly].sort())} are probe-mode only; set 'mode: probe' at the recipe top level or remove these keys`,
          keyNode(root, probeOnly[0]!)!,
        );
      }
    }, undefined);
  }
  // 6. schema_version.
  const schemaVersion = ctx.part((): number | null => {
    const sv = get(root, 'schema_version');
    if (sv === undefined) return null;
    if (sv.kind !== 'int')
      ctx.fail(`recipe.schema_version: must be an integer, got ${sv.typeName} (${reprNode(sv)})`, sv);
    if (sv.value !== 1n)
      ctx.fail(`recipe.schema_version: unsupported version ${reprNode(sv)}; this build understands version 1`, sv);
    return 1;
  }, null);
  const base = {
    fileName: ctx.file,
    bare: false,
    mode: mode ?? 'triage',
    schemaVersion,
    keys,
  };
  const noScan = {
    ticket: null,
    trials: null,
    mitigationAxis: [],
    diagnosticAxis: [],
    axisPositions: NO_AXIS_POSITIONS,
    timeoutPerTrial: null,
    envPassthroughMode: 'inherit',
    confound: DEFAULT_CONFOUND,
    scrubEnvKeys: null,
    redaction: null,
    hangWindowSec: DEFAULT_HANG_WINDOW_SEC,
    hangGracePeriodAtStart: DEFAULT_HANG_GRACE_SEC,
    customPatterns: [],
    ...DEFAULT_CLASSIFIER_KEYS,
    ...DEFAULT_SWEEP_KEYS,
  } as const;
  // Collecting, an invalid mode leaves nothing else to check that does not depend on it.
  if (mode === null) return { ...base, ...noScan };
  if (mode === 'triage') {
    // Triage recipes carry no scanner input; their own keys are not validated here. The hang keys are, and the
    // common `stop_after`; the probe-only keys were rejected above (collecting, they are left unchecked).
    const own = { ...root, entries: root.entries!.filter((e) => !probeOnlyKey(e.key)) };
    const hang = loadClassifierKeys(ctx, own, [], regexCheck(ctx, options));
    return {
      ...base,
      ...noScan,
      ...hangTimes(ctx, root),
      progressRegex: hang.progressRegex,
      hangAction: hang.hangAction,
      ...loadSweepKeys(
        ctx,
        own,
        { customPatterns: [], disabled: DEFAULT_CLASSIFIER_KEYS },
        options.mitigations ?? builtinRegistry(),
        `recipe:${ctx.file}`,
      ),
    };
  }
  // build_probe_recipe_from_dict, in its order. (A missing required key was reported above.)
  const trialsNode = get(root, 'trials');
  const trials = ctx.part((): number | null => {
    if (trialsNode === undefined) return null;
    if (trialsNode.kind !== 'int' || (trialsNode.value as bigint) < 1n) {
      ctx.fail(`recipe.trials: must be a positive int, got ${reprNode(trialsNode)}`, trialsNode);
    }
    return Number(trialsNode.value);
  }, null);
  const ticket = ctx.part((): string | null => {
    const ticketNode = get(root, 'ticket');
    if (ticketNode !== undefined && ticketNode.kind !== 'str') {
      ctx.fail(`recipe.ticket: must be a string or absent, got ${ticketNode.typeName}`, ticketNode);
    }
    return ticketNode?.kind === 'str' ? (ticketNode.value as string) : null;
  }, null);
  const axes: string[][] = [];
  const axisPositions: Record<string, FilePos[]> = {};
  for (const name of ['mitigation_axis', 'diagnostic_axis']) {
    axes.push([]);
    axisPositions[name] = [];
    const n = get(root, name);
    if (n === undefined) continue;
    ctx.part(() => {
      if (n.kind !== 'list' || n.items!.some((i) => i.kind !== 'str')) {
        ctx.fail(`recipe.${name}: must be a list[str], got ${n.typeName} (${reprNode(n)})`, n);
      }
      if (n.items!.length === 0) ctx.fail(`recipe.${name}: must be a non-empty list`, n);
      axes[axes.length - 1] = n.items!.map((i) => i.value as string);
      axisPositions[name] = n.items!.map((i) => ctx.pos(i));
    }, undefined);
  }
  ctx.part(() => {
    const str = get(root, 'step_time_regex');
    if (str !== undefined && str.kind !== 'NoneType') {
      if (str.kind !== 'str') ctx.fail(`recipe.step_time_regex: must be a string, got ${str.typeName}`, str);
      compileHook(ctx, options, str, () => `recipe.step_time_regex: invalid regex ({err}): ${reprNode(str)}`);
    }
  }, undefined);
  ctx.part(() => {
    const cp = get(root, 'collect_paths');
    if (cp !== undefined && cp.kind !== 'NoneType' && (cp.kind !== 'list' || cp.items!.some((i) => i.kind !== 'str'))) {
      ctx.fail(`recipe.collect_paths: must be a list[str], got ${cp.typeName}`, cp);
    }
  }, undefined);
  const timeoutPerTrial = ctx.part((): number | null => {
    const tpt = get(root, 'timeout_per_trial');
    if (tpt === undefined || tpt.kind === 'NoneType') return null;
    if (tpt.kind !== 'int' && tpt.kind !== 'float')
      ctx.fail(`recipe.timeout_per_trial: must be a number or null, got ${tpt.typeName}`, tpt);
    const t = Number(tpt.value);
    if (!(t > 0)) ctx.fail(`recipe.timeout_per_trial: must be > 0 when set, got ${reprNode(tpt)}`, tpt);
    return t;
  }, null);
  const envPassthroughMode = ctx.part((): 'inherit' | 'file' => {
    const epm = get(root, 'env_passthrough_mode');
    if (epm === undefined || epm.kind === 'NoneType') return 'inherit';
    if (epm.kind !== 'str' || (epm.value !== 'inherit' && epm.value !== 'file')) {
      ctx.fail(`recipe.env_passthrough_mode: must be 'inherit' or 'file', got ${reprNode(epm)}`, epm);
    }
    return epm.value as 'inherit' | 'file';
  }, 'inherit');
  const cpNode = get(root, 'custom_patterns');
  const beforePatterns = ctx.errorCount;
  const customPatterns = cpNode === undefined ? [] : validateCustomPatterns(ctx, cpNode, options);
  const patternsComplete = ctx.errorCount === beforePatterns;
  const { hangWindowSec, hangGracePeriodAtStart } = hangTimes(ctx, root);
  const redaction = ctx.part(
    (): RedactionKeys | null =>
      hasKey(root, 'redaction') ? parseRedaction(ctx, get(root, 'redaction')!, options) : null,
    null,
  );
  const scrubEnvKeys = redaction === null ? null : redaction.scrubEnvKeys;
  const confound = ctx.part((): ConfoundKeys => {
    const conf = get(root, 'confound');
    let threshold = DEFAULT_CONFOUND.threshold;
    let baselineCell: string | null = null;
    let baselineCellPos: FilePos | null = null;
    if (conf !== undefined && conf.kind !== 'NoneType') {
      if (conf.kind !== 'dict') ctx.fail(`recipe.confound: must be a mapping, got ${conf.typeName}`, conf);
      rejectUnknownKeys(ctx, conf, 'recipe.confound', ['baseline_cell', 'threshold']);
      const th = get(conf, 'threshold');
      if (
        th !== undefined &&
        th.kind !== 'NoneType' &&
        (!(th.kind === 'int' || th.kind === 'float') || !(Number(th.value) > 0))
      ) {
        ctx.fail(`recipe.confound.threshold: must be > 0, got ${reprNode(th)}`, th);
      }
      if (th !== undefined && th.kind !== 'NoneType') threshold = Number(th.value);
      const bc = get(conf, 'baseline_cell');
      if (bc !== undefined && bc.kind !== 'NoneType' && bc.kind !== 'str') {
        ctx.fail(`recipe.confound.baseline_cell: must be a string, got ${bc.typeName}`, bc);
      }
      if (bc?.kind === 'str') {
        baselineCell = bc.value as string;
        baselineCellPos = ctx.pos(bc);
      }
    }
    return { threshold, baselineCell, baselineCellPos };
  }, DEFAULT_CONFOUND);
  const loaded = { patternsComplete, disablesComplete: true };
  const classifierKeys = loadClassifierKeys(ctx, root, customPatterns, regexCheck(ctx, options), loaded);
  // `retry.on`'s targets depend on the patterns and the disables: not checked after an error in them.
  const targets = patternsComplete && loaded.disablesComplete ? { customPatterns, disabled: classifierKeys } : null;
  const registry = options.mitigations ?? builtinRegistry();
  const sweepKeys = loadSweepKeys(ctx, root, targets, registry, `recipe:${ctx.file}`);
  checkAxisNames(ctx, root, registry, sweepKeys.mitigations);
  return {
    ...base,
    ticket,
    trials,
    mitigationAxis: axes[0]!,
    diagnosticAxis: axes[1]!,
    axisPositions: {
      mitigation_axis: axisPositions['mitigation_axis']!,
      diagnostic_axis: axisPositions['diagnostic_axis']!,
    },
    timeoutPerTrial,
    envPassthroughMode,
    confound,
    scrubEnvKeys,
    redaction,
    hangWindowSec,
    hangGracePeriodAtStart,
    customPatterns,
    ...classifierKeys,
    ...sweepKeys,
  };
}

/**
 * Every axis value names a bundle of the registry or of the recipe's own `mitigations:` — checked when the recipe
 * loads, as the original raises `UnknownMitigationError` at load, so `check` says it at the value's line:col. Not
 * checked when the recipe's own table failed to load (every name in it would look unknown).
 */
function checkAxisNames(
  ctx: Ctx,
  root: PyNode,
  registry: NonNullable<LoadRecipeOptions['mitigations']>,
  own: ReadonlyMap<string, unknown>,
): void {
  const mt = get(root, 'mitigations');
  if (mt !== undefined && mt.kind !== 'NoneType' && (mt.kind !== 'dict' || own.size !== mt.entries!.length)) return;
  const names = [...new Set([...registry.keys(), ...own.keys()])].sort();
  for (const axis of ['mitigation_axis', 'diagnostic_axis']) {
    const n = get(root, axis);
    if (n?.kind !== 'list') continue;
    n.items!.forEach((item, i) => {
      if (item.kind !== 'str') return;
      const name = item.value as string;
      if (registry.has(name) || own.has(name)) return;
      ctx.part(() => {
        const near = closest(name, names);
        ctx.fail(
          `recipe.${axis}[${i}]: unknown mitigation ${strRepr(name)}; available: [${names.map((x) => strRepr(x)).join(', ')}]; define it under 'mitigations:' or in a --mitigations-file`,
          item,
          near,
        );
      }, undefined);
    });
  }
}

const REDACTION_KEYS = ['scrub_env_keys', 'scrub_ip_addresses', 'scrub_paths'];
/** Ours, after the original's three: accepted, and listed after them in the unknown-keys message. */
const OUR_REDACTION_KEYS = ['extra_patterns', 'scrub_secrets'];

function hasKey(root: PyNode, key: string): boolean {
  return root.entries?.some((e) => e.key.kind === 'str' && e.key.value === key) === true;
}

/** Python's `sorted()` of strings: by code point. */
const byCodePoint = (a: string, b: string): number => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/** The original's `parse_redaction`, its messages in its order; then our two keys. */
function parseRedaction(ctx: Ctx, node: PyNode, options: LoadRecipeOptions): RedactionKeys {
  if (node.kind === 'NoneType') ctx.fail('recipe.redaction: must be a mapping when present', node);
  if (node.kind !== 'dict') ctx.fail(`recipe.redaction: must be a mapping, got ${node.typeName}`, node);
  const allowed = [...REDACTION_KEYS, ...OUR_REDACTION_KEYS];
  // `sorted(map(str, unknown))`: a non-string key is compared as its str(), and fails closed as unknown.
  const unknown = node.entries!.filter((e) => !(e.key.kind === 'str' && allowed.includes(e.key.value as string)));
  if (unknown.length > 0) {
    const names = unknown.map((e) => (e.key.kind === 'str' ? (e.key.value as string) : pyStr(e.key))).sort(byCodePoint);
    ctx.fail(
      `recipe.redaction: unknown keys [${names.map((n) => strRepr(n)).join(', ')}]; allowed: [${[...REDACTION_KEYS, ...OUR_REDACTION_KEYS].map((k) => strRepr(k)).join(', ')}]`,
      unknown[0]!.key,
      unknown.length === 1 && unknown[0]!.key.kind === 'str' ? closest(unknown[0]!.key.value as string, allowed) : null,
    );
  }
  const keys = get(node, 'scrub_env_keys');
  if (keys !== undefined && (keys.kind !== 'list' || !keys.items!.every((k) => k.kind === 'str')))
    ctx.fail(`recipe.redaction.scrub_env_keys: must be a list[str], got ${keys.typeName}`, keys);
  const flag = (name: string, dflt: boolean): boolean => {
    const f = get(node, name);
    if (f === undefined) return dflt;
    if (f.kind !== 'bool') ctx.fail(`recipe.redaction.${name}: must be a bool, got ${f.typeName}`, f);
    return f.value as boolean;
  };
  const scrubPaths = flag('scrub_paths', false);
  const scrubIpAddresses = flag('scrub_ip_addresses', false);
  const scrubSecrets = flag('scrub_secrets', true);
  const extra = get(node, 'extra_patterns');
  const extraPatterns: string[] = [];
  if (extra !== undefined) {
    if (extra.kind !== 'list')
      ctx.fail(`recipe.redaction.extra_patterns: must be a list[str], got ${extra.typeName}`, extra);
    extra.items!.forEach((item, i) => {
      const path = `recipe.redaction.extra_patterns[${i}]`;
      if (item.kind !== 'str') ctx.fail(`${path}: must be a str, got ${item.typeName}`, item);
      if (item.value === '') ctx.fail(`${path}: must be a non-empty regex (an empty one matches everywhere)`, item);
      compileHook(ctx, options, item, () => `${path}: invalid regex ({err}): ${strRepr(item.value as string)}`);
      extraPatterns.push(item.value as string);
    });
  }
  return {
    scrubEnvKeys: keys === undefined ? [] : keys.items!.map((k) => k.value as string),
    scrubPaths,
    scrubIpAddresses,
    scrubSecrets,
    extraPatterns,
  };
}

/** Python's `str()` of a YAML key that is not a string (an int, a bool, None, …). */
function pyStr(n: PyNode): string {
  if (n.kind === 'bool') return n.value === true ? 'True' : 'False';
  if (n.kind === 'NoneType') return 'None';
  return reprNode(n);
}

/** A key that only a probe recipe may have (the hang keys excepted: any recipe may). */
function probeOnlyKey(k: PyNode): boolean {
  return k.kind === 'str' && PROBE_ONLY_KEYS.includes(k.value as string) && !HANG_KEYS.includes(k.value as string);
}

/** The two hang timings, valid in every kind of recipe; each an independent part (a bad one: the default). */
function hangTimes(ctx: Ctx, root: PyNode): { hangWindowSec: number; hangGracePeriodAtStart: number } {
  return {
    hangWindowSec: ctx.part(
      () => positiveNumber(ctx, root, 'hang_window_sec', DEFAULT_HANG_WINDOW_SEC, false),
      DEFAULT_HANG_WINDOW_SEC,
    ),
    hangGracePeriodAtStart: ctx.part(
      () => positiveNumber(ctx, root, 'hang_grace_period_at_start', DEFAULT_HANG_GRACE_SEC, true),
      DEFAULT_HANG_GRACE_SEC,
    ),
  };
}

function positiveNumber(ctx: Ctx, root: PyNode, key: string, dflt: number, allowZero: boolean): number {
  const n = get(root, key);
  if (n === undefined || n.kind === 'NoneType') return dflt;
  if (n.kind !== 'int' && n.kind !== 'float') ctx.fail(`recipe.${key}: must be a number, got ${n.typeName}`, n);
  const v = Number(n.value);
  if (allowZero ? !(v >= 0) : !(v > 0))
    ctx.fail(`recipe.${key}: must be ${allowZero ? '>=' : '>'} 0 when set, got ${reprNode(n)}`, n);
  return v;
}

const regexCheck =
  (ctx: Ctx, options: LoadRecipeOptions) =>
  (node: PyNode, template: () => string): void =>
    compileHook(ctx, options, node, template);

/** By default a regex is checked by compiling it on RE2 (and releasing it at once). */
const compileOnRe2: RegexCompileHook = (source, flags) => compileRegex(source, flags).dispose();

/**
 * Checks a regex where the original calls `re.compile`. `template` makes the message, holding `{err}`, for a regex
 * that fails only (a message quotes the pattern's repr: made for each of 30 good patterns, ~2.5 ms of a cold `check`);
 * an RE2 syntax error's hint (e.g. for a Python-only construct) follows the pattern.
 */
function compileHook(ctx: Ctx, options: LoadRecipeOptions, node: PyNode, template: () => string): void {
  const compile = options.compileRegex ?? compileOnRe2;
  try {
    compile(node.value as string, '');
  } catch (e) {
    // Not the recipe's fault: the engine is not loaded yet (a browser before `ready()`) or has aborted.
    if (e instanceof RegexEngineError) throw e;
    if (e instanceof RegexSyntaxError) {
      const where = e.offset >= 0 ? ` at position ${e.offset}` : '';
      ctx.fail(template().replace('{err}', `${e.detail}${where}`) + (e.hint ? `; hint: ${e.hint}` : ''), node);
    }
    ctx.fail(template().replace('{err}', e instanceof Error ? e.message : String(e)), node);
  }
}

/** `validate_custom_patterns(raw)`, §2.2. */
function validateCustomPatterns(ctx: Ctx, raw: PyNode, options: LoadRecipeOptions): CustomPattern[] {
  if (raw.kind === 'NoneType') return [];
  if (raw.kind !== 'list' || raw.items!.length === 0) {
    return ctx.part(() => ctx.fail(`recipe.custom_patterns: must be a non-empty list, got ${reprNode(raw)}`, raw), []);
  }
  const seen = new Set<string>();
  // Each entry is a part: collecting, the entries that loaded are returned (the caller sees that one failed).
  return raw.items!.flatMap((entry, idx) =>
    ctx.part(() => [validateOne(ctx, entry, `recipe.custom_patterns[${idx}]`, seen, options)], []),
  );
}

function validateOne(
  ctx: Ctx,
  entry: PyNode,
  path: string,
  seen: Set<string>,
  options: LoadRecipeOptions,
): CustomPattern {
  if (entry.kind !== 'dict') ctx.fail(`${path}: must be a mapping, got ${entry.typeName}`, entry);
  rejectUnknownKeys(ctx, entry, path, PATTERN_KEYS);
  const idNode = get(entry, 'id');
  if (idNode === undefined || idNode.kind !== 'str' || idNode.value === '') {
    ctx.fail(`${path}.id: must be a non-empty string`, idNode ?? entry);
  }
  const id = idNode.value as string;
  if (seen.has(id)) {
    ctx.fail(`${path}.id: duplicate id ${strRepr(id)} (custom-pattern ids must be unique within a recipe)`, idNode);
  }
  seen.add(id);
  const match = get(entry, 'match');
  if (match === undefined || match.kind !== 'dict') {
    ctx.fail(
      `${path}.match: must be a mapping with 'regex' (and optional 'condition'), got ${match?.typeName ?? 'NoneType'}`,
      match ?? entry,
    );
  }
  rejectUnknownKeys(ctx, match, `${path}.match`, MATCH_KEYS);
  const regexNode = get(match, 'regex');
  if (regexNode === undefined || regexNode.kind !== 'str' || regexNode.value === '') {
    ctx.fail(`${path}.match.regex: must be a non-empty string`, regexNode ?? match);
  }
  // Regex check (RE2 by default, `options.compileRegex` to replace it), where the
  // original calls `re.compile`.
  compileHook(ctx, options, regexNode, () => `${path}.match.regex: invalid regex ({err}): ${reprNode(regexNode)}`);
  const condNode = get(match, 'condition');
  let condition: CheckedCondition | null = null;
  if (condNode !== undefined && condNode.kind !== 'NoneType') {
    condition = checkCondition(ctx, condNode, path);
  }
  const onMatchNode = get(entry, 'on_match');
  let onMatch: OnMatch = 'fail';
  if (onMatchNode !== undefined) {
    if (onMatchNode.kind !== 'str' || !ON_MATCH_VALUES.includes(onMatchNode.value as OnMatch)) {
      ctx.fail(
        `${path}.on_match: must be one of ${listRepr(ON_MATCH_VALUES)}, got ${reprNode(onMatchNode)}`,
        onMatchNode,
      );
    }
    onMatch = onMatchNode.value as OnMatch;
  }
  const rfpNode = get(entry, 'required_for_pass');
  let requiredForPass = false;
  if (rfpNode !== undefined) {
    if (rfpNode.kind !== 'bool')
      ctx.fail(`${path}.required_for_pass: must be a boolean, got ${rfpNode.typeName}`, rfpNode);
    requiredForPass = rfpNode.value as boolean;
  }
  // The original allowed `fail` only (and counted a required pattern that fired as a failure, so a required recipe
  // could never pass); here its firing is the pass signal, so `info` (a line that must appear, nothing more) is
  // allowed too (docs/deviations.md).
  if (requiredForPass && onMatch === 'warn') {
    ctx.fail(
      `${path}.required_for_pass: only meaningful with on_match='fail' or 'info' (got on_match=${strRepr(onMatch)}); a warn pattern cannot be required for pass`,
      rfpNode!,
    );
  }
  let category: string | null = null;
  const catNode = get(entry, 'category');
  if (catNode !== undefined) {
    if (catNode.kind !== 'str' || !AUTOPSY_CATEGORIES.includes(catNode.value as string)) {
      ctx.fail(`${path}.category: must be one of ${listRepr(AUTOPSY_CATEGORIES)}, got ${reprNode(catNode)}`, catNode);
    }
    category = catNode.value as string;
  }
  const at = ctx.pos(entry);
  return {
    id,
    detectorId: `custom:${id}`,
    regex: regexNode.value as string,
    flags: '',
    condition,
    conditionSource: condNode?.kind === 'str' ? (condNode.value as string) : null,
    onMatch,
    requiredForPass,
    category,
    line: at.line,
    col: at.col,
  };
}

/** Validates a condition and re-raises a rejection positioned at the offending node in the file. */
function checkCondition(ctx: Ctx, node: PyNode, path: string): CheckedCondition {
  try {
    if (node.kind === 'other') {
      // Dates, bytes, sets: name the Python type the way validateCondition names the others.
      throw new SandboxError({
        kind: 'not-a-string',
        detail: `condition: must be a string, got ${node.typeName}`,
        node: null,
        line: 1,
        col: 1,
      });
    }
    return validateCondition(node.kind === 'str' ? node.value : pyValueForType(node));
  } catch (e) {
    if (!(e instanceof SandboxError)) throw e;
    const { pos, approximate } = conditionFilePos(ctx, node, e);
    throw new RecipeSandboxError(e, path, ctx.file, pos, ctx.text, approximate);
  }
}

/** A JS stand-in whose type `validateCondition` names as the Python type (bool/int/float/list/dict). */
function pyValueForType(node: PyNode): unknown {
  switch (node.kind) {
    case 'bool':
      return node.value;
    case 'int':
      return 1;
    case 'float':
      return 0.5;
    case 'list':
      return [];
    case 'dict':
      return {};
    default:
      return node.value;
  }
}

/**
 * Maps the error's (line, col) inside the stripped condition to the file: skip the leading
 * whitespace `str.strip()` removed, walk to the line (a `\r\n` counts once, as the tokenizer's
 * newline translation does), add the column, and look the value index up in the scalar's
 * value→source map. Anything that cannot be mapped falls back to the scalar's start.
 */
function conditionFilePos(ctx: Ctx, node: PyNode, err: SandboxError): { pos: FilePos; approximate: boolean } {
  const fallback = { pos: ctx.pos({ start: node.start, end: node.start + 1 }), approximate: true };
  if (err.kind === 'empty') return { pos: ctx.pos({ start: node.start, end: node.end }), approximate: false };
  if (node.kind !== 'str' || !isScalar(node.node))
    return { pos: ctx.pos({ start: node.start, end: node.start + 1 }), approximate: node.kind === 'str' };
  const vm = mapScalarValue(ctx.text, node.node);
  if (vm === null) return fallback;
  const cps = Array.from(node.value as string);
  let idx = 0;
  while (idx < cps.length && isPySpace(cps[idx]!.codePointAt(0)!)) idx++;
  let line = 1;
  while (line < err.line && idx < cps.length) {
    const c = cps[idx++];
    if (c === '\r' && cps[idx] === '\n') idx++;
    if (c === '\n' || c === '\r') line++;
  }
  if (line < err.line) return fallback;
  const startIdx = idx + err.col - 1;
  const lastIdx = startIdx + Math.max(err.endCol - err.col, 1) - 1;
  const startOff = startIdx < cps.length ? vm.offsets[startIdx]! : vm.endOffset;
  const endOff =
    lastIdx < cps.length && lastIdx >= startIdx ? vm.offsets[lastIdx]! + vm.lengths[lastIdx]! : startOff + 1;
  return { pos: ctx.pos({ start: startOff, end: endOff }), approximate: false };
}
