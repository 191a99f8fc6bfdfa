/**
 * Compiling, caching and disposing RE2 programs.
 *
 * Every compiled program lives in the fixed 16 MiB WebAssembly heap until its embind handle is deleted, so
 * compiled regexes are reference-counted: `compileRegex()` returns a fresh `RegexHandle` lease on a shared entry
 * keyed by (pattern, normalised flags); `handle.dispose()` releases the lease. An entry with no leases is kept in a
 * small idle LRU (`maxIdle`) for reuse and deleted when evicted or on `clear()`.
 */
import { compileProgram, deferredProgram, type Re2Program } from './engine.js';
import { compileIsCertain } from './deferred-compile.js';
import { isReady } from './engine-loader.js';
import { RegexDisposedError, RegexSyntaxError, RegexTooLargeError } from './errors.js';
import type { RegexTree } from './ast.js';
import { fastPathRegExp } from './fast-path.js';
import { literalsOf, type LiteralSet } from './literals.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';
import { emptyMatches, nonEmptyCompanion, type EmptyMatches } from './nonempty.js';
import { mayMatchNewline } from './newline.js';
import { hintForRe2Error, translatePythonRegex, type RegexNote, type TranslatedPattern } from './syntax.js';

/**
 * Flags as letters: `i` IGNORECASE, `m` MULTILINE, `s` DOTALL. `u` is accepted and implied (RE2 always works on
 * UTF-8 code points; re2-wasm's JS wrapper demands it, this layer does not need it). Any other letter is an error
 * (re2-wasm's wrapper silently ignores unknown letters).
 */
export type RegexFlagString = string;

const PY_FLAGS: Record<string, string> = {
  I: 'i',
  IGNORECASE: 'i',
  M: 'm',
  MULTILINE: 'm',
  S: 's',
  DOTALL: 's',
  U: '',
  UNICODE: '', // the default for str patterns in Python; RE2 matches code points (but \d\w\s\b stay ASCII)
};

/** Maps Python `re` flag names (`re.IGNORECASE` → "IGNORECASE" or "I") to a flag string. */
export function flagsFromPython(names: Iterable<string>): RegexFlagString {
  let out = '';
  for (const raw of names) {
    const name = raw.replace(/^re\./, '');
    const letter = PY_FLAGS[name];
    if (letter === undefined) {
      throw new RegexSyntaxError({
        kind: 'bad-flags',
        pattern: '',
        offset: -1,
        detail: `Python flag ${raw} has no RE2 equivalent`,
        hint: 'supported flags: IGNORECASE, MULTILINE, DOTALL (UNICODE is implied)',
      });
    }
    out += letter;
  }
  return normaliseFlags(out, '');
}

function normaliseFlags(flags: string, pattern: string): string {
  let i = false;
  let m = false;
  let s = false;
  for (const ch of flags) {
    if (ch === 'i') i = true;
    else if (ch === 'm') m = true;
    else if (ch === 's') s = true;
    else if (ch !== 'u') {
      throw new RegexSyntaxError({
        kind: 'bad-flags',
        pattern,
        offset: -1,
        detail: `unsupported regex flag ${JSON.stringify(ch)}`,
        hint: 'supported flags: i (IGNORECASE), m (MULTILINE), s (DOTALL); u is implied',
      });
    }
  }
  return `${i ? 'i' : ''}${m ? 'm' : ''}${s ? 's' : ''}`;
}

interface Entry {
  key: string;
  pattern: string;
  flags: string;
  /** What the pattern's tree says (source, groups, the analyses the scanner asks for). */
  analysis: Analysis;
  raw: Re2Program;
  refs: number;
  deleted: boolean;
}

