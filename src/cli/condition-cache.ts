/**
 * A bounded LRU cache of compiled conditions, keyed by condition text, so a stream that repeats a
 * condition validates and compiles it once.
 *
 * Compiled conditions share one VM instance, so an entry is small (the tree and the bytecode);
 * the cache is bounded by entry count, least recently used first out.
 *
 * Rejections (SandboxErrors) are cached too: they own no VM. Non-string conditions are never cached
 * (they are rejected without parsing anyway), and neither is anything that threw some other error.
 */
import { SandboxError } from '../condition/errors.js';
import type { ConditionVars, DetailedResult } from '../condition/evaluate.js';

/** What the CLI needs from a compiled condition. */
export interface ConditionEvaluator {
  evaluateDetailed(vars: ConditionVars): DetailedResult;
}

/** Compiles a condition or throws a SandboxError (anything else thrown is a bug). */
export type CompileFn = (condition: unknown) => ConditionEvaluator;

export const DEFAULT_CACHE_ENTRIES = 512;

type Entry = { ok: true; evaluator: ConditionEvaluator } | { ok: false; error: SandboxError };

export class ConditionCache {
  private readonly entries = new Map<string, Entry>();
  /** Number of times `compile` was called (cache misses plus non-string conditions). */
  compiles = 0;

  constructor(
    private readonly compile: CompileFn,
    readonly maxEntries = DEFAULT_CACHE_ENTRIES,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0)
      throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Evaluates `condition` with `vars`. Throws the (possibly cached) SandboxError for a rejected
   * condition; any other error propagates and leaves nothing cached for this condition.
   */
  evaluate(condition: unknown, vars: ConditionVars): DetailedResult {
    if (typeof condition !== 'string') {
      this.compiles++;
      return this.compile(condition).evaluateDetailed(vars);
    }
    const entry = this.lookup(condition);
    if (!entry.ok) throw entry.error;
    let result: DetailedResult;
    try {
      result = entry.evaluator.evaluateDetailed(vars);
    } catch (err) {
      this.entries.delete(condition);
      throw err;
    }
    return result;
  }

  private lookup(condition: string): Entry {
    const hit = this.entries.get(condition);
    if (hit !== undefined) {
      // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
      this.entries.delete(condition);
      this.entries.set(condition, hit);
      return hit;
    }
    let entry: Entry;
    this.compiles++;
    try {
      entry = { ok: true, evaluator: this.compile(condition) };
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      entry = { ok: false, error: err };
    }
    if (this.maxEntries > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(condition, entry);
    }
    return entry;
  }
}
