/**
 * The static checker proper: an abstract evaluation of a checked condition over the static types
 * of its values, following CPython's evaluation order (operands left to right, `and`/`or` and
 * comparison chains short-circuiting, an `if`-expression's test first).
 *
 * Soundness rule: a finding that says "raises" or "is always False/True" holds for every input.
 * So every fact below is one of
 *  - exact: a trial-independent sub-expression is evaluated once by the VM (see fold.ts);
 *  - a type rule of types.ts applied to operand types that are certain;
 *  - "unknown", which never produces a finding.
 * Findings are made only where the sub-expression can be reached (not behind a constant
 * short-circuit), and a sub-expression "raises whenever evaluated": under `x and capture['bad']`
 * it raises only when `x` is truthy, which the message says; `neverFires` tells whether the whole
 * condition can never fire.
 */
import type { BoolOp, Call, CmpOpName, Compare, Expr, IfExp, Loc, Subscript } from '../condition/ast.js';
import { SandboxError } from '../condition/errors.js';
import { describe } from '../condition/evaluate.js';
import { strRepr } from '../condition/repr.js';
import { unparse } from '../condition/unparse.js';
import { validateCondition, type CheckedCondition } from '../condition/validate.js';
import type { VmOutcome, VmValue } from '../condition/vm-host.js';
import { closest } from '../text/suggest.js';
import { evaluateTree } from './fold.js';
import { ConditionText, type Span } from './source-text.js';
import {
  binOpRule,
  callRule,
  isNumber,
  isReal,
  NAME_TYPES,
  orderRule,
  TRIAL_NAMES,
  unaryRule,
  type Callee,
  type PyType,
  type RuleResult,
} from './types.js';

/** What the condition can find in `capture`, derived from the pattern's regex. */
export interface CaptureModel {
  /** Every named group of the regex: a key outside this list is never in `capture`. */
  readonly names: readonly string[];
  /** Named groups a match may leave unset, each with the explanation (and regex fix) to show. */
  readonly optional: ReadonlyMap<string, string>;
  /** For a regex without named groups: how to name one (a rewrite of its first plain group), or null. */
  readonly nameGroupHint: ((key: string) => string) | null;
  /** Whether named group `name`'s text can contain code point `cp`; null when unknown. Absent: never known. */
  readonly canHold?: (name: string, cp: number) => boolean | null;
}

/** What a finding asserts, in a form the tests can check against an evaluation. */
export type Claim =
  /** The flagged sub-expression raises `error` on every evaluation (some exception if an operand raises first). */
  | { readonly kind: 'raises'; readonly error: string }
  /** The flagged sub-expression, when it does not raise, always has this truthiness. */
  | { readonly kind: 'value'; readonly truthy: boolean }
  /** The flagged sub-expression raises `error` on some inputs (an optional group). */
  | { readonly kind: 'may-raise'; readonly error: string }
  /** The whole condition has this outcome on every trial. */
  | { readonly kind: 'constant'; readonly outcome: VmOutcome };

export interface Finding {
  readonly code: string;
  readonly message: string;
  /** Replacement text for `loc` (a complete expression), or null. */
  readonly suggestion: string | null;
  /** Position inside the stripped condition. */
  readonly loc: Loc;
  /** The flagged sub-expression (a one-operator Compare built from the chain for a chain link). */
  readonly expr: Expr;
  readonly claim: Claim;
}

export interface ConditionLint {
  readonly findings: readonly Finding[];
  /** Every evaluation of the condition raises or gives a falsy value: it never fires. */
  readonly neverFires: boolean;
}

/** Abstract value of a sub-expression. */
interface Abs {
  /** Its type whenever it does not raise; null when unknown. */
  readonly type: PyType | null;
  /** Every evaluation raises. */
  readonly raises: boolean;
  /** Every evaluation raises or gives a falsy value. */
  readonly neverTruthy: boolean;
  /** For a trial-independent sub-expression: its exact outcome. */
  readonly konst: VmOutcome | null;
}

const CALL_RESULT: Readonly<Record<Callee, PyType>> = {
  float: 'float',
  int: 'int',
  len: 'int',
  'math.isnan': 'bool',
  'math.isinf': 'bool',
};

