// The byte scanner: two questions a log scan asks of every window's UTF-8 bytes, answered with SIMD in one module
// of its own (no allocator, no imports; the condition VM is a different module with a different job).
//
//  - countNewlines: how many "\n" bytes a range holds (scan/position.ts: the line of a firing).
//  - countTriples / tripleCount: how often each byte triple occurs in a log's first bytes, the host's measure of
//    how rare a fingerprint is (a pass of some 16 K steps: as cold JavaScript it cost a scan ~4–8 ms, here ~0.1).
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
// The memory layout and the literal records are assembly/bytescan/layout.ts's, which the host imports too.

import {
  BUCKET_MASK,
  CASE_INSENSITIVE,
  FINGERPRINT,
  FOUND,
  LITERALS,
  RECORD_BYTES,
  RECORD_BYTES_AT,
  RECORD_FINGERPRINT,
  RECORD_FLAGS,
  RECORD_LENGTH,
  SCRATCH,
  TABLE_BYTES,
  TABLES,
  TRIPLE_BUCKETS,
  TRIPLE_SAMPLE_MAX,
  TRIPLES,
} from './layout';

/** Literal `i`'s record. */
function record(i: i32): usize {
  return <usize>LITERALS + <usize>i * <usize>RECORD_BYTES;
}

/** Whether literal `i` is marked found. */
function found(i: i32): bool {
  return load<u8>(<usize>FOUND + <usize>i) != 0;
}

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

/** Adds byte `b` of bucket `bit` to fingerprint table `j` (and its upper case, for a case-insensitive letter). */
function addByte(j: usize, b: u32, bit: u8, ci: bool): void {
  const t = <usize>TABLES + j * <usize>TABLE_BYTES;
  store<u8>(t + (b & 15), load<u8>(t + (b & 15)) | bit);
  store<u8>(t + 16 + (b >> 4), load<u8>(t + 16 + (b >> 4)) | bit);
  if (ci && b - 0x61 < 26) addByte(j, b - 0x20, bit, false);
}

/** The nibble tables of the literals not yet found: each one's fingerprint bytes, any byte past its end. */
function buildTables(count: i32): void {
  memory.fill(<usize>TABLES, 0, <usize>FINGERPRINT * <usize>TABLE_BYTES);
  for (let i = 0; i < count; i++) {
    if (found(i)) continue;
    const rec = record(i);
    const bytes = <usize>load<u32>(rec + <usize>RECORD_BYTES_AT);
    const len = <usize>load<u32>(rec + <usize>RECORD_LENGTH);
    const at = <usize>load<u32>(rec + <usize>RECORD_FINGERPRINT);
    const flags = load<u32>(rec + <usize>RECORD_FLAGS);
    const bit = <u8>(flags & BUCKET_MASK);
    const ci = (flags & CASE_INSENSITIVE) != 0;
    for (let j: usize = 0; j < <usize>FINGERPRINT; j++) {
      const t = <usize>TABLES + j * <usize>TABLE_BYTES;
      if (at + j < len) addByte(j, <u32>load<u8>(bytes + at + j), bit, ci);
      else for (let n: usize = 0; n < <usize>TABLE_BYTES; n++) store<u8>(t + n, load<u8>(t + n) | bit);
    }
  }
}

/** Lower-cases an ASCII upper-case letter (small enough for the optimizer to inline). */
function fold(b: u32): u32 {
  return b - 0x41 < 26 ? b | 0x20 : b;
}

/** The bucket of a triple whose bytes are already folded (`h`: them as 24 bits): collisions only over-count. */
function tripleBucket(h: u32): u32 {
  return (h * 0x9e3779b1) >> 16;
}

/** Counts the byte triples of [ptr, ptr + len) (at most TRIPLE_SAMPLE_MAX bytes), ASCII letters folded to lower case. */
export function countTriples(ptr: usize, len: i32): void {
  memory.fill(<usize>TRIPLES, 0, (<usize>TRIPLE_BUCKETS) << 1);
  const n = min(len, TRIPLE_SAMPLE_MAX);
  if (n < 3) return;
  let h: u32 = (fold(load<u8>(ptr)) << 8) | fold(load<u8>(ptr + 1));
  for (let i = 2; i < n; i++) {
    h = ((h << 8) | fold(load<u8>(ptr + <usize>i))) & 0xffffff;
    const at = <usize>TRIPLES + ((<usize>tripleBucket(h)) << 1);
    store<u16>(at, load<u16>(at) + 1);
  }
}

/** How often countTriples saw the triple (a, b, c), with the other triples of its bucket. */
export function tripleCount(a: u32, b: u32, c: u32): i32 {
  return load<u16>(
    <usize>TRIPLES + ((<usize>tripleBucket((fold(a & 0xff) << 16) | (fold(b & 0xff) << 8) | fold(c & 0xff))) << 1),
  );
}

