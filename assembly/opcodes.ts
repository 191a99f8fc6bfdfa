// The bytecode format shared by the TypeScript compiler (src/condition/compile.ts) and the
// AssemblyScript VM (assembly/vm.ts). This one file is imported by both, so it must stay valid
// TypeScript and valid AssemblyScript: plain integer constants only.
//
// A program is one Int32Array:
//   header  [MAGIC, VERSION, codeWords, constCount, maxStack]
//   code    codeWords words: instructions are (opcode, argument) pairs
//   consts  constCount entries, each a tag word followed by its payload (see CONST_*)
// Jump arguments are absolute instruction indices (pair index, not word index).

export const PROGRAM_MAGIC = 0x41505243; // "APRC"
export const PROGRAM_VERSION = 1;
export const HEADER_WORDS = 5;

// ---- opcodes -----------------------------------------------------------------------------------
export const OP_LOAD_CONST = 1; // push consts[arg]
export const OP_LOAD_VAR = 2; // push variable arg (VAR_*)
export const OP_LOAD_BUILTIN = 3; // push builtin arg (BUILTIN_*)
export const OP_BINARY = 4; // pop b, pop a, push a <arg> b (BIN_*)
export const OP_UNARY = 5; // pop a, push <arg> a (UNARY_*)
export const OP_COMPARE = 6; // pop b, pop a, push a <arg> b (CMP_*), always a bool
export const OP_SUBSCRIPT = 7; // pop key, pop container, push container[key]
export const OP_CALL = 8; // pop arg values (arg = count), pop callee, push result
export const OP_JUMP = 9; // jump to arg
export const OP_JUMP_IF_FALSE_OR_POP = 10; // if top is falsy jump to arg (keep it), else pop
export const OP_JUMP_IF_TRUE_OR_POP = 11; // if top is truthy jump to arg (keep it), else pop
export const OP_POP_JUMP_IF_FALSE = 12; // pop; if falsy jump to arg
export const OP_DUP_TOP = 13; // push a copy of top
export const OP_ROT_TWO = 14; // swap the two top values
export const OP_ROT_THREE = 15; // top moves below the next two
export const OP_POP_TOP = 16; // discard top
export const OP_RETURN = 17; // pop the result and stop
export const OP_COUNT = 18; // one past the last opcode

// ---- variables (OP_LOAD_VAR) ---------------------------------------------------------------------
export const VAR_CAPTURE = 0;
export const VAR_EXIT_CODE = 1;
export const VAR_WALLTIME_SEC = 2;
export const VAR_PEAK_VRAM_MIB = 3;
export const VAR_COUNT = 4;

// ---- builtins (OP_LOAD_BUILTIN) ------------------------------------------------------------------
export const BUILTIN_FLOAT = 0;
export const BUILTIN_INT = 1;
export const BUILTIN_LEN = 2;
export const BUILTIN_MATH = 3;
export const BUILTIN_ISNAN = 4;
export const BUILTIN_ISINF = 5;
export const BUILTIN_COUNT = 6;

// ---- operators -----------------------------------------------------------------------------------
export const BIN_ADD = 0;
export const BIN_SUB = 1;
export const BIN_DIV = 2;
export const BIN_FLOORDIV = 3;
export const BIN_COUNT = 4;

export const UNARY_NEG = 0;
export const UNARY_POS = 1;
export const UNARY_NOT = 2;
export const UNARY_COUNT = 3;

export const CMP_EQ = 0;
export const CMP_NE = 1;
export const CMP_LT = 2;
export const CMP_LE = 3;
export const CMP_GT = 4;
export const CMP_GE = 5;
export const CMP_COUNT = 6;

// ---- constants (tag word, then payload) ----------------------------------------------------------
export const CONST_NONE = 0; // no payload
export const CONST_FALSE = 1; // no payload
export const CONST_TRUE = 2; // no payload
export const CONST_ELLIPSIS = 3; // no payload
export const CONST_INT = 4; // i64 as (low, high) words; literals are capped below 10**9
export const CONST_FLOAT = 5; // f64 bits as (low, high)
export const CONST_COMPLEX = 6; // real (low, high), imag (low, high)
export const CONST_STR = 7; // length in code points, then one code point per word
export const CONST_BYTES = 8; // length in bytes, then bytes packed four per word (low first)
export const CONST_TAG_COUNT = 9;

// ---- limits the verifier enforces ----------------------------------------------------------------
export const MAX_STACK = 1024;
export const MAX_CODE_WORDS = 1 << 20;
export const MAX_CONSTS = 1 << 16;
