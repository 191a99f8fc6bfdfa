/**
 * `compileCondition`: validate once, lower once, load once into a VM; then evaluate as often as
 * needed. `evaluate` is the original's `evaluate` (`bool(value)`, any exception → not fired);
 * `evaluateDetailed` reports what CPython would: the value's type name and repr, or the exception
 * class.
 */
import * as Op from '../../assembly/opcodes.js';
import { compileChecked } from './compile.js';
import { complexRepr, floatRepr, strRepr } from './repr.js';
import { validateCondition, type CheckedCondition } from './validate.js';
import { captureEntries, checkVars, type ConditionVars } from './vars.js';
import { checkVmOptions, ConditionVM, type VmOptions, type VmValue } from './vm-host.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export type { Capture, ConditionVars } from './vars.js';

export interface EvaluatedValue {
  /** `type(v).__name__` */
  readonly type: string;
  /**
   * `repr(v)`, exactly as CPython prints it, up to the repr limit: a longer one is cut there and
   * ends with the marker ` … [repr truncated: …]` (and `truncated` is set). null where CPython's
   * repr() raises ValueError (an int of more than 4300 digits).
   */
  readonly repr: string | null;
  /** Present (true) only when `repr` was cut at the repr limit. */
  readonly truncated?: true;
}

export type DetailedResult =
  | { readonly fired: boolean; readonly value: EvaluatedValue }
  | { readonly fired: false; readonly error: string };

/** Characters of a repr `evaluateDetailed` returns unless `reprLimit` says otherwise. */
export const DEFAULT_REPR_LIMIT = 10_000;

export interface CompileOptions extends VmOptions {
  /** Most characters of a value's repr `evaluateDetailed` builds (at least 64). */
  reprLimit?: number;
}

/** `compileCondition`'s option keys (text/options.ts). */
export const COMPILE_OPTION_KEYS = {
  heapLimitBytes: OPTION,
  costBudget: OPTION,
  reprLimit: OPTION,
} satisfies OptionTable<CompileOptions>;

export interface CompiledCondition extends CheckedCondition {
  /** The bytecode program (assembly/opcodes.ts format). */
  readonly program: Int32Array;
  /** The spec's `evaluate`: `bool(value)`, with every runtime error meaning "did not fire". */
  evaluate(vars: ConditionVars): boolean;
  evaluateDetailed(vars: ConditionVars): DetailedResult;
  /** `evaluate` over many variable sets in one VM call. */
  evaluateBatch(list: readonly ConditionVars[]): boolean[];
  /**
   * What happened to each set, in one VM call: `BatchOutcome.falsy`, `.truthy`, or an exception (`raisedName`
   * reads its CPython class name). Fires the same as `evaluateBatch`; a scan uses it to count the raises.
   */
  evaluateBatchOutcomes(list: readonly ConditionVars[]): Uint8Array;
}

/** The codes of `evaluateBatchOutcomes` (assembly/opcodes.ts BATCH_*). */
export const BatchOutcome = {
  falsy: Op.BATCH_FALSY,
  truthy: Op.BATCH_TRUTHY,
  /** An internal error (the VM's SystemError), e.g. a trap that is not the arena's MemoryError. */
  systemError: Op.BATCH_RAISED + Op.E_NO_PROGRAM,
} as const;

/** The exception class a batch outcome code stands for, or null when the condition ran to a value. */
export function raisedName(code: number): string | null {
  return code < Op.BATCH_RAISED ? null : (Op.ERROR_NAMES[code - Op.BATCH_RAISED] ?? 'SystemError');
}

export function compileCondition(text: unknown, options: CompileOptions = {}): CompiledCondition {
  checkOptions('compileCondition', options, COMPILE_OPTION_KEYS);
  const { heapLimitBytes, costBudget } = checkVmOptions(options);
  const reprLimit = options.reprLimit ?? DEFAULT_REPR_LIMIT;
  if (typeof reprLimit !== 'number' || !Number.isSafeInteger(reprLimit) || reprLimit < 64) {
    throw new RangeError(`reprLimit must be an integer of at least 64 characters, got ${String(reprLimit)}`);
  }
  const checked = validateCondition(text);
  const program = compileChecked(checked);
  // The shared instance is looked up once: it is never replaced (it renews its own wasm instance).
  let shared: ConditionVM | null = null;
  const vm = (): ConditionVM => {
    shared ??= sharedVm(heapLimitBytes);
    shared.setCostBudget(costBudget);
    return shared;
  };
  // The VM verifies the program when it first loads it, before running it. Every evaluation encodes
  // the captures the program's header asks for (its capture slots, or every entry), so they agree.
  return {
    source: checked.source,
    tree: checked.tree,
    program,
    evaluate: (vars) => vm().evaluateTruthy(program, vars),
    evaluateDetailed: (vars) => {
      const r = vm().evaluate(program, vars, reprLimit);
      if (!r.ok) return { fired: false, error: r.error };
      return { fired: r.truthy, value: describe(r.value, vars, reprLimit) };
    },
    evaluateBatch: (list) => vm().evaluateBatch(program, list),
    evaluateBatchOutcomes: (list) => vm().evaluateBatchOutcomes(program, list),
  };
}