const UNKNOWN: Abs = { type: null, raises: false, neverTruthy: false, konst: null };
const RAISES: Abs = { type: null, raises: true, neverTruthy: true, konst: null };
const ofType = (type: PyType | null): Abs => ({ type, raises: false, neverTruthy: false, konst: null });

/** `never-fires/key-error`, `never-fires/zero-division-error`, … */
export function raiseCode(error: string): string {
  return `never-fires/${error.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`;
}

export function analyzeCondition(checked: CheckedCondition, capture: CaptureModel | null): ConditionLint {
  return new Analyzer(checked, capture).run();
}

class Analyzer {
  private readonly text: ConditionText;
  private findings: Finding[] = [];

  constructor(
    private readonly checked: CheckedCondition,
    private readonly capture: CaptureModel | null,
  ) {
    this.text = new ConditionText(checked.source);
  }

  run(): ConditionLint {
    const root = this.checked.tree.body;
    const abs = this.expr(root, true);
    if (abs.konst !== null) {
      // Constant: that is the one thing to say; anything else inside it is moot.
      return { findings: [this.constantFinding(root, abs.konst)], neverFires: abs.neverTruthy };
    }
    if (abs.neverTruthy) {
      this.findings = this.findings.map((f) =>
        f.claim.kind === 'raises' || (f.claim.kind === 'value' && !f.claim.truthy)
          ? { ...f, message: `${f.message}; the condition never fires` }
          : f,
      );
    }
    return { findings: this.findings, neverFires: abs.neverTruthy };
  }

  private constantFinding(root: Expr, outcome: VmOutcome): Finding {
    const what = outcome.ok
      ? `it is always ${describeValue(outcome.value)}, so it ${outcome.truthy ? 'fires at every match of the regex' : 'never fires'}`
      : `it always raises ${outcome.error}, so it never fires`;
    return {
      code: 'constant-condition',
      message: `the condition does not depend on the trial (it reads none of capture, exit_code, walltime_sec, peak_vram_mib): ${what}`,
      suggestion: null,
      loc: root.loc,
      expr: root,
      claim: { kind: 'constant', outcome },
    };
  }

  private report(reachable: boolean, f: Finding): void {
    if (reachable) this.findings.push(f);
  }

  // ---- expressions -------------------------------------------------------------------------

  private expr(e: Expr, reachable: boolean): Abs {
    if (trialFree(e)) return this.constant(e, reachable);
    switch (e.type) {
      case 'Name':
        return ofType(NAME_TYPES[e.id] ?? null);
      case 'Subscript':
        return this.subscript(e, reachable);
      case 'Call':
        return this.call(e, reachable);
      case 'BinOp': {
        const left = this.expr(e.left, reachable);
        const right = this.expr(e.right, reachable && !left.raises);
        if (left.raises || right.raises) return RAISES;
        if (left.type === null || right.type === null) return UNKNOWN;
        const rule = binOpRule(e.op.type, left.type, right.type);
        if (rule.kind === 'raises') {
          const span = this.text.span(e.loc);
          this.reportRaise(
            reachable,
            e,
            span,
            rule,
            this.strOperandFix(span, [e.left, e.right], [left.type, right.type], e.op.type === 'Div'),
          );
          return RAISES;
        }
        if ((e.op.type === 'Div' || e.op.type === 'FloorDiv') && isZero(right.konst) && isNumber(left.type)) {
          const error = 'ZeroDivisionError';
          this.report(reachable, {
            code: raiseCode(error),
            message: `${this.quote(e)} raises ${error} whenever it is evaluated: its divisor is always ${this.quote(e.right)}`,
            suggestion: null,
            loc: e.loc,
            expr: e,
            claim: { kind: 'raises', error },
          });
          return RAISES;
        }
        return ofType(rule.type);
      }
      case 'UnaryOp': {
        const operand = this.expr(e.operand, reachable);
        if (operand.raises) return RAISES;
        if (e.op.type === 'Not') return ofType('bool');
        if (operand.type === null || (e.op.type !== 'USub' && e.op.type !== 'UAdd')) return UNKNOWN;
        const rule = unaryRule(e.op.type, operand.type);
        if (rule.kind === 'raises') {
          const span = this.text.span(e.loc);
          const fix = operand.type === 'str' ? this.wrap(span, e.operand, 'float') : null;
          this.reportRaise(reachable, e, span, rule, fix);
          return RAISES;
        }
        return ofType(rule.type);
      }
      case 'Compare':
        return this.compare(e, reachable);
      case 'BoolOp':
        return this.boolOp(e, reachable);
      case 'IfExp':
        return this.ifExp(e, reachable);
      default:
        return UNKNOWN;
    }
  }

