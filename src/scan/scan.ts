/**
 * `scanLog`: Tier 4 (built-in catalogue) and Tier 5 (recipe `custom_patterns`) over one log text (the original's
 * `tier4_patterns.py` / `tier5_custom.py`, ROCm/aorta): the raw firings, where each pattern fired and what it
 * captured. The scan decides no verdict: src/classifier/classify-log.ts turns firings into failures, warnings and
 * errors with the other tiers and the recipe's disables.
 *
 * Deliberate difference from the original (which evaluated a condition on the first match *per window* only):
 * a pattern fires at the **first match, in log order, whose condition holds**; a pattern without a condition fires
 * at its first match. Its capture is that match's participating named groups (the condition sees only those).
 *
 * As the original: captures of every firing pattern are merged whatever its on_match (fail, warn, info);
 * `missing_required` lists the `required_for_pass` patterns that did not fire (the classifier's
 * `meta:missing_pass_signal`); Tier 5 scans an empty log (one empty window: a regex that matches "" fires), Tier 4 returns
 * nothing for an empty log.
 *
 * Ordering: detectors are listed by the log offset (UTF-16) of their firing match; ties go to Tier 4 (catalogue
 * order) before Tier 5 (recipe order). Captures are merged in that same order, a later-firing pattern overwriting
 * a colliding name (the original merged in firing order, later wins).
 *
 * The empty-match skip (issues 12 and 38). A pattern such as `x*` or `(?P<gap>q*)` matches emptily at every
 * position; evaluating its condition there position by position (the "slow path") costs one engine call and one
 * evaluation per character. The session instead lets its matcher step over the empty matches (scan/windows.ts,
 * with the companion and the invariants E1–E4 of regex/nonempty.ts), and the result is the slow path's: the same
 * firing (match, line, byte offset, text, captures), the same `condition_errors` (class, first line, raised and
 * evaluated counts), the same engine-independent fields. Invariants:
 *
 *  - **S1 (when).** Only a pattern decided here (not deferred) with a condition, whose regex has `emptyMatches`
 *    with `positions` (its empty matches can be counted) and a companion, and whose condition, evaluated once on
 *    the capture dict C₀ of E1 (the named groups of `capture` set to '', `{}` when there are none) with this
 *    scan's variables, is false and does not raise. A condition that raises on C₀ keeps the slow path: each of
 *    those raises is counted. So `len(capture) == 0` is evaluated on `{'gap': ''}` for `(?P<gap>q*)`, not `{}`.
 *  - **S2 (same firing, same raises).** The condition sees only a match's capture dict and the scan's variables,
 *    which do not change during a scan. Every empty match captures C₀ (E1), so each would evaluate as C₀ did:
 *    false, no raise. So no empty match fires or raises, and the slow path's first holding match and every raise
 *    are at non-empty matches. The matcher reports exactly the non-empty matches of the slow path, in order, with
 *    the same extents and captures (E2), and they are evaluated in the same order: the first holding one (the
 *    firing), the first raising one (line, offset, exception class) and the number that raise are the same.
 *    This is why named groups that can match empty are sound: the capture produced for the reported match is
 *    the engine's own, and the one handed to the condition for the skipped ones is the one they would produce.
 *  - **S3 (same evaluated count).** The slow path evaluates every match in log order up to and including the
 *    firing one (all of them when none fires; a batch's matches past the firing one are not counted). The matcher
 *    counts the empty matches it steps over before each match it reports (exact by E3 and E4, hence `positions`
 *    in S1), and they are counted as evaluated with that match: before the firing match they are, after it not.
 *    The ones after the last reported match are counted when the result is made, unless the pattern fired.
 *  - **S4 (outside).** An engine failure (`RegexMatchAbortError`) may happen at another place in the companion,
 *    a different program, than in the pattern; what it leaves undecided is not claimed equal. The observer does
 *    not see the skipped matches (`matchFound`, `conditionEvaluated`). A pattern whose empty matches depend on
 *    anchors V8 cannot read as RE2 does (`\A`, `$` without MULTILINE: no `positions`) is matched position by
 *    position. (Before issue 38 the skip did not count the empty matches it stepped over at all, so `evaluated`
 *    was short whenever the condition raised on some non-empty match.)
 *
 * test/scan-empty-skip.test.ts and test/scan-empty-skip-named.test.ts compare both paths (`WindowedMatcher.emptySkip`
 * off and on) on generated patterns, conditions and logs.
 */
