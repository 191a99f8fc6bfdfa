/**
 * Lowers a checked condition (an AST the whitelist walker accepted) to the VM's bytecode: a
 * compact (opcode, argument) array plus a typed constant pool, in the format of
 * assembly/opcodes.ts. Control flow follows CPython's own code generation: `and`/`or` keep the
 * deciding operand, chained comparisons evaluate middle operands once and short-circuit.
 */
import * as Op from '../../assembly/opcodes.js';
import type { Compare, Expr, PyConstant } from './ast.js';
import type { CheckedCondition } from './validate.js';

const VARS: Readonly<Record<string, number>> = {
  capture: Op.VAR_CAPTURE,
  exit_code: Op.VAR_EXIT_CODE,
  walltime_sec: Op.VAR_WALLTIME_SEC,
  peak_vram_mib: Op.VAR_PEAK_VRAM_MIB,
};
const BUILTINS: Readonly<Record<string, number>> = {
  float: Op.BUILTIN_FLOAT,
  int: Op.BUILTIN_INT,
  len: Op.BUILTIN_LEN,
  math: Op.BUILTIN_MATH,
};
const MATH_ATTRS: Readonly<Record<string, number>> = { isnan: Op.BUILTIN_ISNAN, isinf: Op.BUILTIN_ISINF };
const BIN: Readonly<Record<string, number>> = { Add: Op.BIN_ADD, Sub: Op.BIN_SUB, Div: Op.BIN_DIV, FloorDiv: Op.BIN_FLOORDIV };
const UNARY: Readonly<Record<string, number>> = { USub: Op.UNARY_NEG, UAdd: Op.UNARY_POS, Not: Op.UNARY_NOT };
const CMP: Readonly<Record<string, number>> = {
  Eq: Op.CMP_EQ, NotEq: Op.CMP_NE, Lt: Op.CMP_LT, LtE: Op.CMP_LE, Gt: Op.CMP_GT, GtE: Op.CMP_GE,
};

/** Thrown when lowering meets a node the walker should have rejected: a bug, never user error. */
export class CompileError extends Error {
  override name = 'CompileError';
}

export function compileChecked(checked: CheckedCondition): Int32Array {
  const c = new Compiler();
  c.expr(checked.tree.body, 1);
  c.emit(Op.OP_RETURN, 0);
  return c.finish();
}

class Compiler {
  private readonly code: number[] = [];
  private readonly consts: number[][] = [];
  private readonly constKeys = new Map<string, number>();
  private depth = 0;
  private maxDepth = 0;

  emit(op: number, arg: number): number {
    this.code.push(op, arg);
    return this.code.length / 2 - 1;
  }

  /** Tracks the stack depth the verifier will recompute, to size the VM stack. */
  private stack(delta: number): void {
    this.depth += delta;
    if (this.depth > this.maxDepth) this.maxDepth = this.depth;
  }

  private here(): number {
    return this.code.length / 2;
  }

  private patch(at: number, target: number): void {
    this.code[at * 2 + 1] = target;
  }

