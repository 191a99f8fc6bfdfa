/**
 * String literals as CPython 3.11 builds them (Parser/string_parser.c and
 * `_PyPegen_concatenate_strings`): prefixes, escape decoding for str and bytes, implicit
 * concatenation, and f-strings split into literal parts and replacement fields whose expressions
 * are parsed by the same parser (wrapped in parentheses, as CPython does).
 */
import type { Constant, Expr, FormattedValue, JoinedStr, Loc, PyConstant } from './ast.js';
import { type SourceText, fromCodePoints } from './source.js';
import { finalPosition, PySyntaxError, syntaxError, syntaxErrorAt, withMessage } from './syntax-error.js';
import { isTokenizerError, type Token, tokenize } from './tokenizer.js';
import { lookupUnicodeName } from './unicode-tables.js';

/** Decodes and concatenates the STRING tokens of one `strings` atom. */
/** Parses an f-string replacement field's tokens (the parser's `star_expressions`). */
export type FieldParser = (src: SourceText, tokens: Token[]) => Expr;

export function decodeStrings(src: SourceText, tokens: readonly Token[], parseField: FieldParser): Expr {
  const first = tokens[0]!;
  const last = tokens[tokens.length - 1]!;
  const loc: Loc = { line: first.start.line, col: first.start.col, endLine: last.end.line, endCol: last.end.col };
  const kind = first.text.startsWith('u') ? 'u' : null;
  const state = new FstringState(loc, kind);
  let bytesMode = false;
  const bytes: number[] = [];
  tokens.forEach((t, i) => {
    const lit = parseStringToken(src, t);
    // `_PyPegen_parsestr` decodes a plain literal before the mixing check (a bad escape wins);
    // an f-string's fields are parsed after it.
    const decodedBytes = !lit.fstring && lit.bytes ? decodeBytes(src, t, lit.bodyStart, lit.bodyEnd, lit.raw) : null;
    const decodedStr = !lit.fstring && !lit.bytes ? decodeStr(src, t, lit.bodyStart, lit.bodyEnd, lit.raw) : null;
    if (i !== 0 && bytesMode !== lit.bytes) {
      throw syntaxError('cannot mix bytes and nonbytes literals', t.start, t.end);
    }
    bytesMode = lit.bytes;
    if (lit.fstring) {
      new FstringScanner(src, t, lit.bodyStart, lit.bodyEnd, lit.raw, parseField).concat(state, 0);
    } else if (decodedBytes !== null) {
      bytes.push(...decodedBytes);
    } else if (decodedStr !== null) {
      state.addString(decodedStr);
    }
  });
  if (bytesMode) return { type: 'Constant', value: { kind: 'bytes', value: Uint8Array.from(bytes) }, kind: null, loc };
  return state.finish();
}

interface StringToken {
  bytes: boolean;
  raw: boolean;
  fstring: boolean;
  /** Code-point range of the body between the quotes, in the source. */
  bodyStart: number;
  bodyEnd: number;
}

/** `_PyPegen_parsestr`: the prefix letters and the quotes around the body. */
function parseStringToken(src: SourceText, t: Token): StringToken {
  const cps = src.cps;
  let i = t.startIndex;
  let bytes = false;
  let raw = false;
  let fstring = false;
  for (;;) {
    const c = String.fromCodePoint(cps[i]!).toLowerCase();
    if (c === 'b') bytes = true;
    else if (c === 'r') raw = true;
    else if (c === 'f') fstring = true;
    else if (c !== 'u') break;
    i++;
  }
  const quote = cps[i]!;
  const triple = t.endIndex - i >= 6 && cps[i + 1] === quote && cps[i + 2] === quote;
  const q = triple ? 3 : 1;
  const lit: StringToken = { bytes, raw, fstring, bodyStart: i + q, bodyEnd: t.endIndex - q };
  if (bytes) {
    for (let j = lit.bodyStart; j < lit.bodyEnd; j++) {
      if (cps[j]! >= 0x80) {
        throw syntaxError('bytes can only contain ASCII literal characters', t.start, t.end);
      }
    }
  }
  return lit;
}

function decodeError(t: Token, codec: 'unicode error' | 'value error', reason: string): PySyntaxError {
  return syntaxError(`(${codec}) ${reason}`, t.start, t.end);
}