import { strRepr } from '../condition/repr.js';
import { REGEX_ENGINE_FAILURE } from '../detectors/ids.js';
import {
  BatchOutcome,
  compileCondition,
  raisedName,
  type CompiledCondition,
  type ConditionVars,
} from '../condition/evaluate.js';
import { compileRegex, RegexMatchAbortError, type EmptyMatches, type RegexHandle } from '../regex/index.js';
import type { CustomPattern, OnMatch, Recipe } from '../recipe/index.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';
import { TIER4_PATTERNS, tier4Regexes } from './tier4.js';
import { BytePrefilter, ByteScanMemory } from './byte-prefilter.js';
import type { ByteBufferSource } from './byte-windows.js';
import { LogPosition, type LogLocation } from './position.js';
import { now } from './clock.js';
import { iterWindows, WindowedMatcher, type AbsoluteMatch, type ScanWindow, type WindowOptions } from './windows.js';

/**
 * What a firing means: `tier4` for the catalogue, else the pattern's `on_match`, except a `required_for_pass`
 * pattern's, which is `required`: its firing is the signal the trial needs to pass, never a failure or a warning.
 */
export type HitKind = 'tier4' | OnMatch | 'required';

export interface ScanVars {
  exit_code: number;
  walltime_sec: number;
  /** null when unknown (the condition then sees 0, as the original). */
  peak_vram_mib: number | null;
}

/**
 * Where one detector fired and what it saw (1-based line, UTF-8 byte offset, the match, its named groups): the
 * `detectors` records of every result. The classifier adds the category fields after these.
 */
export interface DetectorHit {
  id: string;
  kind: HitKind;
  line: number;
  byte_offset: number;
  /** The firing match's text (at most MATCH_TEXT_CHARS code units, then '…'). */
  match: string;
  /** Its participating named groups. */
  capture: Record<string, string>;
}

/**
 * A pattern whose matching aborted the regex engine even with the pattern alone (`RegexMatchAbortError`): it was
 * not matched from that window on. The scan's other patterns are unaffected.
 */
export interface EngineFailure {
  /** Always REGEX_ENGINE_FAILURE (the error detector these failures fire). */
  id: typeof REGEX_ENGINE_FAILURE;
  /** The pattern's detector id (`custom:…`, or `tier4:…`). */
  pattern: string;
  /** 1-based line and UTF-8 byte offset in the log where the failed window's search started. */
  line: number;
  byte_offset: number;
  /** `recipe.yaml:LINE:COL: custom pattern 'id': …` with the engine's reason. */
  message: string;
}

/**
 * A pattern whose condition raised (TypeError, ValueError, …) on some of the matches it was evaluated on: such a
 * match does not fire, as in the original, so a condition that raises on every match never fires — and without
 * this record nothing would say so. Counted up to the match that fired (the pattern is not matched past it).
 */
export interface ConditionErrors {
  /** The pattern's detector id (`custom:…`). */
  pattern: string;
  /** The exception class of the first match that raised (CPython's name). */
  error: string;
  /** Matches whose condition raised, of `evaluated`. */
  raised: number;
  /**
   * Matches the condition was evaluated on (for a condition that reads trial variables, decided after the exit:
   * distinct captures).
   */
  evaluated: number;
  /** 1-based line and UTF-8 byte offset of the first match that raised. */
  line: number;
  byte_offset: number;
}

/**
 * The one line every output shows for a condition that raised: `custom:slow_step: condition raised ValueError on 8
 * of 8 matches, first at train.log:5` (`log` is the log's name as the output shows it).
 */
export function conditionErrorsLine(e: ConditionErrors, log: string): string {
  return `${conditionRaisedText(e)}, first at ${log}:${e.line}`;
}

/** `custom:slow_step: condition raised ValueError on 8 of 8 matches`: the part every output shares. */
export function conditionRaisedText(e: Pick<ConditionErrors, 'pattern' | 'error' | 'raised' | 'evaluated'>): string {
  const of = `${e.raised} of ${e.evaluated} match${e.evaluated === 1 ? '' : 'es'}`;
  return `${e.pattern}: condition raised ${e.error} on ${of}`;
}

