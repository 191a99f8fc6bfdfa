#!/usr/bin/env node
// Live differential check of assembly/bigint.ts against python3 (CPython 3.11) on fresh random
// cases, plus timings. Not part of `npm test` (it needs python3).
//
//   node scripts/check-bigint-live.mjs [--cases 200000] [--seed N] [--no-bench]
//
// Cases are generated here (JS BigInt), answered by `python3 scripts/gen_bigint_corpus.py --oracle`,
// and run through the compiled test entry (scripts/bigint-harness.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileBigint, instantiateBigint, runCases } from './bigint-harness.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const TOTAL = Number(arg('--cases', '200000'));
const SEED = BigInt(arg('--seed', String(Date.now())));

// splitmix64
let state = SEED & 0xffffffffffffffffn;
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
}
const rnd = () => Number(next64() >> 11n) / 2 ** 53;
const randint = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const choice = (arr) => arr[Math.floor(rnd() * arr.length)];
function randBits(n) {
  if (n <= 0) return 0n;
  let v = 0n;
  for (let k = 0; k < n; k += 64) v = (v << 64n) | next64();
  v &= (1n << BigInt(n)) - 1n;
  return v | (1n << BigInt(n - 1));
}
const EDGE_LIMBS = [0n, 0xffffffffn, 0x80000000n, 0x7fffffffn, 1n, 0xfffffffen];
function limbPattern(n) {
  let v = 0n;
  for (let i = 0; i < n; i++) v = (v << 32n) | (rnd() < 0.75 ? choice(EDGE_LIMBS) : next64() & 0xffffffffn);
  return v === 0n ? 1n : v;
}
function sizeBits() {
  const p = rnd();
  if (p < 0.5) return randint(1, 70);
  if (p < 0.8) return randint(70, 300);
  if (p < 0.98) return Math.floor(300 * (3000 / 300) ** rnd());
  return Math.floor(3000 * (12000 / 3000) ** rnd());
}
function special() {
  const k = choice([1, 31, 32, 33, 52, 53, 54, 63, 64, 65, 96, 128, 1022, 1023, 1024, 1025, 1074, 1075, 2000]);
  const base = rnd() < 0.5 ? 1n << BigInt(k) : 10n ** BigInt(Math.min(k, 1000));
  return base + BigInt(randint(-2, 2));
}
function randInt({ zero = true, signed = true } = {}) {
  const p = rnd();
  let v;
  if (p < 0.6) v = randBits(sizeBits());
  else if (p < 0.85) v = limbPattern(Math.max(1, Math.floor(sizeBits() / 32)));
  else v = special();
  if (rnd() < 0.03) v = BigInt(randint(0, 10));
  if (!zero && v === 0n) v = 1n;
  return signed && rnd() < 0.5 ? -v : v;
}
const hx = (v) => (v < 0n ? '-0x' + (-v).toString(16) : '0x' + v.toString(16));
const fbuf = new DataView(new ArrayBuffer(8));
function fbits(x) {
  fbuf.setFloat64(0, x);
  return fbuf.getBigUint64(0).toString(16).padStart(16, '0');
}
function randFloat() {
  const p = rnd();
  if (p < 0.3) {
    for (;;) {
      fbuf.setBigUint64(0, next64());
      const x = fbuf.getFloat64(0);
      if (Number.isFinite(x)) return x;
    }
  }
  if (p < 0.6) return (rnd() < 0.5 ? -1 : 1) * (1 + rnd()) * 2 ** randint(-70, 1023);
  if (p < 0.8) return Number(randBits(randint(1, 1024))) * (rnd() < 0.5 ? -1 : 1);
  if (p < 0.9) return randint(-1e6, 1e6) / choice([2, 4, 8, 3, 10]);
  return choice([0, -0, 0.5, -0.5, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 1e308, 5e-324, Infinity, -Infinity]);
}

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
const WS = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];
function parseString(base) {
  let real = base;
  let prefix = '';
  if (base === 0) {
    real = choice([10, 10, 16, 8, 2]);
    prefix = { 10: '', 16: choice(['0x', '0X']), 8: choice(['0o', '0O']), 2: choice(['0b', '0B']) }[real];
  } else if ((base === 16 || base === 8 || base === 2) && rnd() < 0.4) {
    prefix = { 16: '0x', 8: '0o', 2: '0b' }[base];
  }
  const nd =
    rnd() < 0.01
      ? choice([4299, 4300, 4301, 4302])
      : choice([1, 2, 3, randint(1, 15), randint(1, 60), randint(1, 200)]);
  let body = '';
  for (let i = 0; i < nd; i++) {
    const c = DIGITS[randint(0, real - 1)];
    body += rnd() < 0.2 ? c.toUpperCase() : c;
  }
  if (rnd() < 0.3) body = '0'.repeat(randint(1, 3)) + body;
  if (rnd() < 0.3)
    body = body
      .split('')
      .map((c, i) => (i > 0 && rnd() < 0.2 ? '_' + c : c))
      .join('');
  if (prefix && rnd() < 0.2) body = '_' + body;
  let s = prefix + body;
  if (rnd() < 0.4) s = choice(['+', '-']) + s;
  if (rnd() < 0.3) s = choice(WS) + s;
  if (rnd() < 0.3) s = s + choice(WS) + (rnd() < 0.3 ? choice(WS) : '');
  const mutations = rnd() < 0.35 ? randint(1, 2) : 0;
  for (let m = 0; m < mutations; m++) {
    const junk = choice([
      '_',
      '__',
      ' ',
      '+',
      '-',
      '0',
      'x',
      'X',
      'o',
      'b',
      '?',
      '.',
      '\x00',
      '\x1c',
      'g',
      'z',
      '9',
      '1',
    ]);
    const i = randint(0, s.length);
    const k = rnd();
    if (k < 0.4) s = s.slice(0, i) + junk + s.slice(i);
    else if (k < 0.7) s = s.slice(0, i) + s.slice(i + 1);
    else s = s.slice(0, i) + junk + s.slice(i + 1);
  }
  return s;
}

