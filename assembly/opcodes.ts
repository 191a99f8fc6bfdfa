// The compiler–VM contract: every fact the TypeScript side (src/condition/compile.ts, vm-host.ts,
// evaluate.ts, disasm.ts) and the AssemblyScript VM (assembly/vm.ts) must agree on, in one file
// both import. It must stay valid TypeScript and valid AssemblyScript, so it holds only integer
// constants and untyped array literals (AssemblyScript reads them as i32[] or string[], TypeScript
// as number[] or string[]); the wasm exports its view of the tables (`contractTable`) so a test can
// prove both compilers read the same values.
//
// A program is one Int32Array:
//   header  [MAGIC, VERSION, codeWords, constCount, maxStack, captureSlots]
//   code    codeWords words: instructions are (opcode, argument) pairs
//   consts  constCount entries, each a tag word followed by its payload (see CONST_*)
// Jump arguments are absolute instruction indices (pair index, not word index), always forward.
//
// captureSlots says how the program reads `capture`, and so how its inputs lay captures out (INPUT_*):
//   CAPTURE_AS_DICT (-1)  as a dict (LOAD_VAR capture, LOAD_CAPTURE_CONST): every entry, key and value;
//   n >= 0                only as capture['<key>'] for n keys, the str constants 0..n-1, by LOAD_CAPTURE_SLOT:
//                         one value per slot, in slot order, no keys. Such a program holds no dict-reading
//                         instruction (the verifier refuses one), so the two layouts are never mixed.
// The slot form exists for speed: a batch of regex matches then carries no key characters, and a
// capture read is an index, not a key comparison (+11 to +26 % on the bench's capture rows; docs/bytecode.md).

export const PROGRAM_MAGIC = 0x41505243; // "APRC"
export const PROGRAM_VERSION = 5;
export const HEADER_WORDS = 6;
export const CAPTURE_AS_DICT = -1;

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
export const OP_RAISE = 18; // stop with exception arg (E_*); modelled as pushing the value it stands for
// Superinstructions: the commonest shapes of a condition (a comparison with a literal, a capture
// read by a literal key) in one dispatch. The comparisons' argument packs several fields (see
// ARG_CMP_CONST, ARG_VAR_CMP_CONST).
export const OP_COMPARE_CONST = 19; // pop a, push a <cmp> consts[k]
export const OP_LOAD_VAR_COMPARE_CONST = 20; // push var <cmp> consts[k]
export const OP_LOAD_CAPTURE_CONST = 21; // push capture[consts[arg]]
export const OP_LOAD_CAPTURE_SLOT = 22; // push the value of capture slot arg (KeyError when absent)
export const OP_COUNT = 23; // one past the last opcode

// ---- argument kinds: what an instruction's argument means, and its range ----------------------
export const ARG_NONE = 0; // must be 0
export const ARG_CONST = 1; // index into the constant pool
export const ARG_VAR = 2; // VAR_*
export const ARG_BUILTIN = 3; // BUILTIN_*
export const ARG_BINARY_OP = 4; // BIN_*
export const ARG_UNARY_OP = 5; // UNARY_*
export const ARG_COMPARE_OP = 6; // CMP_*
export const ARG_COUNT = 7; // number of call arguments, 0..MAX_CALL_ARGS
export const ARG_TARGET = 8; // a later instruction index
export const ARG_ERROR = 9; // E_* other than E_OK
export const ARG_CMP_CONST = 10; // CMP_* | constant index << CMP_BITS
export const ARG_VAR_CMP_CONST = 11; // CMP_* | VAR_* << CMP_BITS | constant index << (CMP_BITS + VAR_BITS)
export const ARG_SLOT = 12; // a capture slot, 0..captureSlots-1
/** Field widths of the packed arguments: CMP_COUNT and VAR_COUNT fit, and MAX_CONSTS above both. */
export const CMP_BITS = 3;
export const VAR_BITS = 2;

// ---- control flow after an instruction ---------------------------------------------------------
export const FLOW_NEXT = 0; // falls through to the next instruction
export const FLOW_JUMP = 1; // always jumps
export const FLOW_BRANCH = 2; // jumps or falls through
export const FLOW_STOP = 3; // ends the evaluation