/**
 * The offset of code point `k` in the buffer `decode_unicode_with_escapes` hands to the codec,
 * which is what the codec's error positions count: each non-ASCII character was rewritten as a
 * 10-character `\\UXXXXXXXX` escape, and a backslash before one (or at the end) as `\\u005c`.
 */
function escapedOffset(cps: readonly number[], start: number, k: number, end: number): number {
  let n = 0;
  for (let j = start; j < k; j++) {
    const c = cps[j]!;
    if (c >= 0x80) n += 10;
    else if (c === 0x5c && (j + 1 >= end || cps[j + 1]! >= 0x80)) n += 6;
    else n += 1;
  }
  return n;
}

/**
 * `decode_unicode_with_escapes` + `_PyUnicode_DecodeUnicodeEscapeInternal` over code points
 * [start, end), returning code points. A backslash before a non-ASCII character stays a backslash; unknown escapes are
 * kept verbatim (CPython only warns).
 */
export function decodeStr(src: SourceText, t: Token, start: number, end: number, raw: boolean): number[] {
  const cps = src.cps;
  if (raw) return cps.slice(start, end);
  const out: number[] = [];
  let i = start;
  const fail = (reason: string, from: number, to: number): never => {
    const at = (k: number): number => escapedOffset(cps, start, k, end);
    throw decodeError(
      t,
      'unicode error',
      `'unicodeescape' codec can't decode bytes in position ${at(from)}-${at(to) - 1}: ${reason}`,
    );
  };
  while (i < end) {
    const c = cps[i]!;
    if (c !== 0x5c) {
      out.push(c);
      i++;
      continue;
    }
    const escStart = i;
    i++;
    if (i >= end) {
      out.push(0x5c); // only reachable at the end of an f-string literal part
      break;
    }
    const e = cps[i]!;
    i++;
    switch (e) {
      case 0x0a:
        continue; // backslash-newline: a line continuation inside the literal
      case 0x78 /* x */:
      case 0x75 /* u */:
      case 0x55 /* U */:
        {
          const count = e === 0x78 ? 2 : e === 0x75 ? 4 : 8;
          const name = e === 0x78 ? '\\xXX' : e === 0x75 ? '\\uXXXX' : '\\UXXXXXXXX';
          let value = 0;
          for (let k = 0; k < count; k++, i++) {
            const h = i < end ? hexValue(cps[i]!) : -1;
            if (h < 0) fail(`truncated ${name} escape`, escStart, i);
            value = value * 16 + h;
          }
          if (value > 0x10ffff) fail('illegal Unicode character', escStart, i);
          out.push(value);
          continue;
        }
      case 0x4e /* N */:
        {
          if (i < end && cps[i] === 0x7b) {
            const nameStart = i + 1;
            let j = nameStart;
            while (j < end && cps[j] !== 0x7d) j++;
            if (j >= end) fail('malformed \\N character escape', escStart, j);
            if (j > nameStart) {
              const cp = lookupUnicodeName(fromCodePoints(cps, nameStart, j));
              if (cp !== undefined) {
                out.push(cp);
                i = j + 1;
                continue;
              }
              fail('unknown Unicode character name', escStart, j + 1);
            }
            fail('malformed \\N character escape', escStart, j);
          }
          fail('malformed \\N character escape', escStart, i);
          break;
        }
      default: {
        const simple = SIMPLE_ESCAPES.get(e);
        if (simple !== undefined) {
          out.push(simple);
          continue;
        }
        if (e >= 0x30 && e <= 0x37) {
          const octal = readOctal(cps, i - 1, end);
          out.push(octal.value);
          i = octal.next;
          continue;
        }
        // Unknown escape: kept as written (a DeprecationWarning in CPython 3.11, not an error).
        out.push(0x5c, e);
      }
    }
  }
  return out;
}

