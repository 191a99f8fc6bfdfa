/**
 * CPython 3.11's tokenizer (Parser/tokenizer.c, `tok_get`) for one expression, restated over code
 * points. It reproduces what decides acceptance — which characters start identifiers, the numeric
 * literal rules and their error messages, string prefixes and quoting, line continuation, the
 * 200-level bracket limit, and blank/indented lines after the first logical line — and produces
 * the tokens the PEG parser consumes.
 */
import { isPrintable, isXidContinue, isXidStart } from './unicode-tables.js';
import type { Pos, SourceText } from './source.js';
import { PySyntaxError, syntaxErrorAt, utf8Length } from './syntax-error.js';

export type TokenType =
  | 'NAME'
  | 'KEYWORD'
  | 'NUMBER'
  | 'STRING'
  | 'OP'
  | 'NEWLINE'
  | 'INDENT'
  | 'ENDMARKER'
  | 'ERRORTOKEN';

export interface Token {
  readonly type: TokenType;
  /** Source text of the token (for NAME: as written, before NFKC normalisation). */
  readonly text: string;
  readonly start: Pos;
  readonly end: Pos;
  /** Code-point index range in the source, used to slice string bodies. */
  readonly startIndex: number;
  readonly endIndex: number;
  /** Bracket nesting level after this token, as CPython records it (for error messages). */
  readonly level: number;
  /** `tok->buf` once this token is produced: see `pegenColumn` in syntax-error.ts. */
  readonly bufStart: number;
  /** ERRORTOKEN only: the tokenizer's error, raised when the parser fetches this token. */
  readonly error?: TokenizerError;
}

/**
 * A tokenizer error as the parser meets it. CPython tokenizes lazily: an error past the point
 * where the parser fails is only looked for afterwards (`_PyPegen_tokenize_full_source_to_check_for_errors`),
 * and then only errors that set an exception replace the generic "invalid syntax"; the others
 * (`E_LINECONT`, `E_EOF`) report an unclosed bracket opened on an earlier line, or nothing.
 */
export interface TokenizerError {
  readonly error: PySyntaxError;
  readonly setsException: boolean;
  /** The innermost open bracket at the error, for `raise_unclosed_parentheses_error`. */
  readonly unclosed: PySyntaxError | null;
}

/** CPython 3.11 hard keywords (Grammar/python.gram plus async/await). */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

/** Tokenizer.c MAXLEVEL: deeper bracket nesting is "too many nested parentheses". */
export const MAX_BRACKET_LEVEL = 200;

const THREE_CHAR_OPS = new Set(['**=', '...', '//=', '<<=', '>>=']);
const TWO_CHAR_OPS = new Set([
  '!=',
  '%=',
  '&=',
  '**',
  '*=',
  '+=',
  '-=',
  '->',
  '//',
  '/=',
  ':=',
  '<<',
  '<=',
  '<>',
  '==',
  '>=',
  '>>',
  '@=',
  '^=',
  '|=',
]);

const EOF = -1;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const isAsciiLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isIdentStart = (c: number): boolean => isAsciiLetter(c) || c === 0x5f || c >= 128;
const isIdentChar = (c: number): boolean => isIdentStart(c) || isDigit(c);
const ch = (s: string): number => s.charCodeAt(0);

export interface TokenizeOptions {
  /** Bracket level the text starts at (1 for an f-string expression, which CPython wraps in parens). */
  initialLevel?: number;
  /** End the tokens with an ERRORTOKEN at the first error instead of throwing it. */
  lazyErrors?: boolean;
}

const TOKENIZER_ERRORS = new WeakSet<PySyntaxError>();

function tokenizerError(e: PySyntaxError): PySyntaxError {
  TOKENIZER_ERRORS.add(e);
  return e;
}

/**
 * Whether tokenizer.c raised `e` itself, with its own column; pegen's errors instead go through
 * `_PyPegen_raise_error_known_location`, whose byte-to-character conversion `pegenColumn` models.
 */