// ---- the opcode table (index = opcode; 0 is not an opcode) -------------------------------------
// Stack effects, as CPython's compile.c stack_effect(): an instruction pops OP_POPS[op] values
// (plus its argument for ARG_COUNT), then pushes OP_PUSHES[op] when it falls through or
// OP_JUMP_PUSHES[op] when it jumps. The compiler sizes the stack from these and the verifier
// checks programs against them: neither writes an effect of its own.
export const OP_NAMES = [
  '',
  'LOAD_CONST',
  'LOAD_VAR',
  'LOAD_BUILTIN',
  'BINARY',
  'UNARY',
  'COMPARE',
  'SUBSCRIPT',
  'CALL',
  'JUMP',
  'JUMP_IF_FALSE_OR_POP',
  'JUMP_IF_TRUE_OR_POP',
  'POP_JUMP_IF_FALSE',
  'DUP_TOP',
  'ROT_TWO',
  'ROT_THREE',
  'POP_TOP',
  'RETURN',
  'RAISE',
  'COMPARE_CONST',
  'LOAD_VAR_COMPARE_CONST',
  'LOAD_CAPTURE_CONST',
  'LOAD_CAPTURE_SLOT',
];
export const OP_ARG_KINDS = [
  ARG_NONE,
  ARG_CONST,
  ARG_VAR,
  ARG_BUILTIN,
  ARG_BINARY_OP,
  ARG_UNARY_OP,
  ARG_COMPARE_OP,
  ARG_NONE,
  ARG_COUNT,
  ARG_TARGET,
  ARG_TARGET,
  ARG_TARGET,
  ARG_TARGET,
  ARG_NONE,
  ARG_NONE,
  ARG_NONE,
  ARG_NONE,
  ARG_NONE,
  ARG_ERROR,
  ARG_CMP_CONST,
  ARG_VAR_CMP_CONST,
  ARG_CONST,
  ARG_SLOT,
];
export const OP_POPS = [0, 0, 0, 0, 2, 1, 2, 2, 1, 0, 1, 1, 1, 1, 2, 3, 1, 1, 0, 1, 0, 0, 0];
export const OP_PUSHES = [0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 0, 0, 1, 1, 1, 1, 1];
export const OP_JUMP_PUSHES = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
export const OP_FLOWS = [
  FLOW_STOP,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_JUMP,
  FLOW_BRANCH,
  FLOW_BRANCH,
  FLOW_BRANCH,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_STOP,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
  FLOW_NEXT,
];

// ---- variables (OP_LOAD_VAR) -------------------------------------------------------------------
export const VAR_CAPTURE = 0;
export const VAR_EXIT_CODE = 1;
export const VAR_WALLTIME_SEC = 2;
export const VAR_PEAK_VRAM_MIB = 3;
export const VAR_COUNT = 4;
export const VAR_NAMES = ['capture', 'exit_code', 'walltime_sec', 'peak_vram_mib'];

// ---- builtins (OP_LOAD_BUILTIN) ----------------------------------------------------------------
export const BUILTIN_FLOAT = 0;
export const BUILTIN_INT = 1;
export const BUILTIN_LEN = 2;
export const BUILTIN_MATH = 3;
export const BUILTIN_ISNAN = 4;
export const BUILTIN_ISINF = 5;
export const BUILTIN_COUNT = 6;
export const BUILTIN_NAMES = ['float', 'int', 'len', 'math', 'isnan', 'isinf'];
/** The builtin a name is an attribute of (`math.isnan`), or -1 for a top-level name. */
export const BUILTIN_OWNERS = [-1, -1, -1, -1, BUILTIN_MATH, BUILTIN_MATH];
/** What CPython's `type()` calls it: its repr form follows from this. */
export const BUILTIN_KIND_TYPE = 0; // <class 'NAME'>
export const BUILTIN_KIND_FUNCTION = 1; // <built-in function NAME>
export const BUILTIN_KIND_MODULE = 2; // <module 'NAME' (built-in)>, not callable
export const BUILTIN_KINDS = [
  BUILTIN_KIND_TYPE,
  BUILTIN_KIND_TYPE,
  BUILTIN_KIND_FUNCTION,
  BUILTIN_KIND_MODULE,
  BUILTIN_KIND_FUNCTION,
  BUILTIN_KIND_FUNCTION,
];
/** Positional arity: fewer or more arguments are CPython's TypeError. */
export const BUILTIN_MIN_ARGS = [0, 0, 1, 0, 1, 1];
export const BUILTIN_MAX_ARGS = [1, 2, 1, 0, 1, 1];
/**
 * The most arguments one CALL instruction takes. More than any builtin accepts, so a longer call
 * is always TypeError: the compiler emits it as its operands followed by RAISE E_TYPE.
 */
export const MAX_CALL_ARGS = 8;

// ---- operators (CPython's AST class names, so the compiler looks them up by name) --------------
export const BIN_ADD = 0;
export const BIN_SUB = 1;
export const BIN_DIV = 2;
export const BIN_FLOORDIV = 3;
export const BIN_COUNT = 4;
export const BIN_NAMES = ['Add', 'Sub', 'Div', 'FloorDiv'];

export const UNARY_NEG = 0;
export const UNARY_POS = 1;
export const UNARY_NOT = 2;
export const UNARY_COUNT = 3;
export const UNARY_NAMES = ['USub', 'UAdd', 'Not'];

