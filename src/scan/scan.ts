/**
 * `scanLog`: Tier 4 (built-in catalogue) and Tier 5 (recipe `custom_patterns`) over one log text, and the
 * two-tier verdict (notes §2.1, §2.3, §3.5; there is no Tier 1–3 here).
 *
 * Deliberate difference from the original (which evaluated a condition on the first match *per window* only):
 * a pattern fires at the **first match, in log order, whose condition holds**; a pattern without a condition fires
 * at its first match. Its capture is that match's participating named groups (the condition sees only those).
 *
 * As the original: captures of every firing pattern are merged whatever its on_match (fail, warn, info); info
 * patterns are listed nowhere else; `meta:missing_pass_signal` is a failure when any `required_for_pass` pattern
 * did not fire; Tier 5 scans an empty log (one empty window: a regex that matches "" fires), Tier 4 returns
 * nothing for an empty log.
 *
 * Ordering: detectors are listed by the log offset (UTF-16) of their firing match; ties go to Tier 4 (catalogue
 * order) before Tier 5 (recipe order). Captures are merged in that same order, a later-firing pattern overwriting
 * a colliding name (the original merged in firing order, later wins). `meta:missing_pass_signal` comes last.
 */
import { compileCondition, type CompiledCondition, type ConditionVars } from '../condition/evaluate.js';
import { compileRegex, type RegexHandle } from '../regex/index.js';
import type { CustomPattern, OnMatch, Recipe } from '../recipe/index.js';
import { TIER4_PATTERNS, tier4Regexes } from './tier4.js';
import { iterWindows, WindowedMatcher, type AbsoluteMatch, type ScanWindow, type WindowOptions } from './windows.js';

export const MISSING_PASS_SIGNAL = 'meta:missing_pass_signal';

export interface ScanVars {
  exit_code: number;
  walltime_sec: number;
  /** null when unknown (the condition then sees 0, as the original). */
  peak_vram_mib: number | null;
}

export interface ScanResult {
  verdict: 'pass' | 'fail';
  failure_detectors_fired: string[];
  warn_detectors_fired: string[];
  capture: Record<string, string>;
  tier_durations_ms: { tier4: number; tier5: number };
}

/** Where one detector fired. */
export interface Firing {
  readonly detectorId: string;
  /** 'tier4' for the catalogue, else the pattern's on_match. */
  readonly kind: 'tier4' | OnMatch;
  /** UTF-16 offset of the firing match in the log. */
  readonly offset: number;
  /** Tie-break rank: catalogue index, then 7 + recipe index. */
  readonly rank: number;
  readonly named: Readonly<Record<string, string>>;
  readonly requiredForPass: boolean;
}

export type ScanOptions = WindowOptions;

/** What `scanLog` needs of a recipe. */
export type ScanRecipe = Pick<Recipe, 'customPatterns'>;

interface Live {
  readonly matcher: WindowedMatcher;
  readonly make: (offset: number, named: Record<string, string>) => Firing;
  /** Index of the first of these matches (in order) whose condition holds, or -1; null: no condition. */
  readonly firstHolding: ((matches: readonly AbsoluteMatch[]) => number) | null;
  fired: Firing | null;
}

/**
 * Matches whose conditions are evaluated in one VM call: a pattern that matches every line evaluates its condition
 * per batch, not per match (one call costs ~0.5 µs, a batched evaluation ~0.1 µs). The first holding match in the
 * batch is the one that fires, so the result is that of evaluating one by one; at most BATCH − 1 matches past it
 * are extracted for nothing.
 */
const CONDITION_BATCH = 64;

/** Feeds one window to the patterns that have not fired yet; returns how many are still unfired. */
function stepWindow(live: readonly Live[], w: ScanWindow): number {
  let remaining = 0;
  for (const p of live) {
    if (p.fired !== null) continue;
    const holding = p.firstHolding;
    if (holding === null) {
      for (const m of p.matcher.matchesIn(w)) {
        p.fired = p.make(m.index, m.named);
        break;
      }
    } else {
      const batch: AbsoluteMatch[] = [];
      const flush = (): boolean => {
        const i = holding(batch);
        if (i >= 0) p.fired = p.make(batch[i]!.index, batch[i]!.named);
        batch.length = 0;
        return i >= 0;
      };
      let done = false;
      for (const m of p.matcher.matchesIn(w)) {
        batch.push(m);
        if (batch.length === CONDITION_BATCH && flush()) {
          done = true;
          break;
        }
      }
      if (!done && batch.length > 0) flush();
    }
    if (p.fired === null) remaining++;
  }
  return remaining;
}

