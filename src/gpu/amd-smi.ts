/**
 * Parsers for `amd-smi metric -m --json`, `amd-smi process --json` and `amd-smi version`.
 *
 * Every shape amd-smi has printed is accepted, and the shape is never chosen from the version
 * (distro builds print `ROCm version: N/A`):
 * - top level: a bare record object (6.0 with one GPU), a list (6.0 with several GPUs, 6.1–6.4, watch
 *   mode, `monitor`/`process` on 7.x), `{"gpu_data": [...]}` (`metric`/`static` on 7.x), nested lists
 *   (several arrays in one document are flattened one level);
 * - values: bare numbers (6.0, 6.1.1), `{"value", "unit"}` objects (6.1+), `"N/A"` or
 *   `{"value": "N/A", ...}`, whole sections as `"N/A"`;
 * - text before, between or after the JSON (warnings, banners), several documents (the last one with
 *   GPU records wins, as for a one-shot call);
 * - `{"error", "code"}` payloads, which 6.x prints on stdout with exit status 0.
 */
import { extractJsonDocuments } from './json-docs.js';
import { excerpt, fail, type ParseResult } from './parse-result.js';
import { toMiB } from './units.js';

/** One GPU of `amd-smi metric -m --json`, in MiB; `null` where amd-smi printed N/A. */
export interface AmdGpuMemory {
  /** amd-smi's index (ordered by BDF; not the HIP index). Each partition of a partitioned GPU has its own. */
  gpu: number;
  usedVramMib: number | null;
  totalVramMib: number | null;
  usedGttMib: number | null;
  totalGttMib: number | null;
}

/** One process on one GPU in `amd-smi process --json`. */
export interface AmdProcessVram {
  gpu: number;
  pid: number;
  /** `null` when amd-smi prints `N/A` (another user's process). */
  name: string | null;
  /** `memory_usage.vram_mem` (bytes in the output) in MiB; `null` when N/A. */
  vramMib: number | null;
}

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The GPU records of one document, whatever its container (see the module comment). */
function gpuRecords(doc: Json): JsonObject[] {
  let items: Json[];
  if (Array.isArray(doc)) items = doc.flatMap((e) => (Array.isArray(e) ? (e as Json[]) : [e]));
  else if (isObject(doc) && Array.isArray(doc['gpu_data'])) items = doc['gpu_data'] as Json[];
  else items = [doc];
  return items.filter(
    (e): e is JsonObject => isObject(e) && typeof e['gpu'] === 'number' && Number.isInteger(e['gpu']),
  );
}

interface AmdSmiError {
  message: string;
  code?: number;
}

function errorPayload(doc: Json): AmdSmiError | null {
  if (!isObject(doc) || !('error' in doc)) return null;
  const err = doc['error'];
  const message = typeof err === 'string' ? err : JSON.stringify(err);
  const code = doc['code'];
  return typeof code === 'number' ? { message, code } : { message };
}

/** Picks the records of the last document that has GPU records, or explains why there is none. */
function selectRecords(stdout: string): ParseResult<JsonObject[]> {
  const docs = extractJsonDocuments(stdout);
  let records: JsonObject[] | null = null;
  let error: AmdSmiError | null = null;
  for (const { value } of docs) {
    const recs = gpuRecords(value);
    if (recs.length > 0) records = recs;
    else error ??= errorPayload(value);
  }
  if (records !== null) return { ok: true, value: records };
  if (error !== null) {
    const code = error.code === undefined ? '' : ` (code ${error.code})`;
    return fail('tool-error', `reported an error: ${excerpt(error.message)}${code}`, error.code);
  }
  if (docs.length === 0) {
    const text = stdout.trim();
    return fail('no-json', text === '' ? 'printed nothing' : `printed no JSON: "${excerpt(text, 80)}"`);
  }
  return fail('no-records', 'printed JSON without any GPU record');
}

