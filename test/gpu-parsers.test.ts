import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAmdSmiMetricMemory, parseAmdSmiProcess, parseAmdSmiVersion } from '../src/gpu/amd-smi.js';
import { AMD_SMI_DRIVER, NVIDIA_SMI_DRIVER, amdUsedMib } from '../src/gpu/drivers.js';
import { extractJsonDocuments, MAX_JSON_DOCUMENTS } from '../src/gpu/json-docs.js';
import { parseNvidiaSmiComputeApps, parseNvidiaSmiGpuQuery } from '../src/gpu/nvidia-smi.js';
import { parseProcStatPpid } from '../src/gpu/proc-tree.js';
import { toMiB } from '../src/gpu/units.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/gpu-tools/${name}`, import.meta.url), 'utf8');

const U0 = 'GPU-3f1c9a2e-7b4d-4c8e-a1f0-5d6e7f809a1b';
const U1 = 'GPU-b27e4d10-9c3a-4f5b-8e2d-0a1b2c3d4e5f';

/** The two idle GPUs most metric fixtures describe. */
const IDLE_2GPU = [
  { gpu: 0, usedVramMib: 512, totalVramMib: 49136, usedGttMib: 14, totalGttMib: 64216 },
  { gpu: 1, usedVramMib: 256, totalVramMib: 49136, usedGttMib: 14, totalGttMib: 64216 },
];

describe('toMiB', () => {
  it.each([
    [512, 'MB', 512],
    [7889485824, 'B', 7524],
    [7889485825, 'B', 7524 + 1 / 1048576],
    [{ value: 2, unit: 'GB' }, 'MB', 2048],
    [{ value: 1048576 }, 'B', 1],
    [{ value: 3, unit: 'GiB' }, 'B', 3072],
    [{ value: '1.5 GB', unit: 'MB' }, 'MB', 1536],
    ['1.5 GiB', 'MB', 1536],
    ['202MB', 'B', 202],
    ['512', 'MiB', 512],
    ['4 KiB', 'MB', 0.00390625],
  ] as const)('%j in %s is %d MiB', (value, unit, mib) => {
    expect(toMiB(value, unit)).toBe(mib);
  });

  it.each([
    ['N/A'],
    ['[N/A]'],
    ['[Not Supported]'],
    [{ value: 'N/A', unit: 'MB' }],
    [{ value: 97, unit: 'W' }],
    [{ value: 12.5, unit: '%' }],
    [{ value: { value: 1, unit: 'MB' }, unit: 'MB' }],
    [-1],
    [Number.NaN],
    [null],
    [undefined],
    [true],
    [['N/A']],
    ['12 parsecs'],
  ] as const)('%j is unknown (null), never 0', (value) => {
    expect(toMiB(value, 'MB')).toBeNull();
  });
});

describe('extractJsonDocuments', () => {
  it('finds documents after text, across lines, several on one line, and skips a broken candidate', () => {
    const text = 'WARNING: x\ntext {"a": "}\\"{"}\n[1,\n 2][3]\n{bad\n  {"b": [ ]}\ntrailing';
    expect(extractJsonDocuments(text)).toEqual([
      { value: { a: '}"{' }, line: 2 },
      { value: [1, 2], line: 3 },
      { value: [3], line: 4 },
      { value: { b: [] }, line: 6 },
    ]);
  });

  it('finds nothing in a traceback', () => {
    expect(extractJsonDocuments(fixture('amd-smi/garbage-traceback.txt'))).toEqual([]);
  });
});