const fired = (live: readonly Live[]): Firing[] => live.flatMap((p) => (p.fired === null ? [] : [p.fired]));

function tier4Live(): Live[] {
  const regexes = tier4Regexes();
  return TIER4_PATTERNS.map((p, rank) => ({
    matcher: new WindowedMatcher(regexes[rank]!),
    make: (offset, named) => ({ detectorId: p.detectorId, kind: 'tier4', offset, rank, named, requiredForPass: false }),
    firstHolding: null,
    fired: null,
  }));
}

/** Compiles the custom patterns; the regex handles are pushed to `handles` (the caller disposes them). */
function tier5Live(patterns: readonly CustomPattern[], vars: ScanVars, handles: RegexHandle[]): Live[] {
  return patterns.map((p, i) => {
    const re = compileRegex(p.regex, p.flags);
    handles.push(re);
    const c: CompiledCondition | null = p.condition === null ? null : compileCondition(p.condition.source);
    return {
      matcher: new WindowedMatcher(re),
      make: (offset, named) => ({ detectorId: p.detectorId, kind: p.onMatch, offset, rank: TIER4_PATTERNS.length + i, named, requiredForPass: p.requiredForPass }),
      firstHolding: c === null ? null : (matches) => firstHolding(c, matches.map((m) => m.named), vars),
      fired: null,
    };
  });
}

/**
 * One scan of one log, fed window by window (from `iterWindows` or a stream). Tier 4 skips the log when it is
 * empty; Tier 5 scans the single empty window.
 */
export class ScanSession {
  readonly #patterns: readonly CustomPattern[];
  readonly #t4: Live[];
  readonly #t5: Live[];
  readonly #handles: RegexHandle[] = [];
  #remaining4: number;
  #remaining5: number;
  #ms4 = 0;
  #ms5 = 0;
  #disposed = false;

  constructor(recipe: ScanRecipe | null, vars: ScanVars) {
    this.#patterns = recipe?.customPatterns ?? [];
    const t0 = performance.now();
    this.#t4 = tier4Live();
    const t1 = performance.now();
    try {
      this.#t5 = tier5Live(this.#patterns, vars, this.#handles);
    } catch (e) {
      this.dispose();
      throw e;
    }
    this.#ms4 += t1 - t0;
    this.#ms5 += performance.now() - t1;
    this.#remaining4 = this.#t4.length;
    this.#remaining5 = this.#t5.length;
  }

  /** True once every pattern has fired (later windows cannot change the result). */
  get done(): boolean {
    return this.#remaining4 === 0 && this.#remaining5 === 0;
  }

