/**
 * A PEG parser for CPython 3.11's eval-mode expression grammar (Grammar/python.gram), one method
 * per grammar rule, alternatives tried in the grammar's order with backtracking, and memoisation
 * where pegen memoises (which also keeps nested brackets linear). Only the first pass is mirrored:
 * CPython's `invalid_*` rules run after a failure and change the message, never the verdict.
 */
import type {
  Arg,
  Arguments,
  BoolOpName,
  CmpOpName,
  Comprehension,
  ContextName,
  Expr,
  Expression,
  Keyword,
  Loc,
  Marker,
  Name,
  OperatorName,
  PyConstant,
  UnaryOpName,
} from './ast.js';
import { decodeStrings } from './string-literal.js';
import { exceedsPegenStack } from './pegen-stack.js';
import { type SourceText, makeSource, toCodePoints, translateNewlines } from './source.js';
import {
  atEndOfInput,
  hasFinalPosition,
  PySyntaxError,
  pegenColumn,
  syntaxError,
  unpositionedError,
  utf8Length,
  withMessage,
} from './syntax-error.js';
import { isTokenizerError, type Token, tokenize } from './tokenizer.js';

/**
 * Rule nesting limit, so that deep input is a clean syntax error before the JS stack runs out;
 * the 256-character cap keeps conditions far below it. CPython's own limit (pegen's MAXSTACK,
 * MemoryError) is reachable by a condition about 195 brackets deep: pegen-stack.ts models it.
 */
export const MAX_PARSER_DEPTH = 3000;
const TOO_DEEP = 'too many nested expressions (parser stack overflow)';
const UNEXPECTED_INDENT = 'unexpected indent';

/** Memoised rules, numbered for the memo table's keys. */
enum Rule {
  Expression,
  StarExpression,
  Disjunction,
  Conjunction,
  Inversion,
  BitwiseOr,
  Factor,
  AwaitPrimary,
  Primary,
  Strings,
  Arguments,
  StarTarget,
  TargetWithStarAtom,
  TPrimary,
  Count,
}

const FAIL = null;

/** `ast.parse(text, mode="eval")`. Throws `PySyntaxError`. */
export function parseExpression(text: string): Expression {
  // One scan decides whether the rare cases below (NUL, surrogates, CR) need looking at.
  let unusual = false;
  for (let i = 0; i < text.length && !unusual; i++) {
    const c = text.charCodeAt(i);
    unusual = c === 0 || c === 0x0d || (c >= 0xd800 && c <= 0xdfff);
  }
  if (!unusual) return parseClean(text);
  if (text.includes('\0')) {
    // A ValueError-turned-SyntaxError raised before tokenizing: CPython gives it no position.
    throw unpositionedError('source code string cannot contain null bytes', { line: 1, col: 1 });
  }
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  if (lone !== null) {
    // CPython encodes the source to UTF-8 first and fails there: a UnicodeEncodeError naming the
    // run of consecutive surrogates by code-point index, with no position.
    const first = toCodePoints(text.slice(0, lone.index)).length;
    // The run is of surrogate code points: a valid pair after it is one astral character, not two.
    let n = 1;
    for (let j = lone.index + 1; j < text.length && (text.charCodeAt(j) & 0xf800) === 0xd800; j++, n++) {
      const c = text.charCodeAt(j);
      if (c <= 0xdbff && j + 1 < text.length && (text.charCodeAt(j + 1) & 0xfc00) === 0xdc00) break;
    }
    const what =
      n === 1
        ? `character '\\u${lone[0].charCodeAt(0).toString(16)}' in position ${first}`
        : `characters in position ${first}-${first + n - 1}`;
    throw unpositionedError(`UnicodeEncodeError: 'utf-8' codec can't encode ${what}: surrogates not allowed`, {
      line: 1,
      col: first + 1,
    });
  }
  return parseClean(translateNewlines(text));
}

/** Parses text known to hold no NUL, no lone surrogate and no CR. */
function parseClean(text: string): Expression {
  const src = makeSource(toCodePoints(text), text);
  const tokens = tokenize(src, { lazyErrors: true });
  let parser: Parser | undefined;
  let error: PySyntaxError;
  /** The line `_PyPegen_tokenize_full_source_to_check_for_errors` compares an unclosed bracket with. */
  let errorLine: number;
  let checkRest = true;
  let stackError: PySyntaxError | undefined;
  try {
    const first = new Parser(src, tokens, false);
    parser = first;
    const tree = first.parseEval();
    if (tree !== FAIL) return tree;
    // The second pass may run out of pegen's stack before it gets to its answer; the
    // MemoryError is not a SyntaxError, so nothing replaces it.
    if (exceedsPegenStack(tokens)) {
      stackError = unpositionedError('MemoryError: ', { line: 1, col: 1 });
      throw stackError;
    }
    // As CPython: a failed first pass is parsed again with the `invalid_*` rules switched on,
    // which raise the specific messages; if none applies, the first pass's position is reported.
    parser = new Parser(src, tokens, true, first.furthestFetched);
    parser.parseEval();
    error = pegenColumnAfter(first.syntaxError(), src, tokens, parser);
    // `p->tokens[p->fill - 1]`: the last token either pass fetched, which may be on a later line
    // than the first pass's error (`rf {\n.,` reports the '{' left open).
    errorLine = tokens[Math.min(parser.furthestFetched, tokens.length - 1)]!.start.line;
    // An indentation error returns before the rest of the source is tokenized.
    if (error.msg === UNEXPECTED_INDENT) checkRest = false;
  } catch (e) {
    if (e === stackError) throw e;
    // A safety net under MAX_PARSER_DEPTH: whatever the JS engine's stack size, deep input is a
    // syntax error, never a crash.
    if (e instanceof RangeError) throw syntaxError(TOO_DEEP, { line: 1, col: 1 });
    // A tokenizer error the parser fetched is final (the tokenizer is no longer `E_OK`).
    if (!(e instanceof PySyntaxError) || parser === undefined || isTokenizerError(e)) throw e;
    // An f-string field's error comes from its own parser, which already placed it.
    error = FIELD_ERRORS.has(e) ? e : pegenColumnAfter(e, src, tokens, parser);
    const last = tokens[Math.min(parser.furthestFetched, tokens.length - 1)]!;
    errorLine = last.start.line;
    // `_Pypegen_set_syntax_error` checks the rest of the source after a raised error only while
    // `tok->done` is E_OK. Scanning any token but a string reads one character past it, so a
    // fetched token that ends the input has already set E_EOF: `[\n1 2,` keeps its comma hint.
    if (last.type !== 'STRING' && last.endIndex === src.cps.length) checkRest = false;
  }
  // `_Pypegen_set_syntax_error`: with the tokenizer still fine, the rest of the source is
  // tokenized, and a tokenizer error that sets an exception replaces the parser's error; one that
  // does not reports a bracket left open on a line before the error's, if there is one.
  const pending = tokens[tokens.length - 1]!.error;
  if (pending !== undefined && checkRest) {
    if (pending.setsException) throw pending.error;
    if (pending.unclosed !== null && errorLine > pending.unclosed.pos.line) throw pending.unclosed;
  }
  throw error;
}

/** `pegenColumn` with the tokenizer's state after the last token pegen fetched (`p->tokens[p->fill-1]`). */
function pegenColumnAfter(e: PySyntaxError, src: SourceText, tokens: readonly Token[], parser: Parser): PySyntaxError {
  const last = tokens[Math.min(parser.furthestFetched, tokens.length - 1)]!;
  const tokLine = last.endIndex > last.startIndex ? src.posAt(last.endIndex - 1).line : last.start.line;
  return pegenColumn(e, src, tokLine, last.bufStart);
}

/**
 * Parses the tokens of an f-string expression (already wrapped in parentheses by the caller).
 * Handed to `decodeStrings` rather than imported by it, so the literal decoder does not depend
 * back on the parser.
 */
const BYTES_NOT_ASCII = 'bytes can only contain ASCII literal characters';

/** Errors raised by an f-string field's own parse keep their positions (they are not the action's). */
const FIELD_ERRORS = new WeakSet<PySyntaxError>();

function parseField(src: SourceText, tokens: Token[]): Expr {
  try {
    return parseFstringTokens(src, tokens);
  } catch (e) {
    if (e instanceof PySyntaxError) FIELD_ERRORS.add(e);
    throw e;
  }
}

/**
 * `fstring_compile_expr` runs a parser of its own over `(expr)`, with both passes, and every
 * message it raises gains the `f-string: ` prefix.
 */
function parseFstringTokens(src: SourceText, tokens: Token[]): Expr {
  try {
    const first = new Parser(src, tokens, false);
    const body = first.parseFstring();
    if (body !== FAIL) return body;
    new Parser(src, tokens, true, first.furthestFetched).parseFstring();
    throw fieldPosition(src, tokens, first.syntaxError('f-string: invalid syntax'));
  } catch (e) {
    // Errors of a nested field's own parser were prefixed there; string-action errors of this
    // parser (a nested f-string's "expecting '}'" included) are prefixed again, as in 3.11.
    if (e instanceof PySyntaxError && !FIELD_ERRORS.has(e) && !isTokenizerError(e) && !FIELD_PLACED.has(e))
      throw fieldPosition(src, tokens, withMessage(e, `f-string: ${e.msg}`));
    throw e;
  }
}

/** Errors `fieldPosition` already made (the generic one carries its prefix from the start). */
const FIELD_PLACED = new WeakSet<PySyntaxError>();

/**
 * Where CPython 3.11 reports an error of an f-string field's parser: its line is right, but its
 * column is a 1-based byte offset into the `(expr)` string the field was copied into (on the
 * field's first line; on a later one, into that line), not into the source line.
 */
function fieldPosition(src: SourceText, tokens: readonly Token[], e: PySyntaxError): PySyntaxError {
  const exprStart = tokens[0]!.startIndex + 1; // the synthetic '(' stands where the '{' is
  const first = src.posAt(exprStart);
  const from = e.pos.line === first.line ? exprStart : exprStart + countTo(src, exprStart, e.pos.line);
  const to = from + e.pos.col - src.posAt(from).col;
  let bytes = e.pos.line === first.line ? 2 : 1;
  for (let j = from; j < to && j < src.cps.length; j++) bytes += utf8Length(src.cps[j]!);
  const placed = new PySyntaxError(e.msg, e.pos, e.endCol, `line ${e.pos.line}, col ${bytes}`);
  FIELD_PLACED.add(placed);
  return placed;
}

/** Code points from `from` to the start of 1-based `line`. */
function countTo(src: SourceText, from: number, line: number): number {
  let j = from;
  while (j < src.cps.length && src.posAt(j).line < line) j++;
  return j - from;
}

/**
 * The binary operators of bitwise_or (level 0), bitwise_xor, bitwise_and, shift_expr, sum and
 * term (level 5): a rule's operands are the rule one level tighter.
 */
