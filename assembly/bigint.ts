// Arbitrary-precision Python `int` for the condition VM, with CPython 3.11 semantics.
//
// Representation: sign (-1, 0, +1) plus a little-endian magnitude of u32 limbs, `d[0..n)`, with
// no leading zero limbs (`n == 0` exactly when the value is zero, and then `sign == 0`).
// `d.length` may exceed `n`; limbs at and above `n` are ignored.
//
// BigInt values are immutable once returned: functions may return one of their arguments
// unchanged (e.g. `bigAdd(x, zero)` returns `x`), and values may share limb arrays.
//
// Memory: everything is allocated with plain `new` in the VM's per-evaluation arena (a bump
// allocator released between evaluations: AssemblyScript's `stub` runtime or assembly/rt/arena.ts).
// No function keeps a heap object in a global across calls, so a release never leaves a dangling
// cache behind, and limb arrays are zeroed explicitly (`newLimbs`), so reused, unzeroed arena
// memory is harmless. Allocations are proportional to the operand sizes (a few copies at most).
// Callers must bound the size of results they ask for (`bigMul`, `bigPow`) before calling, using
// `bigBitLength`. Division by zero is the caller's to reject (`bigFloorDiv`, `bigMod`,
// `bigTrueDiv` assume b != 0).
//
// Errors are reported through two exported flags rather than exceptions (the VM maps them):
//  * `bigOverflow`      — set by `bigToF64` / `bigTrueDiv` when CPython raises OverflowError.
//  * `bigLimitExceeded` — set by `bigToDecimalString` / `bigParse` when CPython 3.11's default
//                         4300-digit int/str conversion limit raises ValueError.
// Each function that can set a flag clears it first.
//
// Algorithms: schoolbook add/sub/mul, Knuth algorithm D (TAOCP 4.3.1, in the form of Hacker's
// Delight `divmnu64`) for division, base-10^9 repeated division for decimal output, chunked
// multiply-add for parsing. All float conversions are exact/correctly rounded by integer
// arithmetic, mirroring CPython's `PyLong_AsDouble`, `long_true_divide` and `float_richcompare`.

/** Set by `bigToF64` / `bigTrueDiv` when CPython would raise OverflowError. */
export let bigOverflow: bool = false;
/** Set by `bigToDecimalString` / `bigParse` when CPython would raise the 4300-digit ValueError. */
export let bigLimitExceeded: bool = false;
/**
 * With `bigLimitExceeded` from `bigParse`: the digit count CPython reports in
 * "Exceeds the limit (4300 digits) for integer string conversion: value has N digits; ...".
 * (`bigToDecimalString`'s message has no count.)
 */
export let bigLimitDigits: i32 = 0;

/** CPython 3.11's default `sys.get_int_max_str_digits()`. */
export const BIG_MAX_STR_DIGITS: i32 = 4300;

/** A Python int: `sign` in {-1, 0, 1}, magnitude `d[0..n)` little-endian base 2^32. */
export class BigInt {
  sign: i32;
  n: i32;
  d: StaticArray<u32>;
  constructor(sign: i32, n: i32, d: StaticArray<u32>) {
    this.sign = sign;
    this.n = n;
    this.d = d;
  }
}

// ---------------------------------------------------------------------------------------------
// Internal helpers on magnitudes (StaticArray<u32> + length)

/**
 * A zeroed limb array. Zeroing is explicit: with a custom runtime (assembly/rt/arena.ts) the
 * compiler treats the runtime as "incremental", whose `__new` is expected to zero memory, so
 * `new StaticArray` skips its own fill; an arena that reuses released memory would hand back
 * stale limbs otherwise.
 */
function newLimbs(n: i32): StaticArray<u32> {
  let a = new StaticArray<u32>(n);
  memory.fill(changetype<usize>(a), 0, (<usize>n) << 2);
  return a;
}

// @ts-ignore: decorator
@inline function L(d: StaticArray<u32>, i: i32): u32 {
  return unchecked(d[i]);
}

function trimLen(d: StaticArray<u32>, n: i32): i32 {
  while (n > 0 && unchecked(d[n - 1]) == 0) n--;
  return n;
}

/** Wraps a limb array as a BigInt, trimming leading zero limbs. */
function make(sign: i32, d: StaticArray<u32>, n: i32): BigInt {
  n = trimLen(d, n);
  return new BigInt(n == 0 ? 0 : sign, n, d);
}