  /** Emits `e`, leaving exactly one value on the stack. `_want` documents that contract. */
  expr(e: Expr, _want: 1): void {
    switch (e.type) {
      case 'Constant':
        this.emit(Op.OP_LOAD_CONST, this.constant(e.value));
        this.stack(1);
        return;
      case 'Name': {
        const v = VARS[e.id];
        const b = BUILTINS[e.id];
        if (v !== undefined) this.emit(Op.OP_LOAD_VAR, v);
        else if (b !== undefined) this.emit(Op.OP_LOAD_BUILTIN, b);
        else throw new CompileError(`name ${e.id} reached the compiler`);
        this.stack(1);
        return;
      }
      case 'Attribute': {
        const b = MATH_ATTRS[e.attr];
        if (e.value.type !== 'Name' || e.value.id !== 'math' || b === undefined) {
          throw new CompileError('attribute reached the compiler');
        }
        this.emit(Op.OP_LOAD_BUILTIN, b);
        this.stack(1);
        return;
      }
      case 'Subscript':
        this.expr(e.value, 1);
        this.expr(e.slice, 1);
        this.emit(Op.OP_SUBSCRIPT, 0);
        this.stack(-1);
        return;
      case 'Call':
        if (e.keywords.length > 0) throw new CompileError('keywords reached the compiler');
        this.expr(e.func, 1);
        for (const a of e.args) this.expr(a, 1);
        this.emit(Op.OP_CALL, e.args.length);
        this.stack(-e.args.length);
        return;
      case 'BinOp': {
        const op = BIN[e.op.type];
        if (op === undefined) throw new CompileError(`operator ${e.op.type} reached the compiler`);
        this.expr(e.left, 1);
        this.expr(e.right, 1);
        this.emit(Op.OP_BINARY, op);
        this.stack(-1);
        return;
      }
      case 'UnaryOp': {
        const op = UNARY[e.op.type];
        if (op === undefined) throw new CompileError(`operator ${e.op.type} reached the compiler`);
        this.expr(e.operand, 1);
        this.emit(Op.OP_UNARY, op);
        return;
      }
      case 'BoolOp': {
        const jump = e.op.type === 'And' ? Op.OP_JUMP_IF_FALSE_OR_POP : Op.OP_JUMP_IF_TRUE_OR_POP;
        const exits: number[] = [];
        e.values.forEach((v, i) => {
          this.expr(v, 1);
          if (i < e.values.length - 1) {
            exits.push(this.emit(jump, 0));
            this.stack(-1);
          }
        });
        for (const at of exits) this.patch(at, this.here());
        return;
      }
      case 'IfExp': {
        this.expr(e.test, 1);
        const toElse = this.emit(Op.OP_POP_JUMP_IF_FALSE, 0);
        this.stack(-1);
        this.expr(e.body, 1);
        const toEnd = this.emit(Op.OP_JUMP, 0);
        this.stack(-1);
        this.patch(toElse, this.here());
        this.expr(e.orelse, 1);
        this.patch(toEnd, this.here());
        return;
      }
      case 'Compare':
        this.compare(e);
        return;
      default:
        throw new CompileError(`${e.type} reached the compiler`);
    }
  }

  /**
   * `a < b < c`: b is evaluated once and kept under the first result; a false link jumps to a
   * cleanup that drops it, as CPython's compiler does.
   */
  private compare(e: Compare): void {
    this.expr(e.left, 1);
    const n = e.ops.length;
    const cleanups: number[] = [];
    for (let i = 0; i < n; i++) {
      const op = CMP[e.ops[i]!.type];
      if (op === undefined) throw new CompileError(`operator ${e.ops[i]!.type} reached the compiler`);
      this.expr(e.comparators[i]!, 1);
      if (i < n - 1) {
        this.emit(Op.OP_DUP_TOP, 0);
        this.stack(1);
        this.emit(Op.OP_ROT_THREE, 0);
        this.emit(Op.OP_COMPARE, op);
        this.stack(-1);
        cleanups.push(this.emit(Op.OP_JUMP_IF_FALSE_OR_POP, 0));
        this.stack(-1);
      } else {
        this.emit(Op.OP_COMPARE, op);
        this.stack(-1);
      }
    }
    if (cleanups.length === 0) return;
    const toEnd = this.emit(Op.OP_JUMP, 0);
    for (const at of cleanups) this.patch(at, this.here());
    this.emit(Op.OP_ROT_TWO, 0);
    this.emit(Op.OP_POP_TOP, 0);
    this.patch(toEnd, this.here());
  }

  private constant(v: PyConstant): number {
    const key = constantKey(v);
    const known = this.constKeys.get(key);
    if (known !== undefined) return known;
    const index = this.consts.length;
    this.consts.push(encodeConstant(v));
    this.constKeys.set(key, index);
    return index;
  }