  /** Feeds the next window (windows must come in order, as `iterWindows` makes them). */
  feed(w: ScanWindow): void {
    if (this.#disposed) throw new Error('ScanSession used after dispose()');
    const empty = w.last && w.base === 0 && w.text.length === 0;
    const t0 = performance.now();
    if (this.#remaining4 > 0 && !empty) this.#remaining4 = stepWindow(this.#t4, w);
    const t1 = performance.now();
    if (this.#remaining5 > 0) this.#remaining5 = stepWindow(this.#t5, w);
    this.#ms4 += t1 - t0;
    this.#ms5 += performance.now() - t1;
  }

  /** Tier 4 firings so far, in catalogue order. */
  tier4Firings(): Firing[] {
    return fired(this.#t4);
  }

  /** Tier 5 firings so far, in recipe order. */
  tier5Firings(): Firing[] {
    return fired(this.#t5);
  }

  result(): ScanResult {
    return {
      ...resolveVerdict([...this.tier4Firings(), ...this.tier5Firings()], this.#patterns),
      tier_durations_ms: { tier4: this.#ms4, tier5: this.#ms5 },
    };
  }

  /** Releases the custom patterns' regex leases (idempotent). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const h of this.#handles) h.dispose();
  }
}

/** Tier 4 firings, in catalogue order (empty for an empty log). */
export function scanTier4(logText: string, options: ScanOptions = {}): Firing[] {
  const s = new ScanSession(null, { exit_code: 0, walltime_sec: 0, peak_vram_mib: null });
  for (const w of iterWindows(logText, options)) {
    s.feed(w);
    if (s.done) break;
  }
  return s.tier4Firings();
}

/** Tier 5 firings, in recipe order (an empty log is still scanned). */
export function scanTier5(patterns: readonly CustomPattern[], logText: string, vars: ScanVars, options: ScanOptions = {}): Firing[] {
  if (patterns.length === 0) return [];
  const live: Live[] = [];
  const handles: RegexHandle[] = [];
  try {
    live.push(...tier5Live(patterns, vars, handles));
    for (const w of iterWindows(logText, options)) {
      if (stepWindow(live, w) === 0) break;
    }
    return fired(live);
  } finally {
    for (const h of handles) h.dispose();
  }
}

/**
 * Index of the first capture dict (in order) for which `c` holds with `vars`, or -1, in one VM call; an exception in
 * the condition means "did not fire", as the original. Also used by the trial runner for its deferred candidates.
 */
export function firstHolding(c: CompiledCondition, captures: readonly Readonly<Record<string, string>>[], vars: ScanVars): number {
  if (captures.length === 0) return -1;
  // A literal of one shape (not a spread of `vars`, which V8 builds slowly): this runs once per match.
  const { exit_code, walltime_sec, peak_vram_mib } = vars;
  const list: ConditionVars[] = captures.map((capture) => ({ capture, exit_code, walltime_sec, peak_vram_mib }));
  try {
    return c.evaluateBatch(list).indexOf(true); // the VM's own errors already count as not fired
  } catch {
    return list.findIndex((v) => {
      try {
        return c.evaluate(v);
      } catch {
        return false;
      }
    });
  }
}

/** Sorts firings into report order: log offset, then rank (Tier 4 catalogue, then recipe order). */
export function orderFirings(firings: readonly Firing[]): Firing[] {
  return [...firings].sort((a, b) => a.offset - b.offset || a.rank - b.rank);
}

/** Combines firings into the result fields (no timing). */
export function resolveVerdict(
  firings: readonly Firing[],
  patterns: readonly CustomPattern[],
): Omit<ScanResult, 'tier_durations_ms'> {
  const ordered = orderFirings(firings);
  const failures: string[] = [];
  const warns: string[] = [];
  const capture: Record<string, string> = {};
  for (const f of ordered) {
    if (f.kind === 'tier4' || f.kind === 'fail') failures.push(f.detectorId);
    else if (f.kind === 'warn') warns.push(f.detectorId);
    if (f.kind !== 'tier4') {
      for (const [k, v] of Object.entries(f.named)) {
        // defineProperty: a group named `__proto__` must be an own key, not the prototype
        Object.defineProperty(capture, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  const firedIds = new Set(ordered.map((f) => f.detectorId));
  if (patterns.some((p) => p.requiredForPass && !firedIds.has(p.detectorId))) failures.push(MISSING_PASS_SIGNAL);
  return {
    verdict: failures.length > 0 ? 'fail' : 'pass',
    failure_detectors_fired: failures,
    warn_detectors_fired: warns,
    capture,
  };
}

/**
 * Scans `logText` with the Tier 4 catalogue and the recipe's custom patterns (`recipe` null: Tier 4 only).
 * Compile errors of a custom regex propagate (`loadRecipe` checks them on RE2 by default).
 */
export function scanLog(recipe: ScanRecipe | null, logText: string, vars: ScanVars, options: ScanOptions = {}): ScanResult {
  const session = new ScanSession(recipe, vars);
  try {
    for (const w of iterWindows(logText, options)) {
      session.feed(w);
      if (session.done) break;
    }
    return session.result();
  } finally {
    session.dispose();
  }
}