export function isTokenizerError(e: PySyntaxError): boolean {
  return TOKENIZER_ERRORS.has(e);
}

/** Tokenizer errors reported through `tok->done` codes rather than an exception. */
const NO_EXCEPTION =
  /^(?:unexpected character after line continuation character|unexpected EOF while parsing|'.' was never closed)$/;

/** Tokenizes the whole source; throws `PySyntaxError` for the first tokenizer error. */
export function tokenize(src: SourceText, options: TokenizeOptions = {}): Token[] {
  const t = new Tokenizer(src, options.initialLevel ?? 0);
  if (!options.lazyErrors) return t.run();
  return t.runLazy();
}

class Tokenizer {
  private readonly cps: readonly number[];
  private i = 0;
  /**
   * tokenizer.c's `tok->buf` for string input: where the current run of physical lines began. A
   * line read while a token is in progress (after a backslash continuation, inside a string) does
   * not move it; pegen measures the E_LINECONT column from here, not from the line's start.
   */
  private bufStart = 0;
  private atLineStart = true;
  private readonly brackets: { c: number; index: number }[] = [];
  private readonly tokens: Token[] = [];

  constructor(
    private readonly src: SourceText,
    private readonly initialLevel: number,
  ) {
    this.cps = src.cps;
  }

  private get level(): number {
    return this.initialLevel + this.brackets.length;
  }

  private peek(offset = 0): number {
    const j = this.i + offset;
    return j < this.cps.length ? this.cps[j]! : EOF;
  }

  /** An error tokenizer.c raises itself (`syntaxerror`): its column is already final. */
  private error(msg: string, index: number, endIndex = index + 1): never {
    throw tokenizerError(syntaxErrorAt(this.src, msg, index, endIndex));
  }

  /**
   * tokenizer.c `syntaxerror(tok, ...)` without a range: the column is the count of characters
   * before `cur` (no +1), so it names the character before the one at `index`.
   */
  private errorAtCur(msg: string, index: number): never {
    throw tokenizerError(syntaxErrorAt(this.src, msg, Math.max(index - 1, this.lineStartOf(index))));
  }

  private lineStartOf(index: number): number {
    let j = index;
    while (j > 0 && this.cps[j - 1] !== 0x0a) j--;
    return j;
  }

  private push(type: TokenType, start: number, end: number, text = this.src.slice(start, end)): void {
    this.tokens.push({
      type,
      text,
      start: this.src.posAt(start),
      end: this.src.posAt(end),
      startIndex: start,
      endIndex: end,
      level: this.level,
      bufStart: this.bufStart,
    });
  }

  runLazy(): Token[] {
    try {
      return this.run();
    } catch (e) {
      if (!(e instanceof Error) || e.name !== 'PySyntaxError') throw e;
      const error = e as PySyntaxError;
      const open = this.brackets[this.brackets.length - 1];
      const unclosed =
        open === undefined
          ? null
          : syntaxErrorAt(this.src, `'${String.fromCodePoint(open.c)}' was never closed`, open.index);
      const at = error.pos;
      this.tokens.push({
        type: 'ERRORTOKEN',
        text: '',
        start: at,
        end: at,
        startIndex: this.i,
        endIndex: this.i,
        level: this.level,
        bufStart: this.bufStart,
        error: { error, setsException: !NO_EXCEPTION.test(error.msg), unclosed },
      });
      return this.tokens;
    }
  }

