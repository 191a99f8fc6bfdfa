/**
 * Scans a trial's log as it arrives, with bounded memory, and gives the same result as `scanLog` over the whole
 * log with the trial's final `exit_code`, `walltime_sec` and `peak_vram_mib` (what the original does: it scans
 * after the trial ends, with the final values).
 *
 * - Tier 4 and the custom patterns whose condition does not read a trial variable (or that have none) run live in a
 *   `ScanSession`: their outcome cannot depend on values that are not known yet.
 * - A pattern whose condition reads a trial variable ("deferred") records its candidate matches while the log
 *   arrives: each distinct capture dict once (the condition sees only the captures and the trial variables, so a
 *   repeated dict cannot fire where its first occurrence did not). They are kept in memory within a small shared
 *   budget; past it (e.g. `loss=(?P<loss>\S+)` over a long training log) further candidates are appended to a
 *   spill file (JSON Lines) and stream back after the exit. Then the candidates are evaluated in log order with
 *   the final values, in batches; the first that holds fires. Memory stays bounded, and the log is read once.
 */
import { closeSync, createReadStream, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { compileCondition, type CompiledCondition } from '../condition/evaluate.js';
import type { CustomPattern } from '../recipe/index.js';
import { compileRegex, type RegexHandle } from '../regex/index.js';
import {
  ByteWindower, firstHolding, resolveVerdict, ScanSession, TIER4_PATTERNS, WindowedMatcher,
  type Firing, type ScanOptions, type ScanRecipe, type ScanResult, type ScanVars, type ScanWindow,
} from '../scan/index.js';
import { readsTrialVars } from './trial-vars.js';

export interface CandidateBudget {
  /** Most candidate matches kept over all deferred patterns. */
  readonly candidates: number;
  /** Most UTF-16 units of capture names and values kept over all deferred patterns. */
  readonly units: number;
}

export const DEFAULT_CANDIDATE_BUDGET: CandidateBudget = { candidates: 4096, units: 4 * 1024 * 1024 };

export interface LogScannerOptions extends ScanOptions {
  readonly candidateBudget?: CandidateBudget;
  /** Directory for spill files (default: the OS temporary directory). */
  readonly spillDir?: string;
}

/** How each deferred pattern was decided (tests, diagnostics). */
export interface DeferredReport {
  readonly detectorId: string;
  /** Distinct candidate matches recorded. */
  readonly candidates: number;
  /** How many of them went to the spill file. */
  readonly spilled: number;
}

interface Candidate {
  readonly offset: number;
  readonly named: Readonly<Record<string, string>>;
}

interface Deferred {
  readonly pattern: CustomPattern;
  readonly index: number;
  readonly regex: RegexHandle;
  readonly condition: CompiledCondition;
  readonly matcher: WindowedMatcher;
  /** In memory, in log order; all of them come before the spilled ones. */
  readonly candidates: Candidate[];
  /** Keys of the recorded candidates, while the budget lasts (a key not here is spilled, maybe again). */
  readonly seen: Set<string>;
  spill: Spill | null;
}

/** Candidates past the budget, as JSON Lines `[offset, named]`, written in 64 KiB batches. */
class Spill {
  readonly path: string;
  #fd: number;
  #pending = '';
  count = 0;

  constructor(path: string) {
    this.path = path;
    this.#fd = openSync(path, 'w', 0o600);
  }

  add(c: Candidate): void {
    this.#pending += `${JSON.stringify([c.offset, c.named])}\n`;
    this.count++;
    if (this.#pending.length >= 64 * 1024) this.flush();
  }

  flush(): void {
    if (this.#pending.length > 0) writeSync(this.#fd, this.#pending);
    this.#pending = '';
  }

  close(): void {
    if (this.#fd === -1) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = -1;
  }

  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }

  /** The spilled candidates in order, in batches. */
  async *read(batch = 1024): AsyncGenerator<Candidate[]> {
    this.close();
    const lines = createInterface({ input: createReadStream(this.path), crlfDelay: Infinity });
    let out: Candidate[] = [];
    try {
      for await (const line of lines) {
        const [offset, named] = JSON.parse(line) as [number, Record<string, string>];
        out.push({ offset, named });
        if (out.length >= batch) {
          yield out;
          out = [];
        }
      }
      if (out.length > 0) yield out;
    } finally {
      lines.close();
    }
  }
}

let spillSerial = 0;

const NO_VARS: ScanVars = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

export class TrialLogScanner {
  readonly #patterns: readonly CustomPattern[];
  readonly #session: ScanSession;
  /** Recipe index of each live custom pattern, by detector id (the session ranks them by its own order). */
  readonly #liveIndex = new Map<string, number>();
  readonly #deferred: Deferred[] = [];
  readonly #windower: ByteWindower;
  readonly #options: LogScannerOptions;
  readonly #budget: CandidateBudget;
  #keptCandidates = 0;
  #keptUnits = 0;
  #deferredMs = 0;
  #bytes = 0;
  #finished = false;

  constructor(recipe: ScanRecipe | null, options: LogScannerOptions = {}) {
    this.#options = options;
    this.#budget = options.candidateBudget ?? DEFAULT_CANDIDATE_BUDGET;
    this.#patterns = recipe?.customPatterns ?? [];
    this.#windower = new ByteWindower(options);
    const live: CustomPattern[] = [];
    try {
      this.#patterns.forEach((p, index) => {
        if (p.condition === null || !readsTrialVars(p.condition)) {
          this.#liveIndex.set(p.detectorId, index);
          live.push(p);
          return;
        }
        const regex = compileRegex(p.regex, p.flags);
        this.#deferred.push({
          pattern: p, index, regex, condition: compileCondition(p.condition.source), matcher: new WindowedMatcher(regex),
          candidates: [], seen: new Set(), spill: null,
        });
      });
      this.#session = new ScanSession({ customPatterns: live }, NO_VARS);
    } catch (e) {
      for (const d of this.#deferred) d.regex.dispose();
      throw e;
    }
  }

  /** Bytes pushed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** False once no further log text can change the result (then pushing only counts bytes). */
  get wantsInput(): boolean {
    return !this.#session.done || this.#deferred.length > 0;
  }

  /** Feeds the next chunk of log bytes (invalid UTF-8 reads as U+FFFD, as the original's `errors="replace"`). */
  push(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (!this.wantsInput) return;
    for (const w of this.#windower.push(chunk)) this.#feed(w);
  }

  #feed(w: ScanWindow): void {
    this.#session.feed(w);
    const t0 = performance.now();
    for (const d of this.#deferred) this.#collect(d, w);
    this.#deferredMs += performance.now() - t0;
  }

  #collect(d: Deferred, w: ScanWindow): void {
    for (const m of d.matcher.matchesIn(w)) {
      const key = JSON.stringify(Object.entries(m.named));
      if (d.seen.has(key)) continue;
      const candidate: Candidate = { offset: m.index, named: m.named };
      if (d.spill === null && this.#keptCandidates < this.#budget.candidates && this.#keptUnits + key.length <= this.#budget.units) {
        this.#keptCandidates++;
        this.#keptUnits += key.length;
        d.seen.add(key);
        d.candidates.push(candidate);
        continue;
      }
      // Once a pattern spills, all its later candidates do, so memory-then-spill stays in log order.
      d.spill ??= new Spill(join(this.#options.spillDir ?? tmpdir(), `.aorta-probe-candidates-${process.pid}-${++spillSerial}.jsonl`));
      d.spill.add(candidate);
    }
  }

  /**
   * Ends the log and decides everything with the trial's final values.
   */
  async finish(vars: ScanVars): Promise<ScanResult & { deferred: DeferredReport[] }> {
    if (this.#finished) throw new Error('TrialLogScanner: finish() twice');
    this.#finished = true;
    if (this.wantsInput) {
      for (const w of this.#windower.end()) this.#feed(w);
    }
    const t0 = performance.now();
    const firings: Firing[] = [...this.#session.tier4Firings()];
    for (const f of this.#session.tier5Firings()) {
      firings.push({ ...f, rank: TIER4_PATTERNS.length + this.#liveIndex.get(f.detectorId)! });
    }
    const reports: DeferredReport[] = [];
    for (const d of this.#deferred) {
      reports.push({ detectorId: d.pattern.detectorId, candidates: d.candidates.length + (d.spill?.count ?? 0), spilled: d.spill?.count ?? 0 });
      const hit = await firstFiring(d, vars);
      d.spill?.remove();
      if (hit !== null) firings.push(makeFiring(d, hit));
    }
    this.#deferredMs += performance.now() - t0;
    const timing = this.#session.result().tier_durations_ms;
    return {
      ...resolveVerdict(firings, this.#patterns),
      tier_durations_ms: { tier4: timing.tier4, tier5: timing.tier5 + this.#deferredMs },
      deferred: reports.sort((a, b) => a.detectorId.localeCompare(b.detectorId)),
    };
  }

  /** Releases every regex lease (idempotent). */
  dispose(): void {
    this.#session.dispose();
    for (const d of this.#deferred.splice(0)) {
      d.regex.dispose();
      d.spill?.remove();
    }
  }
}

/** The first candidate (in memory, then spilled) whose condition holds with the final values. */
async function firstFiring(d: Deferred, vars: ScanVars): Promise<Candidate | null> {
  const k = firstHolding(d.condition, d.candidates.map((c) => c.named), vars);
  if (k !== -1) return d.candidates[k]!;
  if (d.spill === null) return null;
  for await (const batch of d.spill.read()) {
    const j = firstHolding(d.condition, batch.map((c) => c.named), vars);
    if (j !== -1) return batch[j]!;
  }
  return null;
}

function makeFiring(d: Deferred, c: Candidate): Firing {
  return {
    detectorId: d.pattern.detectorId, kind: d.pattern.onMatch, offset: c.offset, rank: TIER4_PATTERNS.length + d.index,
    named: c.named, requiredForPass: d.pattern.requiredForPass,
  };
}

