// Python's float(str) for the wasm VM, bit-identical to CPython 3.11.
//
// CPython's path (Objects/floatobject.c, Python/pystrtod.c, Python/dtoa.c):
//   PyFloat_FromString
//     -> _PyUnicode_TransformDecimalAndSpaceToASCII        (pystr.ts)
//     -> _Py_string_to_number_with_underscores              (underscores only between digits)
//     -> float_from_string_inner                            (strip Py_ISSPACE; whole rest must parse)
//     -> PyOS_string_to_double -> _Py_dg_strtod             (decimal, correctly rounded)
//                              -> _Py_parse_inf_or_nan      (when no digits were found)
//
// AssemblyScript's parseFloat/F64.parseFloat is neither correctly rounded nor Python's grammar,
// and the VM may not import a host conversion, so the conversion is done here:
//   1. Clinger's fast path: at most 15 significant digits and a small power of ten, where the
//      answer is one correctly rounded IEEE operation on two exact doubles.
//   2. Otherwise an exact big-integer computation: with V = A/B * 2^f (A, B integers), find
//      the binary exponent, divide to get the 53-bit (or subnormal) significand and the exact
//      remainder, and round half-to-even by comparing 2*remainder with the divisor. No
//      approximation is trusted, so there are no hard cases left over.
// Inputs with more than MAX_DIGITS significant digits are truncated to MAX_DIGITS digits plus
// a sticky nonzero digit; see MAX_DIGITS for why that is exact.
//
// Nothing here allocates on the heap (only transformDecimalAndSpaceToAscii does, for non-ASCII
// input): the scratch buffers live in static memory (memory.data), which the stub runtime's
// __reset() does not rewind, so the VM can reset its arena between evaluations safely.

import { isAsciiSpace, transformDecimalAndSpaceToAscii, codeUnitAt } from './pystr';

/** True after parsePyFloat() when CPython's float(s) raises ValueError; false on success. */
export let pyFloatError: bool = false;

// ---------------------------------------------------------------------------------------------
// IEEE-754 binary64 constants
// ---------------------------------------------------------------------------------------------

const SIGN_BIT: u64 = 0x8000000000000000;
const INF_BITS: u64 = 0x7ff0000000000000;
/** _Py_dg_stdnan(): the quiet NaN with only the top fraction bit set; "-nan" sets the sign. */
const NAN_BITS: u64 = 0x7ff8000000000000;

// ---------------------------------------------------------------------------------------------
// Significant digits
// ---------------------------------------------------------------------------------------------

/**
 * Significant digits kept exactly. Every value where rounding changes (a midpoint between two
 * adjacent doubles, including the overflow and underflow thresholds) is odd * 2^k with
 * odd < 2^54 and k >= -1075, which has at most 768 significant decimal digits. If the input
 * has more digits, let T be its first MAX_DIGITS digits (T <= V < T + one unit of the last
 * kept digit). Every midpoint of the input's decade lies on the grid of that last unit, so no
 * midpoint lies strictly between T and T + unit: replacing the dropped digits by a single
 * nonzero digit (V' strictly inside (T, T + unit) iff V > T) compares with every midpoint
 * exactly as V does, and so rounds identically. (Same argument as Go's and Wuffs's 800-digit
 * decimal buffers.)
 */
const MAX_DIGITS: i32 = 800;

/** Digit values 0..9, most significant first; one extra slot for the sticky digit. */
const digits: usize = memory.data(MAX_DIGITS + 1);

// ---------------------------------------------------------------------------------------------
// Fixed-capacity unsigned big integers in static memory
// ---------------------------------------------------------------------------------------------

/**
 * Capacity in 32-bit limbs. Bound on every intermediate (see slowPath): A < 10^801 (2661 bits),
 * 5^k with k <= 801 + 323 (2610 bits), each shifted by at most 54 bits and compared with at
 * most one extra bit: < 2720 bits = 85 limbs. 96 limbs leave a margin; overflow is asserted.
 */
const LIMBS: i32 = 96;

/**
 * An unmanaged view over static memory: `len` significant limbs (no zero limb on top, so
 * zero has len 0), followed by LIMBS u32 limbs, least significant first.
 */
@unmanaged
class Big {
  len: i32;

  @inline private limbAddr(i: i32): usize {
    return changetype<usize>(this) + offsetof<Big>() + ((<usize>i) << 2);
  }

