// Test entry for test/pyfloat.test.ts and scripts/check-pyfloat-live.mjs: thin wrappers over
// parsePyFloat and the Unicode helpers, compiled with `--runtime stub`.
//
// Protocol per case (no bindings needed): allocInput(n) returns a string object of n UTF-16
// code units for the host to fill in memory; parseBits(ptr) returns the IEEE bits of
// float(s) as i64 (a BigInt in JS, so NaN sign and payload survive); lastError() reports
// whether CPython would raise ValueError; resetHeap() rewinds the stub bump allocator so the
// heap does not grow across cases.

import { parsePyFloat, pyFloatError } from '../pyfloat';
import { transformDecimalAndSpaceToAscii } from '../pystr';
import { decimalValue, isPySpace } from '../unicode-data';

export function allocInput(units: i32): usize {
  return __new((<usize>units) << 1, idof<string>());
}

export function parseBits(ptr: usize): i64 {
  return reinterpret<i64>(parsePyFloat(changetype<string>(ptr)));
}

export function lastError(): bool {
  return pyFloatError;
}

export function resetHeap(): void {
  __reset();
}

/** The transformed string (the host reads its length from the object header at ptr - 4). */
export function transform(ptr: usize): usize {
  return changetype<usize>(transformDecimalAndSpaceToAscii(changetype<string>(ptr)));
}

export function pySpace(cp: i32): bool {
  return isPySpace(cp);
}

export function pyDecimal(cp: i32): i32 {
  return decimalValue(cp);
}