/** A lease on a compiled regex. Use it with `searchRegex` / `matchAll` / `testRegex`; call `dispose()` when done. */
export class RegexHandle {
  #entry: Entry | null;
  /** Kept past dispose(): the handle's properties stay readable. */
  readonly #analysis: Analysis;
  readonly #cache: RegexCache;
  readonly pattern: string;
  /** Normalised flags (subset of "ims", in that order). */
  readonly flags: string;
  /** The pattern as given to RE2 (after `(?<name>` / `\u` rewriting and the `(?m)` prefix for MULTILINE). */
  readonly source: string;
  readonly notes: readonly RegexNote[];
  /** `groupNames[k]` names capture group k+1 (undefined for an unnamed group); length = number of groups. */
  readonly groupNames: readonly (string | undefined)[];
  /**
   * True when the pattern provably cannot match "\n" (conservative lexical check), so every match lies within
   * one line: the match functions then feed re2-wasm line-aligned windows (no per-match copy of the whole
   * remaining text, and no total subject-size limit — only a single line must fit).
   */
  get lineLocal(): boolean {
    return this.#analysis.lineLocal;
  }
  /**
   * The pattern as a V8 RegExp (flags `gu`) when fast-path.ts proves it returns RE2's matches in linear time;
   * the match functions then use it instead of re2-wasm. Shared by every lease: set `lastIndex` before each exec.
   */
  get fast(): RegExp | null {
    return this.#analysis.fast;
  }
  /** Literals every match contains (literals.ts, the scanner's prefilter), or null when none can be proven. */
  get literals(): LiteralSet | null {
    return this.#analysis.literals;
  }
  /**
   * For a pattern that can match the empty string and whose empty matches all capture the same dict
   * (`emptyMatches`): a Python pattern (same flags) whose matches start at every position where this one can match
   * something non-empty (nonempty.ts, E2). The scanner uses it to step over runs of empty matches once their
   * capture dict is known not to fire. Null otherwise.
   */
  get nonEmptyCompanion(): string | null {
    return this.#analysis.nonEmptyCompanion;
  }
  /**
   * What every empty match captures (the named groups set to '') and whether the pattern matches at every position
   * (nonempty.ts, E1 and E3); null when it cannot match empty or its empty matches may capture different dicts.
   */
  get emptyMatches(): EmptyMatches | null {
    return this.#analysis.emptyMatches;
  }

  /** @internal use compileRegex / RegexCache.compile */
  constructor(entry: Entry, cache: RegexCache) {
    this.#entry = entry;
    this.#cache = cache;
    this.#analysis = entry.analysis;
    this.pattern = entry.pattern;
    this.flags = entry.flags;
    this.source = entry.analysis.source;
    this.notes = entry.analysis.notes;
    this.groupNames = entry.analysis.groupNames;
  }

  get disposed(): boolean {
    return this.#entry === null;
  }

  /** Releases this lease (idempotent). The program is freed once no lease holds it and it leaves the idle cache. */
  dispose(): void {
    const e = this.#entry;
    if (e === null) return;
    this.#entry = null;
    this.#cache.release(e);
  }

  /** @internal the compiled program, for the match functions. */
  raw(): Re2Program {
    const e = this.#entry;
    if (e === null) throw new RegexDisposedError(`regex ${JSON.stringify(this.pattern)} was used after dispose()`);
    return e.raw;
  }
}

export interface RegexCacheStats {
  hits: number;
  misses: number;
  /** Entries with at least one live lease. */
  live: number;
  /** Entries kept for reuse without a lease. */
  idle: number;
  /** Programs compiled / deleted over the cache's lifetime (their difference is live + idle). */
  compiled: number;
  deleted: number;
}

export interface CompileOptions {
  /**
   * The caller vouches that RE2 compiles the pattern (a constant of the catalogue that a test compiles): its
   * program is compiled when first matched (deferred-compile.ts).
   */
  readonly engineVouched?: boolean;
}

/** `compileRegex`'s option keys (text/options.ts). */
export const REGEX_COMPILE_OPTION_KEYS = { engineVouched: OPTION } satisfies OptionTable<CompileOptions>;

export interface RegexCacheOptions {
  /** How many unleased programs to keep for reuse (LRU). 0 frees a program as soon as its last lease goes. */
  maxIdle?: number;
}

export class RegexCache {
  readonly maxIdle: number;
  readonly #entries = new Map<string, Entry>();
  /** Unleased entries, oldest first (Map insertion order). */
  readonly #idle = new Map<string, Entry>();
  #hits = 0;
  #misses = 0;
  #compiled = 0;
  #deleted = 0;