  /** A trial-independent sub-expression: evaluated once, exactly. */
  private constant(e: Expr, reachable: boolean): Abs {
    const outcome = evaluateTree(e);
    if (!outcome.ok) {
      // The VM's own limits are not CPython's behaviour: claim nothing.
      if (outcome.error === 'MemoryError' || outcome.error === 'SystemError') return UNKNOWN;
      if (e !== this.checked.tree.body) {
        this.report(reachable, {
          code: raiseCode(outcome.error),
          message: `${this.quote(e)} raises ${outcome.error} whenever it is evaluated (it does not depend on the trial)`,
          suggestion: null,
          loc: e.loc,
          expr: e,
          claim: { kind: 'raises', error: outcome.error },
        });
      }
      return { type: null, raises: true, neverTruthy: true, konst: outcome };
    }
    return { type: vmType(outcome.value), raises: false, neverTruthy: !outcome.truthy, konst: outcome };
  }

  private subscript(e: Subscript, reachable: boolean): Abs {
    // The validator allows subscripts of `capture` only; `capture` itself never raises.
    const key = this.expr(e.slice, reachable);
    if (key.raises) return RAISES;
    const model = this.capture;
    if (model === null) return ofType('str');
    const keyValue = key.konst?.ok ? key.konst.value : null;
    const keyStr = keyValue?.tag === 'str' ? String.fromCodePoint(...keyValue.codePoints) : null;
    const raise = (code: string, why: string, suggestion: string | null): Abs => {
      this.report(reachable, {
        code,
        message: `${this.quote(e)} raises KeyError whenever it is evaluated: ${why}`,
        suggestion,
        loc: e.loc,
        expr: e,
        claim: { kind: 'raises', error: 'KeyError' },
      });
      return RAISES;
    };
    if (model.names.length === 0) {
      // capture is always empty: every read raises, whatever the key (a dict key would be a TypeError).
      if (key.type === null || key.type === 'dict') return ofType('str');
      const hint =
        keyStr !== null && model.nameGroupHint !== null
          ? `; name the group in the regex, e.g. ${model.nameGroupHint(keyStr)}`
          : '';
      return raise('capture-without-groups', `the regex has no named groups, so capture is always empty${hint}`, null);
    }
    if (keyValue === null) return ofType('str'); // a key that varies: not judged
    if (keyStr === null) {
      return raise(
        'never-fires/key-error',
        `capture keys are str, and the key ${this.quote(e.slice)} is ${article(vmType(keyValue))}`,
        null,
      );
    }
    if (!model.names.includes(keyStr)) {
      const near = closest(keyStr, model.names);
      const groups = model.names.map((n) => strRepr(n)).join(', ');
      const why =
        near !== null
          ? `the regex has no group ${strRepr(keyStr)} (did you mean ${strRepr(near)}?)`
          : `the regex has no group ${strRepr(keyStr)} (its named groups: ${groups})`;
      return raise('never-fires/key-error', why, near !== null ? this.renameKey(e, near) : null);
    }
    const optional = model.optional.get(keyStr);
    if (optional !== undefined) {
      this.report(reachable, {
        code: 'optional-group',
        message: `${this.quote(e)} raises KeyError when group ${strRepr(keyStr)} did not participate in the match: ${optional}`,
        suggestion: null,
        loc: e.loc,
        expr: e,
        claim: { kind: 'may-raise', error: 'KeyError' },
      });
    }
    return ofType('str');
  }

