// float(str) in the wasm VM (assembly/pyfloat.ts) must be bit-identical to CPython 3.11.
// The expectations in fixtures/floats/golden-float.jsonl were produced by CPython itself
// (scripts/gen_float_corpus.py); this test needs no python3.
//
// The test entry assembly/testing/pyfloat-entry.ts is compiled here with the assemblyscript/asc
// JS API, like the VM (--runtime stub, -O3), into a temp dir. The stub runtime's bump heap only
// grows, so the entry exports resetHeap() (= __reset()) and the harness calls it after every case.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'assembly', 'testing', 'pyfloat-entry.ts');
const GOLDEN = join(ROOT, 'fixtures', 'floats', 'golden-float.jsonl');

interface Exports {
  memory: WebAssembly.Memory;
  allocInput(units: number): number;
  parseBits(ptr: number): bigint;
  lastError(): number;
  resetHeap(): void;
  transform(ptr: number): number;
  pySpace(cp: number): number;
  pyDecimal(cp: number): number;
}

interface Case {
  s: string;
  bits?: string;
  error?: string;
}

let dir = '';
let module: WebAssembly.Module;
let vm: Exports;

/** float(s) in the VM: 16 hex digits of the result, or 'ValueError'. */
function pyFloat(s: string): string {
  const ptr = vm.allocInput(s.length);
  const units = new Uint16Array(vm.memory.buffer, ptr, s.length); // after alloc: memory may grow
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  const bits = vm.parseBits(ptr);
  const error = vm.lastError() !== 0;
  vm.resetHeap();
  return error ? 'ValueError' : BigInt.asUintN(64, bits).toString(16).padStart(16, '0');
}

/** transformDecimalAndSpaceToAscii(s) in the VM. */
function transform(s: string): string {
  const ptr = vm.allocInput(s.length);
  const units = new Uint16Array(vm.memory.buffer, ptr, s.length);
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  const out = vm.transform(ptr);
  const byteLength = new Uint32Array(vm.memory.buffer, out - 4, 1)[0]!; // AS object header rtSize
  const result = String.fromCharCode(...new Uint16Array(vm.memory.buffer, out, byteLength >>> 1));
  vm.resetHeap();
  return result;
}

function show(s: string): string {
  return s.length > 120 ? `${JSON.stringify(s.slice(0, 100))}... (${s.length} chars)` : JSON.stringify(s);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pyfloat-'));
  // An empty config of our own, so the repository's asconfig.json (build/vm.wasm) is not applied.
  writeFileSync(join(dir, 'asconfig.json'), '{}');
  const wasmPath = join(dir, 'pyfloat.wasm');
  const stderr = asc.createMemoryStream();
  const { error } = await asc.main(
    [ENTRY, '--config', join(dir, 'asconfig.json'), '--runtime', 'stub', '-O3', '--outFile', wasmPath],
    { stdout: asc.createMemoryStream(), stderr },
  );
  if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
  module = new WebAssembly.Module(readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, {
    env: {
      abort(): never {
        throw new Error('abort() called in pyfloat wasm');
      },
    },
  });
  vm = instance.exports as unknown as Exports;
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('float(str) in AssemblyScript', { timeout: 120_000 }, () => {
  it('imports nothing from the host but env.abort', () => {
    const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
    expect(imports).toEqual(['env.abort']);
  });

  it('agrees bit for bit with CPython 3.11 on the golden corpus', () => {
    const lines = readFileSync(GOLDEN, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    const meta = JSON.parse(lines[0]!) as { meta?: { cases: number } };
    expect(meta.meta?.cases).toBe(lines.length - 1);
    expect(lines.length - 1).toBeGreaterThanOrEqual(100_000);

    const pagesBefore = vm.memory.buffer.byteLength;
    const failures: string[] = [];
    let errors = 0;
    for (const line of lines.slice(1)) {
      const c = JSON.parse(line) as Case;
      const want = c.error ?? c.bits!;
      if (c.error) errors++;
      const got = pyFloat(c.s);
      if (got !== want) failures.push(`${show(c.s)}: want ${want}, got ${got}`);
    }
    if (failures.length > 0) {
      console.error(`${failures.length} mismatches; first 30:\n${failures.slice(0, 30).join('\n')}`);
    }
    expect(failures.length, failures.slice(0, 30).join('\n')).toBe(0);
    expect(errors).toBeGreaterThan(1000); // the corpus does exercise the ValueError paths
    // resetHeap() between cases keeps the stub heap from growing without bound.
    expect(vm.memory.buffer.byteLength).toBeLessThanOrEqual(Math.max(pagesBefore, 4 * 65536));
  }, 60_000);

  it('spot checks (readable failures for the classic cases)', () => {
    const cases: [string, string][] = [
      ['1', '3ff0000000000000'],
      ['-nan', 'fff8000000000000'], // _Py_dg_stdnan(1): NaN with the sign bit set
      ['nan', '7ff8000000000000'],
      ['-iNfInItY', 'fff0000000000000'],
      ['1e400', '7ff0000000000000'], // overflow is inf, not an error
      ['-1e-400', '8000000000000000'],
      ['2.4703282292062327e-324', '0000000000000000'],
      ['2.4703282292062328e-324', '0000000000000001'],
      ['1.7976931348623159e308', '7ff0000000000000'],
      ['9007199254740993', '4340000000000000'], // 2^53 + 1 ties to even
      ['1_000.5_5', '408f446666666666'],
      ['\u0661\u0662', '4028000000000000'], // Arabic-Indic digits
      ['\u{1d7cf}', '3ff0000000000000'], // MATHEMATICAL BOLD DIGIT ONE, a surrogate pair
      ['\u3000-1\u2028', 'bff0000000000000'],
      ['1__0', 'ValueError'],
      ['1e', 'ValueError'],
      ['1\x1c', 'ValueError'], // str.isspace() but not Py_ISSPACE
      ['1\0', 'ValueError'],
      ['\ud835', 'ValueError'], // lone surrogate
      ['', 'ValueError'],
    ];
    for (const [s, want] of cases) expect(pyFloat(s), show(s)).toBe(want);
  });

  it('transformDecimalAndSpaceToAscii and the Unicode 14 tables', () => {
    expect(transform('  1.5e-3_0 ')).toBe('  1.5e-3_0 '); // ASCII: unchanged
    expect(transform('\u0661\u00a0\u{1d7d7}.\u3000')).toBe('1 9. ');
    // CPython stops at the first character that is neither space nor digit: '?' ends the result.
    expect(transform('1\u2603 2')).toBe('1?');
    expect(transform('\u00b2')).toBe('?'); // SUPERSCRIPT TWO is No, not Nd
    expect(transform('\u00e9\x7f')).toBe('?');
    expect(transform('\u0661\x7f2')).toBe('1?'); // DEL: CPython copies only ch < 127
    expect(transform('\ud835x')).toBe('?'); // lone surrogate
    let spaces = 0;
    let digits = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (vm.pySpace(cp)) spaces++;
      const d = vm.pyDecimal(cp);
      if (d >= 0) digits++;
    }
    expect([spaces, digits]).toEqual([29, 660]); // Unicode 14.0.0 (CPython 3.11)
    expect(vm.pyDecimal(0x1d7cf)).toBe(1);
    expect(vm.pyDecimal(0x1d7ff)).toBe(9);
    expect(vm.pyDecimal(0x1fbf0)).toBe(0);
    expect(vm.pyDecimal(0xb2)).toBe(-1);
  });
});