/** Whether literal `i` occurs at `at`, entirely within [start, end). */
function verify(i: i32, at: isize, start: usize, end: usize): bool {
  const rec = record(i);
  const bytes = <usize>load<u32>(rec + <usize>RECORD_BYTES_AT);
  const len = <usize>load<u32>(rec + <usize>RECORD_LENGTH);
  if (at < <isize>start || <usize>at + len > end) return false;
  const ci = (load<u32>(rec + <usize>RECORD_FLAGS) & CASE_INSENSITIVE) != 0;
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
  // Table j's low-nibble half at TABLES + j * TABLE_BYTES, its high-nibble half 16 bytes on.
  const t = <usize>TABLES;
  buildTables(count);
  let lo0 = v128.load(t);
  let hi0 = v128.load(t + 16);
  let lo1 = v128.load(t + <usize>TABLE_BYTES);
  let hi1 = v128.load(t + <usize>TABLE_BYTES + 16);
  let lo2 = v128.load(t + 2 * <usize>TABLE_BYTES);
  let hi2 = v128.load(t + 2 * <usize>TABLE_BYTES + 16);
  const nibble = i8x16.splat(0x0f);
  const end = ptr + <usize>len;
  let marked = 0;
  for (let i = 0; i < count; i++) if (found(i)) marked++;
  let newlyFound = false;
  // Each block is loaded once and looked up in all three tables; a candidate is named by where its fingerprint
  // ends: lane k of block p says whether bytes p+k-2, p+k-1, p+k can be a fingerprint's first, second and third,
  // taking the first two tables' answers shifted in from the previous block (Hyperscan's Teddy; three loads per
  // block, each looked up in one table, took ~15% longer). Fingerprints that start in the range end up to two
  // bytes past it, so blocks run to end + 2, reading into the host's padding; a candidate starting at or past the
  // end is dropped (`at >= end`), and verify's bounds check rejects any occurrence that would end past the range.
  // Before the first block the previous answers are none, so no candidate starts before the range.
  const zero = i8x16.splat(0);
  let r0prev = zero;
  let r1prev = zero;
  for (let p = ptr; p < end + 2; p += 16) {
    const a = v128.load(p);
    const alo = v128.and(a, nibble);
    const ahi = i8x16.shr_u(a, 4);
    const r0 = v128.and(i8x16.swizzle(lo0, alo), i8x16.swizzle(hi0, ahi));
    const r1 = v128.and(i8x16.swizzle(lo1, alo), i8x16.swizzle(hi1, ahi));
    const r2 = v128.and(i8x16.swizzle(lo2, alo), i8x16.swizzle(hi2, ahi));
    // Lanes 14..29 and 15..30 of (previous, current): the answers for the bytes two and one before each lane.
    const s0 = i8x16.shuffle(r0prev, r0, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
    const s1 = i8x16.shuffle(r1prev, r1, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
    r0prev = r0;
    r1prev = r1;
    const c = v128.and(v128.and(s0, s1), r2);
    if (!v128.any_true(c)) continue;
    v128.store(<usize>SCRATCH, c);
    let lanes = i8x16.bitmask(i8x16.ne(c, i8x16.splat(0)));
    while (lanes != 0) {
      const j = ctz(lanes);
      lanes &= lanes - 1;
      const at = p + <usize>j - 2; // where the fingerprint starts
      if (at >= end) break;
      const buckets = <u32>load<u8>(<usize>SCRATCH + <usize>j);
      for (let i = 0; i < count; i++) {
        if (found(i)) continue;
        const rec = record(i);
        if ((load<u32>(rec + <usize>RECORD_FLAGS) & buckets & BUCKET_MASK) == 0) continue;
        if (verify(i, <isize>at - <isize>load<u32>(rec + <usize>RECORD_FINGERPRINT), ptr, end)) {
          store<u8>(<usize>FOUND + <usize>i, 1);
          if (++marked == count) return marked;
          newlyFound = true;
        }
      }
    }
    if (newlyFound) {
      // Later candidates of this block's lanes are still checked against FOUND; later blocks use the new tables
      // (the previous block's answers, from the old ones, can only add candidates).
      newlyFound = false;
      buildTables(count);
      lo0 = v128.load(t);
      hi0 = v128.load(t + 16);
      lo1 = v128.load(t + <usize>TABLE_BYTES);
      hi1 = v128.load(t + <usize>TABLE_BYTES + 16);
      lo2 = v128.load(t + 2 * <usize>TABLE_BYTES);
      hi2 = v128.load(t + 2 * <usize>TABLE_BYTES + 16);
    }
  }
  return marked;
}