describe('parseAmdSmiMetricMemory: every shape', () => {
  it('6.0, one GPU: a bare object of ints', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm6.0-1gpu.json'))).toEqual({
      ok: true,
      value: [IDLE_2GPU[0]],
    });
  });
  it.each([
    ['6.0, two GPUs: a list of ints', 'amd-smi/metric-rocm6.0-2gpu.json'],
    ['6.1–6.4: a list of {value, unit}', 'amd-smi/metric-rocm6.1-6.4-2gpu.json'],
    ['7.x: {"gpu_data": [...]}', 'amd-smi/metric-rocm7.x-2gpu.json'],
    ['6.4+: the groups WARNING on stdout before the JSON', 'amd-smi/metric-rocm6.4-groups-warning.txt'],
  ])('%s', (_name, file) => {
    expect(parseAmdSmiMetricMemory(fixture(file))).toEqual({ ok: true, value: IDLE_2GPU });
  });
  it('watch mode: banner, then one list per iteration; the last one wins', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-watch-2-iterations.txt'))).toEqual({
      ok: true,
      value: [{ gpu: 0, usedVramMib: 1024, totalVramMib: 49136, usedGttMib: 14, totalGttMib: 64216 }],
    });
  });
  it('7.2.x: the same document printed twice', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm7.2-duplicated.txt'))).toEqual({
      ok: true,
      value: [IDLE_2GPU[0]],
    });
  });
  it('EPYC hosts: CPU and core documents before the GPU one', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm6.1-epyc-cpu-core-gpu.txt'))).toEqual({
      ok: true,
      value: [IDLE_2GPU[0]],
    });
  });
  it('{"value": "N/A"} is unknown, not 0', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm7.x-na-value-object.json'))).toEqual({
      ok: true,
      value: [
        { gpu: 0, usedVramMib: null, totalVramMib: 49136, usedGttMib: 14, totalGttMib: 64216 },
        { gpu: 1, usedVramMib: 768, totalVramMib: 49136, usedGttMib: 14, totalGttMib: 64216 },
      ],
    });
  });
  it('a whole "mem_usage": "N/A" section', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm7.x-mem-usage-na.json'))).toEqual({
      ok: true,
      value: [{ gpu: 0, usedVramMib: null, totalVramMib: null, usedGttMib: null, totalGttMib: null }],
    });
  });
  it('an APU: small VRAM carve-out, the rest in GTT (counted as used memory)', () => {
    const r = parseAmdSmiMetricMemory(fixture('amd-smi/metric-rocm7.x-apu.json'));
    expect(r).toEqual({
      ok: true,
      value: [{ gpu: 0, usedVramMib: 143, totalVramMib: 512, usedGttMib: 1905, totalGttMib: 65536 }],
    });
    expect(amdUsedMib(r.ok ? r.value[0]! : IDLE_2GPU[0]!)).toBe(2048);
    expect(amdUsedMib(IDLE_2GPU[0]!)).toBe(512);
  });
  it('monitor -v field names are read too (6.0.2 ints)', () => {
    expect(parseAmdSmiMetricMemory('{"gpu": 0, "vram_used": 283, "vram_total": 196300}')).toEqual({
      ok: true,
      value: [{ gpu: 0, usedVramMib: 283, totalVramMib: 196300, usedGttMib: null, totalGttMib: null }],
    });
  });
});

describe('parseAmdSmiMetricMemory: failures', () => {
  it('6.x: a JSON error printed with exit status 0', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/error-rocm6.x-exit0.txt'))).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: "reported an error: Can not find a device: GPU '9' (code -3)", code: -3 },
    });
  });
  it('7.x: the error payload after the exception class name', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/error-rocm7.x-prefixed.txt'))).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: "reported an error: Can not find a device: GPU '9' (code -3)", code: -3 },
    });
  });
  it('a Python traceback', () => {
    expect(parseAmdSmiMetricMemory(fixture('amd-smi/garbage-traceback.txt'))).toEqual({
      ok: false,
      error: {
        kind: 'no-json',
        message: 'printed no JSON: "Traceback (most recent call last): File "/opt/rocm/bin/amd-smi", line 37, in <m…"',
      },
    });
  });
  it('nothing', () => {
    expect(parseAmdSmiMetricMemory('\n')).toEqual({
      ok: false,
      error: { kind: 'no-json', message: 'printed nothing' },
    });
  });
  it('JSON without GPU records', () => {
    expect(parseAmdSmiMetricMemory('[{"cpu": 0}]\n{"gpu_data": "N/A"}')).toEqual({
      ok: false,
      error: { kind: 'no-records', message: 'printed JSON without any GPU record' },
    });
  });
});

