/**
 * Hints for rejected conditions: one line saying what to write instead, for the constructs recipe authors
 * commonly try — `in`, string methods, f-strings, comprehensions, `lambda`, `&&`… A hint never changes the
 * rejection (the walker's `detail` and the error's `message` keep CPython's and the original's wording, checked
 * against goldens); it travels beside it as `SandboxError.hint`. Object-graph walks (`__class__`), `await`,
 * `yield` and the like get none: there is nothing to write instead.
 */
import { closest } from '../text/suggest.js';
import type { Expr, Node } from './ast.js';

/** The names in scope, in the order the documentation lists them. */
const NAMES_IN_SCOPE = ['capture', 'exit_code', 'walltime_sec', 'peak_vram_mib', 'math', 'float', 'int', 'len'];
const CALLABLE = '`float()`, `int()`, `len()`, `math.isnan()` and `math.isinf()`';

export const HINTS = {
  in: "`in` is not allowed: put the substring in the regex (e.g. `(?P<msg>.*out of memory.*)`); for one of a few values write `x == 'a' or x == 'b'`",
  notIn:
    "`not in` is not allowed: put the text you expect in the regex instead of excluding it here; for none of a few values write `x != 'a' and x != 'b'`",
  is: '`is` and `is not` are not allowed: compare values with `==` and `!=`',
  caseMethod:
    'string methods are not allowed: for a case-insensitive match start the regex with `(?i)` (e.g. `(?i)(?P<level>error)`) and compare the capture as it is',
  affixMethod:
    'string methods are not allowed: anchor the text in the regex instead (e.g. `(?P<msg>NCCL.*)` for a prefix, `(?P<msg>.*timeout)` for a suffix)',
  textMethod:
    'string methods are not allowed: capture exactly the part you need in the regex (e.g. `step (?P<step>\\d+)`) and compare that',
  captureMethod: "method calls are not allowed: read a group as `capture['name']`",
  regexCall:
    "a condition cannot run a regex: put the test in the pattern's regex, whose named groups arrive as `capture['name']`",
  otherCall: `only ${CALLABLE} can be called; do text work in the regex`,
  str: "`str()` is not allowed: a capture is already a str, so compare it with a string (`capture['code'] == '137'`)",
  abs: '`abs()` is not allowed: write `x > 5 or x < -5` for `abs(x) > 5`',
  max: '`max()` is not allowed: compare each value, e.g. `a > 5 or b > 5` for `max(a, b) > 5`',
  min: '`min()` is not allowed: compare each value, e.g. `a > 5 and b > 5` for `min(a, b) > 5`',
  round: '`round()` is not allowed: compare the float itself, or truncate it with `int()`',
  bool: "`bool()` is not allowed: the condition's value is tested for truth already; for a non-empty capture write `len(capture['x']) > 0`",
  anyAll: '`any()` and `all()` are not allowed (a condition has no loops): combine the tests with `or` and `and`',
  bareMath: (fn: string) => `write \`math.${fn}(…)\``,
  mathMember: 'only `math.isnan` and `math.isinf` can be used from `math`',
  mathConstant: (name: string, instead: string) =>
    `only \`math.isnan\` and \`math.isinf\` can be used from \`math\`: write ${instead} for \`math.${name}\``,
  captureAttribute: (name: string) => `read a group as \`capture['${name}']\``,
  attribute: 'attribute access is not allowed (except `math.isnan` and `math.isinf`)',
  joinedStr:
    "f-strings are not allowed (a condition builds no strings): compare the capture itself, e.g. `capture['rank'] == '0'`",
  comprehension:
    "comprehensions are not allowed (a condition has no loops): test this match's values directly and combine them with `and` / `or`",
  lambda: '`lambda` is not allowed (a condition defines no functions): write the test itself',
  namedExpr: '`:=` is not allowed: repeat the sub-expression instead',
  collection: 'tuples, lists, sets and dicts are not allowed: compare one value at a time, e.g. `x == 1 or x == 2`',
  mult: '`*` is not allowed (it also repeats strings): divide the other side instead, e.g. `a > b / 2` for `2 * a > b`',
  pow: '`**` is not allowed: write the power as a constant, e.g. `1e6` for `10 ** 6`',
  mod: '`%` is not allowed (it also formats strings): match the digits you need in the regex, e.g. `step (?P<step>\\d*000)\\b` for every 1000th step',
  bitAnd: '`&` is not allowed: for logic write `and`',
  bitOr: '`|` is not allowed: for logic write `or`',
  bitXor: '`^` is not allowed: for "exactly one of" write `(a) != (b)` over two tests',
  invert: '`~` is not allowed: for logic write `not`',
  keyword: "keyword arguments are not allowed: pass arguments by position, e.g. `int(capture['x'], 16)`",
  starred: '`*` unpacking is not allowed: pass each argument itself',
  slice: 'slices are not allowed: capture exactly the part you need as its own group in the regex',
  subscript:
    "only `capture['name']` can be subscripted: to read part of a value, capture that part as its own group in the regex",
  pythonConstant: 'Python spells these `True`, `False` and `None`',
  name: (id: string) => {
    const near = closest(id, NAMES_IN_SCOPE);
    const scope = `names in scope: ${NAMES_IN_SCOPE.join(', ')}`;
    return near !== null
      ? `${scope} (did you mean '${near}'?)`
      : `${scope}; a regex group is read as \`capture['${id}']\``;
  },
  intConstant: 'write a bound this large as a float, e.g. `1e9`',
  logicalOperators: 'Python writes `and`, `or` and `not` for `&&`, `||` and `!`',
  notAString: 'quote the expression in the YAML, e.g. `condition: "exit_code != 0"`',
} as const;