/**
 * One VM instance per heap limit, shared by every compiled condition: a WebAssembly instance
 * costs its linear memory, and switching the loaded program costs about a microsecond.
 */
const vms = new Map<number, ConditionVM>();
function sharedVm(limit: number): ConditionVM {
  let vm = vms.get(limit);
  if (vm === undefined) {
    vm = new ConditionVM({ heapLimitBytes: limit });
    vms.set(limit, vm);
  }
  return vm;
}

/** The shared VM of a heap limit, for tests of what it holds between evaluations. */
export function sharedVmForTest(limit: number): ConditionVM {
  return sharedVm(limit);
}

/** `<class 'float'>`, `<built-in function len>`, `<module 'math' (built-in)>`, from the contract's table. */
function builtinValue(id: number): EvaluatedValue {
  const name = Op.BUILTIN_NAMES[id] ?? '?';
  switch (Op.BUILTIN_KINDS[id]) {
    case Op.BUILTIN_KIND_TYPE:
      return { type: 'type', repr: `<class '${name}'>` };
    case Op.BUILTIN_KIND_MODULE:
      return { type: 'module', repr: `<module '${name}' (built-in)>` };
    default:
      return { type: 'builtin_function_or_method', repr: `<built-in function ${name}>` };
  }
}

/** `repr` cut to `limit` characters with the marker saying what was cut. */
function bounded(type: string, repr: string, limit: number, complete: boolean, what: string): EvaluatedValue {
  if (complete && repr.length <= limit) return { type, repr };
  return { type, repr: `${repr.slice(0, limit)} … [repr truncated: ${what}]`, truncated: true };
}

/**
 * CPython's type name and repr of a VM value, at most `limit` characters of it; the dict is the
 * capture mapping itself, in insertion order.
 */
export function describe(v: VmValue, vars: ConditionVars, limit = DEFAULT_REPR_LIMIT): EvaluatedValue {
  switch (v.tag) {
    case 'None':
      return { type: 'NoneType', repr: 'None' };
    case 'Ellipsis':
      return { type: 'ellipsis', repr: 'Ellipsis' };
    case 'bool':
      return { type: 'bool', repr: v.value ? 'True' : 'False' };
    case 'int':
      // Past 4300 digits CPython's repr() itself raises ValueError; the value is still an int.
      return { type: 'int', repr: v.value === null ? null : v.value.toString() };
    case 'float':
      return { type: 'float', repr: floatRepr(v.value) };
    case 'complex':
      return { type: 'complex', repr: complexRepr(v.re, v.im) };
    case 'str':
      return bounded(
        'str',
        strRepr(v.codePoints),
        limit,
        v.codePoints.length === v.length,
        `a str of ${v.length} characters`,
      );
    case 'bytes': {
      let text = '';
      for (const b of v.value) text += String.fromCharCode(b);
      return bounded(
        'bytes',
        `b${strRepr(text, true)}`,
        limit,
        v.value.length === v.length,
        `bytes of length ${v.length}`,
      );
    }
    case 'dict': {
      checkVars(vars);
      const entries = captureEntries(vars.capture);
      let repr = '{';
      let shown = 0;
      for (const [k, val] of entries) {
        if (repr.length > limit) break;
        // Each part is cut to what the limit can still show, so one huge value costs no more.
        const room = limit - repr.length + 1;
        repr += `${shown === 0 ? '' : ', '}${strRepr(clip(k, room))}: ${strRepr(clip(val, room))}`;
        shown++;
      }
      repr += '}';
      const complete = shown === entries.length && !entries.some(([k, val]) => k.length > limit || val.length > limit);
      return bounded('dict', repr, limit, complete, `a dict of ${entries.length} items`);
    }
    case 'builtin':
      return builtinValue(v.id);
  }
}

/** The first `n` code units of `s` (enough for a repr cut at n characters). */
function clip(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n);
}
