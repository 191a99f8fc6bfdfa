/**
 * What the sampler asks each tool, and how each answer becomes the sampler's common readings.
 * The sampler itself knows nothing about amd-smi or nvidia-smi.
 */
import {
  parseAmdSmiMetricMemory,
  parseAmdSmiProcess,
  parseAmdSmiThrottle,
  parseAmdSmiUsage,
  parseAmdSmiVersion,
  type AmdGpuMemory,
} from './amd-smi.js';
import type { GpuToolName } from './find-tool.js';
import {
  NVIDIA_APPS_QUERY_ARGS,
  NVIDIA_GPU_QUERY_ARGS,
  NVIDIA_THROTTLE_QUERY_ARGS,
  NVIDIA_UTIL_QUERY_ARGS,
  parseNvidiaSmiComputeApps,
  parseNvidiaSmiGpuQuery,
  parseNvidiaSmiThrottle,
  parseNvidiaSmiUtilization,
} from './nvidia-smi.js';
import { fail, type ParseResult } from './parse-result.js';

/** Device-level used memory, per GPU key (amd-smi index, or nvidia uuid). `null`: N/A for that GPU. */
export interface DeviceReading {
  usedMib: Map<string, number | null>;
  /** The tool's device index of each GPU key, when it lists one (to select devices by index). */
  index?: Map<string, string>;
  /** Known from the same call (nvidia-smi's driver_version), else `undefined`. */
  toolVersion?: string | null;
}

/** Per-process memory, one entry per (GPU, pid) as listed. */
export interface ProcessEntry {
  gpu: string;
  pid: number;
  mib: number | null;
}

export interface Query<T> {
  args: readonly string[];
  /** How the call is named in warnings. */
  label: string;
  parse(stdout: string): ParseResult<T>;
}

/** One number per GPU key (the keys of `DeviceReading.usedMib`); `null`: N/A for that GPU. */
export type PerGpuReading = Map<string, number | null>;

export interface ToolDriver {
  tool: GpuToolName;
  device: Query<DeviceReading>;
  processes: Query<ProcessEntry[]>;
  /**
   * Health readings, separate calls so that a tool build without them (old amd-smi, pre-535 nvidia
   * drivers) loses only these signals, never the memory samples: utilization in percent per tick (Tier 2's
   * GPU-idle signal), and a cumulative thermal-throttle counter before and after the trial (Tier 3).
   */
  utilization: Query<PerGpuReading>;
  throttle: Query<PerGpuReading>;
  /** A separate version call (amd-smi), made once during the run; nvidia-smi's comes with `device`. */
  version: Query<string | null> | null;
}

function mapResult<A, B>(r: ParseResult<A>, f: (a: A) => B): ParseResult<B> {
  return r.ok ? { ok: true, value: f(r.value) } : r;
}

/** A device reading in which every GPU is N/A carries no information: it is a failed sample. */
function usable(r: ParseResult<DeviceReading>): ParseResult<DeviceReading> {
  if (r.ok && [...r.value.usedMib.values()].every((v) => v === null)) {
    return fail('no-records', 'reported used memory as N/A for every GPU');
  }
  return r;
}

/** APU carve-outs are at most a few GiB; the model then lives in GTT (docs/gpu.md). */
const APU_MAX_VRAM_MIB = 4096;

/**
 * Used memory of one amd-smi GPU: `used_vram`, plus `used_gtt` on an APU (total VRAM at most
 * 4 GiB and more GTT than VRAM), where a trial's allocations land in GTT.
 */
export function amdUsedMib(g: AmdGpuMemory): number | null {
  if (g.usedVramMib === null) return null;
  const apu =
    g.totalVramMib !== null &&
    g.totalGttMib !== null &&
    g.totalVramMib <= APU_MAX_VRAM_MIB &&
    g.totalGttMib > g.totalVramMib;
  return apu && g.usedGttMib !== null ? g.usedVramMib + g.usedGttMib : g.usedVramMib;
}

export const AMD_SMI_DRIVER: ToolDriver = {
  tool: 'amd-smi',
  device: {
    // Always -m: a bare `metric` on EPYC hosts (6.1–6.4) also prints CPU and core documents, and is slower.
    args: ['metric', '-m', '--json'],
    label: 'amd-smi metric -m --json',
    parse: (stdout) =>
      usable(
        mapResult(parseAmdSmiMetricMemory(stdout), (gpus) => ({
          usedMib: new Map(gpus.map((g) => [`gpu${g.gpu}`, amdUsedMib(g)])),
          index: new Map(gpus.map((g) => [`gpu${g.gpu}`, String(g.gpu)])),
        })),
      ),
  },
  processes: {
    args: ['process', '--json'],
    label: 'amd-smi process --json',
    parse: (stdout) =>
      mapResult(parseAmdSmiProcess(stdout), (procs) =>
        procs.map((p) => ({ gpu: `gpu${p.gpu}`, pid: p.pid, mib: p.vramMib })),
      ),
  },
  utilization: { args: ['metric', '-u', '--json'], label: 'amd-smi metric -u --json', parse: parseAmdSmiUsage },
  throttle: {
    args: ['metric', '--throttle', '--json'],
    label: 'amd-smi metric --throttle --json',
    parse: parseAmdSmiThrottle,
  },
  version: {
    args: ['version'],
    label: 'amd-smi version',
    parse: (stdout) => ({ ok: true, value: parseAmdSmiVersion(stdout) }),
  },
};

export const NVIDIA_SMI_DRIVER: ToolDriver = {
  tool: 'nvidia-smi',
  device: {
    args: NVIDIA_GPU_QUERY_ARGS,
    label: 'nvidia-smi --query-gpu',
    parse: (stdout) =>
      usable(
        mapResult(parseNvidiaSmiGpuQuery(stdout), (gpus) => ({
          usedMib: new Map(gpus.map((g) => [g.uuid ?? `index${g.index}`, g.usedMib])),
          index: new Map(gpus.map((g) => [g.uuid ?? `index${g.index}`, String(g.index)])),
          toolVersion: gpus.find((g) => g.driverVersion !== null)?.driverVersion ?? null,
        })),
      ),
  },
  processes: {
    args: NVIDIA_APPS_QUERY_ARGS,
    label: 'nvidia-smi --query-compute-apps',
    // Rows carry the GPU's uuid, the key the device query uses too.
    parse: (stdout) =>
      mapResult(parseNvidiaSmiComputeApps(stdout), (apps) =>
        apps.map((a) => ({ gpu: a.gpuUuid ?? '?', pid: a.pid, mib: a.usedMib })),
      ),
  },
  utilization: {
    args: NVIDIA_UTIL_QUERY_ARGS,
    label: 'nvidia-smi --query-gpu=utilization.gpu',
    parse: parseNvidiaSmiUtilization,
  },
  throttle: {
    args: NVIDIA_THROTTLE_QUERY_ARGS,
    label: 'nvidia-smi --query-gpu=clocks_event_reasons_counters',
    parse: parseNvidiaSmiThrottle,
  },
  version: null,
};

export function driverFor(tool: GpuToolName): ToolDriver {
  return tool === 'amd-smi' ? AMD_SMI_DRIVER : NVIDIA_SMI_DRIVER;
}