  run(): Token[] {
    for (;;) {
      if (this.atLineStart && this.lineStart()) continue;
      const comment = this.skipBlanks();
      const start = this.i;
      const c = this.peek();
      if (c === EOF) {
        if (this.brackets.length > 0) {
          // E_EOF: pegen's `raise_unclosed_parentheses_error`, so not a tokenizer-final column.
          const open = this.brackets[this.brackets.length - 1]!;
          throw syntaxErrorAt(this.src, `'${String.fromCodePoint(open.c)}' was never closed`, open.index);
        }
        this.push('ENDMARKER', start, start, '');
        return this.tokens;
      }
      if (c === 0x0a) {
        this.i++;
        this.atLineStart = true;
        // The NEWLINE token is made before the next line is read: `buf` moves after it. After a
        // comment it starts where the comment does (`tok->start` is set before skipping it).
        if (this.level === 0) this.push('NEWLINE', comment ?? start, comment ?? start, '\n');
        this.bufStart = this.i;
        continue;
      }
      if (isIdentStart(c)) {
        this.nameOrString(start);
        continue;
      }
      if (c === 0x2e /* . */) {
        if (isDigit(this.peek(1))) {
          this.i++;
          this.number(start, 'fraction');
          continue;
        }
        if (this.peek(1) === 0x2e && this.peek(2) === 0x2e) {
          this.i += 3;
          this.push('OP', start, this.i);
          continue;
        }
        this.i++;
        this.push('OP', start, this.i);
        continue;
      }
      if (isDigit(c)) {
        this.number(start, 'start');
        continue;
      }
      if (c === 0x27 || c === 0x22) {
        this.string(start, this.i);
        continue;
      }
      if (c === 0x5c /* \ */) {
        this.continuation(start);
        continue;
      }
      this.operator(start, c);
    }
  }

  /**
   * At the start of a physical line: skip a blank or comment-only line whole (CPython emits no
   * NEWLINE for it), and before a non-blank indented line at bracket level 0 emit the INDENT that
   * the eval grammar rejects. Returns true when a blank line was consumed.
   */
  private lineStart(): boolean {
    this.atLineStart = false;
    let j = this.i;
    let col = 0;
    // CPython 3.11.7 measures indentation across backslash continuations, keeping the column of
    // the first backslash unless that column is 0 (so `\\<newline>  x` is an unexpected indent).
    let contLineCol = 0;
    for (;;) {
      const c = j < this.cps.length ? this.cps[j]! : EOF;
      if (c === 0x20 || c === 0x09) col++;
      else if (c === 0x0c) col = 0;
      else if (c === 0x5c) {
        contLineCol ||= col;
        if (this.cps[j + 1] !== 0x0a)
          this.error('unexpected character after line continuation character', j + 1 < this.cps.length ? j + 1 : j);
        j += 2;
        if (j >= this.cps.length) this.error('unexpected EOF while parsing', j);
        // No token has started: the next line is read with `tok->start == NULL`, moving `buf`.
        this.bufStart = j;
        continue;
      } else break;
      j++;
    }
    col = contLineCol || col;
    const c = j < this.cps.length ? this.cps[j]! : EOF;
    if (c === 0x23 /* # */ || c === 0x0a) {
      while (j < this.cps.length && this.cps[j] !== 0x0a) j++;
      if (j < this.cps.length) {
        this.i = j + 1;
        this.bufStart = this.i;
        this.atLineStart = true;
        return true;
      }
      this.i = j;
      return false;
    }
    if (this.level === 0 && col > 0) this.push('INDENT', this.i, j);
    return false;
  }

  /** Skips blanks and a comment; returns where the comment started, if there was one. */
  private skipBlanks(): number | undefined {
    let comment: number | undefined;
    for (;;) {
      const c = this.peek();
      if (c === 0x20 || c === 0x09 || c === 0x0c) this.i++;
      else if (c === 0x23) {
        comment = this.i;
        while (this.peek() !== EOF && this.peek() !== 0x0a) this.i++;
      } else return comment;
    }
  }

