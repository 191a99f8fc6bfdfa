// Shared by test/bigint.test.ts and scripts/check-bigint-live.mjs: compiles
// assembly/testing/bigint-entry.ts with the AssemblyScript JS API (same runtime and memory cap as
// build/vm.wasm: stub runtime, 16 fixed pages), instantiates it, and runs golden-style cases
// [op, x, y, expected] against it. Needs no python.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ENTRY = 'assembly/testing/bigint-entry.ts';

/** Operation names used in fixtures/bigint/golden-bigint.jsonl → entry op codes. */
export const OPS = {
  add: 0,
  sub: 1,
  mul: 2,
  floordiv: 3,
  mod: 4,
  pow: 5,
  neg: 6,
  abs: 7,
  cmp: 8,
  sign: 9,
  i64: 10,
  truediv: 11,
  tof64: 12,
  fromf64: 13,
  cmpf64: 14,
  repr: 15,
  parse: 16,
  fmt: 17,
  fromi64: 18,
  nop: 99,
};

/**
 * Compiles the test entry into a fresh temp dir; returns { module, wasmBytes, size, seconds }.
 * runtime 'stub' (default): AssemblyScript's stub runtime in 16 fixed pages (1 MiB).
 * runtime 'arena': assembly/rt/arena.ts with the VM's asconfig.json settings; its allocator
 * does not zero memory, so this also proves the code never reads uninitialised limbs.
 * @param {{ optimize?: boolean, runtime?: 'stub' | 'arena' }} [opts]
 */
export async function compileBigint(opts = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-bigint-'));
  const outFile = join(dir, 'bigint-test.wasm');
  const t0 = performance.now();
  let errText = '';
  const sink = {
    write: (s) => {
      errText += String(s);
      return true;
    },
  };
  try {
    const args = [ENTRY, '--outFile', outFile, '--exportRuntime', '--baseDir', ROOT];
    if (opts.runtime === 'arena') {
      // The VM's own settings (asconfig.json): custom bump arena that does not zero memory.
      args.push('--runtime', './assembly/rt/arena', '--noAssert', '--initialMemory', '2', '--maximumMemory', '16384');
      if (opts.optimize !== false) args.push('-O3', '--shrinkLevel', '0');
    } else {
      args.push('--runtime', 'stub', '--initialMemory', '16', '--maximumMemory', '16');
      if (opts.optimize !== false) args.push('-O3', '--shrinkLevel', '1');
    }
    const { error } = await asc.main(args, { stdout: sink, stderr: sink });
    if (error) throw new Error(`asc failed: ${error.message}\n${errText}`);
    const wasmBytes = readFileSync(outFile);
    const module = new WebAssembly.Module(wasmBytes);
    return { module, wasmBytes, size: statSync(outFile).size, seconds: (performance.now() - t0) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Instantiates the module; returns { run(op, x, y) -> string, ex }. */
export function instantiateBigint(module) {
  let ex;
  const imports = {
    env: {
      abort(msg, file, line, col) {
        throw new Error(`abort: ${liftString(msg)} at ${liftString(file)}:${line}:${col}`);
      },
    },
  };
  const inst = new WebAssembly.Instance(module, imports);
  ex = inst.exports;
  const mem = ex.memory;

  function liftString(ptr) {
    if (!ptr) return '';
    const bytes = new Uint32Array(mem.buffer)[(ptr - 4) >>> 2];
    const u16 = new Uint16Array(mem.buffer, ptr, bytes >>> 1);
    let out = '';
    for (let i = 0; i < u16.length; i += 1024) out += String.fromCharCode.apply(null, u16.subarray(i, i + 1024));
    return out;
  }
  function lowerString(s) {
    const ptr = ex.__new(s.length << 1, 2) >>> 0;
    const u16 = new Uint16Array(mem.buffer, ptr, s.length);
    for (let i = 0; i < s.length; i++) u16[i] = s.charCodeAt(i);
    return ptr;
  }
  function run(op, x, y) {
    const code = OPS[op];
    if (code === undefined) throw new Error(`unknown op ${op}`);
    ex.reset();
    const px = lowerString(x);
    const py = lowerString(y ?? '');
    return liftString(ex.run(code, px, py) >>> 0);
  }
  return { run, exports: ex };
}

/**
 * Runs cases [op, x, y, expected]; returns { failures: string[], count }.
 * A trap re-instantiates the module and counts as a failure.
 */
export function runCases(module, cases, maxFailures = 30) {
  let inst = instantiateBigint(module);
  const failures = [];
  let failed = 0;
  for (const c of cases) {
    const [op, x, y, expected] = c;
    let got;
    try {
      got = inst.run(op, x, y);
    } catch (e) {
      got = `TRAP ${e?.message}`;
      inst = instantiateBigint(module);
    }
    if (got !== expected) {
      failed++;
      if (failures.length < maxFailures) {
        const clip = (s) => (s.length > 160 ? `${s.slice(0, 80)}…(${s.length} chars)…${s.slice(-40)}` : s);
        failures.push(
          `${op}(${JSON.stringify(clip(x))}, ${JSON.stringify(clip(y ?? ''))}): expected ${clip(expected)}, got ${clip(got)}`,
        );
      }
    }
  }
  return { failures, failed, count: cases.length };
}
