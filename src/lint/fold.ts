/**
 * Constant folding by evaluation: a sub-expression that reads none of the trial variables has the
 * same outcome on every trial, and the VM (CPython-conformant, see the evaluation goldens) gives
 * that outcome exactly — value, type, truthiness or exception class. Folding by hand would mean a
 * second implementation of Python's numbers and strings.
 */
import type { Expr } from '../condition/ast.js';
import { compileChecked } from '../condition/compile.js';
import { ConditionVM, type ConditionVars, type VmOutcome } from '../condition/vm-host.js';

/** Constant expressions are short (the 256-character cap); a small arena is plenty. */
const FOLD_HEAP_LIMIT_BYTES = 16 * 1024 * 1024;

let vm: ConditionVM | null = null;

/** Variables for a trial-independent expression: never read, but the VM wants a full set. */
const NO_TRIAL: ConditionVars = { capture: {}, exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

/**
 * Evaluates `expr` (a sub-tree of a checked condition, or one built from such sub-trees) with
 * `vars`. Used with `NO_TRIAL` for constants, and by the tests as a witness for the linter's claims.
 */
export function evaluateTree(expr: Expr, vars: ConditionVars = NO_TRIAL): VmOutcome {
  const program = compileChecked({ source: '', tree: { type: 'Expression', body: expr, loc: null } });
  vm ??= new ConditionVM(FOLD_HEAP_LIMIT_BYTES);
  return vm.evaluate(program, vars);
}