  finish(): Int32Array {
    let constWords = 0;
    for (const w of this.consts) constWords += w.length;
    const out = allocWords(Op.HEADER_WORDS + this.code.length + constWords);
    out[0] = Op.PROGRAM_MAGIC;
    out[1] = Op.PROGRAM_VERSION;
    out[2] = this.code.length;
    out[3] = this.consts.length;
    out[4] = this.maxDepth;
    // Plain loops: TypedArray.set from a small JS array is the slow generic path in V8.
    let at = Op.HEADER_WORDS;
    for (const word of this.code) out[at++] = word;
    for (const w of this.consts) for (const word of w) out[at++] = word;
    return out;
  }
}

/**
 * Programs are carved out of shared 64 KiB slabs: in V8 a typed array over 64 bytes gets its own
 * off-heap backing store, which costs microseconds (measured ~2.4 µs for 40 words here, more than
 * the rest of the compiler), while a view on an existing buffer is nearly free.
 */
const SLAB_WORDS = 16 * 1024;
let slab = new ArrayBuffer(SLAB_WORDS * 4);
let slabUsed = 0;

function allocWords(n: number): Int32Array {
  if (n > SLAB_WORDS / 4) return new Int32Array(n);
  if (slabUsed + n > SLAB_WORDS) {
    slab = new ArrayBuffer(SLAB_WORDS * 4);
    slabUsed = 0;
  }
  const out = new Int32Array(slab, slabUsed * 4, n);
  slabUsed += n;
  return out;
}

const f64 = new Float64Array(1);
const i32 = new Int32Array(f64.buffer);

function floatWords(x: number): [number, number] {
  f64[0] = x;
  return [i32[0]!, i32[1]!];
}

/**
 * Identity of a constant for pooling: equal keys encode to equal words. Floats are keyed by their
 * bits (so 0.0 and -0.0, or two NaNs with different payloads, stay apart).
 */
function constantKey(v: PyConstant): string {
  switch (v.kind) {
    case 'int': return `i${v.value}`;
    case 'float': return `f${floatWords(v.value).join(',')}`;
    case 'complex': return `c${floatWords(v.real).join(',')},${floatWords(v.imag).join(',')}`;
    // Without surrogates the JS string determines the code points; with them it may not
    // ('\ud83d\ude00' and '\U0001f600' are the same JS string).
    case 'str': return /[\ud800-\udfff]/.test(v.value) ? `S${v.codePoints.join(',')}` : `s${v.value}`;
    case 'bytes': return `b${v.value.join(',')}`;
    case 'bool': return v.value ? 'T' : 'F';
    case 'None': return 'N';
    case 'Ellipsis': return 'E';
  }
}

/** One constant as (tag, payload...) words; numbers are exact values parsed by the front end. */
export function encodeConstant(v: PyConstant): number[] {
  switch (v.kind) {
    case 'None':
      return [Op.CONST_NONE];
    case 'bool':
      return [v.value ? Op.CONST_TRUE : Op.CONST_FALSE];
    case 'Ellipsis':
      return [Op.CONST_ELLIPSIS];
    case 'int': {
      // The walker caps literals below 10**9, so an i64 always holds them.
      const n = BigInt.asIntN(64, v.value);
      if (n !== v.value) throw new CompileError('int constant beyond i64 reached the compiler');
      return [Op.CONST_INT, Number(BigInt.asIntN(32, n)), Number(n >> 32n)];
    }
    case 'float':
      return [Op.CONST_FLOAT, ...floatWords(v.value)];
    case 'complex':
      return [Op.CONST_COMPLEX, ...floatWords(v.real), ...floatWords(v.imag)];
    case 'str':
      return [Op.CONST_STR, v.codePoints.length, ...v.codePoints];
    case 'bytes': {
      const words = [Op.CONST_BYTES, v.value.length];
      for (let i = 0; i < v.value.length; i += 4) {
        let w = 0;
        for (let k = 0; k < 4 && i + k < v.value.length; k++) w |= v.value[i + k]! << (8 * k);
        words.push(w);
      }
      return words;
    }
  }
}