/** What a scan saw: raw firings, no verdict (classifyLog decides it). */
export interface ScanResult {
  /** Every detector that fired (info and required ones too), in report order. */
  detectors: DetectorHit[];
  /** The named groups of every firing custom pattern, merged in report order (a later one wins a name). */
  capture: Record<string, string>;
  /** Patterns the engine could not match to the end of the log (and that had not fired before). */
  engine_failures: EngineFailure[];
  /**
   * The `required_for_pass` patterns that did not fire, in recipe order; one the engine failed on is undecided
   * and not listed.
   */
  missing_required: string[];
  /** Patterns whose condition raised on at least one match, in report (rank) order. */
  condition_errors: ConditionErrors[];
  tier_durations_ms: { tier4: number; tier5: number };
}

/** Longest match text a firing keeps (a match of `.*` may be a whole line of megabytes). */
export const MATCH_TEXT_CHARS = 200;

/** Where one detector fired. */
export interface Firing {
  readonly detectorId: string;
  readonly kind: HitKind;
  /** UTF-16 offset of the firing match in the log. */
  readonly offset: number;
  /** 1-based line of the firing match. */
  readonly line: number;
  /** UTF-8 byte offset of the firing match. */
  readonly byteOffset: number;
  /** The match's text, cut to MATCH_TEXT_CHARS. */
  readonly text: string;
  /** Tie-break rank: catalogue index, then 7 + recipe index. */
  readonly rank: number;
  readonly named: Readonly<Record<string, string>>;
  readonly requiredForPass: boolean;
}

/** One pattern of a session, as its observer sees it. */
export interface ScanPattern {
  readonly detectorId: string;
  readonly kind: HitKind;
  /** Tie-break rank (catalogue index, then TIER4_PATTERNS.length + recipe index): computed here only. */
  readonly rank: number;
  /** The recipe pattern (null for a Tier 4 one). */
  readonly custom: CustomPattern | null;
  /** Its compiled condition (null: none). */
  readonly condition: CompiledCondition | null;
  /** Matched but never decided by the session: every match goes to the observer (see ScanSessionOptions.defer). */
  readonly deferred: boolean;
}

/**
 * What a session reports while it scans, as ripgrep's searcher reports to a `Sink`: callers add behaviour here
 * instead of copying the scan loop. Calls are synchronous, inside `feed`; `session.locate(offset)` answers for any
 * offset in the window being fed.
 */
export interface ScanObserver {
  /** A pattern's match aborted the engine: it is not matched any further (it counts as decided). */
  engineFailed?(failure: EngineFailure): void;
  /** A match the session looked at (a pattern stops being matched once it fired; deferred ones never stop). */
  matchFound?(pattern: ScanPattern, match: AbsoluteMatch): void;
  /** The condition was evaluated on these matches, in order; `holding` is the first that held, or -1. */
  conditionEvaluated?(pattern: ScanPattern, matches: readonly AbsoluteMatch[], holding: number): void;
  detectorFired?(firing: Firing): void;
  /** The window was fed to every pattern still undecided. */
  windowDone?(window: ScanWindow): void;
}

export interface ScanSessionOptions {
  readonly observer?: ScanObserver;
  /** Custom patterns the session only matches (each match to `observer.matchFound`); the caller decides them. */
  readonly defer?: (pattern: CustomPattern) => boolean;
  /** Scan the Tier 4 catalogue (default true). */
  readonly tier4?: boolean;
}

export type ScanOptions = WindowOptions;

/** The option keys of `scanLog`, `scanStream` and `scanFile` (text/options.ts). */
export const SCAN_OPTION_KEYS = { windowBytes: OPTION } satisfies OptionTable<ScanOptions>;

/** What `scanLog` needs of a recipe (the file name, when known, is where engine failures point). */
export type ScanRecipe = Pick<Recipe, 'customPatterns'> & { readonly fileName?: string };

interface Live {
  readonly pattern: ScanPattern;
  readonly matcher: WindowedMatcher;
  fired: Firing | null;
  failed: EngineFailure | null;
  /** Its condition's raises so far (null: none yet). */
  raised: ConditionErrors | null;
  /** Matches its condition was evaluated on so far. */
  evaluated: number;
}