  private continuation(start: number): void {
    this.i++;
    if (this.peek() !== 0x0a) {
      // pegen's E_LINECONT column is `tok->cur - tok->buf`: the character after the backslash,
      // counted from `buf` (an earlier line when this one was reached by a continuation).
      const at = this.peek() === EOF ? start : start + 1;
      const e = syntaxErrorAt(this.src, 'unexpected character after line continuation character', at);
      throw tokenizerError(
        new PySyntaxError(e.msg, e.pos, e.endCol, `line ${e.pos.line}, col ${at - this.bufStart + 1}`),
      );
    }
    this.i++;
    if (this.peek() === EOF) this.error('unexpected EOF while parsing', this.i);
  }

  private nameOrString(start: number): void {
    // String prefixes: the legal combinations of b, r, u, f in the tokenizer's own order rules.
    let sawB = false;
    let sawR = false;
    let sawU = false;
    let sawF = false;
    for (;;) {
      const c = this.peek();
      if (!(sawB || sawU || sawF) && (c === ch('b') || c === ch('B'))) sawB = true;
      else if (!(sawB || sawU || sawR || sawF) && (c === ch('u') || c === ch('U'))) sawU = true;
      else if (!(sawR || sawU) && (c === ch('r') || c === ch('R'))) sawR = true;
      else if (!(sawF || sawB || sawU) && (c === ch('f') || c === ch('F'))) sawF = true;
      else break;
      this.i++;
      const q = this.peek();
      if (q === 0x27 || q === 0x22) {
        this.string(start, this.i);
        return;
      }
    }
    let nonAscii = false;
    while (isIdentChar(this.peek())) {
      if (this.peek() >= 128) nonAscii = true;
      this.i++;
    }
    if (nonAscii) this.verifyIdentifier(start, this.i);
    const text = this.src.slice(start, this.i);
    this.push(KEYWORDS.has(text) ? 'KEYWORD' : 'NAME', start, this.i, text);
  }

  /** `verify_identifier`: the raw (un-normalised) token must be XID_Start XID_Continue*. */
  private verifyIdentifier(start: number, end: number): void {
    for (let j = start; j < end; j++) {
      const c = this.cps[j]!;
      const ok = j === start ? isXidStart(c) || c === 0x5f : isXidContinue(c);
      if (ok) continue;
      const hex = c.toString(16).toUpperCase().padStart(4, '0');
      if (isPrintable(c)) this.error(`invalid character '${String.fromCodePoint(c)}' (U+${hex})`, j);
      this.error(`invalid non-printable character U+${hex}`, j);
    }
  }

  /** `tok_decimal_tail`: digits with single underscores between them. Returns the next char. */
  private decimalTail(): number {
    for (;;) {
      while (isDigit(this.peek())) this.i++;
      if (this.peek() !== 0x5f) return this.peek();
      this.i++;
      if (!isDigit(this.peek())) this.errorAtCur('invalid decimal literal', this.i);
    }
  }

  /**
   * `verify_end_of_number`: a literal directly followed by an ASCII identifier character is an error,
   * except before the keywords CPython 3.11 only warns about (`1if x else y` is still valid).
   */
  private verifyEndOfNumber(kind: string): void {
    const c = this.peek();
    // tokenizer.c `lookahead`: the rest of the keyword, then a character that cannot continue a
    // name (`1andx` is not `1 and x`). The `i` keywords are checked by their second letter only.
    const next = (s: string): boolean => {
      for (let k = 0; k < s.length; k++) if (this.peek(1 + k) !== s.charCodeAt(k)) return false;
      return !isIdentChar(this.peek(1 + s.length));
    };
    let r = false;
    if (c === ch('a')) r = next('nd');
    else if (c === ch('e')) r = next('lse');
    else if (c === ch('f')) r = next('or');
    else if (c === ch('i')) {
      const c2 = this.peek(1);
      r = c2 === ch('f') || c2 === ch('n') || c2 === ch('s');
    } else if (c === ch('o')) r = next('r');
    else if (c === ch('n')) r = next('ot');
    // Only an ASCII identifier character is an error here (`c < 128` in 3.11): a non-ASCII one
    // ends the number and starts the next token, which `verify_identifier` then judges.
    if (!r && c < 128 && isIdentChar(c)) this.errorAtCur(`invalid ${kind} literal`, this.i);
  }