const BINARY_OPS: Readonly<Record<string, { level: number; op: OperatorName }>> = {
  '|': { level: 0, op: 'BitOr' },
  '^': { level: 1, op: 'BitXor' },
  '&': { level: 2, op: 'BitAnd' },
  '<<': { level: 3, op: 'LShift' },
  '>>': { level: 3, op: 'RShift' },
  '+': { level: 4, op: 'Add' },
  '-': { level: 4, op: 'Sub' },
  '*': { level: 5, op: 'Mult' },
  '/': { level: 5, op: 'Div' },
  '//': { level: 5, op: 'FloorDiv' },
  '%': { level: 5, op: 'Mod' },
  '@': { level: 5, op: 'MatMult' },
};
const UNARY_OPS: Readonly<Record<string, UnaryOpName>> = { '+': 'UAdd', '-': 'USub', '~': 'Invert' };
// '<>' is a NOTEQUAL token too, but without barry_as_FLUFL the grammar refuses it: not listed.
const CMP_OPS: Readonly<Record<string, CmpOpName>> = {
  '==': 'Eq',
  '!=': 'NotEq',
  '<=': 'LtE',
  '<': 'Lt',
  '>=': 'GtE',
  '>': 'Gt',
};

const SOFT_KEYWORDS: readonly string[] = ['_', 'case', 'match'];

/**
 * `_PyPegen_soft_keyword_token`: 3.11 compares with `strncmp(keyword, token, len(token))`, so any
 * prefix of a soft keyword counts (`c`, `ma`), which keeps the comma hint from `[c b]`.
 */
const isSoftKeyword = (name: string): boolean => SOFT_KEYWORDS.some((k) => k.startsWith(name));
const LEGACY_STATEMENTS: ReadonlySet<string> = new Set(['print', 'exec']);

class Parser {
  private pos = 0;
  /** Furthest token index looked at: where CPython reports a generic "invalid syntax". */
  private furthest = 0;
  private depth = 0;
  /**
   * Memoised results per rule, indexed by token position: the node (or FAIL) and the end position
   * plus one (0 = not computed yet). A rule's arrays are made on its first use.
   */
  private readonly memoNode: (unknown[] | undefined)[] = [];
  // Plain arrays, not Int32Array: in V8 a typed array over 64 bytes costs an off-heap
  // allocation (microseconds), which longer conditions would pay once per memoised rule.
  private readonly memoEnd: (number[] | undefined)[] = [];

  /** The result `memoHit` found. */
  private memoValue: unknown = null;

  private readonly invalidNamedTried = new Set<number>();
  /** Inside `expression_without_invalid`: the invalid rules are off even in the second pass. */
  private withoutInvalid = 0;

  constructor(
    private readonly src: SourceText,
    private readonly tokens: Token[],
    /** The second pass: `invalid_*` alternatives are tried and throw their specific messages. */
    private readonly secondPass: boolean,
    /** Tokens already fetched by an earlier pass (pegen keeps its token array across passes). */
    private readonly fetchedBefore = 0,
  ) {}

  get furthestFetched(): number {
    return Math.max(this.furthest, this.fetchedBefore);
  }

  /** RAISE_SYNTAX_ERROR without a location: at the last token fetched so far (`p->tokens[p->fill-1]`). */
  private raiseAtLastToken(msg: string): never {
    const tok = this.tokens[Math.min(this.furthestFetched, this.tokens.length - 1)]!;
    const e = syntaxError(msg, tok.start, tok.end);
    throw tok.type === 'ENDMARKER' ? atEndOfInput(e) : e;
  }

  private get invalidRules(): boolean {
    return this.secondPass && this.withoutInvalid === 0;
  }

  // ---- entry points -------------------------------------------------------------------------

  /** eval: expressions NEWLINE* ENDMARKER */
  parseEval(): Expression | null {
    const body = this.expressions();
    if (body === FAIL) return FAIL;
    while (this.peekType('NEWLINE')) this.pos++;
    return this.peekType('ENDMARKER') ? { type: 'Expression', body, loc: null } : FAIL;
  }

  parseFstring(): Expr | null {
    return this.starExpressions();
  }

  /** The generic error, at the furthest token the parser looked at. */
  syntaxError(msg = 'invalid syntax'): PySyntaxError {
    const tok = this.tokens[Math.min(this.furthest, this.tokens.length - 1)]!;
    // RAISE_INDENTATION_ERROR points at the indented token's line, its column the indentation width.
    if (tok.type === 'INDENT')
      return syntaxError(UNEXPECTED_INDENT, { line: tok.end.line, col: Math.max(tok.end.col - 1, 1) });
    const e = syntaxError(msg, tok.start, tok.end);
    return tok.type === 'ENDMARKER' ? atEndOfInput(e) : e;
  }

  // ---- token helpers ------------------------------------------------------------------------

  private peek(): Token {
    if (this.pos > this.furthest) this.furthest = this.pos;
    return this.fetch(this.pos);
  }

  /** The token at `index`; fetching a tokenizer error raises it, as in CPython's lazy tokenizer. */
  private fetch(index: number): Token {
    const t = this.tokens[Math.min(index, this.tokens.length - 1)]!;
    if (t.error !== undefined) throw t.error.error;
    return t;
  }

  private peekType(type: Token['type']): boolean {
    return this.peek().type === type;
  }

  private peekKeyword(text: string): boolean {
    const t = this.peek();
    return t.type === 'KEYWORD' && t.text === text;
  }

  private peekOp(text: string): boolean {
    const t = this.peek();
    return t.type === 'OP' && t.text === text;
  }

  private op(text: string): Token | null {
    const t = this.peek();
    if (t.type === 'OP' && t.text === text) {
      this.pos++;
      return t;
    }
    return FAIL;
  }

  private keyword(text: string): Token | null {
    const t = this.peek();
    if (t.type === 'KEYWORD' && t.text === text) {
      this.pos++;
      return t;
    }
    return FAIL;
  }

  private nameToken(): Token | null {
    const t = this.peek();
    if (t.type === 'NAME') {
      this.pos++;
      return t;
    }
    return FAIL;
  }

  /** Location from `start` to the end of the last consumed token. */
  private locFrom(start: Token): Loc {
    const last = this.tokens[this.pos - 1]!;
    return { line: start.start.line, col: start.start.col, endLine: last.end.line, endCol: last.end.col };
  }

  private tokenLoc(t: Token): Loc {
    return { line: t.start.line, col: t.start.col, endLine: t.end.line, endCol: t.end.col };
  }

  private marker<T extends string>(type: T, t: Token): Marker<T> {
    return { type, loc: this.tokenLoc(t) };
  }

  private ctx(type: ContextName): Marker<ContextName> {
    return { type, loc: null };
  }

  private enter(): void {
    if (++this.depth > MAX_PARSER_DEPTH) {
      throw syntaxError(TOO_DEEP, this.peek().start);
    }
  }

  /**
   * The memo lookup of a rule that inlines its body (the rules on the path a nested bracket
   * recurses through, so that each costs one JS frame, not two): true when `id` has a result at
   * this position, which is then in `memoValue` with the position moved past it. A miss enters
   * the rule; its result goes through `memoStore`.
   */
  private memoHit(id: Rule): boolean {
    const ends = this.memoEnd[id];
    if (ends === undefined) {
      this.memoEnd[id] = new Array<number>(this.tokens.length).fill(0);
      this.memoNode[id] = new Array<unknown>(this.tokens.length).fill(null);
    } else {
      const end = ends[this.pos]!;
      if (end !== 0) {
        this.memoValue = this.memoNode[id]![this.pos];
        this.pos = end - 1;
        return true;
      }
    }
    this.enter();
    return false;
  }

  /** Leaves a rule entered by `memoHit` with its result (restoring the position on failure). */
  private memoStore<T>(id: Rule, start: number, node: T | null): T | null {
    this.depth--;
    if (node === FAIL) this.pos = start;
    this.memoNode[id]![start] = node;
    this.memoEnd[id]![start] = this.pos + 1;
    return node;
  }

  /** Runs a rule with memoisation by start position; restores the position on failure. */
  private memo<T>(id: Rule, rule: () => T | null): T | null {
    const start = this.pos;
    let ends = this.memoEnd[id];
    let nodes = this.memoNode[id];
    if (ends === undefined || nodes === undefined) {
      ends = this.memoEnd[id] = new Array<number>(this.tokens.length).fill(0);
      nodes = this.memoNode[id] = new Array<unknown>(this.tokens.length).fill(null);
    }
    const end = ends[start]!;
    if (end !== 0) {
      this.pos = end - 1;
      return nodes[start] as T | null;
    }
    this.enter();
    const node = rule();
    this.depth--;
    if (node === FAIL) this.pos = start;
    nodes[start] = node;
    ends[start] = this.pos + 1;
    return node;
  }

  /** Runs an alternative; restores the position when it fails. */
  private attempt<T>(alt: () => T | null): T | null {
    const start = this.pos;
    this.enter();
    const node = alt();
    this.depth--;
    if (node === FAIL) this.pos = start;
    return node;
  }

  // ---- expressions --------------------------------------------------------------------------

  /** expressions: expression (',' expression)+ [','] | expression ',' | expression */
  private expressions(): Expr | null {
    return this.tupleOf(() => this.expression());
  }

  /** star_expressions: the same shape over star_expression. */
  private starExpressions(): Expr | null {
    return this.tupleOf(() => this.starExpression());
  }

  private tupleOf(item: () => Expr | null): Expr | null {
    const first = this.peek();
    const a = item();
    if (a === FAIL) return FAIL;
    const elts = [a];
    let trailingComma = false;
    for (;;) {
      const mark = this.pos;
      if (!this.op(',')) break;
      const b = item();
      if (b === FAIL) {
        this.pos = mark;
        break;
      }
      elts.push(b);
    }
    if (this.op(',')) trailingComma = true;
    if (elts.length === 1 && !trailingComma) return a;
    return { type: 'Tuple', elts, ctx: this.ctx('Load'), loc: this.locFrom(first) };
  }

  // The rules from `expression` down to `atom` and back through a bracket's contents are the
  // path a nested bracket recurses through: they inline their memo lookup and their alternatives
  // (saving and restoring the position by hand) instead of passing closures to `memo`/`attempt`,
  // so that a nesting level costs about 17 JS frames rather than 65, and 256 levels fit in the
  // default stack whatever V8's tier (docs/parity.md, "Deep nesting").

  /** expression (memo): disjunction 'if' disjunction 'else' expression | disjunction | lambdef */
  private expression(): Expr | null {
    if (this.memoHit(Rule.Expression)) return this.memoValue as Expr | null;
    const start = this.pos;
    if (this.invalidRules) {
      this.invalidExpression();
      this.pos = start;
      this.invalidLegacyExpression();
      this.pos = start;
    }
    return this.memoStore(Rule.Expression, start, this.expressionWithoutInvalid());
  }

  /** expression_without_invalid: the alternatives of `expression` proper. */
  private expressionWithoutInvalid(): Expr | null {
    const start = this.peek();
    // Both first alternatives begin with the (memoised, so deterministic) disjunction: parse it
    // once; without a following 'if' the ternary fails and the disjunction alternative wins.
    const body = this.disjunction();
    if (body === FAIL) return this.lambdef();
    const afterBody = this.pos;
    if (this.peekKeyword('if')) {
      this.pos++;
      const test = this.disjunction();
      if (test !== FAIL && this.keyword('else')) {
        const orelse = this.expression();
        if (orelse !== FAIL) return { type: 'IfExp', test, body, orelse, loc: this.locFrom(start) };
      }
      this.pos = afterBody;
    }
    return body;
  }

