/**
 * Lowers a checked condition (an AST the whitelist walker accepted) to the VM's bytecode: a
 * compact (opcode, argument) array plus a typed constant pool, in the format of
 * assembly/opcodes.ts. Control flow follows CPython's own code generation: `and`/`or` keep the
 * deciding operand, chained comparisons evaluate middle operands once and short-circuit.
 */
import * as Op from '../../assembly/opcodes.js';
import type { Compare, Expr, IfExp, PyConstant } from './ast.js';
import { captureKeysRead } from './capture-keys.js';
import { toCodePoints } from './source.js';
import type { CheckedCondition } from './validate.js';

/** name → index, from one of the contract's name tables. */
function indexOf(names: readonly string[]): ReadonlyMap<string, number> {
  return new Map(names.map((n, i) => [n, i]));
}
const VARS = indexOf(Op.VAR_NAMES);
const BUILTINS = new Map(Op.BUILTIN_NAMES.flatMap((n, i) => (Op.BUILTIN_OWNERS[i] === -1 ? [[n, i] as const] : [])));
const MATH_ATTRS = new Map(
  Op.BUILTIN_NAMES.flatMap((n, i) => (Op.BUILTIN_OWNERS[i] === Op.BUILTIN_MATH ? [[n, i] as const] : [])),
);
const BIN = indexOf(Op.BIN_NAMES);
const UNARY = indexOf(Op.UNARY_NAMES);
const CMP = indexOf(Op.CMP_NAMES);
/** The comparison with its operands swapped: a < b is b > a (indexed by CMP_*). */
const MIRRORED = [Op.CMP_EQ, Op.CMP_NE, Op.CMP_GT, Op.CMP_GE, Op.CMP_LT, Op.CMP_LE];

/** A literal or a variable: loading it cannot raise and has no effects. */
function isPlainOperand(e: Expr): boolean {
  return e.type === 'Constant' || (e.type === 'Name' && VARS.has(e.id));
}

/** LOAD_VAR_COMPARE_CONST's argument (ARG_VAR_CMP_CONST). */
function packVarCompareConst(v: number, cmp: number, k: number): number {
  return cmp | (v << Op.CMP_BITS) | (k << (Op.CMP_BITS + Op.VAR_BITS));
}

/** Thrown when lowering meets a node the walker should have rejected: a bug, never user error. */
export class CompileError extends Error {
  override name = 'CompileError';
}

export function compileChecked(checked: CheckedCondition): Int32Array {
  const c = new Compiler(captureKeysRead(checked.tree));
  c.expr(checked.tree.body);
  c.emit(Op.OP_RETURN, 0);
  return c.finish();
}

/**
 * The stack effect of an instruction, from the contract's table (CPython's `stack_effect()`):
 * the change in depth when it falls through, or when it jumps if `jump` is set.
 */
export function stackEffect(op: number, arg: number, jump: boolean): number {
  const pops = Op.OP_POPS[op]! + (Op.OP_ARG_KINDS[op] === Op.ARG_COUNT ? arg : 0);
  return (jump ? Op.OP_JUMP_PUSHES[op]! : Op.OP_PUSHES[op]!) - pops;
}

class Compiler {
  private readonly code: number[] = [];
  private readonly consts: number[][] = [];
  private readonly constKeys = new Map<string, number>();
  private depth = 0;
  private maxDepth = 0;
  /** The stack depth on each unpatched jump's path. */
  private readonly pending = new Map<number, number>();
  /** Op.CAPTURE_AS_DICT, or the number of capture slots: their keys are constants 0..n-1. */
  private readonly captureSlots: number;

  /** `slotKeys`: the only capture keys the program reads (capture-keys.ts), or null when it reads capture as a dict. */
  constructor(slotKeys: readonly string[] | null) {
    this.captureSlots = slotKeys === null ? Op.CAPTURE_AS_DICT : slotKeys.length;
    for (const k of slotKeys ?? []) this.constant({ kind: 'str', value: k, codePoints: toCodePoints(k) });
  }

  /**
   * Appends an instruction and tracks the stack depth the verifier will recompute, to size the VM
   * stack; returns its index. A jump's target is set later, by `land`.
   */
  emit(op: number, arg: number): number {
    const at = this.code.length / 2;
    this.code.push(op, arg);
    const flow = Op.OP_FLOWS[op];
    if (flow === Op.FLOW_BRANCH || flow === Op.FLOW_JUMP) this.pending.set(at, this.depth + stackEffect(op, arg, true));
    this.depth += stackEffect(op, arg, false);
    if (this.depth > this.maxDepth) this.maxDepth = this.depth;
    return at;
  }

