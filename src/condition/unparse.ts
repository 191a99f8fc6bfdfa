/**
 * `ast.unparse` of CPython 3.11 (`Lib/ast.py`, class `_Unparser`) for expression nodes: the walker
 * names a forbidden call or attribute by this text (`forbidden call: __import__('os').system`), and
 * the allowed call targets are matched against it, exactly as the original walker does.
 *
 * Ported rule for rule rather than patched case by case: `_Unparser` keeps a precedence per node
 * (set by the parent, `TEST` when none was set) and a node parenthesises itself when that exceeds
 * its own; here the parent's precedence is passed down as `prec`. The quirks follow from the port:
 * each BoolOp operand binds one level tighter than the one before (`a or (b and c)`), `yield`'s
 * value is an atom (`yield (-x)`), every generator argument keeps its own parentheses
 * (`f((x for x in y))`), an int-valued constant (bool included) gets a space before `.attr`
 * (`True .x`), infinities are written `1e309`, f-strings are rebuilt with the quote that avoids
 * escapes, and a backslash inside an f-string field is a `ValueError` (`UnparseError` here).
 */
import type { Comprehension, Constant, Expr, FormattedValue, JoinedStr, Keyword, Lambda } from './ast.js';
import { constantRepr, strRepr } from './repr.js';
import { isPrintable } from './unicode-tables.js';

/** `ast._Precedence`, in increasing binding strength (`BOR` is `EXPR`). */
enum Prec {
  NamedExpr = 1,
  Tuple,
  Yield,
  Test,
  Or,
  And,
  Not,
  Cmp,
  Bor,
  Bxor,
  Band,
  Shift,
  Arith,
  Term,
  Factor,
  Power,
  Await,
  Atom,
}
/** `_Precedence.next()`: one level tighter, saturating at ATOM. */
const next = (p: Prec): Prec => (p < Prec.Atom ? p + 1 : p);

const BIN_OPS: Readonly<Record<string, readonly [string, Prec]>> = {
  Add: ['+', Prec.Arith],
  Sub: ['-', Prec.Arith],
  Mult: ['*', Prec.Term],
  MatMult: ['@', Prec.Term],
  Div: ['/', Prec.Term],
  Mod: ['%', Prec.Term],
  FloorDiv: ['//', Prec.Term],
  Pow: ['**', Prec.Power],
  LShift: ['<<', Prec.Shift],
  RShift: ['>>', Prec.Shift],
  BitOr: ['|', Prec.Bor],
  BitXor: ['^', Prec.Bxor],
  BitAnd: ['&', Prec.Band],
};
const UNARY_OPS: Readonly<Record<string, readonly [string, Prec]>> = {
  Invert: ['~', Prec.Factor],
  Not: ['not', Prec.Not],
  UAdd: ['+', Prec.Factor],
  USub: ['-', Prec.Factor],
};
const CMP_OPS: Readonly<Record<string, string>> = {
  Eq: '==',
  NotEq: '!=',
  Lt: '<',
  LtE: '<=',
  Gt: '>',
  GtE: '>=',
  Is: 'is',
  IsNot: 'is not',
  In: 'in',
  NotIn: 'not in',
};

/** `_INFSTR`: an overflowing decimal literal stands for an infinity. */
const INFSTR = '1e309';
const SINGLE_QUOTES = ["'", '"'] as const;
const MULTI_QUOTES = ['"""', "'''"] as const;
const ALL_QUOTES: readonly string[] = [...SINGLE_QUOTES, ...MULTI_QUOTES];

/** Deeper trees are abbreviated rather than risking the JS stack on a message. */
const MAX_UNPARSE_DEPTH = 200;

/** The `ValueError` `ast.unparse` raises (a backslash it cannot avoid inside an f-string field). */
export class UnparseError extends Error {
  override name = 'ValueError';
}

/** `ast.unparse(e)`. Throws `UnparseError` where CPython raises `ValueError`. */
export function unparse(e: Expr): string {
  return new Unparser(false).expr(e, Prec.Test, 0);
}

class Unparser {
  /** Set inside an f-string replacement field: strings are written avoiding backslashes. */
  constructor(private readonly avoidBackslashes: boolean) {}