  /** yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
  private yieldExpr(): Expr | null {
    const start = this.peek();
    if (!this.keyword('yield')) return FAIL;
    const from = this.attempt<Expr>(() => {
      if (!this.keyword('from')) return FAIL;
      const value = this.expression();
      if (value === FAIL) return FAIL;
      return { type: 'YieldFrom', value, loc: this.locFrom(start) };
    });
    if (from !== FAIL) return from;
    const value = this.starExpressions();
    return { type: 'Yield', value, loc: this.locFrom(start) };
  }

  /** star_expression (memo): '*' bitwise_or | expression */
  private starExpression(): Expr | null {
    if (this.memoHit(Rule.StarExpression)) return this.memoValue as Expr | null;
    const start = this.pos;
    return this.memoStore(Rule.StarExpression, start, this.starredBitwiseOr() ?? this.expression());
  }

  /** '*' bitwise_or → Starred(Load) */
  private starredBitwiseOr(): Expr | null {
    const star = this.peek();
    if (star.type !== 'OP' || star.text !== '*') return FAIL;
    this.pos++;
    const value = this.bitwiseOr();
    if (value === FAIL) {
      this.pos--;
      return FAIL;
    }
    return { type: 'Starred', value, ctx: this.ctx('Load'), loc: this.locFrom(star) };
  }

  /** star_named_expressions: ','.star_named_expression+ [','] */
  private starNamedExpressions(): Expr[] | null {
    const first = this.starNamedExpression();
    if (first === FAIL) return FAIL;
    const items = [first];
    for (;;) {
      const mark = this.pos;
      if (!this.op(',')) break;
      const next = this.starNamedExpression();
      if (next === FAIL) {
        this.pos = mark;
        break;
      }
      items.push(next);
    }
    this.op(',');
    return items;
  }

  /** star_named_expression: '*' bitwise_or | named_expression */
  private starNamedExpression(): Expr | null {
    return this.starredBitwiseOr() ?? this.namedExpression();
  }

  /** assignment_expression: NAME ':=' ~ expression */
  private assignmentExpression(): Expr | null {
    const name = this.peek();
    if (name.type !== 'NAME') return FAIL;
    const start = this.pos;
    this.pos++;
    if (!this.op(':=')) {
      this.pos = start;
      return FAIL;
    }
    const value = this.expression();
    if (value === FAIL) {
      this.pos = start;
      return FAIL;
    }
    const target: Name = { type: 'Name', id: identifier(name.text), ctx: this.ctx('Store'), loc: this.tokenLoc(name) };
    return { type: 'NamedExpr', target, value, loc: this.locFrom(name) };
  }

  /** named_expression: assignment_expression | expression !':=' */
  private namedExpression(): Expr | null {
    const walrus = this.assignmentExpression();
    if (walrus !== FAIL) return walrus;
    if (this.invalidRules) this.invalidNamedExpression();
    return this.expressionNotWalrus();
  }

  /** expression !':=' */
  private expressionNotWalrus(): Expr | null {
    const start = this.pos;
    const e = this.expression();
    if (e === FAIL || !this.peekOp(':=')) return e;
    this.pos = start;
    return FAIL;
  }

  /** disjunction (memo): conjunction ('or' conjunction)+ | conjunction */
  private disjunction(): Expr | null {
    if (this.memoHit(Rule.Disjunction)) return this.memoValue as Expr | null;
    const start = this.pos;
    const first = this.peek();
    const a = this.conjunction();
    return this.memoStore(Rule.Disjunction, start, a === FAIL ? FAIL : this.boolOpTail('or', 'Or', first, a));
  }

  /** conjunction (memo): inversion ('and' inversion)+ | inversion */
  private conjunction(): Expr | null {
    if (this.memoHit(Rule.Conjunction)) return this.memoValue as Expr | null;
    const start = this.pos;
    const first = this.peek();
    const a = this.inversion();
    return this.memoStore(Rule.Conjunction, start, a === FAIL ? FAIL : this.boolOpTail('and', 'And', first, a));
  }

  /** The `(kw item)+` tail of disjunction (items: conjunction) or conjunction (items: inversion). */
  private boolOpTail(kw: 'or' | 'and', op: BoolOpName, start: Token, a: Expr): Expr {
    const values = [a];
    let opToken: Token | null = null;
    for (;;) {
      const mark = this.pos;
      const t = this.keyword(kw);
      if (!t) break;
      const b = kw === 'or' ? this.conjunction() : this.inversion();
      if (b === FAIL) {
        this.pos = mark;
        break;
      }
      opToken ??= t;
      values.push(b);
    }
    if (opToken === null) return a;
    return { type: 'BoolOp', op: this.marker(op, opToken), values, loc: this.locFrom(start) };
  }

  /** inversion (memo): 'not' inversion | comparison */
  private inversion(): Expr | null {
    if (this.memoHit(Rule.Inversion)) return this.memoValue as Expr | null;
    const start = this.pos;
    const t = this.peek();
    let node: Expr | null = FAIL;
    if (t.type === 'KEYWORD' && t.text === 'not') {
      this.pos++;
      const operand = this.inversion();
      if (operand !== FAIL) node = { type: 'UnaryOp', op: this.marker('Not', t), operand, loc: this.locFrom(t) };
      else this.pos = start;
    }
    return this.memoStore(Rule.Inversion, start, node ?? this.comparison());
  }

  /** comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or */
  private comparison(): Expr | null {
    const start = this.peek();
    const left = this.bitwiseOr();
    if (left === FAIL) return FAIL;
    const ops: Marker<CmpOpName>[] = [];
    const comparators: Expr[] = [];
    for (;;) {
      const mark = this.pos;
      const pair = this.compareOpPair();
      if (pair === FAIL) {
        this.pos = mark;
        break;
      }
      ops.push(pair.op);
      comparators.push(pair.right);
    }
    if (ops.length === 0) return left;
    return { type: 'Compare', left, ops, comparators, loc: this.locFrom(start) };
  }

  /** One compare_op_bitwise_or_pair; the caller restores the position when it fails. */
  private compareOpPair(): { op: Marker<CmpOpName>; right: Expr } | null {
    const t = this.peek();
    let op: CmpOpName | null = null;
    if (t.type === 'OP') {
      op = CMP_OPS[t.text] ?? null;
      if (op !== null) this.pos++;
    } else if (t.type === 'KEYWORD') {
      if (t.text === 'not') {
        this.pos++;
        if (this.keyword('in')) op = 'NotIn';
      } else if (t.text === 'in') {
        this.pos++;
        op = 'In';
      } else if (t.text === 'is') {
        this.pos++;
        // 'is' 'not' bitwise_or, else 'is' bitwise_or.
        const afterIs = this.pos;
        if (this.keyword('not')) {
          const isNot = this.bitwiseOr();
          if (isNot !== FAIL) {
            return {
              op: { type: 'IsNot', loc: { ...this.tokenLoc(t), endCol: this.tokens[this.pos - 1]!.end.col } },
              right: isNot,
            };
          }
          this.pos = afterIs;
        }
        op = 'Is';
      }
    }
    if (op === null) return FAIL;
    const right = this.bitwiseOr();
    if (right === FAIL) return FAIL;
    return { op: this.marker(op, t), right };
  }

  /** bitwise_or (left-recursive, memo): bitwise_or '|' bitwise_xor | bitwise_xor */
  private bitwiseOr(): Expr | null {
    if (this.memoHit(Rule.BitwiseOr)) return this.memoValue as Expr | null;
    const start = this.pos;
    return this.memoStore(Rule.BitwiseOr, start, this.binary(0));
  }

  /**
   * bitwise_or, bitwise_xor, bitwise_and, shift_expr, sum and term: six left-recursive rules
   * `r: r OP next | next` (pegen grows each seed in a loop), parsed by precedence climbing over
   * BINARY_OPS' levels. It builds the same trees and peeks the same tokens as one loop per rule,
   * in one JS frame per operand instead of eighteen. Operands at `minLevel` and tighter.
   */
  private binary(minLevel: number): Expr | null {
    const start = this.peek();
    let left = this.factor();
    if (left === FAIL) return FAIL;
    for (;;) {
      const t = this.peek();
      const b = t.type === 'OP' ? BINARY_OPS[t.text] : undefined;
      if (b === undefined || b.level < minLevel) return left;
      const mark = this.pos;
      this.pos++;
      const right = this.binary(b.level + 1);
      if (right === FAIL) {
        // As in the rule's loop: the operator is left unconsumed (a looser level's loop sees it
        // again, fails the same way on memoised rules, and stops too).
        this.pos = mark;
        return left;
      }
      left = { type: 'BinOp', left, op: this.marker(b.op, t), right, loc: this.locFrom(start) };
    }
  }

  /** factor (memo): '+' factor | '-' factor | '~' factor | power */
  private factor(): Expr | null {
    if (this.memoHit(Rule.Factor)) return this.memoValue as Expr | null;
    const start = this.pos;
    const t = this.peek();
    const op = t.type === 'OP' ? UNARY_OPS[t.text] : undefined;
    let node: Expr | null = FAIL;
    if (op !== undefined) {
      this.pos++;
      const operand = this.factor();
      if (operand !== FAIL) node = { type: 'UnaryOp', op: this.marker(op, t), operand, loc: this.locFrom(t) };
      else this.pos = start;
    }
    return this.memoStore(Rule.Factor, start, node ?? this.power());
  }

  /** power: await_primary '**' factor | await_primary */
  private power(): Expr | null {
    const start = this.peek();
    const left = this.awaitPrimary();
    if (left === FAIL) return FAIL;
    const mark = this.pos;
    const t = this.op('**');
    if (t) {
      const right = this.factor();
      if (right !== FAIL) return { type: 'BinOp', left, op: this.marker('Pow', t), right, loc: this.locFrom(start) };
      this.pos = mark;
    }
    return left;
  }

  /** await_primary (memo): AWAIT primary | primary */
  private awaitPrimary(): Expr | null {
    if (this.memoHit(Rule.AwaitPrimary)) return this.memoValue as Expr | null;
    const start = this.pos;
    const t = this.peek();
    let node: Expr | null = FAIL;
    if (t.type === 'KEYWORD' && t.text === 'await') {
      this.pos++;
      const value = this.primary();
      if (value !== FAIL) node = { type: 'Await', value, loc: this.locFrom(t) };
      else this.pos = start;
    }
    return this.memoStore(Rule.AwaitPrimary, start, node ?? this.primary());
  }

  /** primary (left-recursive): primary '.' NAME | primary genexp | primary '(' [arguments] ')' | primary '[' slices ']' | atom */
  private primary(): Expr | null {
    if (this.memoHit(Rule.Primary)) return this.memoValue as Expr | null;
    const pos = this.pos;
    const start = this.peek();
    let a = this.atom();
    if (a !== FAIL) {
      for (;;) {
        const next = this.primarySuffix(a, start);
        if (next === FAIL) break;
        a = next;
      }
    }
    return this.memoStore(Rule.Primary, pos, a);
  }