/** Follows `path` through nested objects; `undefined` when a step is missing or not an object. */
function at(rec: JsonObject, path: readonly string[]): Json {
  let cur: Json = rec;
  for (const key of path) {
    if (!isObject(cur) || !(key in cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** The first path present in `rec` (present even if N/A: the key is always printed, only the type varies). */
function firstPresent(rec: JsonObject, paths: readonly (readonly string[])[]): Json {
  for (const p of paths) {
    const v = at(rec, p);
    if (v !== undefined) return v;
  }
  return undefined;
}

// Field lookup order from the notes (§6.5): `metric -m` first, then `monitor -v` and `static` names,
// so the parser also reads those outputs when handed them.
const USED_VRAM = [['mem_usage', 'used_vram'], ['vram_used'], ['mem_usage', 'vram_used']] as const;
const TOTAL_VRAM = [['mem_usage', 'total_vram'], ['vram_total'], ['vram', 'size'], ['vram', 'vram_size_mb']] as const;
const USED_GTT = [['mem_usage', 'used_gtt']] as const;
const TOTAL_GTT = [['mem_usage', 'total_gtt']] as const;

/**
 * Parses `amd-smi metric -m --json` (also `monitor -v --json`): one entry per GPU record, in output
 * order. Values are MiB (amd-smi's "MB"). Fails with `tool-error`, `no-json` or `no-records`.
 */
export function parseAmdSmiMetricMemory(stdout: string): ParseResult<AmdGpuMemory[]> {
  const sel = selectRecords(stdout);
  if (!sel.ok) return sel;
  return {
    ok: true,
    value: sel.value.map((rec) => ({
      gpu: rec['gpu'] as number,
      usedVramMib: toMiB(firstPresent(rec, USED_VRAM), 'MB'),
      totalVramMib: toMiB(firstPresent(rec, TOTAL_VRAM), 'MB'),
      usedGttMib: toMiB(firstPresent(rec, USED_GTT), 'MB'),
      totalGttMib: toMiB(firstPresent(rec, TOTAL_GTT), 'MB'),
    })),
  };
}

/** The `process_info` objects of one GPU record, in every layout amd-smi has used. */
function processInfos(rec: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  // 6.2+: process_list; 6.0–6.1.0 with several processes: values; one process or 6.1.1–6.1.2: process_info.
  for (const listKey of ['process_list', 'values']) {
    const list = rec[listKey];
    if (Array.isArray(list)) {
      for (const entry of list) if (isObject(entry) && isObject(entry['process_info'])) out.push(entry['process_info']);
    }
  }
  // "Not Found" / "No running processes detected" are strings and mean no process.
  if (isObject(rec['process_info'])) out.push(rec['process_info']);
  return out;
}

function toPid(v: Json): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Parses `amd-smi process --json`: every process listed, per GPU, in output order (a process with
 * memory on two GPUs appears twice). VRAM is `memory_usage.vram_mem`, never the top-level `mem_usage`
 * (0 on many builds). An empty list is a success: the GPUs were listed and run nothing. Entries
 * without a readable pid are skipped. 6.1.1 and 6.1.2 list only the last process of each GPU (an
 * amd-smi bug); nothing can recover the others.
 */
export function parseAmdSmiProcess(stdout: string): ParseResult<AmdProcessVram[]> {
  const sel = selectRecords(stdout);
  if (!sel.ok) return sel;
  const out: AmdProcessVram[] = [];
  for (const rec of sel.value) {
    for (const info of processInfos(rec)) {
      const pid = toPid(info['pid']);
      if (pid === null) continue;
      const name = typeof info['name'] === 'string' && info['name'] !== 'N/A' ? info['name'] : null;
      const vram = firstPresent(info, [['memory_usage', 'vram_mem'], ['vram_mem']]);
      out.push({ gpu: rec['gpu'] as number, pid, name, vramMib: toMiB(vram, 'B') });
    }
  }
  return { ok: true, value: out };
}

/**
 * The CLI version from `amd-smi version`, e.g. `24.6.3+9578815`, or `null`. Seen forms:
 * `AMDSMI Tool: 24.6.3+9578815 | AMDSMI Library version: 24.6.3.0 | ROCm version: 6.2.2`,
 * `AMD System Management Interface | Version: 25.3.0+ede62f2 | ROCm version: 6.4.0 |` and
 * `AMD-SMI 26.2.0+unknown ...`.
 */
export function parseAmdSmiVersion(stdout: string): string | null {
  const m =
    /AMDSMI Tool:\s*(\d[^\s|]*)/.exec(stdout) ??
    /\bVersion:\s*(\d[^\s|]*)/.exec(stdout) ??
    /\bAMD-SMI\s+(\d[^\s|]*)/.exec(stdout);
  return m === null ? null : m[1]!;
}

/**
 * A plain number as amd-smi prints counters and percentages: a bare number, `{"value": n, "unit": …}`, or a
 * numeric string (`"37 %"`); `null` for N/A or anything else. Negative or non-finite readings are unknown.
 */
function reading(v: Json): number | null {
  if (isObject(v) && 'value' in v) v = v['value'];
  if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(v);
    v = m === null ? null : Number(m[1]);
  }
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/**
 * Parses `amd-smi metric -u --json`: each GPU's `usage.gfx_activity` in percent (bare number on 6.0,
 * `{"value", "unit": "%"}` later), keyed like the memory reading (`gpu<N>`); `null` where N/A.
 */
export function parseAmdSmiUsage(stdout: string): ParseResult<Map<string, number | null>> {
  const sel = selectRecords(stdout);
  if (!sel.ok) return sel;
  return {
    ok: true,
    value: new Map(sel.value.map((rec) => [`gpu${rec['gpu'] as number}`, reading(at(rec, ['usage', 'gfx_activity']))])),
  };
}

/**
 * The thermal accumulators of `amd-smi metric --throttle --json` (MI300 and later; `N/A` elsewhere). Their
 * sum only ever grows while the GPU is held back for temperature, so a rise across the trial is a thermal
 * throttle. Newer builds print a list per partition (XCP); its entries are summed.
 */
const THERMAL_ACCUMULATORS = ['socket_thermal_accumulated', 'vr_thermal_accumulated', 'hbm_thermal_accumulated'];

function accumulated(v: Json): number | null {
  if (Array.isArray(v)) {
    let sum: number | null = null;
    for (const e of v) {
      const r = reading(e);
      if (r !== null) sum = (sum ?? 0) + r;
    }
    return sum;
  }
  return reading(v);
}

/** Parses `amd-smi metric --throttle --json`: per GPU, the sum of its thermal accumulators, `null` when all are N/A. */
export function parseAmdSmiThrottle(stdout: string): ParseResult<Map<string, number | null>> {
  const sel = selectRecords(stdout);
  if (!sel.ok) return sel;
  const out = new Map<string, number | null>();
  for (const rec of sel.value) {
    let sum: number | null = null;
    for (const key of THERMAL_ACCUMULATORS) {
      const r = accumulated(at(rec, ['throttle', key]));
      if (r !== null) sum = (sum ?? 0) + r;
    }
    out.set(`gpu${rec['gpu'] as number}`, sum);
  }
  return { ok: true, value: out };
}