/**
 * Matches whose conditions are evaluated in one VM call: a pattern that matches every line evaluates its condition
 * per batch, not per match (one call costs ~0.5 µs, a batched evaluation ~0.1 µs). The first holding match in the
 * batch is the one that fires, so the result is that of evaluating one by one; at most BATCH − 1 matches past it
 * are extracted for nothing.
 */
const CONDITION_BATCH = 64;

/** A match text as a firing keeps it. */
export const cutMatchText = (text: string): string =>
  text.length <= MATCH_TEXT_CHARS ? text : `${text.slice(0, MATCH_TEXT_CHARS)}…`;

/** A firing of `p` at match `m`, located by `position`. */
export function makeFiring(
  p: ScanPattern,
  m: { readonly index: number; readonly match: string; readonly named: Readonly<Record<string, string>> },
  at: LogLocation,
): Firing {
  return {
    detectorId: p.detectorId,
    kind: p.kind,
    offset: m.index,
    line: at.line,
    byteOffset: at.byteOffset,
    text: cutMatchText(m.match),
    rank: p.rank,
    named: m.named,
    requiredForPass: p.custom?.requiredForPass ?? false,
  };
}

const fired = (live: readonly Live[]): Firing[] => live.flatMap((p) => (p.fired === null ? [] : [p.fired]));

/**
 * One scan of one log, fed window by window (from `iterWindows` or a stream). Tier 4 skips the log when it is
 * empty; Tier 5 scans the single empty window. Each regex is compiled once, here.
 */
export class ScanSession {
  readonly #patterns: readonly CustomPattern[];
  readonly #fileName: string;
  readonly #t4: Live[];
  readonly #t5: Live[];
  readonly #handles: RegexHandle[] = [];
  readonly #matchers: WindowedMatcher[] = [];
  readonly #observer: ScanObserver | null;
  readonly #position = new LogPosition();
  /** The byte pass over windows cut from bytes, made at the first such window (null: unavailable). */
  #bytePass: BytePrefilter | null | undefined;
  /** The byte scanner instance whose arena holds the windower's bytes (`byteBuffer`), once asked for. */
  #byteMemory: ByteScanMemory | null | undefined;
  /** The window the byte pass last ran on: its answers hold for that window only. */
  #byteWindow: ScanWindow | null = null;
  readonly #vars: ScanVars;
  #remaining4: number;
  #remaining5: number;
  #ms4 = 0;
  #ms5 = 0;
  #disposed = false;

  constructor(recipe: ScanRecipe | null, vars: ScanVars, options: ScanSessionOptions = {}) {
    this.#patterns = recipe?.customPatterns ?? [];
    this.#fileName = recipe?.fileName ?? '<recipe>';
    this.#observer = options.observer ?? null;
    this.#vars = vars;
    const t0 = now();
    this.#t4 = options.tier4 === false ? [] : tier4Live();
    const t1 = now();
    try {
      this.#t5 = this.#tier5Live(options.defer ?? (() => false));
    } catch (e) {
      this.dispose();
      throw e;
    }
    this.#ms4 += t1 - t0;
    this.#ms5 += now() - t1;
    this.#remaining4 = this.#t4.length;
    this.#remaining5 = this.#t5.length;
  }