  /** One step of `primary`'s (and `t_primary`'s) left recursion, alternatives in grammar order. */
  private primarySuffix(a: Expr, start: Token): Expr | null {
    // Every alternative starts with '.', '(' or '[' (or '{', for genexp's invalid_comprehension):
    // anything else ends the chain at once.
    const next = this.peek();
    if (
      next.type !== 'OP' ||
      (next.text !== '.' && next.text !== '(' && next.text !== '[' && !(next.text === '{' && this.invalidRules))
    )
      return FAIL;
    const mark = this.pos;
    if (next.text === '.') {
      this.pos++;
      const name = this.nameToken();
      if (name) {
        return {
          type: 'Attribute',
          value: a,
          attr: identifier(name.text),
          ctx: this.ctx('Load'),
          loc: this.locFrom(start),
        };
      }
      this.pos = mark;
    }
    const gen = this.genexp();
    if (gen !== FAIL) return { type: 'Call', func: a, args: [gen], keywords: [], loc: this.locFrom(start) };
    if (next.text === '(') {
      this.pos++;
      const args = this.arguments();
      if (this.op(')')) {
        return {
          type: 'Call',
          func: a,
          args: args?.args ?? [],
          keywords: args?.keywords ?? [],
          loc: this.locFrom(start),
        };
      }
      this.pos = mark;
    }
    if (next.text === '[') {
      this.pos++;
      const slice = this.slices();
      if (slice !== FAIL && this.op(']')) {
        return { type: 'Subscript', value: a, slice, ctx: this.ctx('Load'), loc: this.locFrom(start) };
      }
      this.pos = mark;
    }
    return FAIL;
  }

  /** slices: slice !',' | ','.(slice | starred_expression)+ [','] */
  private slices(): Expr | null {
    const mark = this.pos;
    const single = this.slice();
    if (single !== FAIL && !this.peekOp(',')) return single;
    this.pos = mark;
    const start = this.peek();
    const elts = this.gather(() => this.slice() ?? this.starredExpression());
    if (elts === FAIL) return FAIL;
    this.op(',');
    return { type: 'Tuple', elts, ctx: this.ctx('Load'), loc: this.locFrom(start) };
  }

  /** slice: [expression] ':' [expression] [':' [expression]] | named_expression */
  private slice(): Expr | null {
    const mark = this.pos;
    const start = this.peek();
    const lower = this.expression();
    if (this.op(':')) {
      const upper = this.expression();
      let step: Expr | null = null;
      if (this.op(':')) step = this.expression();
      return { type: 'Slice', lower, upper, step, loc: this.locFrom(start) };
    }
    this.pos = mark;
    return this.namedExpression();
  }

  /** atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER | tuple/group/genexp | list/listcomp | dict/set/dictcomp/setcomp | '...' */
  private atom(): Expr | null {
    const t = this.peek();
    switch (t.type) {
      case 'NAME':
        this.pos++;
        return { type: 'Name', id: identifier(t.text), ctx: this.ctx('Load'), loc: this.tokenLoc(t) };
      case 'KEYWORD': {
        const value: PyConstant | undefined =
          t.text === 'True'
            ? { kind: 'bool', value: true }
            : t.text === 'False'
              ? { kind: 'bool', value: false }
              : t.text === 'None'
                ? { kind: 'None' }
                : undefined;
        if (value === undefined) return FAIL;
        this.pos++;
        return { type: 'Constant', value, kind: null, loc: this.tokenLoc(t) };
      }
      case 'STRING':
        return this.strings();
      case 'NUMBER':
        this.pos++;
        return { type: 'Constant', value: numberValue(t.text), kind: null, loc: this.tokenLoc(t) };
      case 'OP':
        if (t.text === '(') return this.tuple() ?? this.group() ?? this.genexp();
        if (t.text === '[') return this.list() ?? this.listcomp();
        if (t.text === '{') return this.dict() ?? this.set() ?? this.dictcomp() ?? this.setcomp();
        if (t.text === '...') {
          this.pos++;
          return { type: 'Constant', value: { kind: 'Ellipsis' }, kind: null, loc: this.tokenLoc(t) };
        }
        return FAIL;
      default:
        return FAIL;
    }
  }

  /** strings (memo): STRING+ — decoded and concatenated as `_PyPegen_concatenate_strings` does. */
  private strings(): Expr | null {
    return this.memo(Rule.Strings, this.stringsBody);
  }

  private readonly stringsBody = (): Expr | null => {
    const parts: Token[] = [];
    while (this.peekType('STRING')) parts.push(this.tokens[this.pos++]!);
    if (parts.length === 0) return FAIL;
    // The lookahead that ended STRING+ is fetched before the action runs (a tokenizer error wins).
    const next = this.peek();
    try {
      return decodeStrings(this.src, parts, parseField);
    } catch (e) {
      // A non-ASCII character in bytes is raised at the token itself (RAISE_SYNTAX_ERROR_KNOWN_LOCATION).
      if (!(e instanceof PySyntaxError) || FIELD_ERRORS.has(e) || hasFinalPosition(e) || e.msg === BYTES_NOT_ASCII)
        throw e;
      // The action's RAISE_SYNTAX_ERROR names the last token fetched: the one after the strings;
      // at the end of input, the last character of the last line.
      const at =
        next.type === 'ENDMARKER' ? { line: next.start.line, col: Math.max(next.start.col - 1, 1) } : next.start;
      throw syntaxError(e.msg, at, next.type === 'ENDMARKER' ? undefined : next.end);
    }
  };

  /** group: '(' (yield_expr | named_expression) ')' | invalid_group */
  private group(): Expr | null {
    const g = this.attempt(() => {
      if (!this.op('(')) return FAIL;
      const inner = this.yieldExpr() ?? this.namedExpression();
      if (inner === FAIL || !this.op(')')) return FAIL;
      return inner;
    });
    if (g === FAIL && this.invalidRules) this.invalidGroup();
    return g;
  }

  /**
   * invalid_group:
   *   | '(' a=starred_expression ')'   "cannot use starred expression here"
   *   | '(' a='**' expression ')'      "cannot use double starred expression here"
   */
  private invalidGroup(): void {
    this.attempt(() => {
      if (!this.op('(')) return FAIL;
      const a = this.starredExpression();
      if (a === FAIL || !this.op(')')) return FAIL;
      this.raise('cannot use starred expression here', a.loc);
    });
    this.attempt(() => {
      if (!this.op('(')) return FAIL;
      const a = this.op('**');
      if (!a || this.expression() === FAIL || !this.op(')')) return FAIL;
      this.raise('cannot use double starred expression here', a);
    });
  }

  /** tuple: '(' [star_named_expression ',' [star_named_expressions]] ')' */
  private tuple(): Expr | null {
    const open = this.peek();
    if (open.type !== 'OP' || open.text !== '(') return FAIL;
    const mark = this.pos++;
    const elts: Expr[] = [];
    const afterOpen = this.pos;
    const first = this.starNamedExpression();
    if (first !== FAIL && this.op(',')) {
      elts.push(first);
      const rest = this.starNamedExpressions();
      if (rest !== FAIL) elts.push(...rest);
    } else {
      this.pos = afterOpen;
    }
    if (!this.op(')')) {
      this.pos = mark;
      return FAIL;
    }
    return { type: 'Tuple', elts, ctx: this.ctx('Load'), loc: this.locFrom(open) };
  }

  /** genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')' */
  private genexp(): Expr | null {
    const open = this.peek();
    if (open.type === 'OP' && open.text === '(') {
      const mark = this.pos++;
      const elt = this.assignmentExpression() ?? this.expressionNotWalrus();
      if (elt !== FAIL) {
        const generators = this.forIfClauses();
        if (generators !== FAIL && this.op(')'))
          return { type: 'GeneratorExp', elt, generators, loc: this.locFrom(open) };
      }
      this.pos = mark;
    }
    return this.invalidComprehension();
  }

  /** list: '[' [star_named_expressions] ']' */
  private list(): Expr | null {
    const open = this.peek();
    if (open.type !== 'OP' || open.text !== '[') return FAIL;
    const mark = this.pos++;
    const elts = this.starNamedExpressions() ?? [];
    if (!this.op(']')) {
      this.pos = mark;
      return FAIL;
    }
    return { type: 'List', elts, ctx: this.ctx('Load'), loc: this.locFrom(open) };
  }

  /** listcomp: '[' named_expression for_if_clauses ']' */
  private listcomp(): Expr | null {
    return this.eltComprehension('[', ']', 'ListComp');
  }

  /** set: '{' star_named_expressions '}' */
  private set(): Expr | null {
    return this.attempt<Expr>(() => {
      const open = this.op('{');
      if (!open) return FAIL;
      const elts = this.starNamedExpressions();
      if (elts === FAIL || !this.op('}')) return FAIL;
      return { type: 'Set', elts, loc: this.locFrom(open) };
    });
  }

  /** setcomp: '{' named_expression for_if_clauses '}' */
  private setcomp(): Expr | null {
    return this.eltComprehension('{', '}', 'SetComp');
  }

  /** The shape listcomp and setcomp share: OPEN named_expression for_if_clauses CLOSE. */
  private eltComprehension(openText: string, closeText: string, type: 'ListComp' | 'SetComp'): Expr | null {
    return (
      this.attempt<Expr>(() => {
        const open = this.op(openText);
        if (!open) return FAIL;
        const elt = this.namedExpression();
        if (elt === FAIL) return FAIL;
        const generators = this.forIfClauses();
        if (generators === FAIL || !this.op(closeText)) return FAIL;
        return { type, elt, generators, loc: this.locFrom(open) };
      }) ?? this.invalidComprehension()
    );
  }

  /**
   * invalid_comprehension:
   *   | ('[' | '(' | '{') a=starred_expression for_if_clauses        "iterable unpacking cannot be used in comprehension"
   *   | ('[' | '{') a=star_named_expression ',' b=star_named_expressions for_if_clauses
   *                                                                   "did you forget parentheses around the comprehension target?"
   *   | ('[' | '{') a=star_named_expression b=',' for_if_clauses      (the same)
   * Reached from genexp too, so `f{a b}` (a `primary genexp` attempt) parses the braces with the
   * invalid rules on.
   */
  private invalidComprehension(): null {
    if (!this.invalidRules) return FAIL;
    const t = this.peek();
    if (t.type !== 'OP' || (t.text !== '[' && t.text !== '(' && t.text !== '{')) return FAIL;
    // The first two alternatives inline `attempt`: they are on a nested bracket's path.
    const start = this.pos;
    this.pos++;
    const starred = this.starredExpression();
    if (starred !== FAIL && this.forIfClauses() !== FAIL)
      this.raise('iterable unpacking cannot be used in comprehension', starred.loc ?? t);
    this.pos = start;
    if (t.text === '(') return FAIL;
    this.pos++;
    const a = this.starNamedExpression();
    if (a !== FAIL && this.op(',')) {
      const b = this.starNamedExpressions();
      if (b !== FAIL && this.forIfClauses() !== FAIL) {
        const last = b[b.length - 1]!;
        this.raise('did you forget parentheses around the comprehension target?', a.loc ?? t, last.loc ?? t);
      }
    }
    this.pos = start;
    this.attempt(() => {
      this.pos++;
      const a = this.starNamedExpression();
      if (a === FAIL) return FAIL;
      const b = this.op(',');
      if (!b || this.forIfClauses() === FAIL) return FAIL;
      this.raise('did you forget parentheses around the comprehension target?', a.loc ?? t, b);
    });
    return FAIL;
  }

