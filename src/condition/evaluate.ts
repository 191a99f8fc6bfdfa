/**
 * `compileCondition`: validate once, lower once, load once into a VM; then evaluate as often as
 * needed. `evaluate` is the original's `evaluate` (`bool(value)`, any exception → not fired);
 * `evaluateDetailed` reports what CPython would: the value's type name and repr, or the exception
 * class.
 */
import { captureKeysRead } from './capture-keys.js';
import { compileChecked } from './compile.js';
import { complexRepr, floatRepr, strRepr } from './repr.js';
import { validateCondition, type CheckedCondition } from './validate.js';
import { ConditionVM, DEFAULT_HEAP_LIMIT_BYTES, type ConditionVars, type VmValue } from './vm-host.js';

export type { ConditionVars } from './vm-host.js';

export interface EvaluatedValue {
  /** `type(v).__name__` */
  readonly type: string;
  /**
   * `repr(v)`, exactly as CPython prints it; null where CPython's repr() raises ValueError (an
   * int of more than 4300 digits).
   */
  readonly repr: string | null;
}

export type DetailedResult =
  | { readonly fired: boolean; readonly value: EvaluatedValue }
  | { readonly fired: false; readonly error: string };

export interface CompileOptions {
  /** Most linear memory the VM may use before a condition gets MemoryError. */
  heapLimitBytes?: number;
}

export interface CompiledCondition extends CheckedCondition {
  /** The bytecode program (assembly/opcodes.ts format). */
  readonly program: Int32Array;
  /** The spec's `evaluate`: `bool(value)`, with every runtime error meaning "did not fire". */
  evaluate(vars: ConditionVars): boolean;
  evaluateDetailed(vars: ConditionVars): DetailedResult;
  /** `evaluate` over many variable sets in one VM call. */
  evaluateBatch(list: readonly ConditionVars[]): boolean[];
}

const BUILTIN_VALUES: readonly EvaluatedValue[] = [
  { type: 'type', repr: "<class 'float'>" },
  { type: 'type', repr: "<class 'int'>" },
  { type: 'builtin_function_or_method', repr: '<built-in function len>' },
  { type: 'module', repr: "<module 'math' (built-in)>" },
  { type: 'builtin_function_or_method', repr: '<built-in function isnan>' },
  { type: 'builtin_function_or_method', repr: '<built-in function isinf>' },
];

export function compileCondition(text: unknown, options: CompileOptions = {}): CompiledCondition {
  const checked = validateCondition(text);
  const program = compileChecked(checked);
  const limit = options.heapLimitBytes ?? DEFAULT_HEAP_LIMIT_BYTES;
  const keys = captureKeysRead(checked.tree);
  // The VM verifies the program when it first loads it, before running it.
  return {
    source: checked.source,
    tree: checked.tree,
    program,
    evaluate: (vars) => sharedVm(limit).evaluateTruthy(program, vars, keys),
    evaluateDetailed: (vars) => {
      const r = sharedVm(limit).evaluate(program, vars);
      if (!r.ok) return { fired: false, error: r.error };
      return { fired: r.truthy, value: describe(r.value, vars) };
    },
    evaluateBatch: (list) => sharedVm(limit).evaluateBatch(program, list, keys),
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
    vm = new ConditionVM(limit);
    vms.set(limit, vm);
  }
  return vm;
}

/** CPython's type name and repr of a VM value; the dict is the capture mapping itself. */
export function describe(v: VmValue, vars: ConditionVars): EvaluatedValue {
  switch (v.tag) {
    case 'None': return { type: 'NoneType', repr: 'None' };
    case 'Ellipsis': return { type: 'ellipsis', repr: 'Ellipsis' };
    case 'bool': return { type: 'bool', repr: v.value ? 'True' : 'False' };
    case 'int':
      // Past 4300 digits CPython's repr() itself raises ValueError; the value is still an int.
      return { type: 'int', repr: v.value === null ? null : v.value.toString() };
    case 'float': return { type: 'float', repr: floatRepr(v.value) };
    case 'complex': return { type: 'complex', repr: complexRepr(v.re, v.im) };
    case 'str': return { type: 'str', repr: strRepr(v.codePoints) };
    case 'bytes': return { type: 'bytes', repr: `b${strRepr(String.fromCharCode(...v.value), true)}` };
    case 'dict': {
      const items = Object.entries(vars.capture).map(([k, val]) => `${strRepr(k)}: ${strRepr(val)}`);
      return { type: 'dict', repr: `{${items.join(', ')}}` };
    }
    case 'builtin': return BUILTIN_VALUES[v.id] ?? { type: 'builtin_function_or_method', repr: '<built-in function>' };
  }
}