function cmpMag(a: StaticArray<u32>, an: i32, b: StaticArray<u32>, bn: i32): i32 {
  if (an != bn) return an < bn ? -1 : 1;
  for (let i = an - 1; i >= 0; i--) {
    let x = L(a, i),
      y = L(b, i);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

function addMag(a: StaticArray<u32>, an: i32, b: StaticArray<u32>, bn: i32): StaticArray<u32> {
  if (an < bn) {
    let t = a;
    a = b;
    b = t;
    let tn = an;
    an = bn;
    bn = tn;
  }
  let r = newLimbs(an + 1);
  let carry: u64 = 0;
  let i = 0;
  for (; i < bn; i++) {
    let s = <u64>L(a, i) + <u64>L(b, i) + carry;
    unchecked((r[i] = <u32>s));
    carry = s >> 32;
  }
  for (; i < an; i++) {
    let s = <u64>L(a, i) + carry;
    unchecked((r[i] = <u32>s));
    carry = s >> 32;
  }
  unchecked((r[an] = <u32>carry));
  return r;
}

/** |a| - |b|, requires |a| >= |b|. */
function subMag(a: StaticArray<u32>, an: i32, b: StaticArray<u32>, bn: i32): StaticArray<u32> {
  let r = newLimbs(an);
  let borrow: i64 = 0;
  let i = 0;
  for (; i < bn; i++) {
    let s = <i64>L(a, i) - <i64>L(b, i) - borrow;
    unchecked((r[i] = <u32>s));
    borrow = (s >> 32) & 1;
  }
  for (; i < an; i++) {
    let s = <i64>L(a, i) - borrow;
    unchecked((r[i] = <u32>s));
    borrow = (s >> 32) & 1;
  }
  return r;
}

function mulMag(a: StaticArray<u32>, an: i32, b: StaticArray<u32>, bn: i32): StaticArray<u32> {
  let r = newLimbs(an + bn);
  for (let i = 0; i < an; i++) {
    let ai = <u64>L(a, i);
    if (ai == 0) continue;
    let carry: u64 = 0;
    for (let j = 0; j < bn; j++) {
      let t = ai * <u64>L(b, j) + <u64>L(r, i + j) + carry;
      unchecked((r[i + j] = <u32>t));
      carry = t >> 32;
    }
    unchecked((r[i + bn] = <u32>carry));
  }
  return r;
}

/** In place: d[0..n) = d[0..n) * mul + add; returns the new length (d must have room). */
function mulAddSmall(d: StaticArray<u32>, n: i32, mul: u32, add: u32): i32 {
  let carry = <u64>add;
  let m = <u64>mul;
  for (let i = 0; i < n; i++) {
    let t = <u64>L(d, i) * m + carry;
    unchecked((d[i] = <u32>t));
    carry = t >> 32;
  }
  if (carry != 0) {
    unchecked((d[n] = <u32>carry));
    n++;
  }
  return n;
}

/** q[0..n) = a[0..n) / v (q may alias a); returns the remainder. */
function divSmall(a: StaticArray<u32>, n: i32, v: u32, q: StaticArray<u32>): u32 {
  let rem: u64 = 0;
  let vv = <u64>v;
  for (let i = n - 1; i >= 0; i--) {
    let cur = (rem << 32) | <u64>L(a, i);
    let qq = cur / vv;
    unchecked((q[i] = <u32>qq));
    rem = cur - qq * vv;
  }
  return <u32>rem;
}

/** Magnitude << k (k >= 0) as a new array of length n + (k >> 5) + 1. */
function shlMag(a: StaticArray<u32>, n: i32, k: i32): StaticArray<u32> {
  let limbs = k >> 5,
    s = <u64>(k & 31);
  let r = newLimbs(n + limbs + 1);
  let carry: u64 = 0;
  for (let i = 0; i < n; i++) {
    let t = ((<u64>L(a, i)) << s) | carry;
    unchecked((r[i + limbs] = <u32>t));
    carry = t >> 32;
  }
  unchecked((r[n + limbs] = <u32>carry));
  return r;
}

/** Magnitude >> k (k >= 0, truncating) as a new array (length may be 0). */
function shrMag(a: StaticArray<u32>, n: i32, k: i32): StaticArray<u32> {
  let limbs = k >> 5,
    s = <u64>(k & 31);
  let rn = n - limbs;
  if (rn <= 0) return newLimbs(0);
  let r = newLimbs(rn);
  for (let i = 0; i < rn; i++) {
    let lo = <u64>L(a, i + limbs);
    let hi: u64 = i + limbs + 1 < n ? <u64>L(a, i + limbs + 1) : 0;
    unchecked((r[i] = <u32>(((hi << 32) | lo) >> s)));
  }
  return r;
}

/** True if any of bits [0, k) of the magnitude is set. */
function anyBitsBelow(a: StaticArray<u32>, n: i32, k: i32): bool {
  if (k <= 0) return false;
  let limbs = k >> 5;
  let m = limbs < n ? limbs : n;
  for (let i = 0; i < m; i++) if (L(a, i) != 0) return true;
  if (limbs < n && (k & 31) != 0) {
    if ((L(a, limbs) & (((<u32>1) << (<u32>(k & 31))) - 1)) != 0) return true;
  }
  return false;
}

function bitLenMag(a: StaticArray<u32>, n: i32): i32 {
  if (n == 0) return 0;
  return (n - 1) * 32 + (32 - <i32>clz(L(a, n - 1)));
}

/** Low 64 bits of the magnitude. */
function low64(a: StaticArray<u32>, n: i32): u64 {
  if (n == 0) return 0;
  let v = <u64>L(a, 0);
  if (n > 1) v |= (<u64>L(a, 1)) << 32;
  return v;
}

/** Bits [lo, lo + 64) of the magnitude (lo >= 0). */
function bits64At(a: StaticArray<u32>, n: i32, lo: i32): u64 {
  let li = lo >> 5,
    s = <u64>(lo & 31);
  let w0: u64 = li < n ? <u64>L(a, li) : 0;
  let w1: u64 = li + 1 < n ? <u64>L(a, li + 1) : 0;
  let w2: u64 = li + 2 < n ? <u64>L(a, li + 2) : 0;
  let v = ((w1 << 32) | w0) >> s;
  if (s != 0) v |= w2 << (64 - s);
  return v;
}

// Remainder of the last divmodMag call (valid only right after it).
let divRem: StaticArray<u32> = changetype<StaticArray<u32>>(0);
let divRemN: i32 = 0;

/**
 * Quotient of magnitudes u[0..m) / v[0..n) (n >= 1, v[n-1] != 0); the remainder goes to
 * divRem/divRemN. Knuth algorithm D with 32-bit digits.
 */
function divmodMag(u: StaticArray<u32>, m: i32, v: StaticArray<u32>, n: i32): StaticArray<u32> {
  if (cmpMag(u, m, v, n) < 0) {
    let r = newLimbs(m);
    for (let i = 0; i < m; i++) unchecked((r[i] = L(u, i)));
    divRem = r;
    divRemN = m;
    return newLimbs(0);
  }
  if (n == 1) {
    let q = newLimbs(m);
    let rem = divSmall(u, m, L(v, 0), q);
    let r = newLimbs(1);
    unchecked((r[0] = rem));
    divRem = r;
    divRemN = rem != 0 ? 1 : 0;
    return q;
  }
  // Normalise so that the divisor's top limb has its high bit set.
  let s = <u64>clz(L(v, n - 1));
  let vn = newLimbs(n);
  for (let i = n - 1; i > 0; i--) {
    unchecked((vn[i] = <u32>(((<u64>L(v, i)) << s) | (<u64>L(v, i - 1) >> (32 - s)))));
  }
  unchecked((vn[0] = <u32>((<u64>L(v, 0)) << s)));
  let un = newLimbs(m + 1);
  unchecked((un[m] = <u32>(<u64>L(u, m - 1) >> (32 - s))));
  for (let i = m - 1; i > 0; i--) {
    unchecked((un[i] = <u32>(((<u64>L(u, i)) << s) | (<u64>L(u, i - 1) >> (32 - s)))));
  }
  unchecked((un[0] = <u32>((<u64>L(u, 0)) << s)));

  let q = newLimbs(m - n + 1);
  let vtop = <u64>L(vn, n - 1);
  let vsec = <u64>L(vn, n - 2);
  const B: u64 = 0x1_0000_0000;
  for (let j = m - n; j >= 0; j--) {
    let num = ((<u64>L(un, j + n)) << 32) | <u64>L(un, j + n - 1);
    let qhat = num / vtop;
    let rhat = num - qhat * vtop;
    while (qhat >= B || qhat * vsec > ((rhat << 32) | <u64>L(un, j + n - 2))) {
      qhat--;
      rhat += vtop;
      if (rhat >= B) break;
    }
    // Multiply and subtract.
    let k: i64 = 0;
    let t: i64 = 0;
    for (let i = 0; i < n; i++) {
      let p = qhat * <u64>L(vn, i);
      t = <i64>L(un, i + j) - k - <i64>(p & 0xffff_ffff);
      unchecked((un[i + j] = <u32>t));
      k = <i64>(p >> 32) - (t >> 32);
    }
    t = <i64>L(un, j + n) - k;
    unchecked((un[j + n] = <u32>t));
    if (t < 0) {
      // qhat was one too large: add back.
      qhat--;
      let c: u64 = 0;
      for (let i = 0; i < n; i++) {
        let s2 = <u64>L(un, i + j) + <u64>L(vn, i) + c;
        unchecked((un[i + j] = <u32>s2));
        c = s2 >> 32;
      }
      unchecked((un[j + n] = <u32>(<u64>L(un, j + n) + c)));
    }
    unchecked((q[j] = <u32>qhat));
  }
  // Unnormalise the remainder.
  let r = newLimbs(n);
  for (let i = 0; i < n; i++) {
    unchecked((r[i] = <u32>((<u64>L(un, i) >> s) | ((<u64>L(un, i + 1)) << (32 - s)))));
  }
  divRem = r;
  divRemN = trimLen(r, n);
  return q;
}

/** Magnitude + 1 as a new array. */
function incMag(a: StaticArray<u32>, n: i32): StaticArray<u32> {
  let r = newLimbs(n + 1);
  let carry: u64 = 1;
  for (let i = 0; i < n; i++) {
    let s = <u64>L(a, i) + carry;
    unchecked((r[i] = <u32>s));
    carry = s >> 32;
  }
  unchecked((r[n] = <u32>carry));
  return r;
}

// ---------------------------------------------------------------------------------------------
// Construction, i64 conversion, sign and comparison

/** A fresh zero. */
export function bigZero(): BigInt {
  return new BigInt(0, 0, newLimbs(0));
}

function fromU64(sign: i32, m: u64): BigInt {
  let d = newLimbs(2);
  unchecked((d[0] = <u32>m));
  unchecked((d[1] = <u32>(m >> 32)));
  return make(sign, d, 2);
}

/** Python int from an i64 (all values, including i64.MIN_VALUE). */
export function bigFromI64(v: i64): BigInt {
  if (v == 0) return bigZero();
  return v < 0 ? fromU64(-1, <u64>(0 - v)) : fromU64(1, <u64>v);
}

/** True if `a` lies in [-2^63, 2^63 - 1]. */
export function bigFitsI64(a: BigInt): bool {
  if (a.n <= 1) return true;
  if (a.n > 2) return false;
  let m = low64(a.d, a.n);
  return a.sign > 0 ? m <= <u64>0x7fff_ffff_ffff_ffff : m <= <u64>0x8000_0000_0000_0000;
}

/** `a` as i64; exact when `bigFitsI64(a)`, otherwise the value modulo 2^64 (two's complement). */
export function bigToI64(a: BigInt): i64 {
  let m = low64(a.d, a.n);
  return a.sign < 0 ? <i64>(0 - m) : <i64>m;
}

/** Number of bits in |a| (Python `int.bit_length()`); 0 for zero. */
export function bigBitLength(a: BigInt): i64 {
  return <i64>bitLenMag(a.d, a.n);
}

/** -1, 0 or 1. */
export function bigSign(a: BigInt): i32 {
  return a.sign;
}

export function bigIsZero(a: BigInt): bool {
  return a.sign == 0;
}

/** Three-way comparison: -1 if a < b, 0 if equal, 1 if a > b. */
export function bigCmp(a: BigInt, b: BigInt): i32 {
  if (a.sign != b.sign) return a.sign < b.sign ? -1 : 1;
  let c = cmpMag(a.d, a.n, b.d, b.n);
  return a.sign < 0 ? -c : c;
}

/** -a. */
export function bigNeg(a: BigInt): BigInt {
  if (a.sign == 0) return a;
  return new BigInt(-a.sign, a.n, a.d);
}

/** |a|. */
export function bigAbs(a: BigInt): BigInt {
  return a.sign >= 0 ? a : new BigInt(1, a.n, a.d);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

function addSigned(a: BigInt, b: BigInt, bsign: i32): BigInt {
  if (bsign == 0) return a;
  if (a.sign == 0) return bsign == b.sign ? b : new BigInt(bsign, b.n, b.d);
  if (a.sign == bsign) return make(a.sign, addMag(a.d, a.n, b.d, b.n), (a.n > b.n ? a.n : b.n) + 1);
  let c = cmpMag(a.d, a.n, b.d, b.n);
  if (c == 0) return bigZero();
  if (c > 0) return make(a.sign, subMag(a.d, a.n, b.d, b.n), a.n);
  return make(bsign, subMag(b.d, b.n, a.d, a.n), b.n);
}

/** a + b. */
export function bigAdd(a: BigInt, b: BigInt): BigInt {
  return addSigned(a, b, b.sign);
}

/** a - b. */
export function bigSub(a: BigInt, b: BigInt): BigInt {
  return addSigned(a, b, -b.sign);
}

/** a * b (schoolbook). */
export function bigMul(a: BigInt, b: BigInt): BigInt {
  if (a.sign == 0) return a;
  if (b.sign == 0) return b;
  return make(a.sign * b.sign, mulMag(a.d, a.n, b.d, b.n), a.n + b.n);
}

/** Python `a // b` (floor toward -inf). Caller guarantees b != 0. */
export function bigFloorDiv(a: BigInt, b: BigInt): BigInt {
  if (a.sign == 0) return a;
  let neg = a.sign != b.sign;
  if (cmpMag(a.d, a.n, b.d, b.n) < 0) return neg ? bigFromI64(-1) : bigZero();
  let q = divmodMag(a.d, a.n, b.d, b.n);
  let qn = a.n - b.n + 1;
  if (neg && divRemN != 0) return make(-1, incMag(q, qn), qn + 1);
  return make(neg ? -1 : 1, q, qn);
}

/** Python `a % b` (result has the sign of b). Caller guarantees b != 0. */
export function bigMod(a: BigInt, b: BigInt): BigInt {
  if (a.sign == 0) return a;
  divmodMag(a.d, a.n, b.d, b.n);
  let r = divRem,
    rn = divRemN;
  if (rn == 0) return bigZero();
  if (a.sign != b.sign) return make(b.sign, subMag(b.d, b.n, r, rn), b.n);
  return make(a.sign, r, rn);
}

/** Python `a ** e` for e >= 0 (binary exponentiation). Caller bounds the result size. */
export function bigPow(a: BigInt, e: i64): BigInt {
  let result = bigFromI64(1);
  if (e <= 0) return result;
  let top = 63 - <i32>clz(e);
  for (let i = top; i >= 0; i--) {
    result = bigMul(result, result);
    if (((e >> i) & 1) != 0) result = bigMul(result, a);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Floats

// @ts-ignore: decorator
@inline function pow2(e: i32): f64 {
  // 2^e for -1022 <= e <= 1023
  return reinterpret<f64>((<u64>(e + 1023)) << 52);
}

/** x * 2^e computed in exact steps (exact whenever the final result is representable). */
function ldexpExact(x: f64, e: i32): f64 {
  while (e > 1000) {
    x *= pow2(1000);
    e -= 1000;
  }
  while (e < -1000) {
    x *= pow2(-1000);
    e += 1000;
  }
  return x * pow2(e);
}

/**
 * Python `float(a)`: correctly rounded (half to even). Sets `bigOverflow` (and returns ±inf)
 * when CPython raises "OverflowError: int too large to convert to float".
 */
export function bigToF64(a: BigInt): f64 {
  bigOverflow = false;
  if (a.sign == 0) return 0.0;
  let bl = bitLenMag(a.d, a.n);
  let r: f64;
  if (bl <= 64) {
    r = <f64>low64(a.d, a.n); // f64.convert_i64_u rounds to nearest even
  } else if (bl > 1024) {
    bigOverflow = true;
    r = Infinity;
  } else {
    let sh = bl - 64;
    let top = bits64At(a.d, a.n, sh);
    if (anyBitsBelow(a.d, a.n, sh)) top |= 1; // sticky bit; 11 guard bits make this exact
    r = ldexpExact(<f64>top, sh);
    if (!isFinite(r)) bigOverflow = true;
  }
  return a.sign < 0 ? -r : r;
}

/**
 * Python `int / int`, correctly rounded exactly as CPython's `long_true_divide` (round half to
 * even, gradual underflow, signed zero: `0 / -5 == -0.0`). Sets `bigOverflow` (returns ±inf) when
 * CPython raises "OverflowError: integer division result too large for a float".
 * Caller guarantees b != 0.
 */
export function bigTrueDiv(a: BigInt, b: BigInt): f64 {
  bigOverflow = false;
  let negate = a.sign < 0 != b.sign < 0;
  if (a.sign == 0) return negate ? -0.0 : 0.0;
  let aBits = bitLenMag(a.d, a.n),
    bBits = bitLenMag(b.d, b.n);
  if (aBits <= 53 && bBits <= 53) {
    // Both exact as doubles; IEEE division is correctly rounded.
    let r = <f64>low64(a.d, a.n) / <f64>low64(b.d, b.n);
    return negate ? -r : r;
  }
  let diff = aBits - bBits;
  if (diff > 1024) {
    bigOverflow = true;
    return negate ? -Infinity : Infinity;
  }
  if (diff < -1021 - 53 - 1) return negate ? -0.0 : 0.0;
  // Scale so that the integer quotient has 55 or 56 bits (fewer in the subnormal range).
  let shift = (diff > -1021 ? diff : -1021) - 53 - 2;
  let x: StaticArray<u32>;
  let inexact = false;
  if (shift < 0) {
    x = shlMag(a.d, a.n, -shift);
  } else {
    x = shrMag(a.d, a.n, shift);
    inexact = anyBitsBelow(a.d, a.n, shift);
  }
  let xn = trimLen(x, x.length);
  let q = divmodMag(x, xn, b.d, b.n);
  if (divRemN != 0) inexact = true;
  let qv = low64(q, trimLen(q, q.length));
  let xBits = 64 - <i32>clz(qv);
  let lim = -1021 - shift;
  let extra = (xBits > lim ? xBits : lim) - 53;
  let mask = (<u64>1) << (<u64>(extra - 1));
  let low = qv | (inexact ? 1 : 0);
  if ((low & mask) != 0 && (low & (3 * mask - 1)) != 0) low += mask;
  qv = low & ~(2 * mask - 1);
  let r = ldexpExact(<f64>qv, shift);
  if (!isFinite(r)) bigOverflow = true;
  return negate ? -r : r;
}

/** Python `int(x)` for finite x: truncation toward zero. (NaN/inf are the caller's; they give 0.) */
export function bigFromF64(x: f64): BigInt {
  if (!isFinite(x)) return bigZero();
  if (Math.abs(x) < 9223372036854775808.0) return bigFromI64(<i64>x);
  let bits = reinterpret<u64>(x);
  let e = <i32>((bits >> 52) & 0x7ff) - 1075; // >= 11 here
  let mant = (bits & 0x000f_ffff_ffff_ffff) | ((<u64>1) << 52);
  let m = newLimbs(2);
  unchecked((m[0] = <u32>mant));
  unchecked((m[1] = <u32>(mant >> 32)));
  let r = shlMag(m, 2, e);
  return make(x < 0 ? -1 : 1, r, r.length);
}

/**
 * Exact comparison of an int with a float, as CPython's `float_richcompare`: -1 if a < x, 0 if
 * equal, 1 if a > x. Infinities compare as expected; NaN is the caller's (it gives 0).
 */
export function bigCmpF64(a: BigInt, x: f64): i32 {
  if (x != x) return 0;
  if (x == Infinity) return -1;
  if (x == -Infinity) return 1;
  let xs = x > 0 ? 1 : x < 0 ? -1 : 0;
  if (a.sign != xs) return a.sign < xs ? -1 : 1;
  if (xs == 0) return 0;
  // Same nonzero sign: compare bit lengths before materialising the float's integer part.
  let abits = bitLenMag(a.d, a.n);
  let ax = Math.abs(x);
  let xexp = <i32>((reinterpret<u64>(ax) >> 52) & 0x7ff) - 1022; // ax in [2^(xexp-1), 2^xexp)
  if (xexp < abits) return a.sign; // |x| < 2^xexp <= 2^(abits-1) <= |a|  (also covers subnormals)
  if (xexp > abits) return -a.sign; // |x| >= 2^(xexp-1) >= 2^abits > |a|
  let t = Math.trunc(x);
  let c = bigCmp(a, bigFromF64(t));
  if (c != 0) return c;
  if (x == t) return 0;
  return x > 0 ? -1 : 1; // a == trunc(x) and x has a fraction
}

// ---------------------------------------------------------------------------------------------
// Strings

function allocString(len: i32): string {
  return changetype<string>(__new((<usize>len) << 1, idof<string>()));
}

// @ts-ignore: decorator
@inline function putChar(s: string, i: i32, c: i32): void {
  store<u16>(changetype<usize>(s) + ((<usize>i) << 1), <u16>c);
}

// @ts-ignore: decorator
@inline function digitChar(v: i32): i32 {
  return v < 10 ? 48 + v : 87 + v;
}

/**
 * Python `str(a)` / `repr(a)`. If |a| has more than 4300 decimal digits (CPython 3.11's default
 * limit, sign not counted), sets `bigLimitExceeded` and returns "" without building the string.
 */
export function bigToDecimalString(a: BigInt): string {
  bigLimitExceeded = false;
  if (a.sign == 0) return '0';
  let n = a.n;
  // |a| >= 2^14300 > 10^4304: over the limit without converting (10^4300 has 14285 bits).
  if (bitLenMag(a.d, n) > 14300) {
    bigLimitExceeded = true;
    return '';
  }
  let t = newLimbs(n);
  for (let i = 0; i < n; i++) unchecked((t[i] = L(a.d, i)));
  // Base-10^9 chunks, least significant first (each chunk holds > 29.8 bits).
  let chunks = newLimbs((n * 32) / 29 + 2);
  let cn = 0;
  while (n > 0) {
    unchecked((chunks[cn++] = divSmall(t, n, 1_000_000_000, t)));
    n = trimLen(t, n);
  }
  let topChunk = L(chunks, cn - 1);
  let topDigits = 1;
  for (let p: u32 = 10; topDigits < 10 && topChunk >= p; p *= 10) topDigits++;
  let digits = (cn - 1) * 9 + topDigits;
  if (digits > BIG_MAX_STR_DIGITS) {
    bigLimitExceeded = true;
    return '';
  }
  let neg = a.sign < 0 ? 1 : 0;
  let s = allocString(digits + neg);
  if (neg) putChar(s, 0, 45);
  let pos = digits + neg;
  for (let c = 0; c < cn; c++) {
    let v = L(chunks, c);
    let cnt = c == cn - 1 ? topDigits : 9;
    for (let k = 0; k < cnt; k++) {
      putChar(s, --pos, 48 + <i32>(v % 10));
      v /= 10;
    }
  }
  return s;
}

/**
 * Python `bin(a)` / `oct(a)` / `hex(a)` for base 2, 8, 16 ("-0x1f", "0o0", "0b101"); any other
 * power-of-two base up to 32 gives the digits without a prefix. No digit limit (as in CPython).
 */
export function bigToBinaryBaseString(a: BigInt, base: i32): string {
  let k = <i32>ctz(base);
  let prefix: i32 = base == 16 ? 120 : base == 8 ? 111 : base == 2 ? 98 : 0;
  let neg = a.sign < 0 ? 1 : 0;
  let bl = bitLenMag(a.d, a.n);
  let nd = bl == 0 ? 1 : (bl + k - 1) / k;
  let head = neg + (prefix != 0 ? 2 : 0);
  let s = allocString(head + nd);
  let p = 0;
  if (neg) putChar(s, p++, 45);
  if (prefix != 0) {
    putChar(s, p++, 48);
    putChar(s, p++, prefix);
  }
  let mask = ((<u64>1) << (<u64>k)) - 1;
  for (let i = nd - 1; i >= 0; i--) {
    let v = <i32>(bits64At(a.d, a.n, i * k) & mask);
    putChar(s, p++, digitChar(v));
  }
  return s;
}

// @ts-ignore: decorator
@inline function isPySpace(c: i32): bool {
  // Py_ISSPACE on ASCII: \t \n \v \f \r and space.
  return c == 32 || (c >= 9 && c <= 13);
}

// @ts-ignore: decorator
@inline function digitValue(c: i32): i32 {
  // _PyLong_DigitValue: 0-9, a-z/A-Z = 10..35, anything else 37.
  if (c >= 48 && c <= 57) return c - 48;
  let l = c | 32;
  if (l >= 97 && l <= 122) return l - 87;
  return 37;
}

/**
 * Python `int(s, base)` for base 0 or 2..36, applied to the string *after* CPython's
 * Unicode-digit/space → ASCII transform. Mirrors `PyLong_FromString` + `PyLong_FromUnicodeObject`:
 * surrounding whitespace, one sign, base-0 prefix inference (a nonzero decimal with a leading zero
 * is an error), the own prefix for bases 2/8/16, single underscores between digits (and one right
 * after a prefix), letters case-insensitive. A NUL character is invalid anywhere.
 * Returns null for ValueError; `bigLimitExceeded` is then set if the error is the 4300-digit limit
 * (non-power-of-two bases; checked on the leading run of digits before any later syntax error,
 * exactly as CPython does; leading zeros count, underscores and the sign do not), with the digit
 * count in `bigLimitDigits`. Otherwise the error is "invalid literal for int() with base %d: %R".
 */
export function bigParse(s: string, base: i32): BigInt | null {
  bigLimitExceeded = false;
  let len = s.length;
  let ptr = changetype<usize>(s);
  // CPython parses a NUL-terminated buffer: treat the first NUL as the end, then fail if the
  // buffer was not consumed entirely.
  let end = len;
  for (let i = 0; i < len; i++) {
    if (load<u16>(ptr + ((<usize>i) << 1)) == 0) {
      end = i;
      break;
    }
  }
  let i = 0;
  while (i < end && isPySpace(charAt(ptr, end, i))) i++;
  let sign = 1;
  let c = charAt(ptr, end, i);
  if (c == 43) i++;
  else if (c == 45) {
    i++;
    sign = -1;
  }
  let errorIfNonzero = false;
  let c0 = charAt(ptr, end, i),
    c1 = charAt(ptr, end, i + 1) | 32;
  if (base == 0) {
    if (c0 != 48) base = 10;
    else if (c1 == 120) base = 16;
    else if (c1 == 111) base = 8;
    else if (c1 == 98) base = 2;
    else {
      errorIfNonzero = true;
      base = 10;
    }
  }
  if (c0 == 48 && ((base == 16 && c1 == 120) || (base == 8 && c1 == 111) || (base == 2 && c1 == 98))) {
    i += 2;
    if (charAt(ptr, end, i) == 95) i++;
  }
  if (charAt(ptr, end, i) == 95) return null;
  let start = i;
  let digits = 0;
  let prev = 0;
  while (i < end) {
    let ch = charAt(ptr, end, i);
    if (ch == 95) {
      if (prev == 95) return null;
    } else if (digitValue(ch) < base) {
      digits++;
    } else break;
    prev = ch;
    i++;
  }
  if (prev == 95) return null;
  let pow2base = (base & (base - 1)) == 0;
  if (!pow2base && digits > BIG_MAX_STR_DIGITS) {
    bigLimitExceeded = true;
    bigLimitDigits = digits;
    return null;
  }
  if (digits == 0) return null;
  let stop = i;
  while (i < end && isPySpace(charAt(ptr, end, i))) i++;
  if (i != end || end != len) return null;

  let r: BigInt;
  if (pow2base) {
    let k = <i32>ctz(base);
    let d = newLimbs(<i32>((<i64>digits * k + 31) >> 5) + 1);
    let bitpos = 0;
    for (let j = stop - 1; j >= start; j--) {
      let ch = charAt(ptr, end, j);
      if (ch == 95) continue;
      let v = (<u64>digitValue(ch)) << (<u64>(bitpos & 31));
      let li = bitpos >> 5;
      unchecked((d[li] = L(d, li) | <u32>v));
      if (v >> 32 != 0) unchecked((d[li + 1] = L(d, li + 1) | <u32>(v >> 32)));
      bitpos += k;
    }
    r = make(sign, d, d.length);
  } else {
    // Largest chunk of digits whose value fits in a u32.
    let chunk = 1;
    let chunkMul: u64 = <u64>base;
    while (chunkMul * <u64>base <= 0xffff_ffff) {
      chunkMul *= <u64>base;
      chunk++;
    }
    let bitsPerDigit = 32 - <i32>clz(<u32>(base - 1)); // ceil(log2(base)) for base >= 2
    let d = newLimbs(<i32>((<i64>digits * bitsPerDigit) >> 5) + 2);
    let n = 0;
    let acc: u32 = 0,
      cnt = 0;
    let mul: u32 = 1;
    for (let j = start; j < stop; j++) {
      let ch = charAt(ptr, end, j);
      if (ch == 95) continue;
      acc = acc * <u32>base + <u32>digitValue(ch);
      mul *= <u32>base;
      if (++cnt == chunk) {
        n = mulAddSmall(d, n, mul, acc);
        acc = 0;
        cnt = 0;
        mul = 1;
      }
    }
    if (cnt != 0) n = mulAddSmall(d, n, mul, acc);
    r = make(sign, d, n);
  }
  if (errorIfNonzero && r.sign != 0) return null;
  return r;
}

// @ts-ignore: decorator
@inline function charAt(ptr: usize, end: i32, i: i32): i32 {
  return i < end ? <i32>load<u16>(ptr + ((<usize>i) << 1)) : 0;
}