  /** invalid_dict_comprehension: '{' a='**' bitwise_or for_if_clauses '}'   "dict unpacking cannot be used in dict comprehension" */
  private invalidDictComprehension(): null {
    if (!this.invalidRules) return FAIL;
    this.attempt(() => {
      if (!this.op('{')) return FAIL;
      const a = this.op('**');
      if (!a || this.bitwiseOr() === FAIL || this.forIfClauses() === FAIL || !this.op('}')) return FAIL;
      this.raise('dict unpacking cannot be used in dict comprehension', a, a);
    });
    return FAIL;
  }

  /**
   * dict: '{' [double_starred_kvpairs] '}' | '{' invalid_double_starred_kvpairs '}'
   *
   * pegen guards an alternative with `call_invalid_rules` only when the alternative *starts* with
   * an invalid rule, so this one also runs in the first pass (and under expression_without_invalid),
   * with its nested expressions parsed without the invalid rules. An error it raises in the first
   * pass is final: the second pass starts with `error_indicator` still set and does nothing. So
   * `{a: b, d e}` says "':' expected after dictionary key" where `{d e}` gets the comma hint.
   */
  private dict(): Expr | null {
    const d = this.dictDisplay();
    if (d === FAIL) {
      this.attempt(() => (this.op('{') ? this.invalidDoubleStarredKvpairs() : FAIL));
    }
    return d;
  }

  /** '{' [double_starred_kvpairs] '}' */
  private dictDisplay(): Expr | null {
    const open = this.peek();
    if (open.type !== 'OP' || open.text !== '{') return FAIL;
    const mark = this.pos++;
    const keys: (Expr | null)[] = [];
    const values: Expr[] = [];
    const pairs = this.doubleStarredKvpairs();
    if (pairs !== FAIL) {
      this.op(',');
      for (const p of pairs) {
        keys.push(p.key);
        values.push(p.value);
      }
    }
    if (!this.op('}')) {
      this.pos = mark;
      return FAIL;
    }
    return { type: 'Dict', keys, values, loc: this.locFrom(open) };
  }

  /** ','.double_starred_kvpair+ (a trailing comma is left unconsumed) */
  private doubleStarredKvpairs(): { key: Expr | null; value: Expr }[] | null {
    const first = this.doubleStarredKvpair();
    if (first === FAIL) return FAIL;
    const pairs = [first];
    for (;;) {
      const mark = this.pos;
      if (!this.op(',')) return pairs;
      const next = this.doubleStarredKvpair();
      if (next === FAIL) {
        this.pos = mark;
        return pairs;
      }
      pairs.push(next);
    }
  }

  /**
   * invalid_double_starred_kvpairs:
   *   | ','.double_starred_kvpair+ ',' invalid_kvpair
   *   | expression ':' a='*' bitwise_or    "cannot use a starred expression in a dictionary value"
   *   | expression ':' &('}'|',')          "expression expected after dictionary key and ':'"
   */
  private invalidDoubleStarredKvpairs(): null {
    this.attempt(() => {
      if (this.doubleStarredKvpairs() === FAIL || !this.op(',')) return FAIL;
      return this.invalidKvpair();
    });
    this.invalidKvpairTail();
    return FAIL;
  }

  /** invalid_kvpair: a=expression !(':') "':' expected after dictionary key" | the two tails above. */
  private invalidKvpair(): null {
    this.attempt(() => {
      const a = this.expression();
      if (a === FAIL || this.peekOp(':')) return FAIL;
      const loc = a.loc!;
      throw syntaxError("':' expected after dictionary key", { line: loc.endLine, col: Math.max(loc.endCol - 1, 1) });
    });
    this.invalidKvpairTail();
    return FAIL;
  }

  private invalidKvpairTail(): void {
    this.attempt(() => {
      if (this.expression() === FAIL || !this.op(':')) return FAIL;
      const a = this.op('*');
      if (!a || this.bitwiseOr() === FAIL) return FAIL;
      this.raise('cannot use a starred expression in a dictionary value', a);
    });
    this.attempt(() => {
      if (this.expression() === FAIL) return FAIL;
      const colon = this.op(':');
      if (!colon || !(this.peekOp('}') || this.peekOp(','))) return FAIL;
      this.raise("expression expected after dictionary key and ':'", colon);
    });
  }

  /** double_starred_kvpair: '**' bitwise_or | kvpair */
  private doubleStarredKvpair(): { key: Expr | null; value: Expr } | null {
    if (this.peekOp('**')) {
      this.pos++;
      const value = this.bitwiseOr();
      if (value !== FAIL) return { key: null, value };
      this.pos--;
    }
    return this.kvpair();
  }

  /** kvpair: expression ':' expression */
  private kvpair(): { key: Expr; value: Expr } | null {
    const mark = this.pos;
    const key = this.expression();
    if (key !== FAIL && this.op(':')) {
      const value = this.expression();
      if (value !== FAIL) return { key, value };
    }
    this.pos = mark;
    return FAIL;
  }

  /** dictcomp: '{' kvpair for_if_clauses '}' */
  private dictcomp(): Expr | null {
    return (
      this.attempt<Expr>(() => {
        const open = this.op('{');
        if (!open) return FAIL;
        const pair = this.kvpair();
        if (pair === FAIL) return FAIL;
        const generators = this.forIfClauses();
        if (generators === FAIL || !this.op('}')) return FAIL;
        return { type: 'DictComp', key: pair.key, value: pair.value, generators, loc: this.locFrom(open) };
      }) ?? this.invalidDictComprehension()
    );
  }

  /** for_if_clauses: for_if_clause+ */
  private forIfClauses(): Comprehension[] | null {
    const clauses: Comprehension[] = [];
    for (;;) {
      const c = this.attempt(() => this.forIfClause());
      if (c === FAIL) break;
      clauses.push(c);
    }
    return clauses.length > 0 ? clauses : FAIL;
  }

  /**
   * for_if_clause: [ASYNC] 'for' star_targets 'in' ~ disjunction ('if' disjunction)* | invalid_for_target
   * (the cut: once 'in' is matched, a failing iterable fails the clause without the invalid rule).
   */
  private forIfClause(): Comprehension | null {
    const start = this.pos;
    const isAsync = this.keyword('async') ? 1 : 0;
    if (!this.keyword('for')) return FAIL;
    const target = this.starTargets();
    if (target === FAIL || !this.keyword('in')) {
      if (this.invalidRules) {
        this.pos = start;
        this.attempt(() => this.invalidForTarget());
      }
      return FAIL;
    }
    const iter = this.disjunction();
    if (iter === FAIL) return FAIL;
    const ifs: Expr[] = [];
    for (;;) {
      const cond = this.attempt(() => (this.keyword('if') ? this.disjunction() : FAIL));
      if (cond === FAIL) break;
      ifs.push(cond);
    }
    return { type: 'comprehension', target, iter, ifs, is_async: isAsync, loc: null };
  }

  // ---- call arguments ----------------------------------------------------------------------

  /** arguments (memo): args [','] &')' */
  private arguments(): { args: Expr[]; keywords: Keyword[] } | null {
    return this.memo(Rule.Arguments, this.argumentsBody);
  }

  private readonly argumentsBody = (): { args: Expr[]; keywords: Keyword[] } | null => {
    const a = this.attempt(() => {
      const parsed = this.args();
      if (parsed === FAIL) return FAIL;
      this.op(',');
      return this.peekOp(')') ? parsed : FAIL;
    });
    if (a === FAIL && this.invalidRules) this.attempt(() => this.invalidArguments());
    return a;
  };

  /**
   * args: ','.(starred_expression | (assignment_expression | expression !':=') !'=')+ [',' kwargs]
   *     | kwargs
   */
  private args(): { args: Expr[]; keywords: Keyword[] } | null {
    const positional = this.attempt(() => {
      const items = this.gather(() => this.starredExpression() ?? this.positionalArg());
      if (items === FAIL) return FAIL;
      const kw = this.attempt(() => (this.op(',') ? this.kwargs() : FAIL));
      return collectCallSeqs(items, kw ?? []);
    });
    if (positional !== FAIL) return positional;
    const kw = this.kwargs();
    return kw === FAIL ? FAIL : collectCallSeqs([], kw);
  }

  /** (assignment_expression | expression !':=') !'=' */
  private positionalArg(): Expr | null {
    return this.attempt(() => {
      const e = this.assignmentExpression() ?? this.expressionNotWalrus();
      if (e === FAIL || this.peekOp('=')) return FAIL;
      return e;
    });
  }

  /**
   * kwargs: ','.kwarg_or_starred+ ',' ','.kwarg_or_double_starred+
   *       | ','.kwarg_or_starred+
   *       | ','.kwarg_or_double_starred+
   */
  private kwargs(): (Keyword | Expr)[] | null {
    const both = this.attempt(() => {
      const a = this.gather(() => this.kwargOrStarred());
      if (a === FAIL || !this.op(',')) return FAIL;
      const b = this.gather(() => this.kwargOrDoubleStarred());
      return b === FAIL ? FAIL : [...a, ...b];
    });
    if (both !== FAIL) return both;
    return (
      this.attempt(() => this.gather(() => this.kwargOrStarred())) ??
      this.attempt(() => this.gather(() => this.kwargOrDoubleStarred()))
    );
  }

  /** starred_expression: '*' expression */
  private starredExpression(): Expr | null {
    const star = this.peek();
    if (star.type !== 'OP' || star.text !== '*') return FAIL;
    this.pos++;
    const value = this.expression();
    if (value === FAIL) {
      this.pos--;
      return FAIL;
    }
    return { type: 'Starred', value, ctx: this.ctx('Load'), loc: this.locFrom(star) };
  }

  /** kwarg_or_starred: NAME '=' expression | starred_expression */
  private kwargOrStarred(): Keyword | Expr | null {
    if (this.invalidRules) this.attempt(() => this.invalidKwarg());
    return this.keywordArg() ?? this.starredExpression();
  }

  /** kwarg_or_double_starred: NAME '=' expression | '**' expression */
  private kwargOrDoubleStarred(): Keyword | null {
    if (this.invalidRules) this.attempt(() => this.invalidKwarg());
    return (
      this.keywordArg() ??
      this.attempt<Keyword>(() => {
        const star = this.op('**');
        if (!star) return FAIL;
        const value = this.expression();
        if (value === FAIL) return FAIL;
        return { type: 'keyword', arg: null, value, loc: this.locFrom(star) };
      })
    );
  }

  private keywordArg(): Keyword | null {
    return this.attempt<Keyword>(() => {
      const name = this.nameToken();
      if (!name || !this.op('=')) return FAIL;
      const value = this.expression();
      if (value === FAIL) return FAIL;
      return { type: 'keyword', arg: identifier(name.text), value, loc: this.locFrom(name) };
    });
  }

  // ---- second pass: the invalid_* rules that give CPython's specific messages ----------------

  private raise(msg: string, from: Loc | Token, to?: Loc | Token): never {
    const start = 'start' in from ? from.start : { line: from.line, col: from.col };
    const end =
      to === undefined
        ? undefined
        : 'end' in to && typeof to.end === 'object'
          ? to.end
          : { line: (to as Loc).endLine, col: (to as Loc).endCol };
    throw syntaxError(msg, start, end);
  }

