#!/usr/bin/env node
// Live differential check of the wasm float(str) against the running CPython 3.11:
//
//   node scripts/check-pyfloat-live.mjs [--count 1000000] [--seed N]
//
// python3 scripts/gen_float_corpus.py --live streams fresh random cases (input string plus the
// bits CPython's float() gave, or ValueError); each is run through assembly/pyfloat.ts compiled
// exactly as in test/pyfloat.test.ts (assembly/testing/pyfloat-entry.ts, --runtime stub, -O3,
// resetHeap() after every case). Prints the seed, the counts and the first 30 mismatches; the
// exit status is 1 if any case disagrees.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const count = Number(option('count', '1000000'));
const seed = option('seed', undefined);

async function compile() {
  const dir = mkdtempSync(join(tmpdir(), 'pyfloat-live-'));
  try {
    writeFileSync(join(dir, 'asconfig.json'), '{}'); // keep the repository's asconfig.json out
    const wasmPath = join(dir, 'pyfloat.wasm');
    const stderr = asc.createMemoryStream();
    const { error } = await asc.main(
      [
        join(ROOT, 'assembly/testing/pyfloat-entry.ts'),
        '--config',
        join(dir, 'asconfig.json'),
        '--runtime',
        'stub',
        '-O3',
        '--outFile',
        wasmPath,
      ],
      { stdout: asc.createMemoryStream(), stderr },
    );
    if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
    return readFileSync(wasmPath);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const wasm = await compile();
const { exports: vm } = new WebAssembly.Instance(new WebAssembly.Module(wasm), {
  env: {
    abort() {
      throw new Error('abort() called in pyfloat wasm');
    },
  },
});

function pyFloat(s) {
  const ptr = vm.allocInput(s.length);
  const units = new Uint16Array(vm.memory.buffer, ptr, s.length);
  for (let i = 0; i < s.length; i++) units[i] = s.charCodeAt(i);
  const bits = vm.parseBits(ptr);
  const error = vm.lastError() !== 0;
  vm.resetHeap();
  return error ? 'ValueError' : BigInt.asUintN(64, bits).toString(16).padStart(16, '0');
}

const args = ['scripts/gen_float_corpus.py', '--live', '--count', String(count)];
if (seed !== undefined) args.push('--seed', seed);
const python = spawn('python3', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });

const started = Date.now();
let total = 0;
let errors = 0;
let wasmNs = 0n;
const failures = [];
for await (const line of createInterface({ input: python.stdout, crlfDelay: Infinity })) {
  if (!line) continue;
  const c = JSON.parse(line);
  if (c.meta) {
    console.log(`seed ${c.meta.seed}, ${c.meta.count} cases`);
    continue;
  }
  const want = c.error ?? c.bits;
  if (c.error) errors++;
  const t0 = process.hrtime.bigint();
  const got = pyFloat(c.s);
  wasmNs += process.hrtime.bigint() - t0;
  total++;
  if (got !== want) {
    failures.push(`${JSON.stringify(c.s.length > 200 ? c.s.slice(0, 200) + '...' : c.s)}: want ${want}, got ${got}`);
  }
}
const status = await new Promise((resolve) => python.on('close', resolve));
if (status !== 0) {
  console.error(`gen_float_corpus.py exited with ${status}`);
  process.exit(2);
}
console.log(
  `${total} cases (${errors} ValueError), ${failures.length} mismatches; ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s total, ${(Number(wasmNs) / 1e9).toFixed(2)} s in wasm calls`,
);
if (failures.length > 0) {
  console.log(`first ${Math.min(30, failures.length)}:\n${failures.slice(0, 30).join('\n')}`);
  process.exit(1);
}