  /** Limb i, or 0 above the top (so readers need no bounds logic). */
  @inline get(i: i32): u32 {
    return i < this.len ? load<u32>(this.limbAddr(i)) : 0;
  }

  @inline set(i: i32, v: u32): void {
    store<u32>(this.limbAddr(i), v);
  }

  setU32(v: u32): void {
    this.len = 0;
    if (v != 0) {
      this.set(0, v);
      this.len = 1;
    }
  }

  copyFrom(src: Big): void {
    this.len = src.len;
    memory.copy(this.limbAddr(0), src.limbAddr(0), (<usize>src.len) << 2);
  }

  /** Drop zero limbs from the top. */
  private trim(): void {
    let n = this.len;
    while (n > 0 && load<u32>(this.limbAddr(n - 1)) == 0) n--;
    this.len = n;
  }

  private push(v: u32): void {
    assert(this.len < LIMBS, 'Big overflow');
    this.set(this.len, v);
    this.len++;
  }

  bitLength(): i32 {
    const n = this.len;
    return n == 0 ? 0 : (n << 5) - <i32>clz(this.get(n - 1));
  }

  /** this = this * m + add */
  mulAdd(m: u32, add: u32): void {
    if (m == 0) {
      this.setU32(add); // keeps `len` normalized (no zero limbs on top)
      return;
    }
    let carry: u64 = add;
    for (let i = 0, n = this.len; i < n; i++) {
      const t = <u64>this.get(i) * m + carry;
      this.set(i, <u32>t);
      carry = t >> 32;
    }
    if (carry != 0) this.push(<u32>carry);
  }

  /** this = this * 5^k */
  mulPow5(k: i32): void {
    // 5^13 = 1220703125 is the largest power of five below 2^32.
    while (k >= 13) {
      this.mulAdd(1220703125, 0);
      k -= 13;
    }
    let m: u32 = 1;
    while (k > 0) {
      m *= 5;
      k--;
    }
    if (m != 1) this.mulAdd(m, 0);
  }

  /** this = this << bits */
  shl(bits: i32): void {
    const n = this.len;
    if (n == 0 || bits == 0) return;
    const limbShift = bits >>> 5;
    const bitShift = bits & 31;
    let newLen = n + limbShift;
    if (bitShift == 0) {
      assert(newLen <= LIMBS, 'Big overflow');
      for (let i = n - 1; i >= 0; i--) this.set(i + limbShift, this.get(i));
    } else {
      const top = this.get(n - 1) >>> (32 - bitShift);
      if (top != 0) newLen++;
      assert(newLen <= LIMBS, 'Big overflow');
      if (top != 0) this.set(n + limbShift, top);
      // From the top down, so each source limb is read before it is overwritten.
      for (let i = n - 1; i > 0; i--) {
        this.set(i + limbShift, (this.get(i) << bitShift) | (this.get(i - 1) >>> (32 - bitShift)));
      }
      this.set(limbShift, this.get(0) << bitShift);
    }
    for (let i = 0; i < limbShift; i++) this.set(i, 0);
    this.len = newLen;
  }

  /** this = this + b */
  add(b: Big): void {
    const n = max(this.len, b.len);
    let carry: u64 = 0;
    for (let i = 0; i < n; i++) {
      const t = <u64>this.get(i) + b.get(i) + carry;
      this.set(i, <u32>t);
      carry = t >> 32;
    }
    this.len = n;
    if (carry != 0) this.push(<u32>carry);
  }

  /** this = this - b; requires this >= b. */
  sub(b: Big): void {
    let borrow: i64 = 0;
    for (let i = 0, n = this.len; i < n; i++) {
      const t = <i64>this.get(i) - <i64>b.get(i) - borrow;
      this.set(i, <u32>t);
      borrow = t < 0 ? 1 : 0;
    }
    assert(borrow == 0, 'Big underflow');
    this.trim();
  }

  /**
   * The 64 bits of `this` just below bit `bitLen` (= this.bitLength()), i.e. the value scaled
   * to [2^63, 2^64): this ~= result * 2^(bitLen - 64), exactly when bitLen <= 64.
   */
  top64(bitLen: i32): u64 {
    const low = bitLen - 64;
    if (low <= 0) {
      return (((<u64>this.get(1)) << 32) | this.get(0)) << (<u64>-low);
    }
    const i = low >>> 5;
    const sh = <u64>(low & 31);
    const window = ((<u64>this.get(i + 1)) << 32) | this.get(i);
    // `window >> sh` has 64 - sh valid bits; the next limb supplies the top sh bits.
    return sh == 0 ? window : (window >> sh) | ((<u64>this.get(i + 2)) << (64 - sh));
  }
}

