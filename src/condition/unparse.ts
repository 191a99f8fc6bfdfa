/**
 * `ast.unparse` for the node shapes a rejected call target or attribute can take: the walker
 * names the forbidden call by this text (`forbidden call: __import__('os').system`), and the
 * allowed targets are matched against it, exactly as the original walker does.
 */
import type { Comprehension, Expr, Keyword, Marker } from './ast.js';
import { constantRepr } from './repr.js';

// ast._Precedence, in increasing binding strength.
const enum Prec {
  NamedExpr = 1, Tuple, Yield, Test, Or, And, Not, Cmp, Bor, Bxor, Band, Shift, Arith, Term, Factor, Power, Await, Atom,
}

const BIN_OPS: Record<string, [string, Prec]> = {
  Add: ['+', Prec.Arith], Sub: ['-', Prec.Arith], Mult: ['*', Prec.Term], MatMult: ['@', Prec.Term],
  Div: ['/', Prec.Term], Mod: ['%', Prec.Term], FloorDiv: ['//', Prec.Term], Pow: ['**', Prec.Power],
  LShift: ['<<', Prec.Shift], RShift: ['>>', Prec.Shift], BitOr: ['|', Prec.Bor], BitXor: ['^', Prec.Bxor],
  BitAnd: ['&', Prec.Band],
};
const UNARY_OPS: Record<string, [string, Prec]> = {
  Invert: ['~', Prec.Factor], Not: ['not ', Prec.Not], UAdd: ['+', Prec.Factor], USub: ['-', Prec.Factor],
};
const CMP_OPS: Record<string, string> = {
  Eq: '==', NotEq: '!=', Lt: '<', LtE: '<=', Gt: '>', GtE: '>=', Is: 'is', IsNot: 'is not', In: 'in', NotIn: 'not in',
};

/** Deeper trees are abbreviated rather than risking the JS stack on a message. */
const MAX_UNPARSE_DEPTH = 200;

export function unparse(e: Expr): string {
  return new Unparser().expr(e, Prec.Test, 0);
}

class Unparser {
  expr(e: Expr, prec: Prec, depth: number): string {
    if (depth > MAX_UNPARSE_DEPTH) return '...';
    const d = depth + 1;
    const wrap = (own: Prec, text: string): string => (prec > own ? `(${text})` : text);
    switch (e.type) {
      case 'Name':
        return e.id;
      case 'Constant':
        return constantRepr(e.value);
      case 'Attribute': {
        let value = this.expr(e.value, Prec.Atom, d);
        // `1.x` would lex as a float: CPython writes `1 .x`.
        if (e.value.type === 'Constant' && e.value.value.kind === 'int') value += ' ';
        return `${value}.${e.attr}`;
      }
      case 'Subscript': {
        const s = e.slice;
        const inner = s.type === 'Tuple' && s.elts.length > 0
          ? this.items(s.elts, d) + (s.elts.length === 1 ? ',' : '')
          : this.expr(s, Prec.Tuple, d);
        return `${this.expr(e.value, Prec.Atom, d)}[${inner}]`;
      }
      case 'Call': {
        const args = [...e.args.map((a) => this.expr(a, Prec.Test, d)), ...e.keywords.map((k) => this.keyword(k, d))];
        if (e.args.length === 1 && e.keywords.length === 0 && e.args[0]!.type === 'GeneratorExp') {
          return `${this.expr(e.func, Prec.Atom, d)}${this.expr(e.args[0]!, Prec.Atom, d)}`;
        }
        return `${this.expr(e.func, Prec.Atom, d)}(${args.join(', ')})`;
      }
      case 'Starred':
        return `*${this.expr(e.value, Prec.Bor, d)}`;
      case 'BinOp': {
        const [sym, own] = BIN_OPS[e.op.type]!;
        const rightAssoc = e.op.type === 'Pow';
        const left = this.expr(e.left, rightAssoc ? own + 1 : own, d);
        const right = this.expr(e.right, rightAssoc ? own : own + 1, d);
        return wrap(own, `${left} ${sym} ${right}`);
      }
      case 'UnaryOp': {
        const [sym, own] = UNARY_OPS[e.op.type]!;
        return wrap(own, `${sym}${this.expr(e.operand, own, d)}`);
      }
      case 'BoolOp': {
        const own = e.op.type === 'And' ? Prec.And : Prec.Or;
        const sep = e.op.type === 'And' ? ' and ' : ' or ';
        return wrap(own, e.values.map((v, i) => this.expr(v, i === 0 ? own + 1 : own + 1, d)).join(sep));
      }
      case 'Compare': {
        const parts = [this.expr(e.left, Prec.Cmp + 1, d)];
        e.ops.forEach((op: Marker<string>, i) => parts.push(CMP_OPS[op.type]!, this.expr(e.comparators[i]!, Prec.Cmp + 1, d)));
        return wrap(Prec.Cmp, parts.join(' '));
      }
      case 'IfExp':
        return wrap(Prec.Test, `${this.expr(e.body, Prec.Test + 1, d)} if ${this.expr(e.test, Prec.Test + 1, d)} else ${this.expr(e.orelse, Prec.Test, d)}`);
      case 'Lambda':
        return wrap(Prec.Test, `lambda${this.lambdaArgs(e, d)}: ${this.expr(e.body, Prec.Test, d)}`);
      case 'NamedExpr':
        return wrap(Prec.NamedExpr, `${this.expr(e.target, Prec.Atom, d)} := ${this.expr(e.value, Prec.Atom, d)}`);
      case 'Await':
        return wrap(Prec.Await, `await ${this.expr(e.value, Prec.Atom, d)}`);
      case 'Yield':
        return wrap(Prec.Yield, e.value === null ? 'yield' : `yield ${this.expr(e.value, Prec.Tuple, d)}`);
      case 'YieldFrom':
        return wrap(Prec.Yield, `yield from ${this.expr(e.value, Prec.Tuple, d)}`);
      case 'Tuple':
        if (e.elts.length === 0) return '()';
        return wrap(Prec.Tuple, this.items(e.elts, d) + (e.elts.length === 1 ? ',' : ''));
      case 'List':
        return `[${this.items(e.elts, d)}]`;
      case 'Set':
        return e.elts.length === 0 ? '{*()}' : `{${this.items(e.elts, d)}}`;
      case 'Dict':
        return `{${e.keys
          .map((k, i) => (k === null ? `**${this.expr(e.values[i]!, Prec.Bor, d)}` : `${this.expr(k, Prec.Test, d)}: ${this.expr(e.values[i]!, Prec.Test, d)}`))
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
      case 'FormattedValue':
        return "f'...'";
    }
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
        let s = `${g.is_async ? ' async' : ''} for ${this.expr(g.target, Prec.Tuple, d)} in ${this.expr(g.iter, Prec.Test + 1, d)}`;
        for (const cond of g.ifs) s += ` if ${this.expr(cond, Prec.Test + 1, d)}`;
        return s;
      })
      .join('');
  }

  private lambdaArgs(e: Extract<Expr, { type: 'Lambda' }>, d: number): string {
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
    return parts.length > 0 ? ` ${parts.join(', ')}` : '';
  }
}