  /** Writes `e` where its parent set precedence `prec`. */
  expr(e: Expr, prec: Prec, depth: number): string {
    if (depth > MAX_UNPARSE_DEPTH) return '...';
    const d = depth + 1;
    const parens = (own: Prec, text: string): string => (prec > own ? `(${text})` : text);
    switch (e.type) {
      case 'Name':
        return e.id;
      case 'Constant':
        return this.constant(e);
      case 'Attribute': {
        // `3.__abs__()` would lex as a float: an int literal (bool too) gets a space.
        const v = e.value;
        const space = v.type === 'Constant' && (v.value.kind === 'int' || v.value.kind === 'bool') ? ' ' : '';
        return `${this.expr(v, Prec.Atom, d)}${space}.${e.attr}`;
      }
      case 'Subscript': {
        const s = e.slice;
        const inner = s.type === 'Tuple' && s.elts.length > 0 ? this.itemsView(s.elts, d) : this.expr(s, Prec.Test, d);
        return `${this.expr(e.value, Prec.Atom, d)}[${inner}]`;
      }
      case 'Call': {
        const args = [...e.args.map((a) => this.expr(a, Prec.Test, d)), ...e.keywords.map((k) => this.keyword(k, d))];
        return `${this.expr(e.func, Prec.Atom, d)}(${args.join(', ')})`;
      }
      case 'Starred':
        return `*${this.expr(e.value, Prec.Bor, d)}`;
      case 'BinOp': {
        const [sym, own] = BIN_OPS[e.op.type]!;
        const rightAssoc = e.op.type === 'Pow';
        const left = this.expr(e.left, rightAssoc ? next(own) : own, d);
        const right = this.expr(e.right, rightAssoc ? own : next(own), d);
        return parens(own, `${left} ${sym} ${right}`);
      }
      case 'UnaryOp': {
        const [sym, own] = UNARY_OPS[e.op.type]!;
        // Factor prefixes stay attached (`-1`); `not` is a word.
        const sep = own === Prec.Factor ? '' : ' ';
        return parens(own, `${sym}${sep}${this.expr(e.operand, own, d)}`);
      }
      case 'BoolOp': {
        const own = e.op.type === 'And' ? Prec.And : Prec.Or;
        // `increasing_level_traverse`: each operand one level tighter than the previous one.
        let level = own;
        const parts = e.values.map((v) => {
          level = next(level);
          return this.expr(v, level, d);
        });
        return parens(own, parts.join(e.op.type === 'And' ? ' and ' : ' or '));
      }
      case 'Compare': {
        const parts = [this.expr(e.left, next(Prec.Cmp), d)];
        for (const [i, op] of e.ops.entries())
          parts.push(CMP_OPS[op.type]!, this.expr(e.comparators[i]!, next(Prec.Cmp), d));
        return parens(Prec.Cmp, parts.join(' '));
      }
      case 'IfExp': {
        const body = this.expr(e.body, next(Prec.Test), d);
        const test = this.expr(e.test, next(Prec.Test), d);
        return parens(Prec.Test, `${body} if ${test} else ${this.expr(e.orelse, Prec.Test, d)}`);
      }
      case 'Lambda': {
        const args = this.lambdaArgs(e, d);
        return parens(Prec.Test, `lambda${args ? ` ${args}` : ''}: ${this.expr(e.body, Prec.Test, d)}`);
      }
      case 'NamedExpr':
        return parens(Prec.NamedExpr, `${this.expr(e.target, Prec.Atom, d)} := ${this.expr(e.value, Prec.Atom, d)}`);
      case 'Await':
        return parens(Prec.Await, `await ${this.expr(e.value, Prec.Atom, d)}`);
      case 'Yield':
        return parens(Prec.Yield, e.value === null ? 'yield' : `yield ${this.expr(e.value, Prec.Atom, d)}`);
      case 'YieldFrom':
        return parens(Prec.Yield, `yield from ${this.expr(e.value, Prec.Atom, d)}`);
      case 'Tuple': {
        const text = this.itemsView(e.elts, d);
        return e.elts.length === 0 || prec > Prec.Tuple ? `(${text})` : text;
      }
      case 'List':
        return `[${this.items(e.elts, d)}]`;
      case 'Set':
        return e.elts.length === 0 ? '{*()}' : `{${this.items(e.elts, d)}}`;
      case 'Dict':
        return `{${e.keys
          .map((k, i) => {
            const v = e.values[i]!;
            return k === null
              ? `**${this.expr(v, Prec.Bor, d)}`
              : `${this.expr(k, Prec.Test, d)}: ${this.expr(v, Prec.Test, d)}`;
          })
          .join(', ')}}`;
      case 'ListComp':
        return `[${this.expr(e.elt, Prec.Test, d)}${this.generators(e.generators, d)}]`;
      case 'SetComp':
        return `{${this.expr(e.elt, Prec.Test, d)}${this.generators(e.generators, d)}}`;
      case 'GeneratorExp':
        return `(${this.expr(e.elt, Prec.Test, d)}${this.generators(e.generators, d)})`;
      case 'DictComp':
        return `{${this.expr(e.key, Prec.Test, d)}: ${this.expr(e.value, Prec.Test, d)}${this.generators(e.generators, d)}}`;
      case 'Slice': {
        let s = e.lower ? this.expr(e.lower, Prec.Test, d) : '';
        s += ':';
        if (e.upper) s += this.expr(e.upper, Prec.Test, d);
        if (e.step) s += `:${this.expr(e.step, Prec.Test, d)}`;
        return s;
      }
      case 'JoinedStr':
        return this.joinedStr(e, d);
      case 'FormattedValue':
        return `f${this.strAvoidingBackslashes(this.formattedValue(e, d))}`;
    }
  }

