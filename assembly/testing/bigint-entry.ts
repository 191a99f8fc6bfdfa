// Test entry for assembly/bigint.ts: thin string-in/string-out wrappers, compiled only by
// test/bigint.test.ts and scripts/check-bigint-live.mjs (never part of build/vm.wasm).
//
// Ints cross the boundary as Python `hex()` text ("-0x1f"), read here by an independent reader
// and written by bigToBinaryBaseString (itself checked against Python's hex/oct/bin).
// Floats cross as 16 hex digits of their IEEE-754 bits (big-endian, like
// `struct.pack('>d', x).hex()`). Results:
//   OverflowError            bigOverflow was set
//   LIMIT                    bigLimitExceeded was set (parse: "LIMIT <bigLimitDigits>")
//   ERR                      bigParse returned null without the limit flag
// The host calls reset() before each case, so the stub arena never grows.

import {
  BigInt,
  bigAbs,
  bigAdd,
  bigBitLength,
  bigCmp,
  bigCmpF64,
  bigFitsI64,
  bigFloorDiv,
  bigFromF64,
  bigFromI64,
  bigIsZero,
  bigLimitDigits,
  bigLimitExceeded,
  bigMod,
  bigMul,
  bigNeg,
  bigOverflow,
  bigParse,
  bigPow,
  bigSign,
  bigSub,
  bigToBinaryBaseString,
  bigToDecimalString,
  bigToF64,
  bigToI64,
  bigTrueDiv,
} from '../bigint';

// Arena position to rewind to (custom arena runtime only).
let arenaMark: usize = 0;

/** Frees everything allocated since the previous reset (works with `stub` and assembly/rt/arena). */
export function reset(): void {
  if (isDefined(__arena_release)) {
    if (arenaMark == 0) arenaMark = __arena_mark();
    else __arena_release(arenaMark);
  } else {
    __reset();
  }
}

function hexDigit(c: i32): u32 {
  if (c >= 48 && c <= 57) return <u32>(c - 48);
  if (c >= 97 && c <= 102) return <u32>(c - 87);
  if (c >= 65 && c <= 70) return <u32>(c - 55);
  abort('bad hex digit');
  return 0;
}

/** Reads "0x1f" / "-0x1f" (independently of bigParse). */
function fromHex(s: string): BigInt {
  let i = 0;
  let neg = false;
  if (s.charCodeAt(0) == 45) {
    neg = true;
    i = 1;
  }
  if (s.charCodeAt(i) != 48 || s.charCodeAt(i + 1) != 120) abort('bad hex int');
  i += 2;
  let nd = s.length - i;
  let d = new StaticArray<u32>((nd + 7) >> 3);
  memory.fill(changetype<usize>(d), 0, (<usize>d.length) << 2); // the arena runtime does not zero
  for (let k = 0; k < nd; k++) {
    let v = hexDigit(s.charCodeAt(s.length - 1 - k));
    let li = k >> 3;
    d[li] = d[li] | (v << (((k & 7) as u32) << 2));
  }
  let n = d.length;
  while (n > 0 && d[n - 1] == 0) n--;
  return new BigInt(n == 0 ? 0 : neg ? -1 : 1, n, d);
}

function hex(a: BigInt): string {
  return bigToBinaryBaseString(a, 16);
}

function f64FromBits(s: string): f64 {
  let v: u64 = 0;
  for (let i = 0; i < s.length; i++) v = (v << 4) | <u64>hexDigit(s.charCodeAt(i));
  return reinterpret<f64>(v);
}

function f64Bits(x: f64): string {
  let v = reinterpret<u64>(x);
  let out = '';
  for (let i = 15; i >= 0; i--) {
    let d = <i32>((v >> ((<u64>i) << 2)) & 15);
    out += String.fromCharCode(d < 10 ? 48 + d : 87 + d);
  }
  return out;
}

function parseSmallInt(s: string): i64 {
  let neg = s.charCodeAt(0) == 45;
  let v: i64 = 0;
  for (let i = neg ? 1 : 0; i < s.length; i++) v = v * 10 + <i64>(s.charCodeAt(i) - 48);
  return neg ? -v : v;
}

function f64Result(x: f64): string {
  return bigOverflow ? 'OverflowError' : f64Bits(x);
}

/** Operation codes (must match scripts/bigint-harness.mjs). */
export function run(op: i32, x: string, y: string): string {
  switch (op) {
    case 0:
      return hex(bigAdd(fromHex(x), fromHex(y)));
    case 1:
      return hex(bigSub(fromHex(x), fromHex(y)));
    case 2:
      return hex(bigMul(fromHex(x), fromHex(y)));
    case 3:
      return hex(bigFloorDiv(fromHex(x), fromHex(y)));
    case 4:
      return hex(bigMod(fromHex(x), fromHex(y)));
    case 5:
      return hex(bigPow(fromHex(x), parseSmallInt(y)));
    case 6:
      return hex(bigNeg(fromHex(x)));
    case 7:
      return hex(bigAbs(fromHex(x)));
    case 8:
      return bigCmp(fromHex(x), fromHex(y)).toString();
    case 9: {
      // sign / is-zero / bit_length
      let a = fromHex(x);
      let z = bigIsZero(a);
      if (z != (bigSign(a) == 0)) return 'inconsistent';
      return bigSign(a).toString() + ' ' + bigBitLength(a).toString();
    }
    case 10: {
      // i64 fit + round trip through bigFromI64
      let a = fromHex(x);
      if (!bigFitsI64(a)) return 'no';
      let v = bigToI64(a);
      if (bigCmp(bigFromI64(v), a) != 0) return 'roundtrip';
      return v.toString();
    }
    case 11:
      return f64Result(bigTrueDiv(fromHex(x), fromHex(y)));
    case 12:
      return f64Result(bigToF64(fromHex(x)));
    case 13:
      return hex(bigFromF64(f64FromBits(x)));
    case 14:
      return bigCmpF64(fromHex(x), f64FromBits(y)).toString();
    case 15: {
      let s = bigToDecimalString(fromHex(x));
      if (bigLimitExceeded) return s.length == 0 ? 'LIMIT' : 'LIMIT-but-built';
      return s;
    }
    case 16: {
      let r = bigParse(x, <i32>parseSmallInt(y));
      if (r === null) return bigLimitExceeded ? 'LIMIT ' + bigLimitDigits.toString() : 'ERR';
      return hex(r);
    }
    case 17:
      return bigToBinaryBaseString(fromHex(x), <i32>parseSmallInt(y));
    case 18:
      return hex(bigFromI64(parseSmallInt(x)));
    case 99: {
      fromHex(x);
      if (y.length > 0) fromHex(y);
      return '';
    } // overhead baseline
  }
  abort('unknown op');
  return '';
}
