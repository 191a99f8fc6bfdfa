/**
 * The part of Node's `Buffer` the engine modules use, for the playground worker: `Buffer.byteLength(s, 'utf8')`
 * (window sizing in src/scan and src/regex) and `Buffer.from(s, 'utf8')` (the recipe's bytes, for its SHA-256, in
 * src/recipe/load.ts). Installed on the worker global before any engine code runs.
 */

/** UTF-8 length of a JS string as TextEncoder encodes it (a lone surrogate is U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // 2 units → 4 bytes
      i++;
    } else {
      n += 2;
    }
  }
  return n;
}

const encoder = new TextEncoder();

function checkEncoding(enc: unknown): void {
  if (enc !== undefined && enc !== 'utf8' && enc !== 'utf-8') throw new Error(`Buffer shim: encoding ${String(enc)} is not supported`);
}

const BufferShim = {
  byteLength(s: string | ArrayBufferView, enc?: string): number {
    if (typeof s !== 'string') return s.byteLength;
    checkEncoding(enc);
    return utf8Length(s);
  },
  from(s: string, enc?: string): Uint8Array {
    if (typeof s !== 'string') throw new Error('Buffer shim: only Buffer.from(string) is supported');
    checkEncoding(enc);
    return encoder.encode(s);
  },
};

const g = globalThis as unknown as { Buffer?: unknown };
if (g.Buffer === undefined) g.Buffer = BufferShim;
