/**
 * The Python AST for eval-mode expressions, with CPython 3.11's class names (`type`) and field
 * names (Parser/Python.asdl). Positions are 1-based lines and code-point columns (CPython's own
 * `col_offset` is a 0-based UTF-8 byte offset); `endCol` is exclusive.
 */

export interface Loc {
  readonly line: number;
  readonly col: number;
  readonly endLine: number;
  readonly endCol: number;
}

/** A constant's value with Python's type kept (an int is arbitrary precision, bytes are bytes). */
export type PyConstant =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'complex'; readonly real: number; readonly imag: number }
  /**
   * `codePoints` is the value: Python strs are code-point sequences, and two lone surrogates
   * written as escapes stay two code points (a JS string would fuse them into one character).
   * `value` is the same text as a JS string, for display.
   */
  | { readonly kind: 'str'; readonly value: string; readonly codePoints: readonly number[] }
  | { readonly kind: 'bytes'; readonly value: Uint8Array }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'None' }
  | { readonly kind: 'Ellipsis' };

export type BoolOpName = 'And' | 'Or';
export type OperatorName =
  | 'Add'
  | 'Sub'
  | 'Mult'
  | 'MatMult'
  | 'Div'
  | 'Mod'
  | 'Pow'
  | 'LShift'
  | 'RShift'
  | 'BitOr'
  | 'BitXor'
  | 'BitAnd'
  | 'FloorDiv';
export type UnaryOpName = 'Invert' | 'Not' | 'UAdd' | 'USub';
export type CmpOpName = 'Eq' | 'NotEq' | 'Lt' | 'LtE' | 'Gt' | 'GtE' | 'Is' | 'IsNot' | 'In' | 'NotIn';
export type ContextName = 'Load' | 'Store';

/**
 * Operator and context nodes carry the position of the token that spelled them (CPython's carry
 * none) so an error can point at the `**` itself; a context node has no position.
 */
export interface Marker<T extends string> {
  readonly type: T;
  readonly loc: Loc | null;
}

interface Base<T extends string> {
  readonly type: T;
  readonly loc: Loc;
}

export interface Expression {
  readonly type: 'Expression';
  readonly body: Expr;
  readonly loc: null;
}

export interface BoolOp extends Base<'BoolOp'> {
  readonly op: Marker<BoolOpName>;
  readonly values: readonly Expr[];
}
export interface NamedExpr extends Base<'NamedExpr'> {
  readonly target: Expr;
  readonly value: Expr;
}
export interface BinOp extends Base<'BinOp'> {
  readonly left: Expr;
  readonly op: Marker<OperatorName>;
  readonly right: Expr;
}
export interface UnaryOp extends Base<'UnaryOp'> {
  readonly op: Marker<UnaryOpName>;
  readonly operand: Expr;
}
export interface Lambda extends Base<'Lambda'> {
  readonly args: Arguments;
  readonly body: Expr;
}
export interface IfExp extends Base<'IfExp'> {
  readonly test: Expr;
  readonly body: Expr;
  readonly orelse: Expr;
}
/** `keys` holds null where CPython's does, for a `**mapping` entry. */
export interface Dict extends Base<'Dict'> {
  readonly keys: readonly (Expr | null)[];
  readonly values: readonly Expr[];
}
export interface SetNode extends Base<'Set'> {
  readonly elts: readonly Expr[];
}
export interface ListComp extends Base<'ListComp'> {
  readonly elt: Expr;
  readonly generators: readonly Comprehension[];
}
export interface SetComp extends Base<'SetComp'> {
  readonly elt: Expr;
  readonly generators: readonly Comprehension[];
}
export interface DictComp extends Base<'DictComp'> {
  readonly key: Expr;
  readonly value: Expr;
  readonly generators: readonly Comprehension[];
}
export interface GeneratorExp extends Base<'GeneratorExp'> {
  readonly elt: Expr;
  readonly generators: readonly Comprehension[];
}
export interface Await extends Base<'Await'> {
  readonly value: Expr;
}
export interface Yield extends Base<'Yield'> {
  readonly value: Expr | null;
}
export interface YieldFrom extends Base<'YieldFrom'> {
  readonly value: Expr;
}
export interface Compare extends Base<'Compare'> {
  readonly left: Expr;
  readonly ops: readonly Marker<CmpOpName>[];
  readonly comparators: readonly Expr[];
}
export interface Call extends Base<'Call'> {
  readonly func: Expr;
  readonly args: readonly Expr[];
  readonly keywords: readonly Keyword[];
}
/** `conversion` is -1 or the code of `s`, `r`, `a`, as in CPython. */
export interface FormattedValue extends Base<'FormattedValue'> {
  readonly value: Expr;
  readonly conversion: number;
  readonly format_spec: JoinedStr | null;
}
export interface JoinedStr extends Base<'JoinedStr'> {
  readonly values: readonly Expr[];
}
export interface Constant extends Base<'Constant'> {
  readonly value: PyConstant;
  readonly kind: 'u' | null;
}
export interface Attribute extends Base<'Attribute'> {
  readonly value: Expr;
  readonly attr: string;
  readonly ctx: Marker<ContextName>;
}
export interface Subscript extends Base<'Subscript'> {
  readonly value: Expr;
  readonly slice: Expr;
  readonly ctx: Marker<ContextName>;
}
export interface Starred extends Base<'Starred'> {
  readonly value: Expr;
  readonly ctx: Marker<ContextName>;
}
export interface Name extends Base<'Name'> {
  readonly id: string;
  readonly ctx: Marker<ContextName>;
}
export interface List extends Base<'List'> {
  readonly elts: readonly Expr[];
  readonly ctx: Marker<ContextName>;
}
export interface Tuple extends Base<'Tuple'> {
  readonly elts: readonly Expr[];
  readonly ctx: Marker<ContextName>;
}
export interface Slice extends Base<'Slice'> {
  readonly lower: Expr | null;
  readonly upper: Expr | null;
  readonly step: Expr | null;
}