function compare(a: Big, b: Big): i32 {
  if (a.len != b.len) return a.len > b.len ? 1 : -1;
  for (let i = a.len - 1; i >= 0; i--) {
    const x = a.get(i);
    const y = b.get(i);
    if (x != y) return x > y ? 1 : -1;
  }
  return 0;
}

const BIG_BYTES: i32 = <i32>offsetof<Big>() + (LIMBS << 2);
const bigA = changetype<Big>(memory.data(BIG_BYTES, 8));
const bigB = changetype<Big>(memory.data(BIG_BYTES, 8));
const bigT = changetype<Big>(memory.data(BIG_BYTES, 8)); // scratch of compareShifted, divSmallQuotient
const bigU = changetype<Big>(memory.data(BIG_BYTES, 8)); // scratch of mulU64

/** Sign of a - b * 2^shift (a, b > 0), using bigT as scratch. */
function compareShifted(a: Big, b: Big, shift: i32): i32 {
  if (shift >= 0) {
    bigT.copyFrom(b);
    bigT.shl(shift);
    return compare(a, bigT);
  }
  bigT.copyFrom(a);
  bigT.shl(-shift);
  return compare(bigT, b);
}

/** product = d * q for q < 2^64 (two 32-bit multiplications), using bigU as scratch. */
function mulU64(product: Big, d: Big, q: u64): void {
  product.copyFrom(d);
  product.mulAdd(<u32>(q >> 32), 0);
  product.shl(32);
  bigU.copyFrom(d);
  bigU.mulAdd(<u32>q, 0);
  product.add(bigU);
}

/**
 * floor(n / d), leaving the remainder in n, for a quotient known to be < 2^54. The quotient is
 * estimated from the top 64 bits of both operands in floating point (relative error < 2^-51,
 * so off by at most a few units) and then corrected exactly.
 */
function divSmallQuotient(n: Big, d: Big): u64 {
  const ln = n.bitLength();
  const ld = d.bitLength();
  if (ln < ld) return 0;
  const ratio = <f64>n.top64(ln) / <f64>d.top64(ld); // in (1/2, 2)
  const scale = reinterpret<f64>((<u64>(1023 + ln - ld)) << 52); // 2^(ln - ld), ln - ld <= 55
  let q = <u64>(ratio * scale);
  mulU64(bigT, d, q);
  while (compare(bigT, n) > 0) {
    q--;
    bigT.sub(d);
  }
  n.sub(bigT);
  while (compare(n, d) >= 0) {
    n.sub(d);
    q++;
  }
  return q;
}

// ---------------------------------------------------------------------------------------------
// Decimal -> binary64
// ---------------------------------------------------------------------------------------------

/** 10^0 .. 10^22: exactly representable, so the fast path multiplies two exact doubles. */
const POW10: StaticArray<f64> = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

/**
 * Bits of the correctly rounded (half-to-even) double nearest to D * 10^e, where D is the
 * integer formed by the `n` digits in `digits` (first digit nonzero) and
 * -323 <= n + e <= 309 (the caller has already settled overflow and underflow outside that).
 */
function decimalToBits(n: i32, e: i32): u64 {
  // Clinger's fast path: D < 10^15 < 2^53 is exact, and so is 10^|e| for |e| <= 22; one IEEE
  // multiplication or division of exact operands is correctly rounded. If e > 22 but D*10^(e-22)
  // still has at most 15 digits, that product is an exact integer and the same argument holds.
  if (n <= 15) {
    let d: u64 = 0;
    for (let i = 0; i < n; i++) d = d * 10 + load<u8>(digits + i);
    const x = <f64>d;
    if (e >= 0 && e <= 22) return reinterpret<u64>(x * unchecked(POW10[e]));
    if (e < 0 && e >= -22) return reinterpret<u64>(x / unchecked(POW10[-e]));
    if (e > 22 && n + e - 22 <= 15) {
      return reinterpret<u64>(x * unchecked(POW10[e - 22]) * 1e22);
    }
  }
  return slowPath(n, e);
}

