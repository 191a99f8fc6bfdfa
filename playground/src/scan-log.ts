/**
 * The playground's scan of a pasted log under a loaded recipe: the library's classification (classify-log.ts:
 * disables, Tier 1 from the exit code, Tiers 4 and 5, categories), plus what only the playground shows — each
 * custom pattern's first match and its condition's value there. No worker globals: the worker posts what this
 * returns, and tests drive it in Node.
 */
import type { CompiledCondition, DetailedResult, Firing, Recipe } from '../../src/index.js';
import { classifyLogScan, planLogScan } from '../../src/classifier/classify-log.js';
import {
  conditionErrorsLine,
  feedSource,
  ScanSession,
  type AbsoluteMatch,
  type ScanObserver,
  type ScanPattern,
} from '../../src/scan/index.js';
import type { FiringOut, MatchOut, PatternResult, ScanOut, ValueOut, Vars } from './protocol.js';

export function valueOut(r: DetailedResult): ValueOut {
  return 'error' in r ? { error: r.error, fired: false } : { type: r.value.type, repr: r.value.repr, fired: r.fired };
}

/** A string log is fed in pieces of about this many UTF-16 units, so the page sees progress. */
const STRING_PIECE = 1 << 20;

/** `text` in pieces that never split a surrogate pair (the windower counts UTF-8 bytes per piece). */
function* stringPieces(text: string): Generator<string> {
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + STRING_PIECE);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end++;
    yield text.slice(i, end);
    i = end;
  }
}

/** A Blob's bytes; the read is cancelled when the scan stops early (the iterator's `return()`). */
async function* blobChunks(blob: Blob): AsyncGenerator<Uint8Array> {
  const reader = blob.stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel();
  }
}

const clip = (text: string): string => (text.length > 400 ? `${text.slice(0, 400)}…` : text);

/**
 * Classifies `log` under `recipe` with the page's variables. `onProgress` sees the units (a string's UTF-16
 * units, a Blob's bytes) fed so far. Throws what the scan throws.
 */
export async function scanRecipeLog(
  recipe: Recipe,
  log: string | Blob,
  vars: Vars,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ScanOut> {
  const t0 = performance.now();
  const evalOn = (cond: CompiledCondition | null, capture: Readonly<Record<string, string>>): ValueOut | null =>
    cond === null ? null : valueOut(cond.evaluateDetailed({ capture: { ...capture }, ...vars }));
  // The first match of each custom pattern, by rank; the session stops matching a pattern once it fired, and a
  // pattern's first match comes no later than its firing, so the scan may stop as soon as the session is done.
  const first = new Map<number, MatchOut>();
  let session: ScanSession | null = null;
  const observer: ScanObserver = {
    matchFound: (p: ScanPattern, m: AbsoluteMatch) => {
      if (p.custom === null || first.has(p.rank)) return;
      first.set(p.rank, {
        offset: m.index,
        line: session!.locate(m.index).line,
        text: clip(m.match),
        capture: { ...m.named },
        condition: evalOn(p.condition, m.named),
      });
    },
  };
  const plan = planLogScan(recipe);
  try {
    session = new ScanSession(plan.scanRecipe, vars, { observer });
    const total = typeof log === 'string' ? log.length : log.size;
    let done = 0;
    await feedSource(session, typeof log === 'string' ? stringPieces(log) : blobChunks(log), {}, (chunk) => {
      done += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
      onProgress(done, total);
    });
    onProgress(total, total);
    const r = classifyLogScan(plan, session.result(), vars);
    // A firing is listed with its category as the classification gives it; disabled detectors are not listed.
    const shown = new Map(r.detectors.map((d) => [d.id, d]));
    const firingOut = (f: Firing): FiringOut[] => {
      const d = shown.get(f.detectorId);
      return d === undefined
        ? []
        : [
            {
              detectorId: f.detectorId,
              kind: f.kind,
              offset: f.offset,
              line: f.line,
              who: d.who,
              transient: d.transient,
              category: d.category,
            },
          ];
    };
    const t5 = session.tier5Firings();
    const patterns: PatternResult[] = session
      .patterns()
      .filter((p) => p.custom !== null)
      .map((p) => {
        const f = t5.find((y) => y.rank === p.rank) ?? null;
        const firstMatch = first.get(p.rank) ?? null;
        let firing: MatchOut | null = null;
        if (f !== null) {
          firing =
            firstMatch !== null && firstMatch.offset === f.offset
              ? firstMatch
              : {
                  offset: f.offset,
                  line: f.line,
                  text: f.text,
                  capture: { ...f.named },
                  condition: evalOn(p.condition, f.named),
                };
        }
        return { detectorId: p.detectorId, first: firstMatch, firing };
      });
    return {
      verdict: r.verdict,
      failure_detectors_fired: r.failure_detectors_fired,
      error_detectors_fired: r.error_detectors_fired,
      engine_failures: r.engine_failures.map((f) => ({ pattern: f.pattern, line: f.line, message: f.message })),
      condition_errors: r.condition_errors.map((e) => ({
        pattern: e.pattern,
        line: e.line,
        text: conditionErrorsLine(e, 'log'),
      })),
      warn_detectors_fired: r.warn_detectors_fired,
      capture: r.capture,
      detectors: r.detectors,
      tier4: session.tier4Firings().flatMap(firingOut),
      tier5: t5.flatMap(firingOut),
      patterns,
      bytes: total,
      ms: performance.now() - t0,
      tier_durations_ms: r.tier_durations_ms,
    };
  } finally {
    session?.dispose();
  }
}