  /**
   * Points jump `at` to the next instruction, whose code starts at the depth the jump leaves
   * (every path that meets there leaves the same depth: the verifier checks it).
   */
  private land(at: number): void {
    this.code[at * 2 + 1] = this.code.length / 2;
    this.depth = this.pending.get(at)!;
    this.pending.delete(at);
  }

  /** Emits `e`, leaving exactly one value on the stack. */
  expr(e: Expr): void {
    switch (e.type) {
      case 'Constant':
        this.emit(Op.OP_LOAD_CONST, this.constant(e.value));
        return;
      case 'Name': {
        const v = VARS.get(e.id);
        const b = BUILTINS.get(e.id);
        if (v !== undefined) this.emit(Op.OP_LOAD_VAR, v);
        else if (b !== undefined) this.emit(Op.OP_LOAD_BUILTIN, b);
        else throw new CompileError(`name ${e.id} reached the compiler`);
        return;
      }
      case 'Attribute': {
        const b = MATH_ATTRS.get(e.attr);
        if (e.value.type !== 'Name' || e.value.id !== 'math' || b === undefined) {
          throw new CompileError('attribute reached the compiler');
        }
        this.emit(Op.OP_LOAD_BUILTIN, b);
        return;
      }
      case 'Subscript':
        // `capture['loss']`, the way nearly every condition reads a capture: one instruction. Loading the
        // variable and the literal cannot raise, so fusing them with the subscript changes nothing observable.
        if (e.value.type === 'Name' && VARS.get(e.value.id) === Op.VAR_CAPTURE && e.slice.type === 'Constant') {
          // With slots, every capture read is one of these and its key one of constants 0..n-1: the slot.
          const k = this.constant(e.slice.value);
          if (this.captureSlots === Op.CAPTURE_AS_DICT) this.emit(Op.OP_LOAD_CAPTURE_CONST, k);
          else if (k < this.captureSlots) this.emit(Op.OP_LOAD_CAPTURE_SLOT, k);
          else throw new CompileError('a capture key that is not a slot reached the compiler');
          return;
        }
        this.expr(e.value);
        this.expr(e.slice);
        this.emit(Op.OP_SUBSCRIPT, 0);
        return;
      case 'Call':
        if (e.keywords.length > 0) throw new CompileError('keywords reached the compiler');
        this.expr(e.func);
        if (e.args.length > Op.MAX_CALL_ARGS) {
          // More arguments than any builtin takes: CPython evaluates them all, then raises
          // TypeError (whatever the callee). One at a time, so the stack stays shallow.
          for (const a of e.args) {
            this.expr(a);
            this.emit(Op.OP_POP_TOP, 0);
          }
          this.emit(Op.OP_POP_TOP, 0);
          this.emit(Op.OP_RAISE, Op.E_TYPE);
          return;
        }
        for (const a of e.args) this.expr(a);
        this.emit(Op.OP_CALL, e.args.length);
        return;
      case 'BinOp': {
        const op = BIN.get(e.op.type);
        if (op === undefined) throw new CompileError(`operator ${e.op.type} reached the compiler`);
        this.expr(e.left);
        this.expr(e.right);
        this.emit(Op.OP_BINARY, op);
        return;
      }
      case 'UnaryOp': {
        const op = UNARY.get(e.op.type);
        if (op === undefined) throw new CompileError(`operator ${e.op.type} reached the compiler`);
        this.expr(e.operand);
        this.emit(Op.OP_UNARY, op);
        return;
      }
      case 'BoolOp': {
        const jump = e.op.type === 'And' ? Op.OP_JUMP_IF_FALSE_OR_POP : Op.OP_JUMP_IF_TRUE_OR_POP;
        const exits: number[] = [];
        e.values.forEach((v, i) => {
          this.expr(v);
          if (i < e.values.length - 1) exits.push(this.emit(jump, 0));
        });
        for (const at of exits) this.land(at);
        return;
      }
      case 'IfExp':
        this.branches(e, (arm) => this.expr(arm));
        return;
      case 'Compare':
        this.compare(e);
        return;
      default:
        throw new CompileError(`${e.type} reached the compiler`);
    }
  }

  /** `body if test else orelse`, with `arm` emitting each of the two arms. */
  private branches(e: IfExp, arm: (e: Expr) => void): void {
    this.expr(e.test);
    const toElse = this.emit(Op.OP_POP_JUMP_IF_FALSE, 0);
    arm(e.body);
    const toEnd = this.emit(Op.OP_JUMP, 0);
    this.land(toElse);
    arm(e.orelse);
    this.land(toEnd);
  }