export type Expr =
  | BoolOp
  | NamedExpr
  | BinOp
  | UnaryOp
  | Lambda
  | IfExp
  | Dict
  | SetNode
  | ListComp
  | SetComp
  | DictComp
  | GeneratorExp
  | Await
  | Yield
  | YieldFrom
  | Compare
  | Call
  | FormattedValue
  | JoinedStr
  | Constant
  | Attribute
  | Subscript
  | Starred
  | Name
  | List
  | Tuple
  | Slice;

export interface Comprehension {
  readonly type: 'comprehension';
  readonly target: Expr;
  readonly iter: Expr;
  readonly ifs: readonly Expr[];
  readonly is_async: 0 | 1;
  readonly loc: null;
}
export interface Arguments {
  readonly type: 'arguments';
  readonly posonlyargs: readonly Arg[];
  readonly args: readonly Arg[];
  readonly vararg: Arg | null;
  readonly kwonlyargs: readonly Arg[];
  /** null where a keyword-only parameter has no default, as in CPython. */
  readonly kw_defaults: readonly (Expr | null)[];
  readonly kwarg: Arg | null;
  readonly defaults: readonly Expr[];
  readonly loc: null;
}
export interface Arg extends Base<'arg'> {
  readonly arg: string;
  readonly annotation: null;
  readonly type_comment: null;
}
export interface Keyword extends Base<'keyword'> {
  readonly arg: string | null;
  readonly value: Expr;
}

export type Node =
  | Expression
  | Expr
  | Comprehension
  | Arguments
  | Arg
  | Keyword
  | Marker<BoolOpName | OperatorName | UnaryOpName | CmpOpName | ContextName>;

/**
 * `_fields` of each class in CPython 3.11, in order: `ast.walk` visits children in this order, so
 * the first node the whitelist rejects depends on it.
 */
export const FIELDS: Readonly<Record<string, readonly string[]>> = {
  Expression: ['body'],
  BoolOp: ['op', 'values'],
  NamedExpr: ['target', 'value'],
  BinOp: ['left', 'op', 'right'],
  UnaryOp: ['op', 'operand'],
  Lambda: ['args', 'body'],
  IfExp: ['test', 'body', 'orelse'],
  Dict: ['keys', 'values'],
  Set: ['elts'],
  ListComp: ['elt', 'generators'],
  SetComp: ['elt', 'generators'],
  DictComp: ['key', 'value', 'generators'],
  GeneratorExp: ['elt', 'generators'],
  Await: ['value'],
  Yield: ['value'],
  YieldFrom: ['value'],
  Compare: ['left', 'ops', 'comparators'],
  Call: ['func', 'args', 'keywords'],
  FormattedValue: ['value', 'conversion', 'format_spec'],
  JoinedStr: ['values'],
  Constant: ['value', 'kind'],
  Attribute: ['value', 'attr', 'ctx'],
  Subscript: ['value', 'slice', 'ctx'],
  Starred: ['value', 'ctx'],
  Name: ['id', 'ctx'],
  List: ['elts', 'ctx'],
  Tuple: ['elts', 'ctx'],
  Slice: ['lower', 'upper', 'step'],
  comprehension: ['target', 'iter', 'ifs', 'is_async'],
  arguments: ['posonlyargs', 'args', 'vararg', 'kwonlyargs', 'kw_defaults', 'kwarg', 'defaults'],
  arg: ['arg', 'annotation', 'type_comment'],
  keyword: ['arg', 'value'],
};

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** `ast.iter_child_nodes`: child nodes in `_fields` order (list fields flattened, nulls skipped). */
export function childNodes(node: Node): Node[] {
  const out: Node[] = [];
  appendChildNodes(node, out);
  return out;
}

/** `childNodes`, appended to `out` (the walker's queue) without an intermediate array. */
export function appendChildNodes(node: Node, out: Node[]): void {
  const fields = FIELDS[node.type];
  if (fields === undefined) return;
  const record = node as unknown as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item);
    } else if (isNode(value)) {
      out.push(value);
    }
  }
}

/** `ast.walk`: breadth-first, iterative (a deep tree cannot overflow the JS stack). */
export function* walk(root: Node): Generator<Node> {
  const queue: Node[] = [root];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    appendChildNodes(node, queue);
    yield node;
  }
}
