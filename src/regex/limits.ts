/**
 * Subject-size limits of re2-wasm 1.0.2.
 *
 * The module's linear memory is fixed at 16 MiB (INITIAL_MEMORY = 16777216, no ALLOW_MEMORY_GROWTH; 5 MiB of it is
 * the stack and ~0.3 MiB static data) and every `match` call copies the whole subject into it as UTF-8, then copies
 * the matched text (and each capture, one at a time) out again. Measured with scripts/measure-re2-subject-limit.mjs
 * (fresh process per attempt, 32 KiB resolution), identical for 1-, 2-, 3- and 4-byte characters because the cost is
 * in UTF-8 bytes:
 *   - pattern that does not match (`zzz`, `[a-q][^u-z]{13}x`):  max ≈ 5,713,408 bytes (5.45 MiB)
 *   - pattern whose match is the whole subject (`(?s).*`, `(?s)(.*)`): max ≈ 2,842,624 bytes (2.71 MiB)
 * Beyond that, emscripten calls abort("Cannot enlarge memory arrays… (OOM)").
 *
 * MAX_SUBJECT_UTF8_BYTES keeps ~63% headroom below the worst case (whole-subject match) so that compiled
 * programs and their lazily built DFA caches (RE2's default max_mem is 8 MiB per regex, not configurable through
 * re2-wasm) still fit next to the subject.
 */
export const MEASURED_MAX_SUBJECT_UTF8_BYTES = { noMatch: 5_713_408, wholeSubjectMatch: 2_842_624 } as const;

/** Largest subject, in UTF-8 bytes, that the match functions hand to one re2-wasm call (1 MiB). */
export const MAX_SUBJECT_UTF8_BYTES = 1 << 20;

/** UTF-8 length of a JS string as TextEncoder would encode it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8ByteLength(s: string): number {
  return nodeBuffer !== undefined ? nodeBuffer.byteLength(s, 'utf8') : countUtf8(s);
}

// Node's Buffer.byteLength is native (~7 GB/s on ASCII); a browser has no Buffer and gets the loop.
const nodeBuffer: { byteLength(s: string, enc: 'utf8'): number } | undefined = (
  globalThis as { Buffer?: typeof Buffer }
).Buffer;

function countUtf8(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** UTF-8 length of the code point starting at UTF-16 index `i` and its UTF-16 width. */
export function codePointWidths(s: string, i: number): { units: number; bytes: number } {
  const c = s.charCodeAt(i);
  if (c < 0x80) return { units: 1, bytes: 1 };
  if (c < 0x800) return { units: 1, bytes: 2 };
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { units: 2, bytes: 4 };
  }
  return { units: 1, bytes: 3 }; // BMP, or a lone surrogate encoded as U+FFFD
}