  /** `items_view`: a one-element sequence keeps its trailing comma. */
  private itemsView(elts: readonly Expr[], d: number): string {
    return elts.length === 1 ? `${this.expr(elts[0]!, Prec.Test, d)},` : this.items(elts, d);
  }

  private items(elts: readonly Expr[], d: number): string {
    return elts.map((x) => this.expr(x, Prec.Test, d)).join(', ');
  }

  private keyword(k: Keyword, d: number): string {
    return k.arg === null ? `**${this.expr(k.value, Prec.Test, d)}` : `${k.arg}=${this.expr(k.value, Prec.Test, d)}`;
  }

  private generators(gens: readonly Comprehension[], d: number): string {
    return gens
      .map((g) => {
        let s = `${g.is_async ? ' async for ' : ' for '}${this.expr(g.target, Prec.Tuple, d)} in ${this.expr(g.iter, next(Prec.Test), d)}`;
        for (const cond of g.ifs) s += ` if ${this.expr(cond, next(Prec.Test), d)}`;
        return s;
      })
      .join('');
  }

  /** `visit_arguments`. */
  private lambdaArgs(e: Lambda, d: number): string {
    const a = e.args;
    const parts: string[] = [];
    const positional = [...a.posonlyargs, ...a.args];
    const firstDefault = positional.length - a.defaults.length;
    positional.forEach((p, i) => {
      parts.push(i >= firstDefault ? `${p.arg}=${this.expr(a.defaults[i - firstDefault]!, Prec.Test, d)}` : p.arg);
      if (i === a.posonlyargs.length - 1) parts.push('/');
    });
    if (a.vararg) parts.push(`*${a.vararg.arg}`);
    else if (a.kwonlyargs.length > 0) parts.push('*');
    a.kwonlyargs.forEach((p, i) => {
      const def = a.kw_defaults[i];
      parts.push(def ? `${p.arg}=${this.expr(def, Prec.Test, d)}` : p.arg);
    });
    if (a.kwarg) parts.push(`**${a.kwarg.arg}`);
    return parts.join(', ');
  }

  /** `visit_Constant` + `_write_constant`. */
  private constant(e: Constant): string {
    const v = e.value;
    const prefix = e.kind === 'u' ? 'u' : '';
    if (v.kind === 'float' || v.kind === 'complex') {
      return prefix + constantRepr(v).replace(/inf/g, INFSTR).replace(/nan/g, `(${INFSTR}-${INFSTR})`);
    }
    if (v.kind === 'str' && this.avoidBackslashes) return prefix + this.strAvoidingBackslashes(v.codePoints);
    return prefix + constantRepr(v);
  }