  private call(e: Call, reachable: boolean): Abs {
    const callee = unparse(e.func) as Callee; // the validator allows only the five callees
    const args: Abs[] = [];
    let live = reachable;
    for (const a of e.args) {
      const abs = this.expr(a, live);
      args.push(abs);
      if (abs.raises) live = false;
    }
    if (args.some((a) => a.raises)) return RAISES;
    const types = args.map((a) => a.type);
    if (types.some((t) => t === null)) {
      return ofType(CALL_RESULT[callee]); // whenever the call does not raise
    }
    if (callee === 'int' && e.args.length === 1) this.intOfDecimal(e, reachable);
    const rule = callRule(callee, types as PyType[]);
    if (rule.kind === 'raises') {
      const span = this.text.span(e.loc);
      const fix =
        (callee === 'math.isnan' || callee === 'math.isinf') && types.length === 1 && types[0] === 'str'
          ? this.wrap(span, e.args[0]!, 'float')
          : null;
      this.reportRaise(reachable, e, span, rule, fix);
      return RAISES;
    }
    return ofType(rule.type);
  }

  /**
   * `int(capture['k'])` where group k can match a '.': int('1253.0') raises ValueError, so such a match never
   * fires (issue 35: the condition raised at every match of a step-time log and nothing said so).
   */
  private intOfDecimal(e: Call, reachable: boolean): void {
    const arg = e.args[0]!;
    if (arg.type !== 'Subscript' || unparse(arg.value) !== 'capture') return;
    const c = arg.slice.type === 'Constant' ? arg.slice.value : null;
    const key = c?.kind === 'str' ? String.fromCodePoint(...c.codePoints) : null;
    if (key === null || this.capture?.canHold?.(key, 0x2e) !== true) return;
    const argText = this.text.text(this.text.span(arg.loc));
    this.report(reachable, {
      code: 'int-of-decimal',
      message: `${this.quote(e)} raises ValueError when group ${strRepr(key)} matches a '.' (int('1253.0') does): use float(${argText}), or make the group match digits only (\\d+)`,
      suggestion: `float(${argText})`,
      loc: e.loc,
      expr: e,
      claim: { kind: 'may-raise', error: 'ValueError' },
    });
  }

  /**
   * A chain `a op1 b op2 c` evaluates `a`, `b`, then `a op1 b`; only if that is true does it go
   * on to `c` and `b op2 c`. The first false link is the result.
   */
  private compare(e: Compare, reachable: boolean): Abs {
    let leftExpr = e.left;
    let left = this.expr(leftExpr, reachable);
    if (left.raises) return RAISES;
    let definite = true; // this link is reached on every evaluation that reaches the chain
    for (let i = 0; i < e.ops.length; i++) {
      const op = e.ops[i]!.type;
      const rightExpr = e.comparators[i]!;
      const right = this.expr(rightExpr, reachable);
      if (right.raises) return definite ? RAISES : { ...UNKNOWN, type: 'bool' };
      // A lone comparison is its own node (its position includes a leading parenthesis).
      const span = e.ops.length === 1 ? this.text.span(e.loc) : this.pairSpan(leftExpr, rightExpr);
      const link = this.link(leftExpr, op, rightExpr, left, right, reachable, span);
      if (link === 'raises') return definite ? RAISES : { ...UNKNOWN, type: 'bool' };
      // A false link ends the chain with False, whether or not it is reached.
      if (link === false) return { type: 'bool', raises: false, neverTruthy: true, konst: null };
      if (link !== true) definite = false;
      leftExpr = rightExpr;
      left = right;
    }
    return ofType('bool');
  }

