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
import {
  ByteWindower,
  cutMatchText,
  evaluateMatches,
  makeFiring,
  ScanSession,
  type AbsoluteMatch,
  type ConditionErrors,
  type Firing,
  type ScanOptions,
  type ScanPattern,
  type ScanRecipe,
  type ScanResult,
  type ScanVars,
} from '../scan/index.js';
import { SCAN_OPTION_KEYS } from '../scan/scan.js';
import { checkOptions, nested, OPTION, type OptionTable } from '../text/options.js';
import { readsTrialVars } from './trial-vars.js';
import { now } from '../scan/clock.js';

export interface CandidateBudget {
  /** Most candidate matches kept over all deferred patterns. */
  readonly candidates: number;
  /** Most UTF-16 units of capture names and values kept over all deferred patterns. */
  readonly units: number;
}

/** `candidateBudget`'s keys (text/options.ts). */
export const CANDIDATE_BUDGET_KEYS = { candidates: OPTION, units: OPTION } satisfies OptionTable<CandidateBudget>;

export const DEFAULT_CANDIDATE_BUDGET: CandidateBudget = { candidates: 4096, units: 4 * 1024 * 1024 };

export interface LogScannerOptions extends ScanOptions {
  readonly candidateBudget?: CandidateBudget;
  /** Directory for spill files (default: the OS temporary directory). */
  readonly spillDir?: string;
}

/** `new TrialLogScanner`'s option keys, and `runTrial`'s `scan` (text/options.ts). */
export const LOG_SCANNER_OPTION_KEYS = {
  ...SCAN_OPTION_KEYS,
  candidateBudget: nested(CANDIDATE_BUDGET_KEYS, { nullable: true }), // null: the default budget
  spillDir: OPTION,
} satisfies OptionTable<LogScannerOptions>;

/** How each deferred pattern was decided (tests, diagnostics). */
export interface DeferredReport {
  readonly detectorId: string;
  /** Distinct candidate matches recorded. */
  readonly candidates: number;
  /** How many of them went to the spill file. */
  readonly spilled: number;
}

/** A recorded match: what a firing at it reports. */
interface Candidate {
  readonly index: number;
  readonly line: number;
  readonly byteOffset: number;
  readonly match: string;
  readonly named: Readonly<Record<string, string>>;
}

interface Deferred {
  readonly pattern: ScanPattern;
  /** In memory, in log order; all of them come before the spilled ones. */
  readonly candidates: Candidate[];
  /** Keys of the recorded candidates, while the budget lasts (a key not here is spilled, maybe again). */
  readonly seen: Set<string>;
  spill: Spill | null;
}