describe('parseAmdSmiProcess: every layout', () => {
  const p = (gpu: number, pid: number, name: string | null, vramMib: number | null) => ({ gpu, pid, name, vramMib });
  it.each([
    [
      '6.0–6.1.0, one process: process_info, ints in bytes',
      'amd-smi/process-rocm6.0-1proc.json',
      [p(0, 424242, 'python3', 2048)],
    ],
    [
      '6.0–6.1.0, several processes: values[]',
      'amd-smi/process-rocm6.0-2proc.json',
      [p(0, 424242, 'python3', 2048), p(0, 9999, null, 4096)],
    ],
    ['6.0–6.1.0, none: "Not Found"', 'amd-smi/process-rocm6.0-none.json', []],
    [
      '6.1.1: only the last process survives, ints',
      'amd-smi/process-rocm6.1.1-last-only.json',
      [p(0, 424243, 'python3', 1024)],
    ],
    [
      '6.1.2: only the last process survives, {value, unit}',
      'amd-smi/process-rocm6.1.2-last-only.json',
      [p(0, 424243, 'python3', 1024)],
    ],
    [
      '6.2–6.4: process_list, "No running processes detected" on the idle GPU',
      'amd-smi/process-rocm6.2-6.4-2gpu.json',
      [p(0, 424242, 'python3', 2048), p(0, 9999, null, 4096)],
    ],
    [
      '7.x: process_list with the newer fields',
      'amd-smi/process-rocm7.x-2gpu.json',
      [p(0, 424242, 'python3', 1536), p(1, 424243, 'python3', 512), p(1, 9999, null, 4096)],
    ],
    ['7.x, none', 'amd-smi/process-rocm7.x-none.json', []],
    [
      '6.4: the groups WARNING first; name N/A',
      'amd-smi/process-rocm6.4-groups-warning.txt',
      [p(0, 424242, null, 2048)],
    ],
  ])('%s', (_name, file, expected) => {
    expect(parseAmdSmiProcess(fixture(file))).toEqual({ ok: true, value: expected });
  });
  it('a JSON error is a failure', () => {
    expect(parseAmdSmiProcess(fixture('amd-smi/error-rocm6.x-exit0.txt'))).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: "reported an error: Can not find a device: GPU '9' (code -3)", code: -3 },
    });
  });
});

describe('parseAmdSmiVersion', () => {
  it.each([
    ['amd-smi/version-rocm6.2.txt', '24.6.3+9578815'],
    ['amd-smi/version-rocm6.4.txt', '25.3.0+ede62f2'],
    ['amd-smi/version-rocm7.x-distro.txt', '26.2.0+unknown'],
    ['amd-smi/garbage-traceback.txt', null],
  ])('%s → %s', (file, version) => {
    expect(parseAmdSmiVersion(fixture(file))).toBe(version);
  });
});

describe('nvidia-smi parsers', () => {
  it('--query-gpu, two GPUs', () => {
    expect(parseNvidiaSmiGpuQuery(fixture('nvidia-smi/query-gpu-2gpu.csv'))).toEqual({
      ok: true,
      value: [
        { index: 0, uuid: U0, usedMib: 512, totalMib: 46068, driverVersion: '550.54.15' },
        { index: 1, uuid: U1, usedMib: 256, totalMib: 46068, driverVersion: '550.54.15' },
      ],
    });
  });
  it('--query-gpu with units left in', () => {
    expect(parseNvidiaSmiGpuQuery(fixture('nvidia-smi/query-gpu-1gpu-with-units.csv'))).toEqual({
      ok: true,
      value: [{ index: 0, uuid: U0, usedMib: 512, totalMib: 81920, driverVersion: '570.86.10' }],
    });
  });
  it('--query-gpu with [N/A]', () => {
    expect(parseNvidiaSmiGpuQuery(fixture('nvidia-smi/query-gpu-na.csv'))).toEqual({
      ok: true,
      value: [{ index: 0, uuid: U0, usedMib: null, totalMib: null, driverVersion: '535.104.05' }],
    });
  });
  it('--query-gpu: other fields, a header, or nothing are failures', () => {
    expect(parseNvidiaSmiGpuQuery(fixture('nvidia-smi/query-gpu-wrong-fields.csv'))).toEqual({
      ok: false,
      error: {
        kind: 'bad-line',
        message:
          'printed a line that is not index, uuid, memory.used, memory.total, driver_version: "memory.used [MiB], memory.total [MiB]"',
      },
    });
    expect(parseNvidiaSmiGpuQuery('')).toEqual({
      ok: false,
      error: { kind: 'no-records', message: 'printed no GPU line' },
    });
    expect(parseNvidiaSmiGpuQuery('x, a, 1, 2, 3')).toEqual({
      ok: false,
      error: { kind: 'bad-line', message: 'printed a GPU line without an index: "x"' },
    });
  });
  it('--query-compute-apps: one row per (pid, GPU)', () => {
    expect(parseNvidiaSmiComputeApps(fixture('nvidia-smi/compute-apps-2gpu.csv'))).toEqual({
      ok: true,
      value: [
        { pid: 424242, gpuUuid: U0, usedMib: 1536 },
        { pid: 424242, gpuUuid: U1, usedMib: 512 },
        { pid: 9999, gpuUuid: U0, usedMib: 4096 },
      ],
    });
  });
  it('--query-compute-apps: nothing when no process, [N/A] under WDDM, garbage', () => {
    expect(parseNvidiaSmiComputeApps(fixture('nvidia-smi/compute-apps-empty.csv'))).toEqual({ ok: true, value: [] });
    expect(parseNvidiaSmiComputeApps(fixture('nvidia-smi/compute-apps-wddm-na.csv'))).toEqual({
      ok: true,
      value: [{ pid: 424242, gpuUuid: U0, usedMib: null }],
    });
    expect(parseNvidiaSmiComputeApps(fixture('nvidia-smi/driver-failure.txt'))).toEqual({
      ok: false,
      error: {
        kind: 'bad-line',
        message: `printed a line that is not pid, gpu_uuid, used_memory: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. M…"`,
      },
    });
  });
});