  /** One link of a chain: true/false when known, 'raises', or null. */
  private link(
    leftExpr: Expr,
    op: CmpOpName,
    rightExpr: Expr,
    left: Abs,
    right: Abs,
    reachable: boolean,
    span: Span,
  ): boolean | 'raises' | null {
    const pair: Compare = {
      type: 'Compare',
      left: leftExpr,
      ops: [{ type: op, loc: null }],
      comparators: [rightExpr],
      loc: this.text.loc(span),
    };
    if (left.konst !== null && right.konst !== null) {
      const outcome = evaluateTree(pair);
      return outcome.ok ? outcome.truthy : null;
    }
    if (left.type === null || right.type === null) return null;
    if (op === 'Eq' || op === 'NotEq') {
      const strSide =
        left.type === 'str' && isNumber(right.type) ? 0 : right.type === 'str' && isNumber(left.type) ? 1 : -1;
      if (strSide < 0) return null;
      const numType = strSide === 0 ? right.type : left.type;
      // No conversion for a str literal (`'137' == exit_code`): the literal itself is what to fix.
      const strExprOf = strSide === 0 ? leftExpr : rightExpr;
      const conv =
        strExprOf.type === 'Constant' ? null : numType === 'float' ? 'float' : numType === 'int' ? 'int' : null;
      const strExpr = strSide === 0 ? leftExpr : rightExpr;
      const eq = op === 'Eq';
      this.report(reachable, {
        code: eq ? 'never-fires/str-int-eq' : 'always-true/str-int-ne',
        message:
          `${this.text.quote(span)} is always ${eq ? 'False' : 'True'}: a str never equals ${article(numType)}` +
          (strExpr.type === 'Subscript' ? ' (capture values are str)' : '') +
          (conv !== null ? `; convert it with ${conv}()` : ''),
        suggestion:
          conv !== null
            ? this.check(
                this.text.replace(span, [
                  {
                    span: this.text.span(strExpr.loc),
                    text: `${conv}(${this.text.text(this.text.span(strExpr.loc))})`,
                  },
                ]),
              )
            : null,
        loc: pair.loc,
        expr: pair,
        claim: { kind: 'value', truthy: !eq },
      });
      return !eq;
    }
    const rule = orderRule(op, left.type, right.type);
    if (rule.kind === 'raises') {
      this.reportRaise(
        reachable,
        pair,
        span,
        rule,
        this.strOperandFix(span, [leftExpr, rightExpr], [left.type, right.type], false),
      );
      return 'raises';
    }
    return null;
  }

  private boolOp(e: BoolOp, reachable: boolean): Abs {
    const isAnd = e.op.type === 'And';
    let definite = true; // operand i is evaluated on every evaluation of the BoolOp
    let allConstSoFar = true;
    let neverTruthy = !isAnd;
    let raises = false;
    const types: (PyType | null)[] = [];
    let decided: Abs | null = null;
    for (const v of e.values) {
      const abs = this.expr(v, reachable);
      types.push(abs.type);
      if (definite && abs.raises) raises = true;
      if (isAnd) neverTruthy ||= abs.neverTruthy;
      else neverTruthy &&= abs.neverTruthy;
      if (abs.raises) {
        // Nothing after an always-raising operand runs.
        if (allConstSoFar && abs.konst !== null) decided = abs;
        break;
      }
      // A constant operand that ends the evaluation (`and`: falsy, `or`: truthy).
      if (abs.konst?.ok && abs.konst.truthy !== isAnd) {
        if (allConstSoFar) decided = abs;
        break;
      }
      if (abs.konst === null) {
        allConstSoFar = false;
        definite = false;
      }
    }
    if (decided !== null) return decided;
    const type = types.every((t) => t !== null && t === types[0]) ? types[0]! : null;
    return { type, raises, neverTruthy: neverTruthy || raises, konst: null };
  }

  private ifExp(e: IfExp, reachable: boolean): Abs {
    const test = this.expr(e.test, reachable);
    if (test.raises) return RAISES;
    if (test.konst?.ok) {
      // Only the chosen branch ever runs.
      const chosen = this.expr(test.konst.truthy ? e.body : e.orelse, reachable);
      this.expr(test.konst.truthy ? e.orelse : e.body, false);
      return chosen;
    }
    const body = this.expr(e.body, reachable);
    const orelse = this.expr(e.orelse, reachable);
    const type = body.type !== null && body.type === orelse.type ? body.type : null;
    return {
      type,
      raises: body.raises && orelse.raises,
      neverTruthy: body.neverTruthy && orelse.neverTruthy,
      konst: null,
    };
  }

  // ---- findings ----------------------------------------------------------------------------

  private reportRaise(
    reachable: boolean,
    e: Expr,
    span: Span,
    rule: Extract<RuleResult, { kind: 'raises' }>,
    suggestion: string | null,
  ): void {
    this.report(reachable, {
      code: raiseCode(rule.error),
      message: `${this.text.quote(span)} raises ${rule.error} whenever it is evaluated: ${rule.detail}`,
      suggestion,
      loc: this.text.loc(span),
      expr: e,
      claim: { kind: 'raises', error: rule.error },
    });
  }