/** Candidates past the budget, as JSON Lines `[index, line, byteOffset, match, named]`, written in 64 KiB batches. */
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
    this.#pending += `${JSON.stringify([c.index, c.line, c.byteOffset, c.match, c.named])}\n`;
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
        const [index, lineNo, byteOffset, match, named] = JSON.parse(line) as [
          number,
          number,
          number,
          string,
          Record<string, string>,
        ];
        out.push({ index, line: lineNo, byteOffset, match, named });
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
  readonly #session: ScanSession;
  /** The deferred patterns, by rank. */
  readonly #deferred = new Map<number, Deferred>();
  readonly #windower: ByteWindower;
  readonly #options: LogScannerOptions;
  readonly #budget: CandidateBudget;
  #keptCandidates = 0;
  #keptUnits = 0;
  #bytes = 0;
  #finished = false;

  constructor(recipe: ScanRecipe | null, options: LogScannerOptions = {}) {
    checkOptions('new TrialLogScanner', options, LOG_SCANNER_OPTION_KEYS);
    this.#options = options;
    this.#budget = options.candidateBudget ?? DEFAULT_CANDIDATE_BUDGET;
    this.#session = new ScanSession(recipe, NO_VARS, {
      defer: (p) => p.condition !== null && readsTrialVars(p.condition),
      observer: { matchFound: (p, m) => this.#collect(p, m) },
    });
    this.#windower = new ByteWindower(options, this.#session.byteBuffer());
    for (const p of this.#session.patterns()) {
      if (p.deferred) this.#deferred.set(p.rank, { pattern: p, candidates: [], seen: new Set(), spill: null });
    }
  }

  /** Bytes pushed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** False once no further log text can change the result (then pushing only counts bytes). */
  get wantsInput(): boolean {
    return !this.#session.done;
  }

  /** Feeds the next chunk of log bytes (invalid UTF-8 reads as U+FFFD, as the original's `errors="replace"`). */
  push(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (!this.wantsInput) return;
    for (const w of this.#windower.push(chunk)) this.#session.feed(w);
  }

  /** A match of a deferred pattern (the session decides the others): recorded once per distinct capture dict. */
  #collect(p: ScanPattern, m: AbsoluteMatch): void {
    if (!p.deferred) return;
    const d = this.#deferred.get(p.rank)!;
    const key = JSON.stringify(Object.entries(m.named));
    if (d.seen.has(key)) return;
    const at = this.#session.locate(m.index);
    const candidate: Candidate = {
      index: m.index,
      line: at.line,
      byteOffset: at.byteOffset,
      match: cutMatchText(m.match),
      named: m.named,
    };
    if (
      d.spill === null &&
      this.#keptCandidates < this.#budget.candidates &&
      this.#keptUnits + key.length <= this.#budget.units
    ) {
      this.#keptCandidates++;
      this.#keptUnits += key.length;
      d.seen.add(key);
      d.candidates.push(candidate);
      return;
    }
    // Once a pattern spills, all its later candidates do, so memory-then-spill stays in log order.
    d.spill ??= new Spill(
      join(this.#options.spillDir ?? tmpdir(), `.aorta-probe-candidates-${process.pid}-${++spillSerial}.jsonl`),
    );
    d.spill.add(candidate);
  }

  /**
   * Ends the log and decides everything with the trial's final values.
   */
  async finish(vars: ScanVars): Promise<ScanResult & { deferred: DeferredReport[] }> {
    if (this.#finished) throw new Error('TrialLogScanner: finish() twice');
    this.#finished = true;
    if (this.wantsInput) {
      for (const w of this.#windower.end()) this.#session.feed(w);
    }
    const t0 = now();
    const firings: Firing[] = [];
    const raises: ConditionErrors[] = [];
    const reports: DeferredReport[] = [];
    for (const d of this.#deferred.values()) {
      reports.push({
        detectorId: d.pattern.detectorId,
        candidates: d.candidates.length + (d.spill?.count ?? 0),
        spilled: d.spill?.count ?? 0,
      });
      const { hit, raised } = await firstFiring(d, vars);
      d.spill?.remove();
      if (hit !== null) firings.push(makeFiring(d.pattern, hit, hit));
      if (raised !== null) raises.push(raised);
    }
    // The session's Tier 5 time already includes collecting the candidates (its observer runs inside feed()).
    return {
      ...this.#session.result(firings, now() - t0, raises),
      deferred: reports.sort((a, b) => a.detectorId.localeCompare(b.detectorId)),
    };
  }

  /** Releases every regex lease (idempotent). */
  dispose(): void {
    this.#session.dispose();
    for (const d of this.#deferred.values()) d.spill?.remove();
    this.#deferred.clear();
  }
}

/**
 * The first candidate (in memory, then spilled) whose condition holds with the final values, and how often the
 * condition raised on the candidates before it (distinct captures: the count is of those).
 */
async function firstFiring(
  d: Deferred,
  vars: ScanVars,
): Promise<{ hit: Candidate | null; raised: ConditionErrors | null }> {
  const condition = d.pattern.condition!; // deferred patterns are those whose condition reads a trial variable
  let raised: ConditionErrors | null = null;
  let evaluated = 0;
  const decide = (batch: readonly Candidate[]): Candidate | null => {
    const e = evaluateMatches(
      condition,
      batch.map((c) => c.named),
      vars,
    );
    evaluated += e.evaluated;
    if (e.raised > 0) {
      const first = batch[e.firstRaised]!;
      raised ??= {
        pattern: d.pattern.detectorId,
        error: e.error!,
        raised: 0,
        evaluated: 0,
        line: first.line,
        byte_offset: first.byteOffset,
      };
      raised.raised += e.raised;
    }
    return e.holding < 0 ? null : batch[e.holding]!;
  };
  const done = (hit: Candidate | null) => ({
    hit,
    raised: raised === null ? null : { ...(raised as ConditionErrors), evaluated },
  });
  const k = decide(d.candidates);
  if (k !== null || d.spill === null) return done(k);
  for await (const batch of d.spill.read()) {
    const j = decide(batch);
    if (j !== null) return done(j);
  }
  return done(null);
}