  #tier5Live(defer: (p: CustomPattern) => boolean): Live[] {
    return this.#patterns.map((p, i) => {
      const re = compileRegex(p.regex, p.flags);
      this.#handles.push(re);
      const condition = p.condition === null ? null : compileCondition(p.condition.source);
      const deferred = defer(p);
      const pattern: ScanPattern = {
        detectorId: p.detectorId,
        kind: p.requiredForPass ? 'required' : p.onMatch,
        rank: TIER4_PATTERNS.length + i,
        custom: p,
        condition,
        deferred,
      };
      const matcher = new WindowedMatcher(re);
      this.#matchers.push(matcher);
      // The empty-match skip (module comment, S1–S4): taken when every empty match captures one dict on which the
      // condition is plainly false (one that raises there must have each raise counted), and the matcher can count
      // the empty matches it steps over (they are evaluated too).
      const empties = re.emptyMatches;
      if (
        condition !== null &&
        !deferred &&
        typeof empties?.positions === 'string' &&
        re.nonEmptyCompanion !== null &&
        plainlyFalse(evaluateMatches(condition, [emptyCapture(empties)], this.#vars))
      )
        matcher.skipEmptyMatches();
      return { pattern, matcher, fired: null, failed: null, raised: null, evaluated: 0 };
    });
  }

  /** True once every pattern has fired (later windows cannot change the result); never with a deferred pattern. */
  get done(): boolean {
    return this.#remaining4 === 0 && this.#remaining5 === 0;
  }

  /** Line and byte offset of an absolute UTF-16 offset in the window being fed (or the last one fed). */
  locate(offset: number): LogLocation {
    return this.#position.locate(offset);
  }

  /** Feeds the next window (windows must come in order, as `iterWindows` makes them). */
  feed(w: ScanWindow): void {
    if (this.#disposed) throw new Error('ScanSession used after dispose()');
    this.#position.enter(w, this.#byteScan(w));
    if (this.#byteWindow === w && this.#bytePass!.clearsAll()) {
      // No pattern may match here (most windows of a clean log): nothing to step, nor to time.
      this.#observer?.windowDone?.(w);
      return;
    }
    const empty = w.last && w.base === 0 && w.ownEnd === 0; // a last window owns its whole text
    const t0 = now();
    if (this.#remaining4 > 0 && !empty) this.#remaining4 = this.#step(this.#t4, w);
    const t1 = now();
    if (this.#remaining5 > 0) this.#remaining5 = this.#step(this.#t5, w);
    this.#ms4 += t1 - t0;
    this.#ms5 += now() - t1;
    this.#observer?.windowDone?.(w);
  }

  /**
   * Where a windower feeding this session should keep its bytes: the byte pass's arena, so that it searches each
   * window where it lies. Undefined where the byte pass will not run (the windower then allocates its own).
   */
  byteBuffer(): ByteBufferSource | undefined {
    if (!WindowedMatcher.prefilter || this.#bytePass !== undefined) return undefined;
    this.#byteMemory ??= ByteScanMemory.create();
    const memory = this.#byteMemory;
    return memory === null ? undefined : (size) => memory.arena(size);
  }

  /**
   * Runs the byte pass over a window cut from bytes (the patterns' literals; see #step) and returns the newlines of
   * its owned region; undefined when it did not run (a window of text, or the prefilter is off).
   */
  #byteScan(w: ScanWindow): number | undefined {
    const bytes = w.bytes;
    if (bytes === undefined || !WindowedMatcher.prefilter) return undefined;
    if (this.#bytePass === undefined) {
      // Indexed by rank: the catalogue, then the recipe.
      const sets = [...this.#t4, ...this.#t5].map((p) => p.matcher.regex.literals);
      this.#bytePass = BytePrefilter.create(sets, bytes, this.#byteMemory ?? ByteScanMemory.create());
    }
    const pass = this.#bytePass;
    if (pass === null) return undefined;
    const from = w.bytesFrom ?? 0;
    pass.scan(bytes, w.ascii === true, from, from + (w.ownBytes ?? bytes.length - from));
    this.#byteWindow = w;
    return pass.newlines();
  }

  /** Whether window `w` holds pattern `p`'s literals, as the byte pass found; null when it cannot tell. */
  #literalsFound(p: Live, w: ScanWindow): boolean | null {
    return this.#byteWindow !== w || this.#bytePass == null ? null : this.#bytePass.literalsFound(p.pattern.rank);
  }

  #fire(p: Live, m: AbsoluteMatch): void {
    p.fired = makeFiring(p.pattern, m, this.#position.locate(m.index));
    this.#observer?.detectorFired?.(p.fired);
  }

  /** Feeds one window to the patterns still undecided; returns how many are still undecided. */
  #step(live: readonly Live[], w: ScanWindow): number {
    let remaining = 0;
    for (const p of live) {
      if (p.fired !== null || p.failed !== null) continue;
      try {
        const found = this.#literalsFound(p, w);
        if (found !== false) this.#match(p, w, found === true);
      } catch (err) {
        if (!(err instanceof RegexMatchAbortError)) throw err;
        this.#failed(p, w, err);
      }
      if (p.fired === null && p.failed === null) remaining++;
    }
    return remaining;
  }

  /**
   * Matches one pattern over one window: reports, evaluates and fires. `literalsFound`: the byte pass found the
   * pattern's literals in the window, so the matcher need not look for them again. Throws RegexMatchAbortError.
   */
  #match(p: Live, w: ScanWindow, literalsFound: boolean): void {
    const obs = this.#observer;
    const { pattern } = p;
    const c = pattern.condition;
    if (pattern.deferred) {
      for (const m of p.matcher.matchesIn(w, literalsFound)) {
        obs?.matchFound?.(pattern, m);
        // The caller decides deferred patterns on distinct captures: one empty match stands for all (every empty
        // match captures the same dict when the pattern has a companion, nonempty.ts E1).
        if (m.end === m.index) p.matcher.skipEmptyMatches();
      }
      return;
    }
    if (c === null) {
      for (const m of p.matcher.matchesIn(w, literalsFound)) {
        obs?.matchFound?.(pattern, m);
        this.#fire(p, m);
        return;
      }
      return;
    }
    const batch: AbsoluteMatch[] = [];
    /** skipped[i]: the empty matches the matcher stepped over just before batch[i] (S3); evaluated with it. */
    const skipped: number[] = [];
    const flush = (): boolean => {
      const e = evaluateMatches(
        c,
        batch.map((m) => m.named),
        this.#vars,
      );
      obs?.conditionEvaluated?.(pattern, batch, e.holding);
      p.evaluated += e.evaluated;
      for (let i = 0; i < e.evaluated; i++) p.evaluated += skipped[i]!;
      if (e.raised > 0) {
        if (p.raised === null) {
          const at = this.#position.locate(batch[e.firstRaised]!.index);
          p.raised = {
            pattern: pattern.detectorId,
            error: e.error!,
            raised: 0,
            evaluated: 0,
            line: at.line,
            byte_offset: at.byteOffset,
          };
        }
        p.raised.raised += e.raised;
      }
      if (e.holding >= 0) this.#fire(p, batch[e.holding]!);
      batch.length = 0;
      skipped.length = 0;
      return e.holding >= 0;
    };
    try {
      for (const m of p.matcher.matchesIn(w, literalsFound)) {
        obs?.matchFound?.(pattern, m);
        skipped.push(p.matcher.takeSkipped());
        batch.push(m);
        if (batch.length === CONDITION_BATCH && flush()) return;
      }
    } finally {
      // Matches found before an engine failure are still decided: one of them may fire, and then it does.
      if (batch.length > 0) flush();
    }
  }

  /** Records that `p` cannot be matched past window `w` (unless a match found before the abort fired). */
  #failed(p: Live, w: ScanWindow, err: RegexMatchAbortError): void {
    if (p.fired !== null) return;
    const at = this.#position.locate(w.base + w.from);
    const custom = p.pattern.custom;
    const where =
      custom === null
        ? `built-in pattern ${p.pattern.detectorId}`
        : `${this.#fileName}:${custom.line}:${custom.col}: custom pattern ${JSON.stringify(custom.id)} (regex ${strRepr(custom.regex)})`;
    p.failed = {
      id: REGEX_ENGINE_FAILURE,
      pattern: p.pattern.detectorId,
      line: at.line,
      byte_offset: at.byteOffset,
      message:
        `${where}: re2-wasm ran out of its fixed 16 MiB heap matching it on a ${err.subjectBytes}-byte window ` +
        `(${err.reason}), even alone in a fresh engine; the log from line ${at.line} on was not scanned for it`,
    };
    this.#observer?.engineFailed?.(p.failed);
  }

  /** Tier 4 firings so far, in catalogue order. */
  tier4Firings(): Firing[] {
    return fired(this.#t4);
  }

  /** Tier 5 firings so far, in recipe order. */
  tier5Firings(): Firing[] {
    return fired(this.#t5);
  }

  /** Every pattern of the session: Tier 4 (catalogue order), then Tier 5 (recipe order). */
  patterns(): ScanPattern[] {
    return [...this.#t4, ...this.#t5].map((l) => l.pattern);
  }

  /** Engine failures so far, in pattern order (Tier 4, then Tier 5). */
  engineFailures(): EngineFailure[] {
    return [...this.#t4, ...this.#t5].flatMap((p) => (p.failed === null ? [] : [p.failed]));
  }

  /**
   * The result of the firings so far, with `extra` firings (the caller's decisions on deferred patterns). A
   * failed pattern that one of `extra` fires for is decided after all (its first holding match came before the
   * failure), so its failure is not reported.
   */
  result(extra: readonly Firing[] = [], extraMs = 0, extraErrors: readonly ConditionErrors[] = []): ScanResult {
    const late = new Set(extra.map((f) => f.detectorId));
    const failures = this.engineFailures().filter((f) => !late.has(f.pattern));
    return {
      ...resolveFirings([...this.tier4Firings(), ...this.tier5Firings(), ...extra], this.#patterns, failures),
      condition_errors: [...this.conditionErrors(), ...extraErrors].sort(
        (a, b) => this.#rankOf(a.pattern) - this.#rankOf(b.pattern),
      ),
      tier_durations_ms: { tier4: this.#ms4, tier5: this.#ms5 + extraMs },
    };
  }

  /** The patterns whose condition raised so far, with how often, of how many evaluated matches. */
  conditionErrors(): ConditionErrors[] {
    return this.#t5.flatMap((p) => {
      // The empty matches stepped over after the last match reported were evaluated too, unless it fired before
      // them (S3); taken once, so a second call counts them once.
      if (p.fired === null) p.evaluated += p.matcher.takeSkipped();
      return p.raised === null ? [] : [{ ...p.raised, evaluated: p.evaluated }];
    });
  }

  #rankOf(id: string): number {
    return this.#t5.find((p) => p.pattern.detectorId === id)?.pattern.rank ?? Number.MAX_SAFE_INTEGER;
  }

  /** Releases the custom patterns' regex leases (idempotent). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const m of this.#matchers) m.dispose();
    for (const h of this.#handles) h.dispose();
  }
}

function tier4Live(): Live[] {
  const regexes = tier4Regexes();
  return TIER4_PATTERNS.map((p, rank) => ({
    pattern: { detectorId: p.detectorId, kind: 'tier4', rank, custom: null, condition: null, deferred: false },
    matcher: new WindowedMatcher(regexes[rank]!),
    fired: null,
    failed: null,
    raised: null,
    evaluated: 0,
  }));
}

function runSession(session: ScanSession, logText: string, options: ScanOptions): void {
  for (const w of iterWindows(logText, options)) {
    session.feed(w);
    if (session.done) break;
  }
}

/** Tier 4 firings, in catalogue order (empty for an empty log). */
export function scanTier4(logText: string, options: ScanOptions = {}): Firing[] {
  const s = new ScanSession(null, { exit_code: 0, walltime_sec: 0, peak_vram_mib: null });
  runSession(s, logText, options);
  return s.tier4Firings();
}

/** Tier 5 firings, in recipe order (an empty log is still scanned). */
export function scanTier5(
  patterns: readonly CustomPattern[],
  logText: string,
  vars: ScanVars,
  options: ScanOptions = {},
): Firing[] {
  if (patterns.length === 0) return [];
  const s = new ScanSession({ customPatterns: patterns }, vars, { tier4: false });
  try {
    runSession(s, logText, options);
    return s.tier5Firings();
  } finally {
    s.dispose();
  }
}

/** The one capture dict of every empty match (nonempty.ts E1): the named groups that take part, each ''. */
export function emptyCapture(empties: EmptyMatches): Record<string, string> {
  const capture: Record<string, string> = {};
  for (const name of empties.capture)
    Object.defineProperty(capture, name, { value: '', enumerable: true, writable: true, configurable: true });
  return capture;
}

/** The condition was false on every capture, and raised on none. */
const plainlyFalse = (e: MatchEvaluation): boolean => e.holding < 0 && e.raised === 0;

/** How a condition fared on a list of matches, in order, up to the first that held. */
export interface MatchEvaluation {
  /** Index of the first match whose condition held, or -1. */
  readonly holding: number;
  /** Matches evaluated: up to and including `holding`, or all. */
  readonly evaluated: number;
  /** Of those, how many raised; the first one's index and exception class (-1 and null when none). */
  readonly raised: number;
  readonly firstRaised: number;
  readonly error: string | null;
}

/**
 * Evaluates `c` on each capture dict (in order) with `vars`, in one VM call: the first that holds, and how many
 * raised before it. An exception means "did not fire", as the original. Also used by the trial runner for its
 * deferred candidates.
 */
export function evaluateMatches(
  c: CompiledCondition,
  captures: readonly Readonly<Record<string, string>>[],
  vars: ScanVars,
): MatchEvaluation {
  if (captures.length === 0) return { holding: -1, evaluated: 0, raised: 0, firstRaised: -1, error: null };
  // A literal of one shape (not a spread of `vars`, which V8 builds slowly): this runs once per match.
  const { exit_code, walltime_sec, peak_vram_mib } = vars;
  const list: ConditionVars[] = captures.map((capture) => ({ capture, exit_code, walltime_sec, peak_vram_mib }));
  let codes: Uint8Array;
  try {
    codes = c.evaluateBatchOutcomes(list);
  } catch {
    // The VM refused the batch as a whole: one by one, anything thrown counting as an internal error.
    codes = Uint8Array.from(list, (v) => {
      try {
        return c.evaluate(v) ? BatchOutcome.truthy : BatchOutcome.falsy;
      } catch {
        return BatchOutcome.systemError;
      }
    });
  }
  let raised = 0;
  let firstRaised = -1;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === BatchOutcome.truthy)
      return { holding: i, evaluated: i + 1, raised, firstRaised, error: errorAt(codes, firstRaised) };
    if (code !== BatchOutcome.falsy) {
      raised++;
      if (firstRaised < 0) firstRaised = i;
    }
  }
  return { holding: -1, evaluated: codes.length, raised, firstRaised, error: errorAt(codes, firstRaised) };
}

const errorAt = (codes: Uint8Array, i: number): string | null => (i < 0 ? null : raisedName(codes[i]!));

/** Sorts firings into report order: log offset, then rank (Tier 4 catalogue, then recipe order). */
export function orderFirings(firings: readonly Firing[]): Firing[] {
  return [...firings].sort((a, b) => a.offset - b.offset || a.rank - b.rank);
}

/**
 * Combines firings and engine failures into the result fields (no timing). A pattern the engine failed on is
 * undecided: it cannot miss a `required_for_pass`.
 */
export function resolveFirings(
  firings: readonly Firing[],
  patterns: readonly CustomPattern[],
  engineFailures: readonly EngineFailure[] = [],
): Omit<ScanResult, 'tier_durations_ms' | 'condition_errors'> {
  const ordered = orderFirings(firings);
  const capture: Record<string, string> = {};
  const detectors: DetectorHit[] = [];
  for (const f of ordered) {
    detectors.push(detectorHit(f));
    if (f.kind !== 'tier4') {
      for (const [k, v] of Object.entries(f.named)) {
        // defineProperty: a group named `__proto__` must be an own key, not the prototype
        Object.defineProperty(capture, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  const decided = new Set([...ordered.map((f) => f.detectorId), ...engineFailures.map((f) => f.pattern)]);
  return {
    detectors,
    capture,
    engine_failures: [...engineFailures],
    missing_required: patterns.filter((p) => p.requiredForPass && !decided.has(p.detectorId)).map((p) => p.detectorId),
  };
}

/** A firing as results report it. */
export function detectorHit(f: Firing): DetectorHit {
  const capture: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.named))
    Object.defineProperty(capture, k, { value: v, enumerable: true, writable: true, configurable: true });
  return { id: f.detectorId, kind: f.kind, line: f.line, byte_offset: f.byteOffset, match: f.text, capture };
}

/**
 * Scans `logText` with the Tier 4 catalogue and the recipe's custom patterns (`recipe` null: Tier 4 only): the
 * patterns' raw firings, the scan stage of `classifyLog` (classifier/classify-log.ts), which is what classifies a
 * log under a recipe (its disables, Tier 1 from the exit code, categories). Compile errors of a custom regex
 * propagate (`loadRecipe` checks them on RE2 by default).
 */
export function scanLog(
  recipe: ScanRecipe | null,
  logText: string,
  vars: ScanVars,
  options: ScanOptions = {},
): ScanResult {
  checkOptions('scanLog', options, SCAN_OPTION_KEYS);
  return scanLogUnchecked(recipe, logText, vars, options);
}

/** `scanLog` for a front door that checked its own options, which add keys to these (`classifyLog`). */
export function scanLogUnchecked(
  recipe: ScanRecipe | null,
  logText: string,
  vars: ScanVars,
  options: ScanOptions,
): ScanResult {
  const session = new ScanSession(recipe, vars);
  try {
    runSession(session, logText, options);
    return session.result();
  } finally {
    session.dispose();
  }
}