  /**
   * `a < b < c`: b is evaluated once and kept under the first result; a false link jumps to a
   * cleanup that drops it, as CPython's compiler does. When every middle operand is a literal or a
   * variable, evaluating it twice is unobservable (it cannot raise, and has no effects), so the
   * chain is compiled as `a < b and b < c`, whose links the fused instructions cover: the value is
   * the same (the first false comparison's False, or the last comparison's bool).
   */
  private compare(e: Compare): void {
    const n = e.ops.length;
    const cmps = e.ops.map((o) => {
      const op = CMP.get(o.type);
      if (op === undefined) throw new CompileError(`operator ${o.type} reached the compiler`);
      return op;
    });
    if (n === 1 || e.comparators.slice(0, -1).every(isPlainOperand)) {
      const exits: number[] = [];
      let left = e.left;
      for (let i = 0; i < n; i++) {
        const right = e.comparators[i]!;
        this.comparison(left, cmps[i]!, right);
        if (i < n - 1) exits.push(this.emit(Op.OP_JUMP_IF_FALSE_OR_POP, 0));
        left = right;
      }
      for (const at of exits) this.land(at);
      return;
    }
    this.expr(e.left);
    const cleanups: number[] = [];
    for (let i = 0; i < n - 1; i++) {
      this.expr(e.comparators[i]!);
      this.emit(Op.OP_DUP_TOP, 0);
      this.emit(Op.OP_ROT_THREE, 0);
      this.emit(Op.OP_COMPARE, cmps[i]!);
      cleanups.push(this.emit(Op.OP_JUMP_IF_FALSE_OR_POP, 0));
    }
    const last = e.comparators[n - 1]!;
    if (last.type === 'Constant')
      this.emit(Op.OP_COMPARE_CONST, cmps[n - 1]! | (this.constant(last.value) << Op.CMP_BITS));
    else {
      this.expr(last);
      this.emit(Op.OP_COMPARE, cmps[n - 1]!);
    }
    const toEnd = this.emit(Op.OP_JUMP, 0);
    for (const at of cleanups) this.land(at);
    this.emit(Op.OP_ROT_TWO, 0);
    this.emit(Op.OP_POP_TOP, 0);
    this.land(toEnd);
  }

  /**
   * `left <cmp> right`, fused with its operands when one is a literal: `x > 60` is one
   * COMPARE_CONST after x, `exit_code == 137` one LOAD_VAR_COMPARE_CONST. A literal on the left
   * of a variable swaps sides (`0 < exit_code` is `exit_code > 0`): every comparison between the
   * values a condition can hold is its own mirror image, raising the same exception if any, and
   * neither operand can raise or has effects, so the order they are loaded in is unobservable.
   * A comparison of a conditional expression with such an operand is made in each arm
   * (`(a if t else b) > 1` as `(a > 1) if t else (b > 1)`): the same operations run in the same
   * order, and each arm's comparison can then be fused with its operands (in the ternary bench
   * row, the arm taken becomes one LOAD_VAR_COMPARE_CONST).
   */
  private comparison(left: Expr, cmp: number, right: Expr): void {
    if (left.type === 'IfExp' && isPlainOperand(right)) {
      this.branches(left, (arm) => this.comparison(arm, cmp, right));
      return;
    }
    if (right.type === 'IfExp' && isPlainOperand(left)) {
      this.branches(right, (arm) => this.comparison(left, cmp, arm));
      return;
    }
    const leftVar = left.type === 'Name' ? VARS.get(left.id) : undefined;
    const rightVar = right.type === 'Name' ? VARS.get(right.id) : undefined;
    if (right.type === 'Constant') {
      if (leftVar !== undefined)
        this.emit(Op.OP_LOAD_VAR_COMPARE_CONST, packVarCompareConst(leftVar, cmp, this.constant(right.value)));
      else {
        this.expr(left);
        this.emit(Op.OP_COMPARE_CONST, cmp | (this.constant(right.value) << Op.CMP_BITS));
      }
      return;
    }
    if (left.type === 'Constant' && rightVar !== undefined) {
      this.emit(Op.OP_LOAD_VAR_COMPARE_CONST, packVarCompareConst(rightVar, MIRRORED[cmp]!, this.constant(left.value)));
      return;
    }
    this.expr(left);
    this.expr(right);
    this.emit(Op.OP_COMPARE, cmp);
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
    out[5] = this.captureSlots;
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
    case 'int':
      return `i${v.value}`;
    case 'float':
      return `f${floatWords(v.value).join(',')}`;
    case 'complex':
      return `c${floatWords(v.real).join(',')},${floatWords(v.imag).join(',')}`;
    // Without surrogates the JS string determines the code points; with them it may not
    // ('\ud83d\ude00' and '\U0001f600' are the same JS string).
    case 'str':
      return /[\ud800-\udfff]/.test(v.value) ? `S${v.codePoints.join(',')}` : `s${v.value}`;
    case 'bytes':
      return `b${v.value.join(',')}`;
    case 'bool':
      return v.value ? 'T' : 'F';
    case 'None':
      return 'N';
    case 'Ellipsis':
      return 'E';
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
