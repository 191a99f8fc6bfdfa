// CPython 3.11 string helpers needed by the numeric constructors (float(), int(), complex()).
// Everything is computed inside the module: the VM imports nothing from the host.

import { decimalValue, isPySpace } from './unicode-data';

/** `codeUnitAt(s, i)` (-1 past the end) written out so it inlines: the parsers call it per character. */
// @ts-ignore: decorator
@inline export function codeUnitAt(s: string, i: i32): i32 {
  return <u32>i < <u32>s.length ? <i32>load<u16>(changetype<usize>(s) + ((<usize>i) << 1)) : -1;
}

const QUESTION_MARK: u16 = 0x3f;
const SPACE: u16 = 0x20;

/**
 * C `Py_ISSPACE` (Include/pyctype.h): the ASCII whitespace that float() and int() strip
 * after the Unicode transform: ' ', \t, \n, \v, \f, \r. Note that U+001C..U+001F are
 * str.isspace() but NOT Py_ISSPACE, and being ASCII they are never transformed, so
 * float("1\x1c") is a ValueError.
 */
export function isAsciiSpace(c: i32): bool {
  return c == 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * CPython 3.11 `_PyUnicode_TransformDecimalAndSpaceToASCII` (Objects/unicodeobject.c):
 * - a string whose code points are all ASCII is returned unchanged (the same object);
 * - otherwise code points < 127 are copied, Unicode whitespace (Py_UNICODE_ISSPACE) becomes
 *   ' ', a Unicode decimal digit (Py_UNICODE_TODECIMAL >= 0) becomes its ASCII digit, and the
 *   first other code point (including DEL, U+007F, which CPython's `ch < 127` test excludes)
 *   becomes '?' and ENDS the result: CPython truncates there, since '?' makes every caller
 *   fail anyway.
 * AssemblyScript strings are UTF-16: a surrogate pair is decoded as one code point (so the
 * astral digit U+1D7CF maps to '1'); a lone surrogate is a code point that is neither space
 * nor digit, so it becomes '?' as in CPython.
 */
export function transformDecimalAndSpaceToAscii(s: string): string {
  const len = s.length;
  let ascii = true;
  for (let i = 0; i < len; i++) {
    if (<u32>codeUnitAt(s, i) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;

  // Each output character comes from one or two input code units, so `len` units suffice.
  const out = changetype<string>(__new((<usize>len) << 1, idof<string>()));
  const outPtr = changetype<usize>(out);
  let n = 0;
  let i = 0;
  while (i < len) {
    let cp = codeUnitAt(s, i++);
    if (cp >= 0xd800 && cp <= 0xdbff && i < len) {
      const lo = codeUnitAt(s, i);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    let mapped: u16;
    if (cp < 127) {
      mapped = <u16>cp;
    } else if (isPySpace(cp)) {
      mapped = SPACE;
    } else {
      const d = decimalValue(cp);
      if (d < 0) {
        store<u16>(outPtr + ((<usize>n) << 1), QUESTION_MARK);
        n++;
        break;
      }
      mapped = <u16>(0x30 + d);
    }
    store<u16>(outPtr + ((<usize>n) << 1), mapped);
    n++;
  }
  // Shorter when a surrogate pair was decoded or the '?' truncated the string.
  return n == len ? out : out.substring(0, n);
}
