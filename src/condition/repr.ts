/**
 * CPython's `repr()` for the values a condition can produce: float digits and exponents, str and
 * bytes quoting and escapes, complex parts, and the dict/builtin/module forms.
 */
import type { PyConstant } from './ast.js';
import { isPrintable } from './unicode-tables.js';

/** `repr()` of a constant, as unparse prints it. */
export function constantRepr(c: PyConstant): string {
  switch (c.kind) {
    case 'int':
      return c.value.toString();
    case 'bool':
      return c.value ? 'True' : 'False';
    case 'None':
      return 'None';
    case 'Ellipsis':
      return '...';
    case 'float':
      return floatRepr(c.value);
    case 'complex':
      return complexRepr(c.real, c.imag);
    case 'str':
      return strRepr(c.codePoints);
    case 'bytes':
      return `b${strRepr(String.fromCharCode(...c.value), true)}`;
  }
}

/** Python's `repr(float)`: shortest round-trip digits, `1e+16` style exponents, `inf`/`nan`. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Object.is(x, -0)) return '-0.0';
  const abs = Math.abs(x);
  if (abs >= 1e16 || (abs !== 0 && abs < 1e-4)) {
    const [mant, exp] = x.toExponential().split('e') as [string, string];
    const n = Number(exp);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const s = String(x);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}

/**
 * Python's `repr(str)` (and of bytes' text when `bytes` is set), over code points: a lone
 * surrogate is its own code point and is escaped, even next to another one.
 */
export function strRepr(s: string | readonly number[], bytes = false): string {
  const cps = typeof s === 'string' ? Array.from(s, (ch) => ch.codePointAt(0)!) : s;
  const hasSingle = cps.includes(0x27);
  const quote = hasSingle && !cps.includes(0x22) ? '"' : "'";
  let out = quote;
  for (const c of cps) {
    const ch = String.fromCodePoint(c);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (bytes ? c < 0x20 || c >= 0x7f : !isPrintable(c)) {
      if (c < 0x100) out += `\\x${c.toString(16).padStart(2, '0')}`;
      else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`;
      else out += `\\U${c.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** A complex part as `format(x, 'r')` writes it: repr digits without the `.0` a float repr adds. */
function complexPart(x: number, sign: boolean): string {
  const text = floatRepr(x).replace(/\.0$/, '');
  if (Number.isNaN(x)) return sign ? '+nan' : 'nan'; // CPython ignores a NaN's sign here
  return sign && !text.startsWith('-') ? `+${text}` : text;
}

/** `repr(complex)`: `2j` when the real part is +0.0, else `(re+imj)`. */
export function complexRepr(re: number, im: number): string {
  if (re === 0 && !Object.is(re, -0)) return `${complexPart(im, false)}j`;
  return `(${complexPart(re, false)}${complexPart(im, true)}j)`;
}