/** `_PyBytes_DecodeEscape` (the body is already known to be ASCII). */
function decodeBytes(src: SourceText, t: Token, start: number, end: number, raw: boolean): number[] {
  const cps = src.cps;
  if (raw) return cps.slice(start, end) as number[];
  const out: number[] = [];
  let i = start;
  while (i < end) {
    const c = cps[i]!;
    if (c !== 0x5c) {
      out.push(c);
      i++;
      continue;
    }
    i++;
    const e = cps[i]!;
    i++;
    const simple = SIMPLE_ESCAPES.get(e);
    if (e === 0x0a) continue;
    if (simple !== undefined) {
      out.push(simple);
    } else if (e >= 0x30 && e <= 0x37) {
      // Up to three digits; CPython 3.11 keeps the low byte of \400..\777.
      const octal = readOctal(cps, i - 1, end);
      out.push(octal.value & 0xff);
      i = octal.next;
    } else if (e === 0x78) {
      const h1 = i < end ? hexValue(cps[i]!) : -1;
      const h2 = i + 1 < end ? hexValue(cps[i + 1]!) : -1;
      if (h1 < 0 || h2 < 0) throw decodeError(t, 'value error', `invalid \\x escape at position ${i - 2 - start}`);
      out.push(h1 * 16 + h2);
      i += 2;
    } else {
      out.push(0x5c);
      i--;
    }
  }
  return out;
}

/** The one-character escapes str and bytes literals share (`\n`, `\t`, `\\`, quotes, ...). */
const SIMPLE_ESCAPES: ReadonlyMap<number, number> = new Map([
  [0x5c, 0x5c],
  [0x27, 0x27],
  [0x22, 0x22],
  [0x62 /* b */, 0x08],
  [0x66 /* f */, 0x0c],
  [0x74 /* t */, 0x09],
  [0x6e /* n */, 0x0a],
  [0x72 /* r */, 0x0d],
  [0x76 /* v */, 0x0b],
  [0x61 /* a */, 0x07],
]);