  /**
   * invalid_expression:
   *   | !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid   "Perhaps you forgot a comma?"
   *   | a=disjunction 'if' b=disjunction !('else'|':')                              "expected 'else' ..."
   */
  private invalidExpression(): null {
    const t = this.peek();
    // Lazily, as pegen: the token after a NAME is fetched only for the NAME STRING lookahead.
    const blocked = t.type === 'NAME' && (this.fetch(this.pos + 1).type === 'STRING' || isSoftKeyword(t.text));
    // The alternatives inline `attempt` (this rule is on a nested bracket's path in the second
    // pass); the caller restores the position.
    const start = this.pos;
    if (!blocked) {
      const a = this.disjunction();
      if (a !== FAIL) {
        this.withoutInvalid++;
        const b = this.expressionWithoutInvalid();
        this.withoutInvalid--;
        const isLegacy = a.type === 'Name' && LEGACY_STATEMENTS.has(a.id);
        if (b !== FAIL && !isLegacy && this.tokens[this.pos - 1]!.level !== 0)
          this.raise('invalid syntax. Perhaps you forgot a comma?', a.loc, b.loc);
      }
      this.pos = start;
    }
    const a = this.disjunction();
    if (a === FAIL || !this.keyword('if')) return FAIL;
    const b = this.disjunction();
    if (b === FAIL) return FAIL;
    const t2 = this.peek();
    if ((t2.type === 'KEYWORD' && t2.text === 'else') || (t2.type === 'OP' && t2.text === ':')) return FAIL;
    this.raise("expected 'else' after 'if' expression", a.loc, b.loc);
  }

  /** invalid_for_target: ASYNC? 'for' a=star_expressions   RAISE_SYNTAX_ERROR_INVALID_TARGET(FOR_TARGETS, a) */
  private invalidForTarget(): null {
    this.keyword('async');
    if (!this.keyword('for')) return FAIL;
    const a = this.starExpressions();
    if (a === FAIL) return FAIL;
    const bad = invalidTarget(a);
    if (bad !== null) this.raise(`cannot assign to ${exprName(bad)}`, bad.loc ?? this.tokens[this.pos - 1]!);
    return FAIL;
  }

  /** invalid_legacy_expression: a=NAME !'(' b=star_expressions, for `print x` and `exec x`. */
  private invalidLegacyExpression(): null {
    const a = this.nameToken();
    if (!a || this.peekOp('(')) return FAIL;
    const b = this.starExpressions();
    // `_PyPegen_check_legacy_stmt` compares the Name's id, NFKC-normalised: `pᵣ𝒾ₙt x` counts.
    const id = identifier(a.text);
    if (b === FAIL || !LEGACY_STATEMENTS.has(id)) return FAIL;
    this.raise(`Missing parentheses in call to '${id}'. Did you mean ${id}(...)?`, a, b.loc);
  }

  /**
   * invalid_named_expression:
   *   | a=expression ':=' expression                              "cannot use assignment expressions with ..."
   *   | a=NAME '=' b=bitwise_or !('='|':=')                        "Maybe you meant '==' or ':=' instead of '='?"
   *   | !(list|tuple|genexp|'True'|'None'|'False') a=bitwise_or '=' bitwise_or !('='|':=')   "cannot assign to ..."
   */
  private invalidNamedExpression(): null {
    // Memoised like pegen's (memo) rule: its negative lookahead re-parses displays, which would
    // otherwise make nested brackets quadratic in the second pass.
    if (this.invalidNamedTried.has(this.pos)) return FAIL;
    this.invalidNamedTried.add(this.pos);
    // The first alternative inlines `attempt`: it is on a nested bracket's path in the second pass.
    const start = this.pos;
    const walrusTarget = this.expression();
    if (walrusTarget !== FAIL && this.op(':=') && this.expression() !== FAIL)
      this.raise(`cannot use assignment expressions with ${exprName(walrusTarget)}`, walrusTarget.loc);
    this.pos = start;
    this.attempt(() => {
      const a = this.nameToken();
      if (!a || !this.op('=')) return FAIL;
      const b = this.bitwiseOr();
      if (b === FAIL || this.peekOp('=') || this.peekOp(':=')) return FAIL;
      this.raise("invalid syntax. Maybe you meant '==' or ':=' instead of '='?", a, b.loc);
    });
    this.attempt(() => {
      // A negative lookahead: the position is restored whether or not a display matches.
      const mark = this.pos;
      const excluded = this.list() ?? this.tuple() ?? this.genexp();
      this.pos = mark;
      if (excluded !== FAIL) return FAIL;
      const t = this.peek();
      if (t.type === 'KEYWORD' && (t.text === 'True' || t.text === 'None' || t.text === 'False')) return FAIL;
      const a = this.bitwiseOr();
      if (a === FAIL || !this.op('=')) return FAIL;
      if (this.bitwiseOr() === FAIL || this.peekOp('=') || this.peekOp(':=')) return FAIL;
      this.raise(`cannot assign to ${exprName(a)} here. Maybe you meant '==' instead of '='?`, a.loc);
    });
    return FAIL;
  }

  /**
   * invalid_kwarg:
   *   | ('True'|'False'|'None') '='                "cannot assign to True"
   *   | !(NAME '=') a=expression b='='             "expression cannot contain assignment, perhaps you meant \"==\"?"
   */
  /** invalid_arguments and invalid_kwarg share: a=NAME b='=' expression for_if_clauses   "Maybe you meant '==' or ':='..." */
  private nameEqualsGenexp(): null {
    const a = this.nameToken();
    const b = a && this.op('=');
    if (!b || this.expression() === FAIL || this.forIfClauses() === FAIL) return FAIL;
    this.raise("invalid syntax. Maybe you meant '==' or ':=' instead of '='?", a, b);
  }

  private invalidKwarg(): null {
    this.attempt(() => {
      const t = this.peek();
      if (t.type !== 'KEYWORD' || !['True', 'False', 'None'].includes(t.text)) return FAIL;
      this.pos++;
      const eq = this.op('=');
      if (!eq) return FAIL;
      this.raise(`cannot assign to ${t.text}`, t, eq);
    });
    this.attempt(() => this.nameEqualsGenexp());
    this.attempt(() => {
      if (this.peekType('NAME') && this.fetch(this.pos + 1).type === 'OP' && this.fetch(this.pos + 1).text === '=')
        return FAIL;
      const a = this.expression();
      if (a === FAIL) return FAIL;
      const eq = this.op('=');
      if (!eq) return FAIL;
      this.raise('expression cannot contain assignment, perhaps you meant "=="?', a.loc, eq);
    });
    return FAIL;
  }

  /**
   * invalid_arguments (the alternatives about generator expressions and argument order):
   *   | a=args ',' '*'                                   "iterable argument unpacking follows keyword argument unpacking"
   *   | a=expression b=for_if_clauses ',' [args | expression for_if_clauses]   "Generator expression must be parenthesized"
   *   | args ',' a=expression b=for_if_clauses           "Generator expression must be parenthesized"
   */
  private invalidArguments(): null {
    this.attempt(() => {
      const a = this.args();
      if (a === FAIL || !this.op(',') || !this.op('*')) return FAIL;
      this.raise('iterable argument unpacking follows keyword argument unpacking', this.tokens[this.pos - 1]!);
    });
    this.attempt(() => {
      const a = this.expression();
      if (a === FAIL) return FAIL;
      const b = this.forIfClauses();
      if (b === FAIL || !this.op(',')) return FAIL;
      this.raise('Generator expression must be parenthesized', a.loc);
    });
    this.attempt(() => this.nameEqualsGenexp());
    // | a=args b=for_if_clauses   `_PyPegen_nonparen_genexp_in_call`: `f(L, x for x in y)` parses
    //   `L, x` as the arguments; with more than one positional, the last is where the genexp starts.
    this.attempt(() => {
      const a = this.args();
      if (a === FAIL || this.forIfClauses() === FAIL || a.args.length <= 1) return FAIL;
      this.raise('Generator expression must be parenthesized', a.args[a.args.length - 1]!.loc!);
    });
    this.attempt(() => {
      if (this.args() === FAIL || !this.op(',')) return FAIL;
      const a = this.expression();
      if (a === FAIL || this.forIfClauses() === FAIL) return FAIL;
      this.raise('Generator expression must be parenthesized', a.loc);
    });
    // | a=args ',' args   `_PyPegen_arguments_parsing_error`
    this.attempt(() => {
      const a = this.args();
      if (a === FAIL || !this.op(',') || this.args() === FAIL) return FAIL;
      const unpacking = a.keywords.some((k) => k.arg === null);
      this.raiseAtLastToken(
        unpacking
          ? 'positional argument follows keyword argument unpacking'
          : 'positional argument follows keyword argument',
      );
    });
    return FAIL;
  }

  // ---- lambda -------------------------------------------------------------------------------

  /** lambdef: 'lambda' [lambda_params] ':' expression */
  private lambdef(): Expr | null {
    return this.attempt<Expr>(() => {
      const kw = this.keyword('lambda');
      if (!kw) return FAIL;
      const args = this.lambdaParameters() ?? emptyArguments();
      if (!this.op(':')) return FAIL;
      const body = this.expression();
      if (body === FAIL) return FAIL;
      return { type: 'Lambda', args, body, loc: this.locFrom(kw) };
    });
  }

  /**
   * lambda_parameters:
   *   | lambda_slash_no_default lambda_param_no_default* lambda_param_with_default* [lambda_star_etc]
   *   | lambda_slash_with_default lambda_param_with_default* [lambda_star_etc]
   *   | lambda_param_no_default+ lambda_param_with_default* [lambda_star_etc]
   *   | lambda_param_with_default+ [lambda_star_etc]
   *   | lambda_star_etc
   */
  private lambdaParameters(): Arguments | null {
    if (this.invalidRules) this.attempt(() => this.invalidLambdaParameters());
    const alt1 = this.attempt(() => {
      const slash = this.lambdaSlashNoDefault();
      if (slash === FAIL) return FAIL;
      const plain = this.repeat(() => this.lambdaParamNoDefault());
      const withDefault = this.repeat(() => this.lambdaParamWithDefault());
      const star = this.lambdaStarEtc();
      return makeArguments(slash, [], plain, withDefault, star);
    });
    if (alt1 !== FAIL) return alt1;
    const alt2 = this.attempt(() => {
      const slash = this.lambdaSlashWithDefault();
      if (slash === FAIL) return FAIL;
      const withDefault = this.repeat(() => this.lambdaParamWithDefault());
      const star = this.lambdaStarEtc();
      return makeArguments(slash.plain, slash.withDefault, [], withDefault, star);
    });
    if (alt2 !== FAIL) return alt2;
    const alt3 = this.attempt(() => {
      const plain = this.repeat(() => this.lambdaParamNoDefault());
      if (plain.length === 0) return FAIL;
      const withDefault = this.repeat(() => this.lambdaParamWithDefault());
      const star = this.lambdaStarEtc();
      return makeArguments([], [], plain, withDefault, star);
    });
    if (alt3 !== FAIL) return alt3;
    const alt4 = this.attempt(() => {
      const withDefault = this.repeat(() => this.lambdaParamWithDefault());
      if (withDefault.length === 0) return FAIL;
      const star = this.lambdaStarEtc();
      return makeArguments([], [], [], withDefault, star);
    });
    if (alt4 !== FAIL) return alt4;
    const star = this.lambdaStarEtc();
    return star === FAIL ? FAIL : makeArguments([], [], [], [], star);
  }

