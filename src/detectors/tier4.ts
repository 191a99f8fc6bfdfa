/**
 * Tier 4: the built-in log-pattern catalogue as data (the original's `tier4_patterns.py`, ROCm/aorta), with the
 * flags as the original names them. src/scan/tier4.ts compiles it; the detector catalogue takes its ids from here.
 *
 * Catalogue order is also the tie-break order when two detectors fire at the same log offset, and the
 * `aorta-probe patterns` print order. The regexes are Python `re` syntax, compiled on RE2 by `src/regex/`.
 */
export const BUILTIN_PATTERN_VERSION = '1';

export interface Tier4Entry {
  /** `tier4:<name>`. */
  readonly detectorId: string;
  readonly description: string;
  /** Python `re` source, as in the original. */
  readonly regex: string;
  /** The original's flag names (`MULTILINE`, `IGNORECASE`); src/scan/tier4.ts turns them into RE2 flags. */
  readonly pythonFlags: readonly string[];
  /** A line the pattern matches. */
  readonly sample: string;
}

function entry(
  detectorId: string,
  description: string,
  regex: string,
  pythonFlags: string[],
  sample: string,
): Tier4Entry {
  return Object.freeze({
    detectorId,
    description,
    regex,
    pythonFlags: Object.freeze(pythonFlags),
    sample,
  });
}

export const TIER4_CATALOGUE: readonly Tier4Entry[] = Object.freeze([
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
