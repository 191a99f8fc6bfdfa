/** Strict UTF-8 decoding of recipe bytes, with the position of the first invalid byte. */

export interface DecodeFailure {
  /** Byte offset of the first byte that cannot start or continue a valid sequence. */
  readonly byteOffset: number;
  readonly byte: number;
  /** CPython's reason, e.g. `invalid start byte`. */
  readonly reason: string;
}

/** Finds the first invalid UTF-8 sequence, in CPython's terms; null when the bytes are valid. */
export function findInvalidUtf8(bytes: Uint8Array): DecodeFailure | null {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return { byteOffset: i, byte: b, reason: 'invalid start byte' };
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return { byteOffset: i, byte: b, reason: 'unexpected end of data' };
      const c = bytes[i + k]!;
      const okLo = k === 1 ? lo : 0x80;
      const okHi = k === 1 ? hi : 0xbf;
      if (c < okLo || c > okHi) return { byteOffset: i, byte: b, reason: 'invalid continuation byte' };
    }
    i += need + 1;
  }
  return null;
}

/** 1-based line and code-point column of a byte offset in (valid-prefix) UTF-8 bytes. */
export function bytePos(bytes: Uint8Array, byteOffset: number): { line: number; col: number } {
  let line = 1;
  let col = 1;
  for (let i = 0; i < byteOffset; i++) {
    const b = bytes[i]!;
    if (b === 0x0a) {
      line++;
      col = 1;
    } else if ((b & 0xc0) !== 0x80) col++;
  }
  return { line, col };
}