  /** lambda_slash_no_default: lambda_param_no_default+ '/' (',' | &':') */
  private lambdaSlashNoDefault(): Arg[] | null {
    return this.attempt(() => {
      const params = this.repeat(() => this.lambdaParamNoDefault());
      if (params.length === 0 || !this.op('/')) return FAIL;
      return this.commaOrColon() ? params : FAIL;
    });
  }

  /** lambda_slash_with_default: lambda_param_no_default* lambda_param_with_default+ '/' (',' | &':') */
  private lambdaSlashWithDefault(): { plain: Arg[]; withDefault: ParamDefault[] } | null {
    return this.attempt(() => {
      const plain = this.repeat(() => this.lambdaParamNoDefault());
      const withDefault = this.repeat(() => this.lambdaParamWithDefault());
      if (withDefault.length === 0 || !this.op('/')) return FAIL;
      return this.commaOrColon() ? { plain, withDefault } : FAIL;
    });
  }

  /**
   * lambda_star_etc:
   *   | '*' lambda_param_no_default lambda_param_maybe_default* [lambda_kwds]
   *   | '*' ',' lambda_param_maybe_default+ [lambda_kwds]
   *   | lambda_kwds
   */
  private lambdaStarEtc(): StarEtc | null {
    if (this.invalidRules) this.attempt(() => this.invalidLambdaStarEtc());
    const alt1 = this.attempt(() => {
      if (!this.op('*')) return FAIL;
      const vararg = this.lambdaParamNoDefault();
      if (vararg === FAIL) return FAIL;
      const kwonly = this.repeat(() => this.lambdaParamMaybeDefault());
      const kwarg = this.lambdaKwds();
      return { vararg, kwonly, kwarg };
    });
    if (alt1 !== FAIL) return alt1;
    const alt2 = this.attempt(() => {
      if (!this.op('*') || !this.op(',')) return FAIL;
      const kwonly = this.repeat(() => this.lambdaParamMaybeDefault());
      if (kwonly.length === 0) return FAIL;
      const kwarg = this.lambdaKwds();
      return { vararg: null, kwonly, kwarg };
    });
    if (alt2 !== FAIL) return alt2;
    const kwarg = this.lambdaKwds();
    return kwarg === FAIL ? FAIL : { vararg: null, kwonly: [], kwarg };
  }

  /** lambda_kwds: '**' lambda_param_no_default */
  private lambdaKwds(): Arg | null {
    if (this.invalidRules) this.attempt(() => this.invalidLambdaKwds());
    return this.attempt(() => (this.op('**') ? this.lambdaParamNoDefault() : FAIL));
  }

  /** lambda_param_no_default: lambda_param (',' | &':') */
  private lambdaParamNoDefault(): Arg | null {
    return this.attempt(() => {
      const p = this.lambdaParam();
      return p !== FAIL && this.commaOrColon() ? p : FAIL;
    });
  }

  /** lambda_param_with_default: lambda_param default (',' | &':') */
  private lambdaParamWithDefault(): ParamDefault | null {
    return this.attempt(() => {
      const arg = this.lambdaParam();
      if (arg === FAIL) return FAIL;
      const value = this.defaultValue();
      if (value === FAIL) return FAIL;
      return this.commaOrColon() ? { arg, value } : FAIL;
    });
  }

  /** lambda_param_maybe_default: lambda_param default? (',' | &':') */
  private lambdaParamMaybeDefault(): { arg: Arg; value: Expr | null } | null {
    return this.attempt(() => {
      const arg = this.lambdaParam();
      if (arg === FAIL) return FAIL;
      const value = this.defaultValue();
      return this.commaOrColon() ? { arg, value } : FAIL;
    });
  }

  /**
   * invalid_lambda_parameters:
   *   | lambda_param_no_default* invalid_lambda_parameters_helper a=lambda_param_no_default   "non-default argument follows default argument"
   *   | lambda_param_no_default* a='(' ','.lambda_param+ ','? b=')'   "Lambda expression parameters cannot be parenthesized"
   *   | a='/' ','                                                      "at least one argument must precede /"
   *   | (lambda_slash_no_default | lambda_slash_with_default) lambda_param_maybe_default* a='/'   "/ may appear only once"
   *   | (lambda_slash_no_default | lambda_slash_with_default)? lambda_param_maybe_default* '*' (',' | lambda_param_no_default)
   *     lambda_param_maybe_default* a='/'                              "/ must be ahead of *"
   *   | lambda_param_maybe_default+ '/' a='*'                          "expected comma between / and *"
   * invalid_lambda_parameters_helper: lambda_slash_with_default | lambda_param_with_default+
   */
  private invalidLambdaParameters(): null {
    this.attempt(() => {
      this.repeat(() => this.lambdaParamNoDefault());
      const helper =
        this.lambdaSlashWithDefault() !== FAIL || this.repeat(() => this.lambdaParamWithDefault()).length > 0;
      if (!helper) return FAIL;
      const a = this.peek();
      if (this.lambdaParamNoDefault() === FAIL) return FAIL;
      this.raise('non-default argument follows default argument', a, a);
    });
    this.attempt(() => {
      this.repeat(() => this.lambdaParamNoDefault());
      const a = this.op('(');
      if (!a || this.lambdaParam() === FAIL) return FAIL;
      this.repeat(() => (this.op(',') && this.lambdaParam()) || FAIL);
      this.op(',');
      const b = this.op(')');
      if (!b) return FAIL;
      this.raise('Lambda expression parameters cannot be parenthesized', a, b);
    });
    this.attempt(() => {
      const a = this.op('/');
      if (!a || !this.op(',')) return FAIL;
      this.raise('at least one argument must precede /', a, a);
    });
    const slash = (): boolean => this.lambdaSlashNoDefault() !== FAIL || this.lambdaSlashWithDefault() !== FAIL;
    this.attempt(() => {
      if (!slash()) return FAIL;
      this.repeat(() => this.lambdaParamMaybeDefault());
      const a = this.op('/');
      if (!a) return FAIL;
      this.raise('/ may appear only once', a, a);
    });
    this.attempt(() => {
      slash();
      this.repeat(() => this.lambdaParamMaybeDefault());
      if (!this.op('*')) return FAIL;
      if (!this.op(',') && this.lambdaParamNoDefault() === FAIL) return FAIL;
      this.repeat(() => this.lambdaParamMaybeDefault());
      const a = this.op('/');
      if (!a) return FAIL;
      this.raise('/ must be ahead of *', a, a);
    });
    this.attempt(() => {
      if (this.repeat(() => this.lambdaParamMaybeDefault()).length === 0 || !this.op('/')) return FAIL;
      const a = this.op('*');
      if (!a) return FAIL;
      this.raise('expected comma between / and *', a, a);
    });
    return FAIL;
  }

  /**
   * invalid_lambda_star_etc:
   *   | '*' (':' | ',' (':' | '**'))                  RAISE_SYNTAX_ERROR "named arguments must follow bare *"
   *   | '*' lambda_param a='='                         "var-positional argument cannot have default value"
   *   | '*' (lambda_param_no_default | ',') lambda_param_maybe_default* a='*' (lambda_param_no_default | ',')
   *                                                    "* argument may appear only once"
   */
  private invalidLambdaStarEtc(): null {
    this.attempt(() => {
      if (!this.op('*')) return FAIL;
      if (!this.op(':') && !(this.op(',') && (this.op(':') || this.op('**')))) return FAIL;
      this.raiseAtLastToken('named arguments must follow bare *');
    });
    this.attempt(() => {
      if (!this.op('*') || this.lambdaParam() === FAIL) return FAIL;
      const a = this.op('=');
      if (!a) return FAIL;
      this.raise('var-positional argument cannot have default value', a, a);
    });
    this.attempt(() => {
      if (!this.op('*')) return FAIL;
      if (this.lambdaParamNoDefault() === FAIL && !this.op(',')) return FAIL;
      this.repeat(() => this.lambdaParamMaybeDefault());
      const a = this.op('*');
      if (!a) return FAIL;
      if (this.lambdaParamNoDefault() === FAIL && !this.op(',')) return FAIL;
      this.raise('* argument may appear only once', a, a);
    });
    return FAIL;
  }

  /**
   * invalid_lambda_kwds:
   *   | '**' lambda_param a='='                         "var-keyword argument cannot have default value"
   *   | '**' lambda_param ',' a=lambda_param            "arguments cannot follow var-keyword argument"
   *   | '**' lambda_param ',' a=('*'|'**'|'/')          "arguments cannot follow var-keyword argument"
   */
  private invalidLambdaKwds(): null {
    this.attempt(() => {
      if (!this.op('**') || this.lambdaParam() === FAIL) return FAIL;
      const a = this.op('=');
      if (!a) return FAIL;
      this.raise('var-keyword argument cannot have default value', a, a);
    });
    this.attempt(() => {
      if (!this.op('**') || this.lambdaParam() === FAIL || !this.op(',')) return FAIL;
      const a = this.peek();
      if (this.lambdaParam() === FAIL && !this.op('*') && !this.op('**') && !this.op('/')) return FAIL;
      this.raise('arguments cannot follow var-keyword argument', a, a);
    });
    return FAIL;
  }

  /** default: '=' expression | invalid_default */
  private defaultValue(): Expr | null {
    const value = this.attempt(() => (this.op('=') ? this.expression() : FAIL));
    if (value === FAIL && this.invalidRules) this.attempt(() => this.invalidDefault());
    return value;
  }

  /** invalid_default: a='=' &(')'|',')   "expected default value expression" */
  private invalidDefault(): null {
    const a = this.op('=');
    if (!a || !(this.peekOp(')') || this.peekOp(','))) return FAIL;
    this.raise('expected default value expression', a, a);
  }

  private lambdaParam(): Arg | null {
    const name = this.nameToken();
    if (!name) return FAIL;
    return { type: 'arg', arg: identifier(name.text), annotation: null, type_comment: null, loc: this.tokenLoc(name) };
  }

  /** `','` consumed, or `&':'` without consuming. */
  private commaOrColon(): boolean {
    return this.op(',') !== FAIL || this.peekOp(':');
  }

  // ---- assignment targets (comprehension `for` targets) -------------------------------------

  /** star_targets: star_target !',' | star_target (',' star_target)* [','] */
  private starTargets(): Expr | null {
    const single = this.attempt(() => {
      const a = this.starTarget();
      return a === FAIL || this.peekOp(',') ? FAIL : a;
    });
    if (single !== FAIL) return single;
    const start = this.peek();
    const a = this.starTarget();
    if (a === FAIL) return FAIL;
    const elts = [a];
    for (;;) {
      const b = this.attempt(() => (this.op(',') ? this.starTarget() : FAIL));
      if (b === FAIL) break;
      elts.push(b);
    }
    this.op(',');
    return { type: 'Tuple', elts, ctx: this.ctx('Store'), loc: this.locFrom(start) };
  }