  private number(start: number, entry: 'start' | 'fraction'): void {
    if (entry === 'fraction') {
      this.decimalTail();
      this.afterFraction(start);
      return;
    }
    if (this.peek() === ch('0')) {
      const c1 = this.peek(1);
      if (c1 === ch('x') || c1 === ch('X')) {
        this.radix(start, 2, isHexDigit, 'hexadecimal');
        return;
      }
      if (c1 === ch('o') || c1 === ch('O')) {
        this.radix(start, 2, (c) => c >= 0x30 && c <= 0x37, 'octal');
        return;
      }
      if (c1 === ch('b') || c1 === ch('B')) {
        this.radix(start, 2, (c) => c === 0x30 || c === 0x31, 'binary');
        return;
      }
      // Zeros, possibly followed by more digits (old-style octal, now an error unless a float follows).
      this.i++;
      for (;;) {
        if (this.peek() === 0x5f) {
          this.i++;
          if (!isDigit(this.peek())) this.errorAtCur('invalid decimal literal', this.i);
        }
        if (this.peek() !== ch('0')) break;
        this.i++;
      }
      const zerosEnd = this.i;
      let nonzero = false;
      if (isDigit(this.peek())) {
        nonzero = true;
        this.decimalTail();
      }
      const c = this.peek();
      if (c === 0x2e) {
        this.i++;
        if (isDigit(this.peek())) this.decimalTail();
        this.afterFraction(start);
        return;
      }
      if (c === ch('e') || c === ch('E') || c === ch('j') || c === ch('J')) {
        this.afterFraction(start);
        return;
      }
      if (nonzero) {
        // `syntaxerror_known_range` is given byte offsets into the line and reports them as is.
        const e = syntaxErrorAt(
          this.src,
          'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
          start,
          zerosEnd,
        );
        let bytes = 1;
        for (let j = this.lineStartOf(start); j < start; j++) bytes += utf8Length(this.cps[j]!);
        throw tokenizerError(new PySyntaxError(e.msg, e.pos, e.endCol, `line ${e.pos.line}, col ${bytes}`));
      }
      this.verifyEndOfNumber('decimal');
      this.push('NUMBER', start, this.i);
      return;
    }
    this.decimalTail();
    if (this.peek() === 0x2e) {
      this.i++;
      if (isDigit(this.peek())) this.decimalTail();
    }
    this.afterFraction(start);
  }

  /** Exponent and imaginary suffix handling shared by every decimal and float literal. */
  private afterFraction(start: number): void {
    let c = this.peek();
    if (c === ch('e') || c === ch('E')) {
      const eIndex = this.i;
      this.i++;
      c = this.peek();
      if (c === ch('+') || c === ch('-')) {
        this.i++;
        if (!isDigit(this.peek())) this.errorAtCur('invalid decimal literal', this.i);
      } else if (!isDigit(c)) {
        // `1e` is not an exponent: the literal ends before the `e` (an error unless `else` follows).
        this.i = eIndex;
        this.verifyEndOfNumber('decimal');
        this.push('NUMBER', start, this.i);
        return;
      }
      this.decimalTail();
      c = this.peek();
    }
    if (c === ch('j') || c === ch('J')) {
      this.i++;
      this.verifyEndOfNumber('imaginary');
    } else {
      this.verifyEndOfNumber('decimal');
    }
    this.push('NUMBER', start, this.i);
  }