/** Exact conversion of D * 10^e with big integers (see decimalToBits for the contract). */
function slowPath(n: i32, e: i32): u64 {
  // A = D, nine digits at a time.
  const A = bigA;
  const B = bigB;
  A.setU32(0);
  let i = 0;
  while (i < n) {
    const chunk = min(9, n - i);
    let v: u32 = 0;
    let scale: u32 = 1;
    for (let j = 0; j < chunk; j++) {
      v = v * 10 + load<u8>(digits + i + j);
      scale *= 10;
    }
    A.mulAdd(scale, v);
    i += chunk;
  }

  // V = D * 10^e = (A / B) * 2^e with 10^e = 5^e * 2^e: A = D * 5^e, B = 1 when e >= 0, and
  // A = D, B = 5^-e when e < 0.
  B.setU32(1);
  if (e >= 0) A.mulPow5(e);
  else B.mulPow5(-e);

  // E = floor(log2 V). With l = bitLength(A) - bitLength(B), A/B lies in (2^(l-1), 2^(l+1)).
  let l = A.bitLength() - B.bitLength();
  if (compareShifted(A, B, l) < 0) l--;
  const E = l + e;
  if (E > 1023) return INF_BITS; // V >= 2^1024
  if (E < -1075) return 0; // V < 2^-1075, below half the smallest subnormal

  // The unit in the last place of the result: 2^(E-52) for a normal double, 2^-1074 for a
  // subnormal. q = floor(V / 2^ulpExp) < 2^53 is the significand before rounding.
  const ulpExp = max(E - 52, -1074);
  const s = ulpExp - e; // q = floor(A / (B * 2^s))
  if (s >= 0) B.shl(s);
  else A.shl(-s);
  let q = divSmallQuotient(A, B); // A is now the remainder

  // Round half to even: compare the remainder with half the divisor.
  A.shl(1);
  const c = compare(A, B);
  if (c > 0 || (c == 0 && (q & 1) != 0)) q++;

  // For a normal result q is in [2^52, 2^53] and the biased exponent is ulpExp + 1075, so the
  // bits are ((ulpExp + 1074) << 52) + q: the implicit 1 of q adds the missing exponent unit,
  // and a carry to q = 2^53 moves to the next binade by itself. For a subnormal result
  // (ulpExp = -1074) the bits are just q, and q = 2^52 is the smallest normal. Bits at or
  // above the infinity pattern mean the rounding overflowed.
  const bits = ((<u64>(ulpExp + 1074)) << 52) + q;
  return bits >= INF_BITS ? INF_BITS : bits;
}

// ---------------------------------------------------------------------------------------------
// The float() grammar
// ---------------------------------------------------------------------------------------------

const C_UNDERSCORE = 0x5f;
const C_DOT = 0x2e;
const C_PLUS = 0x2b;
const C_MINUS = 0x2d;

@inline function isDigit(c: i32): bool {
  return <u32>(c - 0x30) < 10;
}

/** Largest absolute exponent accumulated exactly; beyond it the value is 0 or inf anyway. */
const EXP_CLAMP: i64 = 1_000_000_000_000_000;

