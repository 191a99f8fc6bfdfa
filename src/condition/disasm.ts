/**
 * The disassembler: a program (assembly/opcodes.ts format) as a clox-style listing, one
 * instruction a line — index, the stack depth before it, opcode, argument, and what the argument
 * means (the constant's repr, the variable, builtin or operator name, the jump target). Depths
 * are computed as the verifier computes them, from the contract's stack-effect table.
 *
 *   ; 5 instructions, 1 constant, max stack 2
 *   0000  0  LOAD_VAR              1  exit_code
 *   0001  1  LOAD_CONST            0  137
 *   0002  2  COMPARE               0  Eq
 *   0003  1  RETURN                0
 */
import * as Op from '../../assembly/opcodes.js';
import { stackEffect } from './compile.js';
import { complexRepr, floatRepr, strRepr } from './repr.js';

/** A program the disassembler cannot read: not the format of assembly/opcodes.ts. */
export class DisassemblyError extends Error {
  override name = 'DisassemblyError';
}

export function disassemble(program: Int32Array): string {
  if (program.length < Op.HEADER_WORDS || program[0] !== Op.PROGRAM_MAGIC)
    throw new DisassemblyError('not a condition program (bad magic)');
  const version = program[1]!;
  const codeWords = program[2]!;
  const nConsts = program[3]!;
  const maxStack = program[4]!;
  const slots = program[5]!;
  if (version !== Op.PROGRAM_VERSION)
    throw new DisassemblyError(`bytecode version ${version}, this disassembler reads ${Op.PROGRAM_VERSION}`);
  if (codeWords < 0 || (codeWords & 1) !== 0 || Op.HEADER_WORDS + codeWords > program.length)
    throw new DisassemblyError('truncated code');
  const count = codeWords / 2;
  const consts = decodeConstants(program, Op.HEADER_WORDS + codeWords, nConsts);
  const depths = depthsOf(program, count);

  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const slotNote = slots > 0 ? `, ${plural(slots, 'capture slot')}` : '';
  const lines = [`; ${plural(count, 'instruction')}, ${plural(nConsts, 'constant')}, max stack ${maxStack}${slotNote}`];
  for (let i = 0; i < count; i++) {
    const op = program[Op.HEADER_WORDS + 2 * i]!;
    const arg = program[Op.HEADER_WORDS + 2 * i + 1]!;
    const name = Op.OP_NAMES[op] ?? `?${op}`;
    const depth = depths[i]! < 0 ? '-' : String(depths[i]);
    const meaning = describeArg(op, arg, consts);
    const line = `${String(i).padStart(4, '0')}  ${depth.padStart(2)}  ${name.padEnd(22)}  ${String(arg).padStart(3)}${meaning === '' ? '' : `  ${meaning}`}`;
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

const CMP_MASK = (1 << Op.CMP_BITS) - 1;

/** What an argument means, by the opcode's argument kind. */
function describeArg(op: number, arg: number, consts: readonly string[]): string {
  switch (Op.OP_ARG_KINDS[op]) {
    case Op.ARG_CONST:
    case Op.ARG_SLOT: // slot k's key is constant k
      return consts[arg] ?? '?';
    case Op.ARG_VAR:
      return Op.VAR_NAMES[arg] ?? '?';
    case Op.ARG_BUILTIN: {
      const owner = Op.BUILTIN_OWNERS[arg];
      const name = Op.BUILTIN_NAMES[arg] ?? '?';
      return owner === undefined || owner < 0 ? name : `${Op.BUILTIN_NAMES[owner]}.${name}`;
    }
    case Op.ARG_BINARY_OP:
      return Op.BIN_NAMES[arg] ?? '?';
    case Op.ARG_UNARY_OP:
      return Op.UNARY_NAMES[arg] ?? '?';
    case Op.ARG_COMPARE_OP:
      return Op.CMP_NAMES[arg] ?? '?';
    case Op.ARG_COUNT:
      return arg === 1 ? '1 argument' : `${arg} arguments`;
    case Op.ARG_TARGET:
      return `to ${String(arg).padStart(4, '0')}`;
    case Op.ARG_ERROR:
      return Op.ERROR_NAMES[arg] ?? '?';
    case Op.ARG_CMP_CONST:
      return `${Op.CMP_NAMES[arg & CMP_MASK] ?? '?'} ${consts[arg >> Op.CMP_BITS] ?? '?'}`;
    case Op.ARG_VAR_CMP_CONST: {
      const v = Op.VAR_NAMES[(arg >> Op.CMP_BITS) & ((1 << Op.VAR_BITS) - 1)] ?? '?';
      return `${v} ${Op.CMP_NAMES[arg & CMP_MASK] ?? '?'} ${consts[arg >> (Op.CMP_BITS + Op.VAR_BITS)] ?? '?'}`;
    }
    default:
      return '';
  }
}

/** The stack depth before each instruction (-1: unreachable), as the verifier finds it. */
function depthsOf(program: Int32Array, count: number): number[] {
  const depth = new Array<number>(count + 1).fill(-1);
  depth[0] = 0;
  for (let i = 0; i < count; i++) {
    const d = depth[i]!;
    if (d < 0) continue;
    const op = program[Op.HEADER_WORDS + 2 * i]!;
    const arg = program[Op.HEADER_WORDS + 2 * i + 1]!;
    const flow = Op.OP_FLOWS[op];
    if (flow === undefined) continue;
    if ((flow === Op.FLOW_JUMP || flow === Op.FLOW_BRANCH) && arg > i && arg <= count)
      depth[arg] = d + stackEffect(op, arg, true);
    if (flow === Op.FLOW_NEXT || flow === Op.FLOW_BRANCH) depth[i + 1] = d + stackEffect(op, arg, false);
  }
  return depth;
}

const f64 = new Float64Array(1);
const i32 = new Int32Array(f64.buffer);

function floatAt(program: Int32Array, at: number): number {
  i32[0] = program[at]!;
  i32[1] = program[at + 1]!;
  return f64[0]!;
}

/** Each constant's repr, as it would appear in the condition. */
function decodeConstants(program: Int32Array, start: number, n: number): string[] {
  const out: string[] = [];
  let at = start;
  for (let k = 0; k < n; k++) {
    const tag = program[at++];
    switch (tag) {
      case Op.CONST_NONE:
        out.push('None');
        break;
      case Op.CONST_FALSE:
        out.push('False');
        break;
      case Op.CONST_TRUE:
        out.push('True');
        break;
      case Op.CONST_ELLIPSIS:
        out.push('Ellipsis');
        break;
      case Op.CONST_INT:
        out.push(((BigInt(program[at + 1]!) << 32n) | BigInt(program[at]! >>> 0)).toString());
        at += 2;
        break;
      case Op.CONST_FLOAT:
        out.push(floatRepr(floatAt(program, at)));
        at += 2;
        break;
      case Op.CONST_COMPLEX:
        out.push(complexRepr(floatAt(program, at), floatAt(program, at + 2)));
        at += 4;
        break;
      case Op.CONST_STR: {
        const len = program[at++]!;
        out.push(strRepr(Array.from(program.subarray(at, at + len))));
        at += len;
        break;
      }
      case Op.CONST_BYTES: {
        const len = program[at++]!;
        let text = '';
        for (let u = 0; u < len; u++) text += String.fromCharCode((program[at + (u >> 2)]! >>> ((u & 3) * 8)) & 0xff);
        out.push(`b${strRepr(text, true)}`);
        at += (len + 3) >> 2;
        break;
      }
      default:
        throw new DisassemblyError(`constant ${k} has unknown tag ${String(tag)}`);
    }
  }
  return out;
}