function genCase() {
  const p = rnd();
  if (p < 0.2) {
    const op = choice(['add', 'sub', 'mul', 'cmp']);
    const a = randInt();
    const b = op === 'cmp' && rnd() < 0.3 ? a + BigInt(randint(-1, 1)) : randInt();
    return [op, hx(a), hx(b)];
  }
  if (p < 0.4) {
    const op = choice(['floordiv', 'mod']);
    let a, b;
    if (rnd() < 0.5) {
      a = randInt();
      b = randInt({ zero: false });
    } else {
      b = limbPattern(randint(1, 10));
      a = limbPattern(randint(1, 25));
      if (rnd() < 0.3) a = a * b + BigInt(randint(-1, 1));
      if (rnd() < 0.5) a = -a;
      if (rnd() < 0.5) b = -b;
    }
    return [op, hx(a), hx(b)];
  }
  if (p < 0.55) {
    let a, b;
    const c = rnd();
    if (c < 0.4) {
      a = randInt();
      b = randInt({ zero: false });
    } else if (c < 0.7) {
      const M = randBits(choice([54, 55, 56])) | 1n;
      b = randBits(randint(1, 400));
      a = M * b + BigInt(choice([0, 0, 1, -1]));
      const k = randint(-1100, 1000);
      if (k > 0) a <<= BigInt(k);
      else b <<= BigInt(-k);
    } else if (c < 0.9) {
      const rr = randBits(randint(1, 150));
      a = randBits(randint(1, 60)) * rr + BigInt(choice([0, 1, -1]));
      b = rr << BigInt(randint(1000, 1140));
    } else {
      const rr = randBits(randint(1, 200));
      a = choice([2n ** 1024n - 2n ** 970n, 2n ** 1024n, 2n ** 1024n - 2n ** 971n]) * rr + BigInt(randint(-1, 1));
      b = rr;
    }
    if (rnd() < 0.5) a = -a;
    if (rnd() < 0.5) b = -b;
    return ['truediv', hx(a), hx(b)];
  }
  if (p < 0.62) {
    let v = randInt();
    if (rnd() < 0.5) {
      const nb = randint(54, 1030);
      const cut = BigInt(nb - 53);
      v = (randBits(nb) >> cut) << cut;
      v |= 1n << (cut - 1n);
      const k = rnd();
      if (k < 0.35 && cut > 1n) v |= randBits(Number(cut) - 1) & ((1n << (cut - 1n)) - 1n);
      else if (k < 0.7 && cut > 1n) v |= 1n << BigInt(randint(0, Number(cut) - 2));
      if (rnd() < 0.5) v = -v;
    }
    return ['tof64', hx(v), ''];
  }
  if (p < 0.66) {
    const x = randFloat();
    return Number.isFinite(x) ? ['fromf64', fbits(x), ''] : ['fromf64', fbits(1.5), ''];
  }
  if (p < 0.73) {
    const x = randFloat();
    let a;
    if (Number.isFinite(x) && rnd() < 0.7) a = BigInt(Math.trunc(x)) + BigInt(choice([-1, 0, 0, 1]));
    else a = randInt();
    return ['cmpf64', hx(a), fbits(x)];
  }
  if (p < 0.78) {
    let a = randInt();
    if (rnd() < 0.02) a = (10n ** 4300n - BigInt(randint(-3, 3))) * (rnd() < 0.5 ? -1n : 1n);
    return ['repr', hx(a), ''];
  }
  if (p < 0.9) {
    const base = choice([0, 0, 10, 10, 2, 8, 16, randint(2, 36)]);
    return ['parse', parseString(base), String(base)];
  }
  if (p < 0.93) {
    const a = rnd() < 0.7 ? BigInt(randint(-30, 30)) : randInt();
    const bl = a < 0n ? (-a).toString(2).length : a.toString(2).length;
    return ['pow', hx(a), String(randint(0, Math.max(0, Math.min(150, Math.floor(8000 / bl)))))];
  }
  if (p < 0.96) {
    const v = rnd() < 0.5 ? BigInt.asIntN(64, next64()) + BigInt(randint(-2, 2)) : randInt();
    return ['i64', hx(v), ''];
  }
  if (p < 0.97) return ['fromi64', BigInt.asIntN(64, next64()).toString(), ''];
  if (p < 0.985) return ['fmt', hx(randInt()), String(choice([2, 8, 16]))];
  return [choice(['neg', 'abs', 'sign']), hx(randInt()), ''];
}