/** CPython's case_insensitive_match(s, word) at position p of t[0..end); word is lowercase. */
// @ts-ignore: decorator
@inline function matchWord(t: string, p: i32, end: i32, word: string): bool {
  const n = word.length;
  if (end - p < n) return false;
  for (let i = 0; i < n; i++) {
    let c = codeUnitAt(t, p + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20; // Py_TOLOWER is ASCII-only
    if (c != codeUnitAt(word, i)) return false;
  }
  return true;
}

@inline function fail(): f64 {
  pyFloatError = true;
  return reinterpret<f64>(NAN_BITS);
}

/**
 * Python 3.11 `float(s)` for a str `s`. On success returns the double and sets pyFloatError to
 * false; where CPython raises ValueError sets pyFloatError to true (the result is then
 * meaningless). Overflow gives +-inf and underflow +-0.0, as in CPython (no error).
 */
export function parsePyFloat(s: string): f64 {
  pyFloatError = false;
  const t = transformDecimalAndSpaceToAscii(s);
  const len = t.length;

  // _Py_string_to_number_with_underscores: an underscore is valid only between two digits
  // (not leading, trailing, doubled, or next to '.', 'e', a sign or a space); valid ones are
  // simply skipped inside the digit runs below. CPython works on a NUL-terminated char* and
  // rejects an embedded NUL; the grammar below would reject it too, the explicit test just
  // mirrors CPython and keeps the reason obvious.
  for (let i = 0; i < len; i++) {
    const c = codeUnitAt(t, i);
    if (c == 0) return fail();
    if (c == C_UNDERSCORE) {
      if (i == 0 || i + 1 == len || !isDigit(codeUnitAt(t, i - 1)) || !isDigit(codeUnitAt(t, i + 1))) {
        return fail();
      }
    }
  }

  // float_from_string_inner: strip Py_ISSPACE on both sides; nothing left is an error.
  let start = 0;
  let end = len;
  while (start < end && isAsciiSpace(codeUnitAt(t, start))) start++;
  if (start == end) return fail();
  while (end > start + 1 && isAsciiSpace(codeUnitAt(t, end - 1))) end--;

  // _Py_dg_strtod: [sign] digits [. digits] [(e|E) [sign] digits], at least one mantissa digit.
  let p = start;
  let negative = false;
  let c = codeUnitAt(t, p); // p < end here
  if (c == C_MINUS || c == C_PLUS) {
    negative = c == C_MINUS;
    p++;
  }

  let sawDigit = false;
  let nd = 0; // significant digits seen (leading zeros excluded), kept or not
  let kept = 0; // significant digits stored in `digits`, at most MAX_DIGITS
  let sticky = false; // a nonzero digit was dropped beyond MAX_DIGITS
  let decExp: i64 = 0; // the value is 0.d1d2d3... * 10^decExp
  let inFraction = false;
  while (p < end) {
    c = codeUnitAt(t, p);
    if (isDigit(c)) {
      sawDigit = true;
      if (nd == 0 && c == 0x30) {
        if (inFraction) decExp--; // a zero between the point and the first significant digit
      } else {
        if (kept < MAX_DIGITS) store<u8>(digits + kept++, <u8>(c - 0x30));
        else if (c != 0x30) sticky = true;
        nd++;
        if (!inFraction) decExp++;
      }
    } else if (c == C_DOT && !inFraction) {
      inFraction = true;
    } else if (c != C_UNDERSCORE) {
      break;
    }
    p++;
  }

  if (!sawDigit) {
    // No digits: _Py_parse_inf_or_nan from the start (it reads its own sign).
    p = start;
    negative = false;
    c = codeUnitAt(t, p);
    if (c == C_MINUS || c == C_PLUS) {
      negative = c == C_MINUS;
      p++;
    }
    let bits: u64;
    if (matchWord(t, p, end, 'inf')) {
      p += 3;
      if (matchWord(t, p, end, 'inity')) p += 5;
      bits = INF_BITS;
    } else if (matchWord(t, p, end, 'nan')) {
      p += 3;
      bits = NAN_BITS; // "-nan" keeps its sign bit, like _Py_dg_stdnan(1)
    } else {
      return fail();
    }
    if (p != end) return fail();
    return reinterpret<f64>(negative ? bits | SIGN_BIT : bits);
  }

  // Exponent: only taken if at least one digit follows 'e' and its sign; otherwise the 'e' is
  // left unparsed and becomes trailing garbage ("1e", "1e+" are errors).
  if (p < end && (c == 0x65 || c == 0x45)) {
    let q = p + 1;
    let expNegative = false;
    if (q < end) {
      const sc = codeUnitAt(t, q);
      if (sc == C_MINUS || sc == C_PLUS) {
        expNegative = sc == C_MINUS;
        q++;
      }
    }
    if (q < end && isDigit(codeUnitAt(t, q))) {
      let exp: i64 = 0;
      while (q < end) {
        const ec = codeUnitAt(t, q);
        if (isDigit(ec)) {
          if (exp < EXP_CLAMP) exp = exp * 10 + (ec - 0x30);
        } else if (ec != C_UNDERSCORE) {
          break;
        }
        q++;
      }
      decExp += expNegative ? -exp : exp;
      p = q;
    }
  }
  if (p != end) return fail();

  let bits: u64;
  if (nd == 0) {
    bits = 0; // all digits zero: +-0.0 whatever the exponent
  } else if (decExp > 309) {
    bits = INF_BITS; // V >= 10^309 > DBL_MAX
  } else if (decExp < -323) {
    bits = 0; // V < 10^-324 < 2^-1075, half the smallest subnormal
  } else {
    if (sticky) {
      store<u8>(digits + kept++, 1); // stands for the dropped nonzero tail (see MAX_DIGITS)
    } else {
      while (load<u8>(digits + kept - 1) == 0) kept--; // the first digit is nonzero
    }
    bits = decimalToBits(kept, <i32>decExp - kept);
  }
  return reinterpret<f64>(negative ? bits | SIGN_BIT : bits);
}