export const CMP_EQ = 0;
export const CMP_NE = 1;
export const CMP_LT = 2;
export const CMP_LE = 3;
export const CMP_GT = 4;
export const CMP_GE = 5;
export const CMP_COUNT = 6;
export const CMP_NAMES = ['Eq', 'NotEq', 'Lt', 'LtE', 'Gt', 'GtE'];

// ---- constants (tag word, then payload) --------------------------------------------------------
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

// ---- value tags: the type of a VM value, as `resultTag` reports it ------------------------------
export const T_NONE = 0;
export const T_BOOL = 1;
export const T_INT = 2; // fits an i64
export const T_BIG = 3; // an int beyond i64
export const T_FLOAT = 4;
export const T_COMPLEX = 5;
export const T_STR = 6;
export const T_BYTES = 7;
export const T_ELLIPSIS = 8;
export const T_DICT = 9; // the capture mapping (the only dict a condition can reach)
export const T_BUILTIN = 10;
export const T_COUNT = 11;

// ---- outcomes of run(): 0 or the CPython exception class it raised ------------------------------
export const E_OK = 0;
export const E_TYPE = 1;
export const E_VALUE = 2;
export const E_ZERO_DIVISION = 3;
export const E_KEY = 4;
export const E_OVERFLOW = 5;
export const E_MEMORY = 6; // the host's name for an exhausted arena (the VM traps; see rt/arena.ts)
export const E_NO_PROGRAM = 7; // run() before a verified program was loaded: a host bug
export const E_BUDGET = 8; // the evaluation's cost budget ran out (a deviation: CPython would keep going)
export const E_COUNT = 9;
export const ERROR_NAMES = [
  '',
  'TypeError',
  'ValueError',
  'ZeroDivisionError',
  'KeyError',
  'OverflowError',
  'MemoryError',
  'SystemError',
  'BudgetExceeded',
];

// ---- runBatch's byte per variable set ----------------------------------------------------------------
// 0: ran, falsy; 1: ran, truthy; BATCH_RAISED + E_*: raised (so a scan can say which exception and how often).
export const BATCH_FALSY = 0;
export const BATCH_TRUTHY = 1;
export const BATCH_RAISED = 2;

// ---- verifier outcomes (loadProgram) -----------------------------------------------------------
export const V_OK = 0;
export const V_HEADER = 1;
export const V_OPCODE = 2;
export const V_ARGUMENT = 3;
export const V_JUMP = 4;
export const V_STACK = 5;
export const V_CONST = 6;
export const V_TRUNCATED = 7;
export const V_COUNT = 8;
export const VERIFY_MESSAGES = [
  '',
  'bad header',
  'unknown opcode',
  'argument out of range',
  'bad jump target',
  'stack underflow or overflow',
  'bad constant',
  'truncated program',
];

// ---- limits the verifier enforces --------------------------------------------------------------
export const MAX_STACK = 1024;
export const MAX_CODE_WORDS = 1 << 20;
export const MAX_CONSTS = 1 << 16;

// ---- memory layout the host reads and writes ---------------------------------------------------
/** An AssemblyScript object's payload size in bytes (rtSize) sits this many bytes before it. */
export const OBJECT_SIZE_OFFSET = 4;
/**
 * One variable set in an input buffer (words): exit_code, walltime_sec and peak_vram_mib as f64s
 * (a JS number as it is: the two integers are safe integers, so exact), the capture count, a
 * padding word, then the captures in the loaded program's layout (its captureSlots): for
 * CAPTURE_AS_DICT, per capture its key and value, each a str: a length word and one code point per
 * word; for n slots, n values in slot order, each a str or the one word SLOT_ABSENT (no such key),
 * and the count is n. Then a padding word if needed, so every set, and so every f64, is 8-byte
 * aligned. A str result has the same str layout.
 */
export const INPUT_EXIT_CODE = 0;
export const INPUT_WALLTIME_SEC = 2;
export const INPUT_PEAK_VRAM_MIB = 4;
export const INPUT_CAPTURE_COUNT = 6;
export const INPUT_HEADER_WORDS = 8;
export const SLOT_ABSENT = -1;

// ---- the cost budget (see docs/bytecode.md) ----------------------------------------------------
/**
 * Cost units one evaluation may spend unless the host sets another budget: about 100 ms of the
 * VM's slowest work per unit on the reference machine (units are charged per character, per
 * 32-bit limb, or per limb product for division, before the work is done).
 */
export const DEFAULT_COST_BUDGET = 100_000_000;

// ---- tables the wasm exports for the agreement test (contractTable(t, i)) ----------------------
export const CONTRACT_TABLES = [
  OP_ARG_KINDS,
  OP_POPS,
  OP_PUSHES,
  OP_JUMP_PUSHES,
  OP_FLOWS,
  BUILTIN_OWNERS,
  BUILTIN_KINDS,
  BUILTIN_MIN_ARGS,
  BUILTIN_MAX_ARGS,
];
