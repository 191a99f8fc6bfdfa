/**
 * Tier 4: the built-in log-pattern catalogue (the original's `tier4_patterns.py`, the original's tier4_patterns.py (ROCm/aorta)).
 *
 * Catalogue order is also the tie-break order when two detectors fire at the same log offset, and the
 * `--list-patterns` print order. The regexes are Python `re` syntax, compiled on RE2 by `src/regex/`.
 */
import { compileRegex, flagsFromPython, type RegexHandle } from '../regex/index.js';

export const BUILTIN_PATTERN_VERSION = '1';

export interface BuiltinPattern {
  /** `tier4:<name>`. */
  readonly detectorId: string;
  readonly description: string;
  /** Python `re` source, as in the original. */
  readonly regex: string;
  /** The original's flag names (`MULTILINE`, `IGNORECASE`). */
  readonly pythonFlags: readonly string[];
  /** The same flags as the regex module's flag string. */
  readonly flags: string;
  /** A line the pattern matches. */
  readonly sample: string;
}

function entry(
  detectorId: string,
  description: string,
  regex: string,
  pythonFlags: string[],
  sample: string,
): BuiltinPattern {
  return Object.freeze({
    detectorId,
    description,
    regex,
    pythonFlags: Object.freeze(pythonFlags),
    flags: flagsFromPython(pythonFlags),
    sample,
  });
}

export const TIER4_PATTERNS: readonly BuiltinPattern[] = Object.freeze([
  entry(
    'tier4:python_traceback',
    "Python traceback ('Traceback (most recent call last):')",
    '^Traceback \\(most recent call last\\):',
    ['MULTILINE'],
    'Traceback (most recent call last):',
  ),
  entry(
    'tier4:hip_error',
    'HIP error code (hipError_* or HIP error: ...)',
    'hipError_[A-Za-z0-9_]+|HIP error:',
    [],
    'hipError_OutOfMemory',
  ),
  entry(
    'tier4:cuda_error',
    'CUDA error code (cudaError_* or CUDA error: ...)',
    'cudaError[A-Za-z0-9_]*|CUDA error:',
    [],
    'cudaErrorIllegalAddress',
  ),
  entry('tier4:rocm_error', "ROCm error code marker ('Error code: <n>')", 'Error code: \\d+', [], 'Error code: 1'),
  entry(
    'tier4:nccl_rccl_error',
    'NCCL or RCCL collective error',
    'NCCL error|RCCL ERROR',
    [],
    'NCCL error: unhandled system error',
  ),
  entry(
    'tier4:collective_timeout',
    'Torch distributed watchdog collective-operation timeout',
    'Watchdog caught collective operation timeout',
    [],
    'Watchdog caught collective operation timeout: WorkNCCL ...',
  ),
  entry(
    'tier4:nan_signature',
    'Training-loss NaN signature',
    'loss(?: is)? NaN|loss=nan',
    ['IGNORECASE'],
    'loss is NaN',
  ),
]);

let compiled: RegexHandle[] | null = null;

/**
 * The catalogue's compiled regexes, in catalogue order. Compiled once per process and kept (seven small programs
 * in the RE2 heap); do not dispose them.
 */
export function tier4Regexes(): readonly RegexHandle[] {
  if (compiled === null || compiled.some((h) => h.disposed)) {
    for (const h of compiled ?? []) h.dispose();
    // Constants that test/regex-deferred-compile.test.ts compiles in RE2: the engine starts only when a window's
    // prefilter lets one of them through (a clean log never starts it).
    compiled = TIER4_PATTERNS.map((p) => compileRegex(p.regex, p.flags, { engineVouched: true }));
  }
  return compiled;
}