  /** `visit_JoinedStr`. */
  private joinedStr(e: JoinedStr, d: number): string {
    if (this.avoidBackslashes) return `f${this.strAvoidingBackslashes(this.fstringInner(e, d))}`;
    // Escaped whitespace is preferred in the literal parts (`f"{x}\n"`), never inside fields.
    let quotes = ALL_QUOTES;
    let body = '';
    for (const value of e.values) {
      const [text, left] = strLiteralHelper(this.fstringInner(value, d), quotes, value.type === 'Constant');
      body += text;
      quotes = left;
    }
    const q = quotes[0]!;
    return `f${q}${body}${q}`;
  }

  /** `_write_fstring_inner`: the text between an f-string's quotes, as code points. */
  private fstringInner(e: Expr, d: number): number[] {
    if (e.type === 'JoinedStr') return e.values.flatMap((v) => this.fstringInner(v, d));
    if (e.type === 'Constant' && e.value.kind === 'str') {
      return e.value.codePoints.flatMap((c) => (c === 0x7b || c === 0x7d ? [c, c] : [c]));
    }
    if (e.type === 'FormattedValue') return this.formattedValue(e, d);
    throw new UnparseError(`Unexpected node inside JoinedStr, <ast.${e.type} object>`);
  }

  /** `visit_FormattedValue` (the `{…}` part): the field is unparsed by a backslash-avoiding unparser. */
  private formattedValue(e: FormattedValue, d: number): number[] {
    const expr = new Unparser(true).expr(e.value, next(Prec.Test), d);
    if (expr.includes('\\')) throw new UnparseError('Unable to avoid backslash in f-string expression part');
    let out = `{${expr.startsWith('{') ? ' ' : ''}${expr}`;
    if (e.conversion !== -1) out += `!${String.fromCharCode(e.conversion)}`;
    const cps = Array.from(out, (ch) => ch.codePointAt(0)!);
    if (e.format_spec !== null) cps.push(0x3a, ...this.fstringInner(e.format_spec, d));
    cps.push(0x7d);
    return cps;
  }

  /** `_write_str_avoiding_backslashes`. */
  private strAvoidingBackslashes(cps: readonly number[]): string {
    const [text, quotes] = strLiteralHelper(cps, ALL_QUOTES, false);
    const q = quotes[0]!;
    return `${q}${text}${q}`;
  }
}

/**
 * `_str_literal_helper`: the literal text with the fewest escapes and the quotes still possible.
 * Backslashes and non-printable characters are always escaped (`unicode_escape`), `\n` and `\t`
 * only when `escapeSpecialWhitespace`.
 */
function strLiteralHelper(
  cps: readonly number[],
  quoteTypes: readonly string[],
  escapeSpecialWhitespace: boolean,
): [string, readonly string[]] {
  let escaped = '';
  for (const c of cps) {
    if (!escapeSpecialWhitespace && (c === 0x0a || c === 0x09)) escaped += String.fromCodePoint(c);
    else if (c === 0x5c || !isPrintable(c)) escaped += unicodeEscape(c);
    else escaped += String.fromCodePoint(c);
  }
  let possible = escaped.includes('\n') ? quoteTypes.filter((q) => q.length === 3) : [...quoteTypes];
  possible = possible.filter((q) => !escaped.includes(q));
  if (possible.length === 0) {
    // No quote fits: fall back to repr, preferring a quote from the ones asked for.
    const r = strRepr(cps);
    const quote = quoteTypes.find((q) => q.includes(r[0]!)) ?? r[0]!;
    return [r.slice(1, -1), [quote]];
  }
  if (escaped.length > 0) {
    // Prefer a quote whose character is not the last one (stable sort: '''"''' over """\"""").
    const last = escaped[escaped.length - 1]!;
    possible = [...possible.filter((q) => q[0] !== last), ...possible.filter((q) => q[0] === last)];
    // With triple quotes, a final quote character is escaped.
    if (possible[0]![0] === last) escaped = `${escaped.slice(0, -1)}\\${last}`;
  }
  return [escaped, possible];
}

/** `c.encode("unicode_escape").decode("ascii")` for one code point. */
function unicodeEscape(c: number): string {
  switch (c) {
    case 0x5c:
      return '\\\\';
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
  }
  if (c < 0x20 || (c >= 0x7f && c < 0x100)) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c < 0x80) return String.fromCharCode(c);
  if (c < 0x10000) return `\\u${c.toString(16).padStart(4, '0')}`;
  return `\\U${c.toString(16).padStart(8, '0')}`;
}
