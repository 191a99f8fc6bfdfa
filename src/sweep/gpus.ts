/**
 * `--gpus`: a pool of device ids shared by the running trials, each trial holding its own disjoint set until
 * it ends. The ids are written into the variables the GPU runtimes read, in the physical numbering.
 */

/**
 * Both runtimes' selectors get the same physical ids: CUDA reads CUDA_VISIBLE_DEVICES, HIP reads
 * HIP_VISIBLE_DEVICES (and also CUDA_VISIBLE_DEVICES, so the two must agree). ROCR_VISIBLE_DEVICES is removed
 * from the trial's environment unless asked for: ROCr filters first and renumbers from 0, so an inherited or
 * parallel ROCR list would make the HIP ids point at other devices.
 */
export const DEFAULT_GPU_ENV: readonly string[] = ['CUDA_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES'];
export const GPU_ENV_VARS: readonly string[] = ['CUDA_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES', 'ROCR_VISIBLE_DEVICES'];

/** `0,1,2,3`, `0-3`, `GPU-8d3c…` (nvidia UUIDs) → the ids, in order, each once. */
export function parseGpuList(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',')) {
    const p = part.trim();
    if (p === '') throw new RangeError(`--gpus: empty entry in '${text}'`);
    const range = /^(\d+)-(\d+)$/.exec(p);
    const ids = range === null ? [p] : expand(Number(range[1]), Number(range[2]), p);
    for (const id of ids) {
      if (out.includes(id)) throw new RangeError(`--gpus: device ${id} is listed twice`);
      out.push(id);
    }
  }
  return out;
}

function expand(a: number, b: number, p: string): string[] {
  if (b < a) throw new RangeError(`--gpus: range '${p}' ends before it starts`);
  return Array.from({ length: b - a + 1 }, (_, i) => String(a + i));
}

/** A fixed set of devices handed out `perTrial` at a time; `acquire` waits until enough are free. */
export class GpuPool {
  readonly #free: string[];
  readonly #waiters: Array<() => void> = [];

  constructor(
    readonly devices: readonly string[],
    readonly perTrial: number,
  ) {
    if (!Number.isInteger(perTrial) || perTrial < 1)
      throw new RangeError('GpuPool: perTrial must be a positive integer');
    if (perTrial > devices.length)
      throw new RangeError(`--gpus-per-trial ${perTrial} is more than the ${devices.length} devices in --gpus`);
    this.#free = [...devices];
  }

  /** How many trials can hold devices at once. */
  get slots(): number {
    return Math.floor(this.devices.length / this.perTrial);
  }

  async acquire(): Promise<readonly string[]> {
    while (this.#free.length < this.perTrial) await new Promise<void>((r) => this.#waiters.push(r));
    // Lowest ids first, so a sweep's assignment is reproducible.
    this.#free.sort((a, b) => this.devices.indexOf(a) - this.devices.indexOf(b));
    return this.#free.splice(0, this.perTrial);
  }

  release(ids: readonly string[]): void {
    this.#free.push(...ids);
    this.#waiters.shift()?.();
  }
}

/** The trial's environment with its devices selected (and ROCR's renumbering filter removed unless named). */
export function withDevices(
  env: NodeJS.ProcessEnv,
  ids: readonly string[],
  vars: readonly string[] = DEFAULT_GPU_ENV,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const v of GPU_ENV_VARS) if (!vars.includes(v)) delete out[v];
  for (const v of vars) out[v] = ids.join(',');
  return out;
}
