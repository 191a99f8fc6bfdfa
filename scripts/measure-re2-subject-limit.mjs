#!/usr/bin/env node
// Measures the largest subject (in UTF-8 bytes) that one re2-wasm `match` call can take before the
// fixed 16 MiB WebAssembly heap aborts with OOM. Each attempt runs in a fresh child process, because an
// emscripten abort leaves the module in an undefined state.
//
//   node src/regex/measure-subject-limit.mjs            # prints a JSON table
//
// The result feeds MAX_SUBJECT_UTF8_BYTES in src/regex/limits.ts (taken with ~50% headroom).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHARS = { 1: 'a', 2: '\u00e9', 3: '\u20ac', 4: '\u{1F600}' };
// No match (subject copy only), whole-subject match (+ one copy of the match), and whole match + capture.
const PATTERNS = ['zzz', '(?s).*', '(?s)(.*)', '[a-q][^u-z]{13}x'];

function attempt(width, pattern, bytes) {
  const src = `
    const { createRequire } = require('node:module');
    const M = createRequire(${JSON.stringify(fileURLToPath(import.meta.url))})('re2-wasm/build/wasm/re2.js');
    const s = ${JSON.stringify(CHARS[width])}.repeat(${Math.floor(bytes / width)});
    const w = new M.WrappedRE2(${JSON.stringify(pattern)}, false, false, false);
    const r = w.match(s, 0, true);
    process.stdout.write(String(r.index));
  `;
  const res = spawnSync(process.execPath, ['-e', src], { encoding: 'utf8', timeout: 120_000 });
  return res.status === 0;
}

function search(width, pattern) {
  let lo = 256 * 1024; // known good
  let hi = 16 * 1024 * 1024; // known bad: larger than the heap
  if (!attempt(width, pattern, lo)) return 0;
  while (hi - lo > 32 * 1024) {
    const mid = Math.floor((lo + hi) / 2);
    if (attempt(width, pattern, mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

const out = [];
for (const pattern of PATTERNS) {
  for (const width of [1, 2, 3, 4]) {
    const max = search(width, pattern);
    out.push({ pattern, width, maxUtf8Bytes: max });
    process.stderr.write(`${pattern}\twidth=${width}\tmax≈${max} bytes (${(max / 1048576).toFixed(2)} MiB)\n`);
  }
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
