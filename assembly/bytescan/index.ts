// The byte scanner: two questions a log scan asks of every window's UTF-8 bytes, answered with SIMD in one module
// of its own (no allocator, no imports; the condition VM is a different module with a different job).
//
//  - countNewlines: how many "\n" bytes a range holds (scan/position.ts: the line of a firing).
//  - findLiterals: which of a fixed set of literals occur in a range (scan/byte-prefilter.ts: a window that holds
//    none of a pattern's required literals is skipped). The search is Teddy's (Hyperscan; ripgrep's aho-corasick
//    crate): each literal is given a 3-byte fingerprint at some offset and one of 8 buckets; for every position,
//    two nibble lookups per byte give the buckets whose fingerprint's first byte can be there, the same for the
//    next two bytes and the fingerprint's second and third, and their AND is a candidate; candidates are verified
//    in full. (With 2-byte fingerprints the bench's clean log gave ~460 candidates per 60 KiB window, with 3 none.)
//    A nibble lookup over-approximates a bucket's byte set (the low and high nibbles of different members
//    combine), so candidates are a superset of fingerprint hits and verification decides: no literal occurrence
//    is missed, since its fingerprint bytes are in its bucket's sets at its offset. The tables hold only the
//    literals not yet found in the range: they are rebuilt when one is, so a literal that occurs on every line
//    (a timestamp's "-") stops making candidates once found (measured on the bench's every-line pattern: with
//    the found literals left in, this pass took ~0.3 ms per 60 KiB window, most of that scan).
//
// Memory layout (offsets in bytes), written by the host unless said otherwise:
//   0..95       the six nibble tables (lo/hi for fingerprint byte 0, 1 and 2), 16 bytes each (built here)
//   96..111     scratch (a candidate vector, to read its lanes)
//   1024..      literal records, 16 bytes each: bytes offset u32, length u32, fingerprint offset u32,
//               bucket bit (low 8 bits) | case-insensitive flag (bit 8) u32
//   4096..      found flags, one byte per literal (set to 1 by findLiterals; the host clears them)
//   8192..      literal bytes (a case-insensitive literal is stored lower-cased; it is ASCII)
//   TEXT_BASE.. the range to search, followed by at least 32 bytes the host has zeroed

const SCRATCH: usize = 96;
const LITERALS: usize = 1024;
const FOUND: usize = 4096;

/** Where the host puts the text: the second 64 KiB page. */
export const TEXT_BASE: usize = 65536;
/** The most literals the tables above hold. */
export const MAX_LITERALS: i32 = 192;

/** "\n" bytes in [ptr, ptr + len). */
export function countNewlines(ptr: usize, len: i32): i32 {
  const nl = i8x16.splat(0x0a);
  let total = 0;
  let p = ptr;
  const end = ptr + <usize>len;
  // Each lane counts to at most 255 before the partial sums are widened and added up.
  while (p + 16 <= end) {
    let acc = i8x16.splat(0);
    let blocks = 0;
    while (p + 16 <= end && blocks < 255) {
      acc = i8x16.sub(acc, i8x16.eq(v128.load(p), nl));
      p += 16;
      blocks++;
    }
    const sum = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(acc));
    total +=
      i32x4.extract_lane(sum, 0) + i32x4.extract_lane(sum, 1) + i32x4.extract_lane(sum, 2) + i32x4.extract_lane(sum, 3);
  }
  while (p < end) {
    if (load<u8>(p) == 0x0a) total++;
    p++;
  }
  return total;
}

const FINGERPRINT: usize = 3;

/** Adds byte `b` of bucket `bit` to fingerprint table `j` (and its upper case, for a case-insensitive letter). */
function addByte(j: usize, b: u32, bit: u8, ci: bool): void {
  const t = j << 5;
  store<u8>(t + (b & 15), load<u8>(t + (b & 15)) | bit);
  store<u8>(t + 16 + (b >> 4), load<u8>(t + 16 + (b >> 4)) | bit);
  if (ci && b - 0x61 < 26) addByte(j, b - 0x20, bit, false);
}

