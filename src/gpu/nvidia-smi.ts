/**
 * The two nvidia-smi queries the sampler runs, and their parsers.
 *
 * `--format=csv,noheader,nounits` prints one line per GPU (or per process and GPU), fields separated
 * by `", "`, memory in MiB. Unsupported fields print `[N/A]`, `N/A` or `[Not Supported]` (read as
 * unknown, never 0). The parsers also accept values that kept their unit (`30994 MiB`) in case
 * `nounits` is ignored. A line with the wrong number of fields makes the whole output unusable: it
 * means the output is not what was asked for.
 */
import { excerpt, fail, type ParseResult } from './parse-result.js';
import { toMiB } from './units.js';

/** Per GPU: index and uuid (to join compute apps), used and total MiB, and the driver version. */
export const NVIDIA_GPU_QUERY_ARGS: readonly string[] = [
  '--query-gpu=index,uuid,memory.used,memory.total,driver_version',
  '--format=csv,noheader,nounits',
];

/** Per (process, GPU): pid, the GPU's uuid, and the MiB the process's context uses there. */
export const NVIDIA_APPS_QUERY_ARGS: readonly string[] = [
  '--query-compute-apps=pid,gpu_uuid,used_memory',
  '--format=csv,noheader,nounits',
];

export interface NvidiaGpuMemory {
  index: number;
  uuid: string | null;
  usedMib: number | null;
  totalMib: number | null;
  driverVersion: string | null;
}

export interface NvidiaComputeApp {
  pid: number;
  gpuUuid: string | null;
  /** `null` under WDDM (Windows), where the driver cannot tell. */
  usedMib: number | null;
}

const NA = /^\[?(N\/A|Not Supported|Unknown Error|Insufficient Permissions)\]?$/i;

function text(field: string): string | null {
  return field === '' || NA.test(field) ? null : field;
}

function rows(stdout: string, fields: number, what: string): ParseResult<string[][]> {
  const out: string[][] = [];
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== fields) return fail('bad-line', `printed a line that is not ${what}: "${excerpt(line, 80)}"`);
    out.push(cells);
  }
  return { ok: true, value: out };
}

/**
 * Parses the output of `nvidia-smi` with {@link NVIDIA_GPU_QUERY_ARGS}. No line at all is a failure
 * (`no-records`): nvidia-smi always lists at least one GPU when it succeeds.
 */
export function parseNvidiaSmiGpuQuery(stdout: string): ParseResult<NvidiaGpuMemory[]> {
  const r = rows(stdout, 5, 'index, uuid, memory.used, memory.total, driver_version');
  if (!r.ok) return r;
  if (r.value.length === 0) return fail('no-records', 'printed no GPU line');
  const out: NvidiaGpuMemory[] = [];
  for (const [index, uuid, used, total, driver] of r.value as [string, string, string, string, string][]) {
    if (!/^\d+$/.test(index)) return fail('bad-line', `printed a GPU line without an index: "${excerpt(index, 40)}"`);
    out.push({
      index: Number(index),
      uuid: text(uuid),
      usedMib: toMiB(used, 'MiB'),
      totalMib: toMiB(total, 'MiB'),
      driverVersion: text(driver),
    });
  }
  return { ok: true, value: out };
}

/**
 * Parses the output of `nvidia-smi` with {@link NVIDIA_APPS_QUERY_ARGS}. Empty output is a success
 * with no process (nvidia-smi prints nothing, exit 0, when no compute process exists).
 */
export function parseNvidiaSmiComputeApps(stdout: string): ParseResult<NvidiaComputeApp[]> {
  const r = rows(stdout, 3, 'pid, gpu_uuid, used_memory');
  if (!r.ok) return r;
  const out: NvidiaComputeApp[] = [];
  for (const [pid, uuid, used] of r.value as [string, string, string][]) {
    if (!/^\d+$/.test(pid)) return fail('bad-line', `printed a process line without a pid: "${excerpt(pid, 40)}"`);
    out.push({ pid: Number(pid), gpuUuid: text(uuid), usedMib: toMiB(used, 'MiB') });
  }
  return { ok: true, value: out };
}

/** Per GPU: the percent of time a kernel ran over the last sample period (Tier 2's GPU-idle signal). */
export const NVIDIA_UTIL_QUERY_ARGS: readonly string[] = [
  '--query-gpu=index,uuid,utilization.gpu',
  '--format=csv,noheader,nounits',
];

/**
 * Per GPU: microseconds the clocks were held back by software and hardware thermal slowdown since the
 * driver loaded (cumulative counters, driver 535 and later; older drivers reject the fields, which leaves
 * the thermal signal unavailable rather than failing the memory queries, which are separate calls).
 */
export const NVIDIA_THROTTLE_QUERY_ARGS: readonly string[] = [
  '--query-gpu=index,uuid,clocks_event_reasons_counters.sw_thermal_slowdown,clocks_event_reasons_counters.hw_thermal_slowdown',
  '--format=csv,noheader,nounits',
];

/** `"37"`, `"37 %"`, `"1200 us"`: the number; unknown forms and negatives are `null`. */
function counter(field: string): number | null {
  const t = text(field);
  if (t === null) return null;
  const m = /^(\d+(?:\.\d+)?)\s*(?:%|us)?$/.exec(t);
  return m === null ? null : Number(m[1]);
}

/** GPU key as the memory reading has it: the uuid, else `index<N>`. */
function gpuKey(index: string, uuid: string): string {
  return text(uuid) ?? `index${index}`;
}

/** Parses {@link NVIDIA_UTIL_QUERY_ARGS}: per GPU key, utilization in percent (`null` where N/A). */
export function parseNvidiaSmiUtilization(stdout: string): ParseResult<Map<string, number | null>> {
  const r = rows(stdout, 3, 'index, uuid, utilization.gpu');
  if (!r.ok) return r;
  if (r.value.length === 0) return fail('no-records', 'printed no GPU line');
  return {
    ok: true,
    value: new Map((r.value as [string, string, string][]).map(([i, u, pct]) => [gpuKey(i, u), counter(pct)])),
  };
}

/** Parses {@link NVIDIA_THROTTLE_QUERY_ARGS}: per GPU key, the two thermal counters summed (`null` when both N/A). */
export function parseNvidiaSmiThrottle(stdout: string): ParseResult<Map<string, number | null>> {
  const r = rows(stdout, 4, 'index, uuid, sw_thermal_slowdown, hw_thermal_slowdown');
  if (!r.ok) return r;
  if (r.value.length === 0) return fail('no-records', 'printed no GPU line');
  const out = new Map<string, number | null>();
  for (const [i, u, sw, hw] of r.value as [string, string, string, string][]) {
    const a = counter(sw);
    const b = counter(hw);
    out.set(gpuKey(i, u), a === null && b === null ? null : (a ?? 0) + (b ?? 0));
  }
  return { ok: true, value: out };
}