  constructor(options: RegexCacheOptions = {}) {
    this.maxIdle = Math.max(0, Math.floor(options.maxIdle ?? 64));
  }

  /**
   * Compiles `pattern` (Python `re` syntax, checked and translated by `translatePythonRegex`) or reuses the
   * cached program; throws `RegexSyntaxError` (a `RecipeSchemaError`) for a pattern RE2 cannot run with the
   * same meaning.
   */
  compile(pattern: string, flags: RegexFlagString = '', options: CompileOptions = {}): RegexHandle {
    if (typeof pattern !== 'string') {
      throw new RegexSyntaxError({
        kind: 'not-a-string',
        pattern: String(pattern),
        offset: -1,
        detail: 'pattern must be a string',
        hint: '',
      });
    }
    const norm = normaliseFlags(flags, pattern);
    const key = `${norm}\u0000${pattern}`;
    const hit = this.#entries.get(key);
    if (hit) {
      this.#hits++;
      if (hit.refs === 0) this.#idle.delete(key);
      hit.refs++;
      return new RegexHandle(hit, this);
    }
    this.#misses++;
    const a = analyse(key, pattern, norm);
    // deferred-compile.ts: where RE2 certainly compiles the pattern, it is compiled when first matched.
    const deferred = isReady() && (options.engineVouched === true || a.certain);
    let raw: Re2Program;
    try {
      raw = (deferred ? deferredProgram : compileProgram)(a.source, norm.includes('i'), norm.includes('s'));
    } catch (err) {
      // The engine only knows the translated source; the user wrote `pattern`.
      if (err instanceof RegexTooLargeError) throw new RegexTooLargeError(pattern, err.engineReason);
      throw err;
    }
    this.#compiled++;
    let ok = false;
    try {
      if (!deferred && !raw.ok()) throw re2Rejection(pattern, raw.error());
      const entry: Entry = { key, pattern, flags: norm, analysis: a, raw, refs: 1, deleted: false };
      this.#entries.set(key, entry);
      ok = true;
      return new RegexHandle(entry, this);
    } finally {
      if (!ok) this.#free(raw);
    }
  }

  /** @internal called by RegexHandle.dispose */
  release(entry: Entry): void {
    if (entry.deleted || entry.refs <= 0) return;
    entry.refs--;
    if (entry.refs > 0) return;
    if (this.maxIdle === 0) {
      this.#drop(entry);
      return;
    }
    this.#idle.set(entry.key, entry);
    while (this.#idle.size > this.maxIdle) {
      const oldest = this.#idle.values().next().value as Entry;
      this.#idle.delete(oldest.key);
      this.#drop(oldest);
    }
  }

  /** Frees every idle program. Leased programs stay until their last handle is disposed. */
  clear(): void {
    for (const e of this.#idle.values()) this.#drop(e);
    this.#idle.clear();
  }

  stats(): RegexCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      live: this.#entries.size - this.#idle.size,
      idle: this.#idle.size,
      compiled: this.#compiled,
      deleted: this.#deleted,
    };
  }

  #drop(entry: Entry): void {
    this.#entries.delete(entry.key);
    entry.deleted = true;
    this.#free(entry.raw);
  }

  #free(raw: Re2Program): void {
    raw.delete();
    this.#deleted++;
  }
}

/**
 * What a pattern's compile derives from its tree alone: everything but the RE2 program. What only a scan asks
 * for (the fast path, literals, empty-match companions, line locality) is derived on first use: `check` of a
 * recipe never needs it, and in a cold process each costs about as much as the translation.
 */
class Analysis {
  readonly source: string;
  readonly notes: RegexNote[];
  readonly groupNames: (string | undefined)[];
  /** deferred-compile.ts: RE2 certainly compiles `source`. */
  readonly certain: boolean;
  readonly #tree: RegexTree;
  #fast: RegExp | null | undefined;
  #literals: LiteralSet | null | undefined;
  #nonEmptyCompanion: string | null | undefined;
  #emptyMatches: EmptyMatches | null | undefined;
  #lineLocal: boolean | undefined;

