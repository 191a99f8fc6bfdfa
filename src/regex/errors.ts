/**
 * Typed errors of the regex engine (`src/regex/`).
 *
 * `RegexSyntaxError` extends `RecipeSchemaError` (src/errors.ts), so the recipe loader's single `catch (RecipeSchemaError)`
 * also reports a bad `match.regex` at load time. The runtime errors (`RegexSubjectTooLargeError`,
 * `RegexEngineError`, `RegexDisposedError`) are plain `Error`s: they are caller or engine faults, not recipe faults.
 */
import { RecipeSchemaError } from '../errors.js';

/** Why a pattern was rejected; lets callers and tests branch without parsing messages. */
export type RegexSyntaxErrorKind =
  | 'end-anchor-Z' // \Z
  | 'empty-min-repeat' // a{,n} / a{,}
  | 'lookahead' // (?=…) (?!…)
  | 'lookbehind' // (?<=…) (?<!…)
  | 'named-group-spelling' // (?<name>…), which Python 3.11 rejects
  | 'backreference' // \1 … \99, (?P=name)
  | 'atomic-group' // (?>…)
  | 'possessive' // a*+ a++ a?+ a{n}+
  | 'verbose-flag' // (?x)
  | 'inline-flag' // (?a) (?L) (?u) (?U) …
  | 'comment-group' // (?#…)
  | 'conditional' // (?(1)a|b)
  | 'named-char' // \N{…}
  | 'class-backspace' // [\b]
  | 'posix-class' // [[:alpha:]] (Python reads it as a plain set)
  | 'any-byte' // \C
  | 'bad-escape' // RE2-only or unknown escapes Python rejects: \z \pL \x{41} \Q…\E \e
  | 'ignorecase-astral-set' // (?i)[𐐀]: CPython's own matching of it is inconsistent
  | 'global-flag-position' // (?i) anywhere but the start, which Python 3.11 rejects
  | 'syntax' // any other pattern Python's re rejects (message is Python's)
  | 'bad-flags' // compile flags outside "imsu"
  | 'not-a-string'
  | 'too-large' // compiling it alone exhausts the engine's fixed heap
  | 're2'; // anything else RE2 rejected (message is RE2's)

export interface RegexSyntaxErrorInit {
  kind: RegexSyntaxErrorKind;
  pattern: string;
  /** What is wrong, one line, without the hint. */
  detail: string;
  /** How to fix it; empty when there is nothing better to say than RE2's message. */
  hint: string;
  /** UTF-16 offset of the offending construct in `pattern`, or -1 if unknown (RE2 gives no offsets). */
  offset: number;
}

export class RegexSyntaxError extends RecipeSchemaError {
  override name = 'RegexSyntaxError';
  readonly kind: RegexSyntaxErrorKind;
  readonly pattern: string;
  readonly detail: string;
  readonly hint: string;
  readonly offset: number;

  constructor(init: RegexSyntaxErrorInit) {
    const where = init.offset >= 0 ? ` at position ${init.offset}` : '';
    const hint = init.hint ? `; hint: ${init.hint}` : '';
    super(`invalid regex (${init.detail}${where}): ${JSON.stringify(init.pattern)}${hint}`);
    this.kind = init.kind;
    this.pattern = init.pattern;
    this.detail = init.detail;
    this.hint = init.hint;
    this.offset = init.offset;
  }
}

/** The subject is larger than one call into the fixed 16 MiB re2-wasm heap can safely take. */
export class RegexSubjectTooLargeError extends Error {
  override name = 'RegexSubjectTooLargeError';
  constructor(
    readonly utf8Bytes: number,
    readonly limit: number,
  ) {
    super(
      `regex subject is ${utf8Bytes} UTF-8 bytes, over the engine limit of ${limit} bytes; ` +
        'split the text into windows (e.g. by lines) before matching',
    );
  }
}

/** The WebAssembly module aborted (e.g. OOM). Its heap is then in an undefined state; the engine refuses further work. */
export class RegexEngineError extends Error {
  override name = 'RegexEngineError';
}

/**
 * Compiling the pattern alone, in a fresh engine instance, exhausted re2-wasm's fixed 16 MiB heap: it can never
 * run. A recipe error (the loader reports it at the pattern's `file:line:col`); no other pattern is affected.
 */
export class RegexTooLargeError extends RegexSyntaxError {
  override name = 'RegexTooLargeError';
  constructor(
    pattern: string,
    readonly engineReason: string,
  ) {
    super({
      kind: 'too-large',
      pattern,
      offset: -1,
      detail: "too large for the regex engine: compiling it alone exhausts re2-wasm's fixed 16 MiB heap",
      hint: 'a counted repeat copies its operand n times into the program (\\pL{100} is 100 copies of ~700 ranges): use a smaller count, a narrower class, or + / *',
    });
  }
}

/**
 * Matching aborted the engine even with the pattern alone in a fresh instance (its DFA and the subject do not fit
 * the 16 MiB heap together). Only this pattern on this subject failed; the engine keeps working.
 */
export class RegexMatchAbortError extends RegexEngineError {
  override name = 'RegexMatchAbortError';
  constructor(
    readonly source: string,
    readonly subjectBytes: number,
    readonly reason: string,
  ) {
    super(
      `re2-wasm ran out of its 16 MiB heap matching ${JSON.stringify(source.length > 200 ? `${source.slice(0, 200)}…` : source)} on a ${subjectBytes}-byte subject (${reason})`,
    );
  }
}

/** A `RegexHandle` was used after `dispose()`. */
export class RegexDisposedError extends Error {
  override name = 'RegexDisposedError';
}