  /** For `str <op> number` (or the reverse): convert the str side with int() or float(). */
  private strOperandFix(
    span: Span,
    operands: readonly Expr[],
    types: readonly PyType[],
    division: boolean,
  ): string | null {
    const s = types.indexOf('str');
    const other = types[1 - s];
    if (s < 0 || other === undefined || !isReal(other)) return null;
    return this.wrap(span, operands[s]!, other === 'float' || division ? 'float' : 'int');
  }

  /** The text of `span` with `inner` wrapped in a call to `fn`. */
  private wrap(span: Span, inner: Expr, fn: string): string | null {
    const innerSpan = this.text.span(inner.loc);
    return this.check(this.text.replace(span, [{ span: innerSpan, text: `${fn}(${this.text.text(innerSpan)})` }]));
  }

  /** `capture['los']` → `capture['loss']`, keeping the author's quotes. */
  private renameKey(e: Subscript, name: string): string | null {
    if (e.slice.type !== 'Constant') return null;
    const keyText = this.text.text(this.text.span(e.slice.loc));
    const quote = /['"]/.exec(keyText)?.[0] ?? "'";
    const span = this.text.span(e.loc);
    return this.check(
      this.text.replace(span, [{ span: this.text.span(e.slice.loc), text: `${quote}${name}${quote}` }]),
    );
  }

  /**
   * A suggestion is offered only if it is itself an accepted condition. A node spanning lines is
   * inside brackets (or uses backslash continuations), so it is checked inside parentheses.
   */
  private check(suggestion: string): string | null {
    try {
      validateCondition(suggestion.includes('\n') ? `(${suggestion})` : suggestion);
      return suggestion;
    } catch (e) {
      if (e instanceof SandboxError) return null;
      throw e;
    }
  }

  /** From the first operand (with its parentheses) to the second. */
  private pairSpan(a: Expr, b: Expr): Span {
    return {
      start: this.text.parenthesized(this.text.span(a.loc)).start,
      end: this.text.parenthesized(this.text.span(b.loc)).end,
    };
  }

  private quote(e: Expr): string {
    return this.text.quote(this.text.span(e.loc));
  }
}

/** Whether `e` reads none of the trial variables (so its outcome is the same on every trial). */
function trialFree(e: Expr): boolean {
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const n = stack.pop()!;
    switch (n.type) {
      case 'Name':
        if (TRIAL_NAMES.has(n.id)) return false;
        break;
      case 'Constant':
        break;
      case 'Subscript':
        stack.push(n.value, n.slice);
        break;
      case 'Call':
        stack.push(n.func, ...n.args, ...n.keywords.map((k) => k.value));
        break;
      case 'Attribute':
        stack.push(n.value);
        break;
      case 'BinOp':
        stack.push(n.left, n.right);
        break;
      case 'UnaryOp':
        stack.push(n.operand);
        break;
      case 'Compare':
        stack.push(n.left, ...n.comparators);
        break;
      case 'BoolOp':
        stack.push(...n.values);
        break;
      case 'IfExp':
        stack.push(n.test, n.body, n.orelse);
        break;
      default:
        return false; // not in a checked condition; claim nothing
    }
  }
  return true;
}

function vmType(v: VmValue): PyType {
  switch (v.tag) {
    case 'None':
      return 'NoneType';
    case 'Ellipsis':
      return 'ellipsis';
    case 'builtin':
      return v.id <= 1 ? 'type' : v.id === 3 ? 'module' : 'builtin_function_or_method';
    default:
      return v.tag;
  }
}

function isZero(o: VmOutcome | null): boolean {
  if (o === null || !o.ok) return false;
  const v = o.value;
  switch (v.tag) {
    case 'bool':
      return !v.value;
    case 'int':
      return v.value === 0n;
    case 'float':
      return v.value === 0;
    case 'complex':
      return v.re === 0 && v.im === 0;
    default:
      return false;
  }
}

/** `True`, `0.5`, `'abc'`: the repr, shortened; the type where the repr is not helpful. */
function describeValue(v: VmValue): string {
  const { type, repr } = describe(v, { capture: {}, exit_code: 0, walltime_sec: 0, peak_vram_mib: null });
  if (repr === null || repr.length > 40 || v.tag === 'builtin') return `a value of type ${type}`;
  return repr;
}

function article(t: PyType): string {
  return `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`;
}
