/**
 * The mitigation registry: what an axis value may name. The original's (ROCm/aorta `registry/mitigations.py`,
 * upstream-probe-runs.md §3.7) has 18 built-in env bundles, then plugin entry points, then `--mitigations-file`
 * sidecars; ours has the built-ins, the recipe's own `mitigations:` map, then the `--mitigations-file`s. As in the
 * original, a name defined by two sources is an error naming both (its `RegistryCollisionError`): no source wins,
 * so a cell's environment never depends on the order files were given in.
 */
import type { EnvBundle } from './types.js';

export interface RegistryEntry {
  readonly env: EnvBundle;
  /** `builtin`, `recipe:<file>`, `sidecar:<basename>` (the original's JSON format) or `file:<path>` (a flat map). */
  readonly source: string;
}

export type MitigationRegistry = ReadonlyMap<string, RegistryEntry>;

export const BUILTIN_SOURCE = 'builtin';

/** The original's `BUILTIN_MITIGATIONS`, in its order, with its exact variables. */
const BUILTINS: readonly (readonly [string, Readonly<Record<string, string>>])[] = [
  ['none', {}],
  ['tf32_off', { DISABLE_TF32: '1' }],
  ['xnack', { HSA_XNACK: '1' }],
  ['gpu_max_hw_queues_2', { GPU_MAX_HW_QUEUES: '2' }],
  ['roc_aql_queue_size_1024', { ROC_AQL_QUEUE_SIZE: '1024' }],
  ['hsa_no_sdma', { HSA_ENABLE_SDMA: '0' }],
  ['hsa_no_scratch_reclaim', { HSA_NO_SCRATCH_RECLAIM: '1' }],
  ['roc_signal_pool_16k', { ROC_SIGNAL_POOL_SIZE: '16384' }],
  ['gpu_force_blit_copy_128', { GPU_FORCE_BLIT_COPY_SIZE: '128' }],
  ['debug_clr_no_batch_cpu_sync', { DEBUG_CLR_BATCH_CPU_SYNC_SIZE: '0' }],
  ['nccl_launch_order_implicit', { NCCL_LAUNCH_ORDER_IMPLICIT: '1' }],
  ['rccl_gfx942_cheap_fence_off', { RCCL_GFX942_CHEAP_FENCE_OFF: '1' }],
  ['pytorch_no_cuda_memory_caching', { PYTORCH_NO_CUDA_MEMORY_CACHING: '1' }],
  ['pytorch_alloc_expandable_segments', { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' }],
  ['hip_launch_blocking', { HIP_LAUNCH_BLOCKING: '1' }],
  ['amd_log_level_4', { AMD_LOG_LEVEL: '4' }],
  ['fa_prefer_ck', { TORCH_ROCM_FA_PREFER_CK: '1' }],
  ['fa_prefer_aotriton', { TORCH_ROCM_FA_PREFER_CK: '0' }],
];

/** A new registry holding the built-ins only (a fresh map: sources are added to it). */
export function builtinRegistry(): Map<string, RegistryEntry> {
  return new Map(
    BUILTINS.map(([name, env]) => [name, { env: new Map(Object.entries(env)), source: BUILTIN_SOURCE }] as const),
  );
}

/** The built-in names, in the original's order. */
export const BUILTIN_MITIGATION_NAMES: readonly string[] = BUILTINS.map(([n]) => n);

/** The collision message: `name` is defined by `first` and again by `second`. */
export function collisionReason(path: string, name: string, first: string, second: string): string {
  return `${path}: mitigation '${name}' is already defined by ${first}; ${second} defines it again (a name may come from one source only: rename one)`;
}