  private radix(start: number, prefixLen: number, isRadixDigit: (c: number) => boolean, kind: string): void {
    this.i += prefixLen;
    const checkDigit = (): void => {
      const c = this.peek();
      if (isRadixDigit(c)) return;
      if (kind !== 'hexadecimal' && isDigit(c))
        this.error(`invalid digit '${String.fromCodePoint(c)}' in ${kind} literal`, this.i);
      this.errorAtCur(`invalid ${kind} literal`, this.i);
    };
    do {
      if (this.peek() === 0x5f) this.i++;
      checkDigit();
      while (isRadixDigit(this.peek())) this.i++;
    } while (this.peek() === 0x5f);
    if (kind !== 'hexadecimal' && isDigit(this.peek())) {
      this.error(`invalid digit '${String.fromCodePoint(this.peek())}' in ${kind} literal`, this.i);
    }
    this.verifyEndOfNumber(kind);
    this.push('NUMBER', start, this.i);
  }

  /** A string literal; `quoteIndex` is where the opening quote is (after any prefix). */
  private string(start: number, quoteIndex: number): void {
    const quote = this.cps[quoteIndex]!;
    this.i = quoteIndex + 1;
    let quoteSize = 1;
    let endQuoteSize = 0;
    if (this.peek() === quote) {
      if (this.peek(1) === quote) {
        quoteSize = 3;
        this.i += 2;
      } else {
        this.i++;
        endQuoteSize = 1; // the empty string
      }
    }
    while (endQuoteSize !== quoteSize) {
      const c = this.peek();
      if (c === EOF || (quoteSize === 1 && c === 0x0a)) {
        const detected = this.src.posAt(this.i).line;
        if (quoteSize === 3)
          this.error(`unterminated triple-quoted string literal (detected at line ${detected})`, start);
        this.error(`unterminated string literal (detected at line ${detected})`, start);
      }
      this.i++;
      if (c === quote) endQuoteSize++;
      else {
        endQuoteSize = 0;
        if (c === 0x5c && this.peek() !== EOF) this.i++;
      }
    }
    this.push('STRING', start, this.i);
  }

  private operator(start: number, c: number): void {
    const three = this.src.slice(start, Math.min(start + 3, this.cps.length));
    if (THREE_CHAR_OPS.has(three)) {
      this.i += 3;
      this.push('OP', start, this.i, three);
      return;
    }
    const two = three.slice(0, 2);
    if (two.length === 2 && TWO_CHAR_OPS.has(two)) {
      this.i += 2;
      this.push('OP', start, this.i, two);
      return;
    }
    if (c === 0x28 || c === 0x5b || c === 0x7b) {
      if (this.level >= MAX_BRACKET_LEVEL) this.error('too many nested parentheses', start);
      this.brackets.push({ c, index: start });
    } else if (c === 0x29 || c === 0x5d || c === 0x7d) {
      const open = this.brackets.pop();
      if (open === undefined) {
        if (this.initialLevel > 0) {
          // An f-string expression is wrapped in parentheses; its closer is added by the caller.
          this.error(`f-string: unmatched '${String.fromCodePoint(c)}'`, start);
        }
        this.error(`unmatched '${String.fromCodePoint(c)}'`, start);
      }
      const match =
        (open.c === 0x28 && c === 0x29) || (open.c === 0x5b && c === 0x5d) || (open.c === 0x7b && c === 0x7d);
      if (!match) {
        const openLine = this.src.posAt(open.index).line;
        const here = this.src.posAt(start).line;
        const o = String.fromCodePoint(open.c);
        const cl = String.fromCodePoint(c);
        this.error(
          openLine !== here
            ? `closing parenthesis '${cl}' does not match opening parenthesis '${o}' on line ${openLine}`
            : `closing parenthesis '${cl}' does not match opening parenthesis '${o}'`,
          start,
        );
      }
    }
    if (!isPrintable(c)) {
      this.error(`invalid non-printable character U+${c.toString(16).toUpperCase().padStart(4, '0')}`, start);
    }
    this.i++;
    this.push('OP', start, this.i);
  }
}
