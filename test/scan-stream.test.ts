import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { scanFile } from '../src/scan/file.js';
import { iterWindows, scanLog, scanStream, StreamWindower, type ScanVars } from '../src/scan/index.js';
import { customPatternsRecipe as recipe } from './support/recipes.js';
import { failingIds, warningIds } from './support/scan-results.js';

const VARS: ScanVars = { exit_code: 0, walltime_sec: 1.0, peak_vram_mib: null };
const decode = (b: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);

/** Deterministic pseudo-random chunking of `bytes` into pieces of 1..max bytes. */
function* chunks(bytes: Uint8Array, max: number, seed = 1): Generator<Uint8Array> {
  let s = seed;
  for (let i = 0; i < bytes.length; ) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (s % max);
    yield bytes.subarray(i, Math.min(bytes.length, i + n));
    i += n;
  }
}

/**
 * A source that reads `bytes` into the buffer it is given (as file.ts's `openFileChunks` does through `readInto`),
 * 1..max bytes a time; `closed` once stream.ts has called its `return()`.
 */
function reader(bytes: Uint8Array, max: number, seed = 1) {
  let at = 0;
  let s = seed;
  const source = Object.assign([][Symbol.iterator](), {
    closed: false,
    readInto(into: Uint8Array): number {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      const n = Math.min(into.length, 1 + (s % max), bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
    return() {
      source.closed = true;
      return { done: true as const, value: undefined };
    },
  });
  return source;
}

const RECIPE = recipe(
  "{id: vram, match: {regex: 'vram=(?P<used>[0-9]+)', condition: \"int(capture['used']) > 90000\"}, on_match: warn}",
  "{id: nan_loss, match: {regex: 'loss=(?P<loss>\\S+)', condition: \"math.isnan(float(capture['loss']))\"}}",
  "{id: crlf, match: {regex: '(?m)^(?P<crlf_line>end[^\\n]*)$'}, on_match: info}",
  "{id: nul, match: {regex: 'NUL(?P<nul>.)HERE'}, on_match: info}",
  "{id: bad, match: {regex: 'bad(?P<bad>.)byte'}, on_match: info}",
  "{id: never, match: {regex: 'this never appears'}, required_for_pass: true}",
);

/** The same raw scan: the same hits (what the classifier's failures and warnings come from), misses and capture. */
function expectSame(a: ReturnType<typeof scanLog>, b: ReturnType<typeof scanLog>): void {
  expect(failingIds(a)).toEqual(failingIds(b));
  expect(warningIds(a)).toEqual(warningIds(b));
  expect(a.missing_required).toEqual(b.missing_required);
  expect(a.engine_failures).toEqual(b.engine_failures);
  expect(a.detectors).toEqual(b.detectors);
  expect(a.capture).toEqual(b.capture);
}

describe('StreamWindower', () => {
  it('cuts the same windows as iterWindows, however the text is split', () => {
    const text = 'ab😀c中d\u00e9\n'.repeat(300);
    for (const windowBytes of [16, 100, 257]) {
      const expected = [...iterWindows(text, { windowBytes })];
      for (const step of [1, 3, 64, 1000]) {
        const w = new StreamWindower({ windowBytes });
        const got = [];
        for (let i = 0; i < text.length; i += step) {
          let j = Math.min(text.length, i + step);
          if (j < text.length && text.charCodeAt(j) >= 0xdc00 && text.charCodeAt(j) <= 0xdfff) j++; // decoder never splits a pair
          got.push(...w.push(text.slice(i, j)));
          i = j - step;
        }
        got.push(w.end());
        expect(got).toEqual(expected);
      }
    }
  });

  it('an empty stream is one empty last window', () => {
    expect(new StreamWindower().end()).toEqual({ text: '', base: 0, from: 0, ownEnd: 0, last: true });
  });
});

describe('scanStream equals scanLog on the decoded text', () => {
  it('small windows, tiny random chunks, CRLF, NUL, invalid UTF-8 and a BOM', async () => {
    const parts: (string | number[])[] = [[0xef, 0xbb, 0xbf]];
    for (let i = 0; i < 400; i++) {
      parts.push(`step ${i} loss=0.${i % 10} vram=${1000 + i} é中😀\r\n`);
      if (i % 37 === 0) parts.push('NUL\u0000HERE\n');
      if (i % 53 === 0) parts.push('bad', [0xff], 'byte ', [0xe4, 0xb8], 'x\n');
    }
    parts.push('end of run\r\n', 'step 401 loss=nan\n', 'vram=95000\n', 'Traceback (most recent call last):\n');
    const bytes = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
    const text = decode(bytes);
    expect(text.startsWith('\ufeffstep 0')).toBe(true);
    for (const windowBytes of [100, 333, 4096]) {
      const expected = scanLog(RECIPE, text, VARS, { windowBytes });
      expect(expected.capture).toMatchObject({
        used: '95000',
        loss: 'nan',
        crlf_line: 'end of run\r',
        nul: '\u0000',
        bad: '\ufffd',
      });
      expect(failingIds(expected)).toEqual(['tier4:nan_signature', 'custom:nan_loss', 'tier4:python_traceback']);
      // the classifier's meta:missing_pass_signal
      expect(expected.missing_required).toEqual(['custom:never']);
      for (const max of [1, 7, 300]) {
        expectSame(await scanStream(RECIPE, chunks(bytes, max, windowBytes + max), VARS, { windowBytes }), expected);
        // The same bytes read into the windower's own buffer (as file.ts's readInto does), a few at a time.
        expectSame(await scanStream(RECIPE, reader(bytes, max, windowBytes + max), VARS, { windowBytes }), expected);
      }
    }
  });

  it('an empty stream: Tier 5 still scans the empty log', async () => {
    const rc = recipe("{id: empty, match: {regex: '^$'}, on_match: warn}");
    const r = await scanStream(rc, [], VARS);
    expectSame(r, scanLog(rc, '', VARS));
    expect(warningIds(r)).toEqual(['custom:empty']);
  });

  it('string chunks and a Node Readable are accepted', async () => {
    const text = 'x'.repeat(150) + 'hipError_Foo\n' + 'y'.repeat(150);
    expectSame(
      await scanStream(null, ['x'.repeat(150), 'hipError_', 'Foo\n' + 'y'.repeat(150)], VARS, { windowBytes: 100 }),
      scanLog(null, text, VARS),
    );
    expectSame(await scanStream(null, Readable.from([Buffer.from(text)]), VARS), scanLog(null, text, VARS));
  });

  it('stops reading once every pattern has fired', async () => {
    let pulled = 0;
    const head =
      [
        'Traceback (most recent call last):',
        'hipError_X',
        'cudaErrorY',
        'Error code: 1',
        'NCCL error',
        'Watchdog caught collective operation timeout',
        'loss is NaN',
        'custom hit',
      ].join('\n') + '\n';
    async function* source() {
      yield Buffer.from(head);
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield Buffer.from('z'.repeat(50));
      }
    }
    const r = await scanStream(recipe('{id: hit, match: {regex: custom hit}}'), source(), VARS, { windowBytes: 100 });
    expect(failingIds(r)).toHaveLength(8);
    expect(pulled).toBeLessThan(20);
  });

  it('a generated ~50 MB log', { timeout: 180_000 }, async () => {
    const lines: Buffer[] = [];
    let size = 0;
    let i = 0;
    const target = 50 * 1024 * 1024;
    const extra = new Map<number, string>([
      [100_000, 'NUL\u0000HERE\r\n'],
      [200_000, 'bad\udcffbyte\n'], // a lone surrogate encodes as EF BF BD (U+FFFD)
      [300_000, 'end of epoch\r\n'],
      [400_000, 'vram=95000\n'],
      [500_000, 'step x loss=nan\n'],
      [600_000, 'RuntimeError: hipError_IllegalAddress\n'],
    ]);
    while (size < target) {
      const line = Buffer.from(`[rank ${i % 8}] step ${i} loss=0.${i % 997} vram=${(i * 7) % 90000} tok/s=1843 ✓ 😀\n`);
      lines.push(line);
      size += line.length;
      const e = extra.get(i);
      if (e !== undefined) lines.push(Buffer.from(e));
      if (i % 100_000 === 99_999) lines.push(Buffer.from([0xc3, 0x28, 0x0a])); // invalid 2-byte sequence
      i++;
    }
    expect(i).toBeGreaterThan(600_000);
    lines.push(Buffer.from('Traceback (most recent call last):\n'));
    const bytes = Buffer.concat(lines);
    lines.length = 0;
    const text = decode(bytes);
    const expected = scanLog(RECIPE, text, VARS);
    expect(expected.capture).toMatchObject({
      used: '95000',
      loss: 'nan',
      crlf_line: 'end of epoch\r',
      nul: '\u0000',
      bad: '\ufffd',
    });
    expect(failingIds(expected)).toEqual([
      'tier4:nan_signature',
      'custom:nan_loss',
      'tier4:hip_error',
      'tier4:python_traceback',
    ]);
    // the classifier's meta:missing_pass_signal
    expect(expected.missing_required).toEqual(['custom:never']);
    expect(warningIds(expected)).toEqual(['custom:vram']);
    const r = await scanStream(RECIPE, chunks(bytes, 70_001), VARS);
    expectSame(r, expected);
    // From a file, read into the windower's buffer (the invalid sequences leave the byte path mid-file).
    const dir = mkdtempSync(join(tmpdir(), 'aorta-scan-file-'));
    try {
      writeFileSync(join(dir, 'big.log'), bytes);
      expectSame(await scanFile(RECIPE, join(dir, 'big.log'), VARS), expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes a reader source once it has read it', async () => {
    const rc = recipe("{id: first, match: {regex: 'step 0 '}, on_match: warn}");
    const bytes = Buffer.from('step 0 here\n'.padEnd(300_000, 'x'));
    const src = reader(bytes, 5000);
    const r = await scanStream(rc, src, VARS);
    expect(warningIds(r)).toEqual(['custom:first']);
    expect(src.closed).toBe(true);
  });
});