/** The nibble tables of the literals not yet found: each one's fingerprint bytes, any byte past its end. */
function buildTables(count: i32): void {
  memory.fill(0, 0, FINGERPRINT << 5);
  for (let i = 0; i < count; i++) {
    if (load<u8>(FOUND + <usize>i) != 0) continue;
    const rec = LITERALS + ((<usize>i) << 4);
    const bytes = <usize>load<u32>(rec);
    const len = <usize>load<u32>(rec, 4);
    const at = <usize>load<u32>(rec, 8);
    const flags = load<u32>(rec, 12);
    const bit = <u8>(flags & 0xff);
    const ci = (flags & 0x100) != 0;
    for (let j: usize = 0; j < FINGERPRINT; j++) {
      if (at + j < len) addByte(j, <u32>load<u8>(bytes + at + j), bit, ci);
      else for (let n: usize = 0; n < 32; n++) store<u8>((j << 5) + n, load<u8>((j << 5) + n) | bit);
    }
  }
}

/** Lower-cases an ASCII upper-case letter (small enough for the optimizer to inline). */
function fold(b: u32): u32 {
  return b - 0x41 < 26 ? b | 0x20 : b;
}

/** Whether literal `i` occurs at `at`, entirely within [start, end). */
function verify(i: i32, at: isize, start: usize, end: usize): bool {
  const rec = LITERALS + ((<usize>i) << 4);
  const bytes = <usize>load<u32>(rec);
  const len = <usize>load<u32>(rec, 4);
  if (at < <isize>start || <usize>at + len > end) return false;
  const ci = (load<u32>(rec, 12) & 0x100) != 0;
  const t = <usize>at;
  for (let k: usize = 0; k < len; k++) {
    let b = <u32>load<u8>(t + k);
    if (ci) b = fold(b);
    if (b != <u32>load<u8>(bytes + k)) return false;
  }
  return true;
}

/**
 * Marks (FOUND[i] = 1) each of the `count` literals that occurs in [ptr, ptr + len); returns how many are marked
 * now. Stops early once all are.
 */
export function findLiterals(ptr: usize, len: i32, count: i32): i32 {
  buildTables(count);
  let lo0 = v128.load(0);
  let hi0 = v128.load(16);
  let lo1 = v128.load(32);
  let hi1 = v128.load(48);
  let lo2 = v128.load(64);
  let hi2 = v128.load(80);
  const nibble = i8x16.splat(0x0f);
  const end = ptr + <usize>len;
  let marked = 0;
  for (let i = 0; i < count; i++) if (load<u8>(FOUND + <usize>i) != 0) marked++;
  let found = false;
  // Fingerprints start at p .. p + 15 and end two bytes later, so the last block reads up to 17 bytes past the
  // range, into the host's padding: a candidate starting there is dropped (`at >= end`), and verify's bounds
  // check rejects any occurrence that would end past the range.
  for (let p = ptr; p < end; p += 16) {
    const a = v128.load(p);
    const b = v128.load(p + 1);
    const d = v128.load(p + 2);
    const m0 = v128.and(i8x16.swizzle(lo0, v128.and(a, nibble)), i8x16.swizzle(hi0, i8x16.shr_u(a, 4)));
    const m1 = v128.and(i8x16.swizzle(lo1, v128.and(b, nibble)), i8x16.swizzle(hi1, i8x16.shr_u(b, 4)));
    const m2 = v128.and(i8x16.swizzle(lo2, v128.and(d, nibble)), i8x16.swizzle(hi2, i8x16.shr_u(d, 4)));
    const c = v128.and(v128.and(m0, m1), m2);
    if (!v128.any_true(c)) continue;
    v128.store(SCRATCH, c);
    let lanes = i8x16.bitmask(i8x16.ne(c, i8x16.splat(0)));
    while (lanes != 0) {
      const j = ctz(lanes);
      lanes &= lanes - 1;
      const at = p + <usize>j;
      if (at >= end) break;
      const buckets = <u32>load<u8>(SCRATCH + <usize>j);
      for (let i = 0; i < count; i++) {
        if (load<u8>(FOUND + <usize>i) != 0) continue;
        const rec = LITERALS + ((<usize>i) << 4);
        if ((load<u32>(rec, 12) & buckets & 0xff) == 0) continue;
        if (verify(i, <isize>at - <isize>load<u32>(rec, 8), ptr, end)) {
          store<u8>(FOUND + <usize>i, 1);
          if (++marked == count) return marked;
          found = true;
        }
      }
    }
    if (found) {
      // Later candidates of this block's lanes are still checked against FOUND; later blocks use the new tables.
      found = false;
      buildTables(count);
      lo0 = v128.load(0);
      hi0 = v128.load(16);
      lo1 = v128.load(32);
      hi1 = v128.load(48);
      lo2 = v128.load(64);
      hi2 = v128.load(80);
    }
  }
  return marked;
}