function oracle(cases) {
  const input = cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const r = spawnSync('python3', ['scripts/gen_bigint_corpus.py', '--oracle'], {
    cwd: ROOT,
    input,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

const compiled = await compileBigint();
console.log(`compiled test entry (stub) in ${compiled.seconds.toFixed(2)} s, ${compiled.size} bytes; seed ${SEED}`);
const builds = [['stub', compiled.module]];
if (existsSync(new URL('../assembly/rt/arena.ts', import.meta.url))) {
  const arena = await compileBigint({ runtime: 'arena' });
  console.log(`compiled test entry (VM arena runtime) in ${arena.seconds.toFixed(2)} s, ${arena.size} bytes`);
  builds.push(['arena', arena.module]);
}

let done = 0;
let failed = 0;
const failures = [];
const counts = {};
const t0 = performance.now();
let wasmMs = 0;
while (done < TOTAL) {
  const n = Math.min(20000, TOTAL - done);
  const batch = [];
  for (let i = 0; i < n; i++) {
    const c = genCase();
    counts[c[0]] = (counts[c[0]] ?? 0) + 1;
    batch.push(c);
  }
  const answered = oracle(batch);
  for (const [name, module] of builds) {
    const tw = performance.now();
    const r = runCases(module, answered, 30 - failures.length);
    wasmMs += performance.now() - tw;
    failed += r.failed;
    failures.push(...r.failures.map((f) => `[${name}] ${f}`));
  }
  done += n;
}
console.log(
  `${done} live cases x ${builds.length} builds (${builds.map((b) => b[0]).join(', ')}), ${failed} failed (${((performance.now() - t0) / 1000).toFixed(1)} s total, ${(wasmMs / 1000).toFixed(2)} s in wasm)`,
);
console.log(
  'by op: ' +
    Object.entries(counts)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
);
for (const f of failures) console.log('  ' + f);

if (!argv.includes('--no-bench')) {
  const { run } = instantiateBigint(compiled.module);
  const time = (label, op, x, y, iters) => {
    for (let i = 0; i < 3; i++) run(op, x, y);
    const base = (() => {
      const t = performance.now();
      const nx = op === 'parse' ? '0x0' : x;
      const ny = y.startsWith('0x') || y.startsWith('-0x') ? y : '';
      for (let i = 0; i < iters; i++) run('nop', nx, ny);
      return (performance.now() - t) / iters;
    })();
    const t = performance.now();
    for (let i = 0; i < iters; i++) run(op, x, y);
    const per = (performance.now() - t) / iters;
    console.log(`  ${label}: ${per.toFixed(3)} ms/call (${Math.max(0, per - base).toFixed(3)} ms excluding hex I/O)`);
  };
  const d = (n) => 10n ** BigInt(n - 1) + randBits(Math.floor(n * 3.3) - 8);
  console.log('timings (one call, -O3 test build, includes string marshalling):');
  time('parse 4300-digit decimal string', 'parse', '9'.repeat(4300), '10', 200);
  time('parse 4301-digit decimal string (limit error)', 'parse', '9'.repeat(4301), '10', 200);
  time('repr of a 4300-digit int', 'repr', hx(10n ** 4300n - 1n), '', 200);
  time('repr of a 15000-digit int (limit, no conversion)', 'repr', hx(10n ** 15000n - 1n), '', 200);
  time('10,000-digit // 5,000-digit', 'floordiv', hx(d(10000)), hx(d(5000)), 50);
  time('10,000-digit // 9-digit', 'floordiv', hx(d(10000)), hx(d(9)), 200);
  time('15,000-digit // 7,500-digit', 'floordiv', hx(d(15000)), hx(-d(7500)), 30);
  time('15,000-digit % 14,990-digit', 'mod', hx(d(15000)), hx(d(14990)), 30);
  time('5,000-digit * 5,000-digit', 'mul', hx(d(5000)), hx(d(5000)), 30);
  time('truediv 15,000-digit / 14,900-digit', 'truediv', hx(d(15000)), hx(d(14900)), 100);
  time('float() of a 300-digit int', 'tof64', hx(d(300)), '', 1000);
  time('cmp 15,000-digit int with 1e308', 'cmpf64', hx(d(15000)), fbits(1e308), 200);
}
process.exitCode = failed === 0 ? 0 : 1;