  constructor(translated: TranslatedPattern, norm: string) {
    const tree = translated.tree;
    this.#tree = tree;
    this.source = norm.includes('m') ? `(?m)${translated.source}` : translated.source;
    this.notes = translated.notes;
    // The tree numbers and names groups as RE2 does (the translator writes its names); test/regex-*.test.ts
    // compare them with RE2's own map. The embind class does not expose NumberOfCapturingGroups().
    this.groupNames = tree.groups.map((g) => g.name ?? undefined);
    this.certain = compileIsCertain(tree);
  }

  get fast(): RegExp | null {
    if (this.#fast === undefined) this.#fast = fastPath(this.#tree, this.#tree.groups.length);
    return this.#fast;
  }
  get literals(): LiteralSet | null {
    if (this.#literals === undefined) this.#literals = literalsOf(this.#tree);
    return this.#literals;
  }
  get nonEmptyCompanion(): string | null {
    if (this.#nonEmptyCompanion === undefined) this.#nonEmptyCompanion = nonEmptyCompanion(this.#tree);
    return this.#nonEmptyCompanion;
  }
  get emptyMatches(): EmptyMatches | null {
    if (this.#emptyMatches === undefined) this.#emptyMatches = emptyMatches(this.#tree);
    return this.#emptyMatches;
  }
  get lineLocal(): boolean {
    this.#lineLocal ??= !mayMatchNewline(this.#tree);
    return this.#lineLocal;
  }
}

/**
 * Analyses by cache key, kept past their entry's eviction: a recipe of thousands of patterns is compiled once to
 * load it and again for each scan session, and a cache that keeps 256 idle programs would otherwise parse,
 * translate and analyse each pattern twice (~0.2 ms each). Analyses hold no engine memory; the map is bounded.
 */
const analyses = new Map<string, Analysis>();
const MAX_ANALYSES = 8192;

function analyse(key: string, pattern: string, norm: string): Analysis {
  const known = analyses.get(key);
  if (known !== undefined) return known;
  const a = new Analysis(translateOrRe2Error(pattern, norm), norm);
  if (analyses.size >= MAX_ANALYSES) analyses.delete(analyses.keys().next().value!);
  analyses.set(key, a);
  return a;
}

/** RE2's own rejection of a pattern, with a hint where its message has one. */
function re2Rejection(pattern: string, message: string): RegexSyntaxError {
  return new RegexSyntaxError({ kind: 're2', pattern, offset: -1, detail: message, hint: hintForRe2Error(message) });
}

/** The process-wide cache used by `compileRegex`. */
export const defaultRegexCache = new RegexCache({ maxIdle: 256 });

/** The fast-path RegExp, kept only if it has exactly RE2's capture groups (a cross-check of its JS spelling). */
function fastPath(tree: RegexTree, groups: number): RegExp | null {
  const re = fastPathRegExp(tree);
  if (re === null) return null;
  const probe = new RegExp(`${re.source}|`, 'u').exec('');
  return probe !== null && probe.length - 1 === groups ? re : null;
}

/**
 * The translation, or the rejection to report. A pattern Python rejects that RE2 rejects too keeps RE2's
 * message (kind 're2'), as it always had; one RE2 would accept (`\\b+`, `a{2}{3}`) gets Python's.
 */
function translateOrRe2Error(pattern: string, flags: string): TranslatedPattern {
  try {
    return translatePythonRegex(pattern, flags);
  } catch (e) {
    if (!(e instanceof RegexSyntaxError) || e.kind !== 'syntax') throw e;
    let raw: Re2Program;
    try {
      raw = compileProgram(pattern, false, false);
    } catch (err) {
      if (err instanceof RegexTooLargeError) throw e; // Python's reason is the better one to report
      throw err;
    }
    try {
      if (!raw.ok()) throw re2Rejection(pattern, raw.error());
    } finally {
      raw.delete();
    }
    throw e;
  }
}

/** `defaultRegexCache.compile(pattern, flags)`: a lease on a cached compiled regex; dispose it when done. */
export function compileRegex(pattern: string, flags: RegexFlagString = '', options: CompileOptions = {}): RegexHandle {
  checkOptions('compileRegex', options, REGEX_COMPILE_OPTION_KEYS);
  return defaultRegexCache.compile(pattern, flags, options);
}