const CASE_METHODS = new Set(['lower', 'upper', 'casefold', 'swapcase', 'capitalize', 'title']);
const AFFIX_METHODS = new Set(['startswith', 'endswith', 'removeprefix', 'removesuffix']);
const TEXT_METHODS = new Set([
  'strip',
  'lstrip',
  'rstrip',
  'split',
  'rsplit',
  'splitlines',
  'partition',
  'rpartition',
  'replace',
  'find',
  'rfind',
  'index',
  'rindex',
  'count',
  'isdigit',
  'isdecimal',
  'isnumeric',
  'isalpha',
  'isalnum',
  'isspace',
  'islower',
  'isupper',
  'format',
  'encode',
  'decode',
  'zfill',
  'join',
]);
const CAPTURE_METHODS = new Set(['get', 'keys', 'values', 'items', 'setdefault', 'pop', 'update', 'copy']);
const REGEX_FUNCTIONS = new Set(['search', 'match', 'fullmatch', 'findall', 'finditer', 'compile', 'sub']);
const MATH_CONSTANTS: Readonly<Record<string, string>> = {
  inf: "`float('inf')`",
  nan: "`float('nan')`",
  pi: '`3.141592653589793`',
  e: '`2.718281828459045`',
  tau: '`6.283185307179586`',
};

const isDunder = (name: string): boolean => name.startsWith('__') && name.endsWith('__');
const nameOf = (e: Expr): string | null => (e.type === 'Name' ? e.id : null);

/** The hint for the node the walker rejected (its first violation in `ast.walk` order), or null. */
export function hintForNode(node: Node): string | null {
  switch (node.type) {
    case 'In':
      return HINTS.in;
    case 'NotIn':
      return HINTS.notIn;
    case 'Is':
    case 'IsNot':
      return HINTS.is;
    case 'Call':
      return callHint(node.func);
    case 'Attribute':
      return attributeHint(nameOf(node.value), node.attr);
    case 'JoinedStr':
    case 'FormattedValue':
      return HINTS.joinedStr;
    case 'ListComp':
    case 'SetComp':
    case 'DictComp':
    case 'GeneratorExp':
      return HINTS.comprehension;
    case 'Lambda':
      return HINTS.lambda;
    case 'NamedExpr':
      return HINTS.namedExpr;
    case 'Tuple':
    case 'List':
    case 'Set':
    case 'Dict':
      return HINTS.collection;
    case 'Mult':
      return HINTS.mult;
    case 'Pow':
      return HINTS.pow;
    case 'Mod':
      return HINTS.mod;
    case 'BitAnd':
      return HINTS.bitAnd;
    case 'BitOr':
      return HINTS.bitOr;
    case 'BitXor':
      return HINTS.bitXor;
    case 'Invert':
      return HINTS.invert;
    case 'keyword':
      return HINTS.keyword;
    case 'Starred':
      return HINTS.starred;
    case 'Slice':
      return HINTS.slice;
    case 'Subscript':
      return HINTS.subscript;
    case 'Name':
      if (isDunder(node.id) || node.id === 'True' || node.id === 'False' || node.id === 'None') return null;
      if (/^(true|false|none|null|nil)$/i.test(node.id)) return HINTS.pythonConstant;
      return HINTS.name(node.id);
    case 'Constant':
      return node.value.kind === 'int' ? HINTS.intConstant : null;
    default:
      return null;
  }
}

/** A call whose target is not one of the five allowed. */
function callHint(func: Expr): string | null {
  if (func.type === 'Name') {
    switch (func.id) {
      case 'str':
        return HINTS.str;
      case 'abs':
        return HINTS.abs;
      case 'max':
        return HINTS.max;
      case 'min':
        return HINTS.min;
      case 'round':
        return HINTS.round;
      case 'bool':
        return HINTS.bool;
      case 'any':
      case 'all':
        return HINTS.anyAll;
      case 'isnan':
      case 'isinf':
        return HINTS.bareMath(func.id);
      default:
        return isDunder(func.id) ? null : HINTS.otherCall;
    }
  }
  if (func.type !== 'Attribute' || isDunder(func.attr)) return null;
  const owner = nameOf(func.value);
  if (owner === 'capture' && CAPTURE_METHODS.has(func.attr)) return HINTS.captureMethod;
  if (owner === 're' && REGEX_FUNCTIONS.has(func.attr)) return HINTS.regexCall;
  if (owner === 'math') return HINTS.mathMember;
  if (CASE_METHODS.has(func.attr)) return HINTS.caseMethod;
  if (AFFIX_METHODS.has(func.attr)) return HINTS.affixMethod;
  if (TEXT_METHODS.has(func.attr)) return HINTS.textMethod;
  return HINTS.otherCall;
}

/** An attribute read that is not `math.isnan` / `math.isinf` (a call's target is judged by `callHint`). */
function attributeHint(owner: string | null, attr: string): string | null {
  if (isDunder(attr)) return null;
  if (owner === 'capture') return HINTS.captureAttribute(attr);
  if (owner === 'math') {
    const instead = MATH_CONSTANTS[attr];
    return instead === undefined ? HINTS.mathMember : HINTS.mathConstant(attr, instead);
  }
  return HINTS.attribute;
}

/**
 * A syntax error's hint, from the source text: the logical operators of C-family languages, which CPython
 * rejects with a bare "invalid syntax".
 */
export function hintForSyntax(source: string): string | null {
  const code = source.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");
  return /&&|\|\||!(?!=)/.test(code) ? HINTS.logicalOperators : null;
}
