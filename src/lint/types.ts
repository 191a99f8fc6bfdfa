/**
 * Static types of condition values, and the CPython 3.11 rules for the operations a condition can
 * perform on them. Every rule answers either "the result has this type" (the operation may still
 * raise on some inputs: ValueError, ZeroDivisionError, OverflowError, MemoryError) or "this
 * always raises", with CPython's own message. A rule that is not sure answers neither (type
 * `null`), because the linter only claims what holds for every input.
 */
import type { CmpOpName, OperatorName } from '../condition/ast.js';

/** `type(v).__name__` of every value a condition can produce. */
export type PyType =
  | 'bool'
  | 'int'
  | 'float'
  | 'complex'
  | 'str'
  | 'bytes'
  | 'NoneType'
  | 'ellipsis'
  | 'dict'
  | 'module'
  | 'builtin_function_or_method'
  | 'type';

/** bool is an int subclass: every rule treats it as an int, except where a result type differs. */
export function isReal(t: PyType): boolean {
  return t === 'bool' || t === 'int' || t === 'float';
}

export function isNumber(t: PyType): boolean {
  return isReal(t) || t === 'complex';
}

/** The four trial variables: a condition that reads none of them does not depend on the trial. */
export const TRIAL_NAMES: ReadonlySet<string> = new Set(['capture', 'exit_code', 'walltime_sec', 'peak_vram_mib']);

/** Static types of the names a condition may use (`peak_vram_mib`'s null is bound to 0). */
export const NAME_TYPES: Readonly<Record<string, PyType>> = {
  capture: 'dict',
  exit_code: 'int',
  walltime_sec: 'float',
  peak_vram_mib: 'int',
  math: 'module',
  float: 'type',
  int: 'type',
  len: 'builtin_function_or_method',
};

/** Outcome of a rule: a result type (null: unknown), or an exception raised on every input. */
export type RuleResult =
  | { readonly kind: 'type'; readonly type: PyType | null }
  | { readonly kind: 'raises'; readonly error: string; readonly detail: string };

const typed = (type: PyType | null): RuleResult => ({ kind: 'type', type });
const raises = (error: string, detail: string): RuleResult => ({ kind: 'raises', error, detail });

const BIN_SYMBOL: Partial<Record<OperatorName, string>> = { Add: '+', Sub: '-', Div: '/', FloorDiv: '//' };

/** `a <op> b` for the four operators the sandbox allows. */
export function binOpRule(op: OperatorName, a: PyType, b: PyType): RuleResult {
  const sym = BIN_SYMBOL[op];
  if (sym === undefined) return typed(null);
  const unsupported = (): RuleResult =>
    raises('TypeError', `unsupported operand type(s) for ${sym}: '${a}' and '${b}'`);
  if (isNumber(a) && isNumber(b)) {
    const complex = a === 'complex' || b === 'complex';
    // complex has no floor division at all.
    if (op === 'FloorDiv' && complex) return unsupported();
    if (complex) return typed('complex');
    if (op === 'Div' || a === 'float' || b === 'float') return typed('float');
    return typed('int');
  }
  if (op === 'Add') {
    if (a === 'str' && b === 'str') return typed('str');
    if (a === 'bytes' && b === 'bytes') return typed('bytes');
    // str.__add__ / bytes.__add__ raise their own TypeError before the reflected operand is tried.
    if (a === 'str') return raises('TypeError', `can only concatenate str (not "${b}") to str`);
    if (a === 'bytes') return raises('TypeError', `can't concat ${b} to bytes`);
  }
  return unsupported();
}

/** `<op>a` for unary `-` and `+` (`not` works on every value). */
export function unaryRule(op: 'USub' | 'UAdd', a: PyType): RuleResult {
  if (isNumber(a)) return typed(a === 'bool' ? 'int' : a);
  return raises('TypeError', `bad operand type for unary ${op === 'USub' ? '-' : '+'}: '${a}'`);
}

const CMP_SYMBOL: Partial<Record<CmpOpName, string>> = { Lt: '<', LtE: '<=', Gt: '>', GtE: '>=' };

/**
 * An ordering comparison: numbers with numbers (not complex), str with str, bytes with bytes;
 * everything else raises TypeError. `==` / `!=` never raise for these types.
 */
export function orderRule(op: CmpOpName, a: PyType, b: PyType): RuleResult {
  const sym = CMP_SYMBOL[op];
  if (sym === undefined) return typed('bool');
  if ((isReal(a) && isReal(b)) || (a === 'str' && b === 'str') || (a === 'bytes' && b === 'bytes'))
    return typed('bool');
  return raises('TypeError', `'${sym}' not supported between instances of '${a}' and '${b}'`);
}

/** Builtins a condition can call, by their unparsed name. */
export type Callee = 'float' | 'int' | 'len' | 'math.isnan' | 'math.isinf';

/** A call with positional arguments of the given types (the sandbox forbids keywords and `*args`). */
export function callRule(callee: Callee, args: readonly PyType[]): RuleResult {
  switch (callee) {
    case 'float': {
      if (args.length > 1) return raises('TypeError', `float expected at most 1 argument, got ${args.length}`);
      const [a] = args;
      if (a === undefined || isReal(a) || a === 'str' || a === 'bytes') return typed('float');
      return raises('TypeError', `float() argument must be a string or a real number, not '${a}'`);
    }
    case 'int': {
      if (args.length > 2) return raises('TypeError', `int() takes at most 2 arguments (${args.length} given)`);
      const [a, base] = args;
      if (a === undefined) return typed('int');
      if (base === undefined) {
        if (isReal(a) || a === 'str' || a === 'bytes') return typed('int');
        return raises('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${a}'`);
      }
      if (a !== 'str' && a !== 'bytes') return raises('TypeError', "int() can't convert non-string with explicit base");
      if (base !== 'int' && base !== 'bool')
        return raises('TypeError', `'${base}' object cannot be interpreted as an integer`);
      return typed('int');
    }
    case 'len': {
      if (args.length !== 1) return raises('TypeError', `len() takes exactly one argument (${args.length} given)`);
      const a = args[0]!;
      if (a === 'str' || a === 'bytes' || a === 'dict') return typed('int');
      return raises('TypeError', `object of type '${a}' has no len()`);
    }
    case 'math.isnan':
    case 'math.isinf': {
      if (args.length !== 1)
        return raises('TypeError', `${callee}() takes exactly one argument (${args.length} given)`);
      const a = args[0]!;
      if (isReal(a)) return typed('bool');
      return raises('TypeError', `must be real number, not ${a}`);
    }
  }
}
