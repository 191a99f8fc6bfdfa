import { it } from 'vitest';
import { heapProbe } from '../src/regex/index.js';
import { newRawRE2 } from '../src/regex/engine.js';
import { translatePythonRegex } from '../src/regex/syntax.js';
it('probe', () => {
  for (const src of [translatePythonRegex('\\w').source, '\\pL', '[\\x{80}-\\x{10ffff}]', translatePythonRegex('\\W').source]) {
    const before = heapProbe().probe1MiBAddress;
    let t0 = performance.now();
    const r = newRawRE2(src, false, false);
    const tc = performance.now() - t0;
    const mid = heapProbe().probe1MiBAddress;
    t0 = performance.now();
    r.match('hello world', 0, false);
    const tm = performance.now() - t0;
    t0 = performance.now();
    r.match('hello world', 0, false);
    const tm2 = performance.now() - t0;
    const after = heapProbe().probe1MiBAddress;
    r.delete();
    console.log(src.slice(0, 10), 'compile ms', tc.toFixed(1), 'bytes', mid - before, 'match1 ms', tm.toFixed(1), 'match2', tm2.toFixed(2), 'bytes', after - mid);
  }
}, 60000);