/** An octal escape's value from its first digit at `at`: one to three digits. */
function readOctal(cps: readonly number[], at: number, end: number): { value: number; next: number } {
  let value = cps[at]! - 0x30;
  let i = at + 1;
  for (let k = 0; k < 2 && i < end && cps[i]! >= 0x30 && cps[i]! <= 0x37; k++, i++)
    value = value * 8 + (cps[i]! - 0x30);
  return { value, next: i };
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** `FstringParser`: accumulates literal text and replacement fields into a JoinedStr. */
class FstringState {
  private lastStr: number[] | null = null;
  private readonly values: Expr[] = [];
  private fmode = false;

  constructor(
    private readonly loc: Loc,
    private readonly kind: 'u' | null,
  ) {}

  setFmode(): void {
    this.fmode = true;
  }

  addString(s: readonly number[]): void {
    if (s.length === 0) return;
    if (this.lastStr === null) this.lastStr = [...s];
    else for (const c of s) this.lastStr.push(c);
  }

  addExpression(e: Expr): void {
    this.flushStr();
    this.values.push(e);
  }

  private flushStr(): void {
    if (this.lastStr === null) return;
    this.values.push(this.constant(this.lastStr));
    this.lastStr = null;
  }

  private constant(s: readonly number[]): Constant {
    const value: PyConstant = { kind: 'str', value: fromCodePoints(s), codePoints: s };
    return { type: 'Constant', value, kind: this.kind, loc: this.loc };
  }

  finish(): Constant | JoinedStr {
    if (!this.fmode) return this.constant(this.lastStr ?? []);
    this.flushStr();
    return { type: 'JoinedStr', values: this.values, loc: this.loc };
  }
}

const MAX_FSTRING_BRACKETS = 200;

/** Scans one f-string body, as `fstring_find_literal` / `fstring_find_expr` do. */
class FstringScanner {
  private i: number;

  constructor(
    private readonly src: SourceText,
    private readonly token: Token,
    start: number,
    private readonly end: number,
    private readonly raw: boolean,
    private readonly parseField: FieldParser,
  ) {
    this.i = start;
  }

  private error(msg: string, index = this.i): never {
    throw syntaxErrorAt(this.src, msg, Math.min(index, this.end));
  }

  private at(j: number): number {
    return j < this.end ? this.src.cps[j]! : -1;
  }

  /** `_PyPegen_FstringParser_ConcatFstring`. */
  concat(state: FstringState, level: number): void {
    state.setFmode();
    for (;;) {
      const { literal, doubled } = this.findLiteral(level);
      if (literal !== null) state.addString(literal);
      if (doubled) continue;
      if (this.i >= this.end || this.at(this.i) === 0x7d) break;
      const { exprText, value } = this.findExpr(level);
      if (exprText !== null) state.addString(exprText);
      state.addExpression(value);
    }
    if (level !== 0 && this.at(this.i) !== 0x7d) this.error("f-string: expecting '}'");
  }

  /** Literal text up to the next `{` or `}`; a doubled brace at the top level ends a literal part. */
  private findLiteral(level: number): { literal: number[] | null; doubled: boolean } {
    const start = this.i;
    let doubled = false;
    let stop = this.end;
    while (this.i < this.end) {
      let c = this.at(this.i++);
      if (!this.raw && c === 0x5c && this.i < this.end) {
        c = this.at(this.i++);
        if (c === 0x4e /* N */) {
          // Skip "\N{name}" so its brace does not start a replacement field.
          if (this.i < this.end && this.at(this.i++) === 0x7b) {
            while (this.i < this.end && this.at(this.i++) !== 0x7d) {
              /* skip the name */
            }
          }
          continue;
        }
      }
      if (c === 0x7b || c === 0x7d) {
        if (level === 0) {
          if (this.at(this.i) === c) {
            stop = this.i;
            this.i++;
            doubled = true;
            break;
          }
          if (c === 0x7d) this.error("f-string: single '}' is not allowed", this.i - 1);
        }
        this.i--;
        stop = this.i;
        break;
      }
    }
    if (!doubled && this.i >= this.end) stop = this.end;
    if (stop === start) return { literal: null, doubled };
    return { literal: decodeStr(this.src, this.token, start, stop, this.raw), doubled };
  }

  /** A replacement field `{expr[=][!c][:spec]}` starting at `{`. */
  private findExpr(level: number): { exprText: number[] | null; value: FormattedValue } {
    const open = this.i;
    if (level >= 2) this.error('f-string: expressions nested too deeply');
    this.i++;
    const exprStart = this.i;
    const stack: number[] = [];
    let quote = 0;
    let tripleQuote = false;
    for (; this.i < this.end; this.i++) {
      const c = this.at(this.i);
      if (c === 0x5c) this.error('f-string expression part cannot include a backslash');
      if (quote !== 0) {
        if (c === quote) {
          if (tripleQuote) {
            if (this.i + 2 < this.end && this.at(this.i + 1) === c && this.at(this.i + 2) === c) {
              this.i += 2;
              quote = 0;
              tripleQuote = false;
            }
          } else {
            quote = 0;
          }
        }
        continue;
      }
      if (c === 0x27 || c === 0x22) {
        if (this.i + 2 < this.end && this.at(this.i + 1) === c && this.at(this.i + 2) === c) {
          tripleQuote = true;
          this.i += 2;
        }
        quote = c;
      } else if (c === 0x5b || c === 0x7b || c === 0x28) {
        if (stack.length >= MAX_FSTRING_BRACKETS) this.error('f-string: too many nested parenthesis');
        stack.push(c);
      } else if (c === 0x23) {
        this.error("f-string expression part cannot include '#'");
      } else if (
        stack.length === 0 &&
        (c === 0x21 || c === 0x3a || c === 0x7d || c === 0x3d || c === 0x3e || c === 0x3c)
      ) {
        const next = this.at(this.i + 1);
        if (next === 0x3d && (c === 0x21 || c === 0x3d || c === 0x3c || c === 0x3e)) {
          this.i++;
          continue;
        }
        if (c === 0x3e || c === 0x3c) continue;
        break;
      } else if (c === 0x5d || c === 0x7d || c === 0x29) {
        const opening = stack.pop();
        if (opening === undefined) this.error(`f-string: unmatched '${String.fromCodePoint(c)}'`);
        const match =
          (opening === 0x28 && c === 0x29) || (opening === 0x5b && c === 0x5d) || (opening === 0x7b && c === 0x7d);
        if (!match) {
          this.error(
            `f-string: closing parenthesis '${String.fromCodePoint(c)}' does not match opening parenthesis '${String.fromCodePoint(opening)}'`,
          );
        }
      }
    }
    const exprEnd = this.i;
    if (quote !== 0) this.error('f-string: unterminated string');
    if (stack.length > 0) this.error(`f-string: unmatched '${String.fromCodePoint(stack[stack.length - 1]!)}'`);
    if (this.i >= this.end) this.error("f-string: expecting '}'");

    const value = this.compileExpr(open, exprStart, exprEnd);

    let exprText: number[] | null = null;
    if (this.at(this.i) === 0x3d) {
      this.i++;
      while (this.i < this.end && [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d].includes(this.at(this.i))) this.i++;
      if (this.i >= this.end) this.error("f-string: expecting '}'");
      exprText = this.src.cps.slice(exprStart, this.i);
    }
    let conversion = -1;
    if (this.at(this.i) === 0x21) {
      this.i++;
      if (this.i >= this.end) this.error("f-string: expecting '}'");
      conversion = this.at(this.i);
      this.i++;
      if (conversion !== 0x73 && conversion !== 0x72 && conversion !== 0x61) {
        this.error("f-string: invalid conversion character: expected 's', 'r', or 'a'", this.i - 1);
      }
    }
    let formatSpec: JoinedStr | null = null;
    if (this.i < this.end && this.at(this.i) === 0x3a) {
      this.i++;
      if (this.i >= this.end) this.error("f-string: expecting '}'");
      const specStart = this.src.posAt(this.i);
      const spec = new FstringState(
        { line: specStart.line, col: specStart.col, endLine: specStart.line, endCol: specStart.col },
        null,
      );
      this.concat(spec, level + 1);
      formatSpec = spec.finish() as JoinedStr;
    }
    if (this.i >= this.end || this.at(this.i) !== 0x7d) this.error("f-string: expecting '}'");
    this.i++;
    if (exprText !== null && formatSpec === null && conversion === -1) conversion = 0x72;
    const a = this.src.posAt(open);
    const b = this.src.posAt(this.i);
    return {
      exprText,
      value: {
        type: 'FormattedValue',
        value,
        conversion,
        format_spec: formatSpec,
        loc: { line: a.line, col: a.col, endLine: b.line, endCol: b.col },
      },
    };
  }

  /** `fstring_compile_expr`: reject a blank field, then parse `(expr)` as star_expressions. */
  private compileExpr(open: number, start: number, end: number): Expr {
    let blank = true;
    for (let j = start; j < end; j++) {
      const c = this.src.cps[j]!;
      if (!(c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c)) {
        blank = false;
        break;
      }
    }
    if (blank) {
      const stopper = this.at(end);
      if (stopper === 0x21 || stopper === 0x3a || stopper === 0x3d) {
        this.error(`f-string: expression required before '${String.fromCodePoint(stopper)}'`, end);
      }
      this.error('f-string: empty expression not allowed', end);
    }
    const outer = this.src;
    const inner: SourceText = {
      cps: outer.cps.slice(start, end),
      posAt: (index: number) => outer.posAt(start + index),
      slice: (from: number, to: number) => outer.slice(start + from, start + to),
    };
    let tokens: Token[];
    try {
      tokens = tokenize(inner, { initialLevel: 1 });
    } catch (e) {
      if (e instanceof PySyntaxError && isTokenizerError(e)) {
        // tokenizer.c raises these itself: no prefix, and the column counts characters of the
        // `(expr)` copy the field is tokenized from (on its first line).
        const first = outer.posAt(start);
        if (e.pos.line !== first.line) throw e;
        return rethrowAt(e, `line ${e.pos.line}, col ${e.pos.col - first.col + 2}`);
      }
      if (e instanceof PySyntaxError && !e.msg.startsWith('f-string')) {
        throw withMessage(e, `f-string: ${e.msg}`);
      }
      throw e;
    }
    const openPos = outer.posAt(open);
    const closePos = outer.posAt(end);
    const synthetic = (
      text: string,
      index: number,
      pos: { line: number; col: number },
      type: Token['type'] = 'OP',
    ): Token => ({
      type,
      text,
      start: pos,
      end: { line: pos.line, col: pos.col + (text.length > 0 ? 1 : 0) },
      startIndex: index,
      endIndex: index,
      level: text === '(' ? 1 : 0,
      bufStart: index,
    });
    const body = tokens
      .slice(0, -1)
      .map((t) => ({ ...t, startIndex: t.startIndex + start, endIndex: t.endIndex + start }));
    const wrapped = [
      synthetic('(', open, openPos),
      ...body,
      synthetic(')', end, closePos),
      synthetic('', end, closePos, 'ENDMARKER'),
    ];
    // A group parses to the expression itself; a tuple or genexp spans the synthetic parens.
    return this.parseField(outer, wrapped);
  }
}

/** The same error, reported at `where` (the caret keeps its place). */
function rethrowAt(e: PySyntaxError, where: string): never {
  throw finalPosition(new PySyntaxError(e.msg, e.pos, e.endCol, where));
}