describe('drivers: tool output to readings', () => {
  it('a device reading where every GPU is N/A is a failed sample', () => {
    expect(AMD_SMI_DRIVER.device.parse(fixture('amd-smi/metric-rocm7.x-mem-usage-na.json'))).toEqual({
      ok: false,
      error: { kind: 'no-records', message: 'reported used memory as N/A for every GPU' },
    });
    expect(NVIDIA_SMI_DRIVER.device.parse(fixture('nvidia-smi/query-gpu-na.csv'))).toEqual({
      ok: false,
      error: { kind: 'no-records', message: 'reported used memory as N/A for every GPU' },
    });
  });
  it("keys GPUs by amd-smi index or nvidia uuid, with each key's device index, and carries the driver version", () => {
    expect(AMD_SMI_DRIVER.device.parse(fixture('amd-smi/metric-rocm7.x-na-value-object.json'))).toEqual({
      ok: true,
      value: {
        usedMib: new Map([
          ['gpu0', null],
          ['gpu1', 768],
        ]),
        index: new Map([
          ['gpu0', '0'],
          ['gpu1', '1'],
        ]),
      },
    });
    expect(NVIDIA_SMI_DRIVER.device.parse(fixture('nvidia-smi/query-gpu-2gpu.csv'))).toEqual({
      ok: true,
      value: {
        usedMib: new Map([
          [U0, 512],
          [U1, 256],
        ]),
        index: new Map([
          [U0, '0'],
          [U1, '1'],
        ]),
        toolVersion: '550.54.15',
      },
    });
  });
});

describe('parseProcStatPpid', () => {
  it('reads the ppid after the last ")" (command names may hold spaces and parentheses)', () => {
    expect(parseProcStatPpid('4321 (my (odd) name) S 77 4321 4321 0 -1 4194560 1 0 0 0')).toBe(77);
    expect(parseProcStatPpid('1 (systemd) S 0 1 1 0 -1')).toBe(0);
    expect(parseProcStatPpid('garbage')).toBeNull();
  });
});

describe('tool output size (issue 12 §3)', () => {
  it('`{}` printed a million times yields MAX_JSON_DOCUMENTS documents, and a record before them still parses', () => {
    const flood = '{}'.repeat(1_000_000);
    expect(extractJsonDocuments(flood).length).toBe(MAX_JSON_DOCUMENTS);
    const record =
      '[{"gpu": 0, "mem_usage": {"used_vram": {"value": 100, "unit": "MB"}, "total_vram": {"value": 1000, "unit": "MB"}}}]';
    const r = parseAmdSmiMetricMemory(`${record}\n${flood}`);
    expect(r.ok && r.value.map((g) => g.usedVramMib)).toEqual([100]);
  });
});