  /** star_target (memo): '*' (!'*' star_target) | target_with_star_atom */
  private starTarget(): Expr | null {
    return this.memo(Rule.StarTarget, this.starTargetBody);
  }

  private readonly starTargetBody = (): Expr | null => {
    const starred = this.attempt<Expr>(() => {
      const star = this.op('*');
      if (!star || this.peekOp('*')) return FAIL;
      const value = this.starTarget();
      if (value === FAIL) return FAIL;
      return { type: 'Starred', value: withStore(value), ctx: this.ctx('Store'), loc: this.locFrom(star) };
    });
    return starred ?? this.targetWithStarAtom();
  };

  /**
   * target_with_star_atom (memo):
   *   | t_primary '.' NAME !t_lookahead
   *   | t_primary '[' slices ']' !t_lookahead
   *   | star_atom
   */
  private targetWithStarAtom(): Expr | null {
    return this.memo(Rule.TargetWithStarAtom, this.targetWithStarAtomBody);
  }

  private readonly targetWithStarAtomBody = (): Expr | null => {
    const start = this.peek();
    const attr = this.attempt<Expr>(() => {
      const value = this.tPrimary();
      if (value === FAIL || !this.op('.')) return FAIL;
      const name = this.nameToken();
      if (!name || this.tLookahead()) return FAIL;
      return {
        type: 'Attribute',
        value,
        attr: identifier(name.text),
        ctx: this.ctx('Store'),
        loc: this.locFrom(start),
      };
    });
    if (attr !== FAIL) return attr;
    const sub = this.attempt<Expr>(() => {
      const value = this.tPrimary();
      if (value === FAIL || !this.op('[')) return FAIL;
      const slice = this.slices();
      if (slice === FAIL || !this.op(']') || this.tLookahead()) return FAIL;
      return { type: 'Subscript', value, slice, ctx: this.ctx('Store'), loc: this.locFrom(start) };
    });
    return sub ?? this.starAtom();
  };

  /**
   * star_atom:
   *   | NAME
   *   | '(' target_with_star_atom ')'
   *   | '(' [star_targets_tuple_seq] ')'
   *   | '[' [star_targets_list_seq] ']'
   */
  private starAtom(): Expr | null {
    const t = this.peek();
    if (t.type === 'NAME') {
      this.pos++;
      return { type: 'Name', id: identifier(t.text), ctx: this.ctx('Store'), loc: this.tokenLoc(t) };
    }
    const inner = this.attempt(() => {
      if (!this.op('(')) return FAIL;
      const a = this.targetWithStarAtom();
      return a !== FAIL && this.op(')') ? withStore(a) : FAIL;
    });
    if (inner !== FAIL) return inner;
    const tuple = this.attempt<Expr>(() => {
      const open = this.op('(');
      if (!open) return FAIL;
      const elts = this.starTargetsTupleSeq() ?? [];
      if (!this.op(')')) return FAIL;
      return { type: 'Tuple', elts, ctx: this.ctx('Store'), loc: this.locFrom(open) };
    });
    if (tuple !== FAIL) return tuple;
    return this.attempt<Expr>(() => {
      const open = this.op('[');
      if (!open) return FAIL;
      const elts =
        this.attempt(() => {
          const items = this.gather(() => this.starTarget());
          if (items !== FAIL) this.op(',');
          return items;
        }) ?? [];
      if (!this.op(']')) return FAIL;
      return { type: 'List', elts, ctx: this.ctx('Store'), loc: this.locFrom(open) };
    });
  }

  /** star_targets_tuple_seq: star_target (',' star_target)+ [','] | star_target ',' */
  private starTargetsTupleSeq(): Expr[] | null {
    return this.attempt(() => {
      const a = this.starTarget();
      if (a === FAIL) return FAIL;
      const elts = [a];
      for (;;) {
        const b = this.attempt(() => (this.op(',') ? this.starTarget() : FAIL));
        if (b === FAIL) break;
        elts.push(b);
      }
      const comma = this.op(',');
      return elts.length > 1 || comma ? elts : FAIL;
    });
  }

  /**
   * t_primary (left-recursive): each step, and the atom it starts from, must be followed by
   * t_lookahead ('(' | '[' | '.').
   */
  private tPrimary(): Expr | null {
    return this.memo(Rule.TPrimary, this.tPrimaryBody);
  }

  private readonly tPrimaryBody = (): Expr | null => {
    const start = this.peek();
    let a = this.attempt(() => {
      const atom = this.atom();
      return atom !== FAIL && this.tLookahead() ? atom : FAIL;
    });
    if (a === FAIL) return FAIL;
    for (;;) {
      const base: Expr = a;
      const next = this.attempt(() => {
        const n = this.primarySuffix(base, start);
        return n !== FAIL && this.tLookahead() ? n : FAIL;
      });
      if (next === FAIL) return a;
      a = next;
    }
  };

  private tLookahead(): boolean {
    return this.peekOp('(') || this.peekOp('[') || this.peekOp('.');
  }

  // ---- repetition helpers ------------------------------------------------------------------

  /** `','.item+`: one or more items separated by commas (a trailing comma is left unconsumed). */
  private gather<T>(item: () => T | null): T[] | null {
    const first = this.attempt(item);
    if (first === FAIL) return FAIL;
    const out = [first];
    for (;;) {
      const next = this.attempt(() => (this.op(',') ? item() : FAIL));
      if (next === FAIL) return out;
      out.push(next);
    }
  }

  /** `item*` */
  private repeat<T>(item: () => T | null): T[] {
    const out: T[] = [];
    for (;;) {
      const next = this.attempt(item);
      if (next === FAIL) return out;
      out.push(next);
    }
  }
}

interface ParamDefault {
  arg: Arg;
  value: Expr;
}

interface StarEtc {
  vararg: Arg | null;
  kwonly: { arg: Arg; value: Expr | null }[];
  kwarg: Arg | null;
}

function emptyArguments(): Arguments {
  return makeArguments([], [], [], [], null);
}

/** `_PyPegen_make_arguments`. */
function makeArguments(
  slashNoDefault: Arg[],
  slashWithDefault: ParamDefault[],
  plain: Arg[],
  withDefault: ParamDefault[],
  star: StarEtc | null,
): Arguments {
  const posonlyargs = [...slashNoDefault, ...slashWithDefault.map((p) => p.arg)];
  return {
    type: 'arguments',
    posonlyargs,
    args: [...plain, ...withDefault.map((p) => p.arg)],
    vararg: star?.vararg ?? null,
    kwonlyargs: star?.kwonly.map((p) => p.arg) ?? [],
    kw_defaults: star?.kwonly.map((p) => p.value) ?? [],
    kwarg: star?.kwarg ?? null,
    defaults: [...slashWithDefault.map((p) => p.value), ...withDefault.map((p) => p.value)],
    loc: null,
  };
}

/** `_PyPegen_collect_call_seqs`: starred entries of the keyword section join the positional args. */
function collectCallSeqs(positional: Expr[], kw: (Keyword | Expr)[]): { args: Expr[]; keywords: Keyword[] } {
  const args = [...positional];
  const keywords: Keyword[] = [];
  for (const item of kw) {
    if (item.type === 'keyword') keywords.push(item);
    else args.push(item as Expr);
  }
  return { args, keywords };
}

/** `_PyPegen_set_expr_context(e, Store)`: a copy, because memoised nodes are shared. */
function withStore(e: Expr): Expr {
  const store: Marker<ContextName> = { type: 'Store', loc: null };
  switch (e.type) {
    case 'Name':
    case 'Attribute':
    case 'Subscript':
      return { ...e, ctx: store };
    case 'Starred':
      return { ...e, value: withStore(e.value), ctx: store };
    case 'Tuple':
    case 'List':
      return { ...e, elts: e.elts.map(withStore), ctx: store };
    default:
      return e;
  }
}

/** `_PyPegen_new_identifier`: non-ASCII identifiers are NFKC-normalised. */
function identifier(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : text.normalize('NFKC');
}

/** The value of a NUMBER token, by Python's literal rules (underscores already validated). */
export function numberValue(text: string): PyConstant {
  // Fast path: a plain decimal int, the commonest literal in conditions.
  let plain = text.length <= 15;
  for (let i = 0; plain && i < text.length; i++) {
    const c = text.charCodeAt(i);
    plain = c >= 0x30 && c <= 0x39;
  }
  if (plain) return { kind: 'int', value: BigInt(Number(text)) };
  const t = text.replace(/_/g, '');
  const lower = t.toLowerCase();
  if (lower.startsWith('0x') || lower.startsWith('0o') || lower.startsWith('0b')) {
    return { kind: 'int', value: BigInt(lower) };
  }
  if (lower.endsWith('j')) return { kind: 'complex', real: 0, imag: Number(t.slice(0, -1)) };
  if (/[.e]/.test(lower)) return { kind: 'float', value: Number(t) };
  return { kind: 'int', value: BigInt(t) };
}

/**
 * `_PyPegen_get_invalid_target` for FOR_TARGETS: the first part of an expression parsed where a
 * `for` target was expected that cannot be assigned to. Lists and tuples are searched, a starred
 * item by its value, and a comparison by its left side when it is `in` (`for a in b` parses as one).
 */
function invalidTarget(e: Expr): Expr | null {
  switch (e.type) {
    case 'List':
    case 'Tuple':
      for (const elt of e.elts) {
        const child = invalidTarget(elt);
        if (child !== null) return child;
      }
      return null;
    case 'Starred':
      return invalidTarget(e.value);
    case 'Compare':
      return e.ops[0]?.type === 'In' ? invalidTarget(e.left) : null;
    case 'Name':
    case 'Subscript':
    case 'Attribute':
      return null;
    default:
      return e;
  }
}

/** `_PyPegen_get_expr_name`: how CPython's messages name an expression. */
function exprName(e: Expr): string {
  switch (e.type) {
    case 'Attribute':
      return 'attribute';
    case 'Subscript':
      return 'subscript';
    case 'Starred':
      return 'starred';
    case 'Name':
      return 'name';
    case 'List':
      return 'list';
    case 'Tuple':
      return 'tuple';
    case 'Lambda':
      return 'lambda';
    case 'Call':
      return 'function call';
    case 'BoolOp':
    case 'BinOp':
    case 'UnaryOp':
      return 'expression';
    case 'GeneratorExp':
      return 'generator expression';
    case 'Yield':
    case 'YieldFrom':
      return 'yield expression';
    case 'Await':
      return 'await expression';
    case 'ListComp':
      return 'list comprehension';
    case 'SetComp':
      return 'set comprehension';
    case 'DictComp':
      return 'dict comprehension';
    case 'Dict':
      return 'dict literal';
    case 'Set':
      return 'set display';
    case 'JoinedStr':
    case 'FormattedValue':
      return 'f-string expression';
    case 'Constant': {
      const v = e.value;
      if (v.kind === 'None') return 'None';
      if (v.kind === 'bool') return v.value ? 'True' : 'False';
      if (v.kind === 'Ellipsis') return 'ellipsis';
      return 'literal';
    }
    case 'Compare':
      return 'comparison';
    case 'IfExp':
      return 'conditional expression';
    case 'NamedExpr':
      return 'named expression';
    case 'Slice':
      return 'slice';
  }
}
