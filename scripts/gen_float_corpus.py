#!/usr/bin/env python3
"""Golden cases for the wasm VM's float(str) (assembly/pyfloat.ts), with CPython 3.11 as oracle.

Usage (from the repository root):

    python3 scripts/gen_float_corpus.py
        writes fixtures/floats/golden-float.jsonl (deterministic: fixed seed, fixed counts)

    python3 scripts/gen_float_corpus.py --live --count 1000000 [--seed N]
        streams fresh random cases to stdout (used by scripts/check-pyfloat-live.mjs)

Each line is {"s": <input str>, "bits": "<16 hex digits of the IEEE-754 double>"} or
{"s": <input str>, "error": "ValueError"}; the golden file starts with one {"meta": {...}} line.
Expected values come from calling float(s) in this interpreter, nothing else.

Strings are JSON with ensure_ascii, so lone surrogates survive as \\udXXX escapes. A lone high
surrogate directly followed by a lone low surrogate is never generated: in Python those are two
code points (float() rejects them) but in UTF-16 (JS, AssemblyScript) they are one astral
character, so such a str cannot be handed to the VM at all.

Case families (see the generator functions for details):
  random shortest-repr doubles over the whole range (several spellings) and their neighbours;
  exact midpoints between adjacent doubles, written with all their digits, plus the nearest
  values just above/below them (including digit strings longer than the VM's 800-digit buffer);
  subnormal, min/max and overflow/underflow boundaries; powers of 2 and 10; 17-25 digit
  decimals; short decimals around Clinger's fast-path limits; 800+ digit mantissas; integers
  near powers of two; underscores (valid and invalid); Unicode digits and whitespace; signs,
  inf/nan spellings; and random garbage over the float grammar's alphabet.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import struct
import sys
import unicodedata
from fractions import Fraction
from typing import Callable, Iterator

import golden_meta

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "fixtures", "floats", "golden-float.jsonl")
GOLDEN_SEED = 20251130

if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
    sys.exit("gen_float_corpus.py must run under CPython 3.11 (the VM's reference), "
             f"not {sys.implementation.name} {sys.version.split()[0]}")

MAX_CP = 0x10FFFF
DBL_MAX = sys.float_info.max
MIN_SUB = 5e-324
MIN_NORMAL = sys.float_info.min

# Unicode facts, from this interpreter (Unicode 14.0.0).
ND_ZEROS = [cp for cp in range(MAX_CP + 1) if unicodedata.decimal(chr(cp), -1) == 0]
NONASCII_SPACES = [chr(cp) for cp in range(0x80, MAX_CP + 1) if chr(cp).isspace()]
ASCII_SPACES = [" ", "\t", "\n", "\x0b", "\x0c", "\r"]
# Look-alikes that must NOT parse: not Nd (No/Nl digits), not space, or punctuation twins.
LOOKALIKES = ["\u00b2", "\u00b9", "\u00bd", "\u2460", "\u2474", "\u2070", "\u2080", "\u2155",
              "\u216b", "\u3007", "\u4e00", "\u2212", "\uff0e", "\uff0b", "\uff0d", "\uff45",
              "\uff25", "\u066b", "\u066c", "\u2024", "\u00b7", "\u200b", "\u2060", "\ufeff",
              "\u180e", "\u00ad", "\u0130", "\u0131", "\u212a", "\u1d7c", "\U0001f600", "\U00010107", "\u0f33", "\U0001d360", "\x7f", "\x80", "\x9f",
              "\ud800", "\udbff", "\udc00", "\udfff", "\U0010ffff", "\uffff", "\ufffd", "?"]


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

def bits_of(x: float) -> str:
    return struct.pack(">d", x).hex()


def expect(s: str) -> dict:
    try:
        x = float(s)
    except ValueError:
        return {"s": s, "error": "ValueError"}
    return {"s": s, "bits": bits_of(x)}


def representable(s: str) -> bool:
    """False for a lone high surrogate directly followed by a lone low one (see docstring)."""
    return re.search("[\ud800-\udbff][\udc00-\udfff]", s) is None


def random_double(rng: random.Random) -> float:
    while True:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            return x


def random_positive_double(rng: random.Random, kind: str | None = None) -> float:
    """A positive finite double: any exponent, near 1, subnormal, or near the top."""
    kind = kind or rng.choice(["any", "any", "near1", "sub", "top", "lowNormal"])
    if kind == "any":
        biased = rng.randrange(0, 2047)
    elif kind == "near1":
        biased = rng.randrange(1023 - 80, 1023 + 80)
    elif kind == "sub":
        biased = 0
    elif kind == "top":
        biased = rng.randrange(2030, 2047)
    else:
        biased = rng.randrange(1, 12)
    frac = rng.getrandbits(52)
    if biased == 0 and frac == 0:
        frac = 1
    return struct.unpack(">d", ((biased << 52) | frac).to_bytes(8, "big"))[0]


def exact_decimal(v: Fraction) -> tuple[str, int]:
    """v > 0 with a power-of-two denominator -> (digits, e) with v == int(digits) * 10**e."""
    num, den = v.numerator, v.denominator
    k = den.bit_length() - 1
    assert den == 1 << k
    n = num * 5 ** k
    e = -k
    while n % 10 == 0:
        n //= 10
        e += 1
    return str(n), e


def fmt_sci(digits: str, e: int, rng: random.Random | None = None) -> str:
    """int(digits) * 10**e as d.ddd...e+X (spelling varied when rng is given)."""
    exp = e + len(digits) - 1
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    if rng is None:
        return f"{mant}e{exp}"
    echar = rng.choice("eE")
    esign = "+" if exp >= 0 and rng.random() < 0.3 else ""
    zeros = "0" * rng.choice([0, 0, 0, 1, 2])
    es = str(abs(exp))
    return f"{mant}{echar}{'-' if exp < 0 else esign}{zeros}{es}"


def fmt_any(digits: str, e: int, rng: random.Random) -> str:
    """int(digits) * 10**e in one of several equivalent spellings."""
    style = rng.randrange(6)
    if style == 0:
        return fmt_sci(digits, e, rng)
    if style == 1:  # integer mantissa with exponent
        return f"{digits}{rng.choice('eE')}{e}"
    if style == 2:  # 0.ddd e X
        return f"0.{digits}e{e + len(digits)}"
    if style == 3 and -60 < e < 40:  # positional
        if e >= 0:
            return digits + "0" * e + rng.choice(["", ".", ".0"])
        point = len(digits) + e
        if point > 0:
            return digits[:point] + "." + digits[point:]
        return rng.choice(["0", "", "00"]) + "." + "0" * (-point) + digits
    if style == 4:  # leading zeros, decimal point somewhere in the digits
        cut = rng.randrange(len(digits) + 1)
        pre = "0" * rng.randrange(4)
        frac = digits[cut:]
        return f"{pre}{digits[:cut]}.{frac}e{e + len(frac)}"
    return fmt_sci(digits, e, rng)


def neighbours(x: float) -> list[float]:
    return [math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]


def signed(s: str, rng: random.Random) -> str:
    return rng.choice(["", "", "", "-", "+"]) + s


def decrement(digits: str, e: int, extra: int) -> tuple[str, int]:
    """The decimal just below int(digits)*10**e, `extra` digits further down (all 9s)."""
    n = int(digits) * 10 ** extra - 1
    return str(n), e - extra


def increment_tail(digits: str, e: int, extra: int) -> tuple[str, int]:
    """The decimal just above int(digits)*10**e: digits, `extra - 1` zeros, then a 1."""
    return digits + "0" * (extra - 1) + "1", e - extra


# ---------------------------------------------------------------------------------------------
# Case families; each yields input strings
# ---------------------------------------------------------------------------------------------

def gen_shortest(rng: random.Random, n: int) -> Iterator[str]:
    """Random doubles over the whole range: repr, other round-trip spellings, neighbours."""
    for _ in range(n):
        x = random_double(rng)
        yield repr(x)
        r = rng.random()
        if r < 0.25:
            yield "%.17g" % x
        elif r < 0.5:
            yield "%.17e" % x
        elif r < 0.75:
            d, e = exact_decimal(Fraction(abs(x))) if x != 0 else ("0", 0)
            short = repr(abs(x))
            m = re.fullmatch(r"(\d+)(?:\.(\d*))?(?:e([-+]\d+))?", short)
            assert m, short
            digs = (m.group(1) + (m.group(2) or "")).lstrip("0") or "0"
            exp = int(m.group(3) or 0) - len(m.group(2) or "")
            yield ("-" if x < 0 else "") + fmt_any(digs, exp, rng)
        for y in neighbours(x):
            if math.isfinite(y):
                yield repr(y)


def gen_midpoints(rng: random.Random, n: int, kind: str | None = None) -> Iterator[str]:
    """Exact midpoints between adjacent doubles (ties to even), and values just beside them."""
    for _ in range(n):
        x = random_positive_double(rng, kind)
        y = math.nextafter(x, math.inf)  # may be inf: then the midpoint is the overflow threshold
        hi = Fraction(y) if math.isfinite(y) else Fraction(2) ** 1024
        mid = (Fraction(x) + hi) / 2
        d, e = exact_decimal(mid)
        sign = rng.choice(["", "", "-"])
        yield sign + fmt_sci(d, e, rng)  # exact tie
        r = rng.random()
        if r < 0.4:
            yield sign + fmt_sci(*increment_tail(d, e, rng.choice([1, 2, 5, 20])), rng)
            yield sign + fmt_sci(*decrement(d, e, rng.choice([1, 2, 5, 20])), rng)
        elif r < 0.8:
            # Truncations to 17..25 significant digits: just below (or equal), and the next one up.
            k = rng.randrange(16, 26)
            if k < len(d):
                yield sign + fmt_sci(d[:k], e + len(d) - k, rng)
                yield sign + fmt_sci(str(int(d[:k]) + 1), e + len(d) - k, rng)
        else:
            yield sign + fmt_any(d, e, rng)


def gen_long_mantissas(rng: random.Random, n: int) -> Iterator[str]:
    """800+ significant digits: random ones, and midpoints padded past the 800-digit buffer."""
    for i in range(n):
        if i % 2 == 0:
            length = rng.randrange(790, 1300)
            digs = str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789") for _ in range(length - 1))
            dec_exp = rng.randrange(-330, 315)  # value ~ 10**dec_exp
            yield signed(fmt_sci(digs, dec_exp - len(digs) + 1, rng), rng)
        else:
            x = random_positive_double(rng)
            y = math.nextafter(x, math.inf)
            hi = Fraction(y) if math.isfinite(y) else Fraction(2) ** 1024
            d, e = exact_decimal((Fraction(x) + hi) / 2)
            pad = max(0, rng.randrange(790, 1100) - len(d))
            r = rng.randrange(3)
            if r == 0:  # the tie, written with trailing zeros beyond 800 digits
                yield fmt_sci(d + "0" * pad, e - pad)
            elif r == 1:  # above the tie only by a digit beyond 800
                yield fmt_sci(*increment_tail(d, e, pad + 1))
            else:  # below the tie by a long run of 9s
                yield fmt_sci(*decrement(d, e, pad + 1))


def gen_long_decimals(rng: random.Random, n: int) -> Iterator[str]:
    """17-25 significant digits at any scale (where the fast path no longer applies)."""
    for _ in range(n):
        k = rng.randrange(16, 26)
        digs = str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789") for _ in range(k - 1))
        dec_exp = rng.choice([rng.randrange(-330, 312), rng.randrange(-30, 30)])
        yield signed(fmt_any(digs, dec_exp - k + 1, rng), rng)


def gen_clinger(rng: random.Random, n: int) -> Iterator[str]:
    """At most 19 digits with exponents around the fast-path limits (|e| <= 22, 15 digits)."""
    for _ in range(n):
        k = rng.randrange(1, 20)
        digs = str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789") for _ in range(k - 1))
        e = rng.randrange(-45, 46)
        yield signed(fmt_any(digs, e, rng), rng)


def gen_integers(rng: random.Random, n: int) -> Iterator[str]:
    """Integers near powers of two and ten (2**53 + 1 rounds to even, etc.)."""
    for _ in range(n):
        base = 2 ** rng.randrange(50, 1030) if rng.random() < 0.7 else 10 ** rng.randrange(15, 310)
        delta = rng.choice([0, 1, -1, 2, -2, rng.randrange(-10**6, 10**6)])
        if rng.random() < 0.5 and base.bit_length() > 54:
            # Exactly halfway between two doubles, and either side of it.
            ulp = 1 << (base.bit_length() - 54)
            delta = rng.choice([ulp // 2, ulp // 2 + 1, ulp // 2 - 1, 3 * ulp // 2, ulp])
        v = base + delta
        if v > 0:
            yield signed(str(v), rng)


def gen_boundaries() -> Iterator[str]:
    """Fixed edge cases: subnormals, min/max, thresholds, powers of 2 and 10."""
    specials = [0.0, MIN_SUB, 2 * MIN_SUB, 3 * MIN_SUB, MIN_NORMAL, MIN_NORMAL - MIN_SUB,
                MIN_NORMAL + MIN_SUB, DBL_MAX, 1.0, 2.0 ** 53, 2.0 ** 63, 2.0 ** 64, 0.1, 0.5]
    for x in specials:
        for y in [x] + neighbours(x):
            if math.isfinite(y):
                yield repr(y)
                yield "%.17e" % y
                yield "%.25e" % y
                yield "-" + repr(y)
                if y > 0:
                    d, e = exact_decimal(Fraction(y))
                    yield fmt_sci(d, e)  # exact value, all digits
    # Midpoints of the special places and the values just beside them.
    half_min = Fraction(1, 2 ** 1075)  # midpoint of 0 and the smallest subnormal
    over = (Fraction(DBL_MAX) + Fraction(2) ** 1024) / 2  # overflow threshold
    mids = [half_min, 3 * half_min, over,
            (Fraction(MIN_NORMAL) + Fraction(MIN_NORMAL - MIN_SUB)) / 2,
            (Fraction(MIN_NORMAL) + Fraction(MIN_NORMAL + MIN_SUB)) / 2,
            Fraction(2 ** 53 + 1), Fraction(2 ** 54 + 2), Fraction(1) + Fraction(1, 2 ** 53)]
    for m in mids:
        d, e = exact_decimal(m)
        yield fmt_sci(d, e)
        for extra in (1, 3, 30, 900):
            yield fmt_sci(*increment_tail(d, e, extra))
            yield fmt_sci(*decrement(d, e, extra))
        for k in range(15, 30):
            if k < len(d):
                yield fmt_sci(d[:k], e + len(d) - k)
                yield fmt_sci(str(int(d[:k]) + 1), e + len(d) - k)
    yield from ["2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324",
                "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
                "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
                "1.797693134862315708145274237317043567981e+308",
                "1.797693134862315708145274237317043567980e+308",
                "4.9406564584124654e-324", "4.9406564584124655e-324", "9007199254740993",
                "9007199254740992.5", "9007199254740993.0000000000000000000000001",
                "1e-324", "1e-325", "3e-324", "1e308", "1e309", "1e310", "-1e309", "1e-400",
                "1e400", "-1e-400", "0e400", "0e-400", "0e999999999999999999999999",
                "1e999999999999999999999999", "1e-999999999999999999999999",
                "0.000000000000000000000000000000000000000000001e-280",
                "100000000000000000000000000000000000000000000e264", "1e22", "1e23", "1e-22",
                "1e-23", "123456789012345e22", "123456789012345e23", "1234567890123456e22",
                "9999999999999999e22", "8.98846567431158e307", "4.4501477170144023e-308"]
    for p in range(-1080, 1030):
        v = Fraction(2) ** p
        if p >= -1074 and p < 1024:
            yield repr(2.0 ** p)
        if p % 7 == 0 or p < -1070 or p > 1018:
            d, e = exact_decimal(v)
            yield fmt_sci(d, e)  # exact power of two (or just outside the range)
    for p in range(-345, 320):
        yield f"1e{p}"
        if p % 3 == 0:
            yield f"9.999999999999999999e{p}"
            yield f"5e{p}"


def with_underscores(s: str, rng: random.Random, valid: bool) -> str:
    chars = list(s)
    if valid:
        spots = [i for i in range(1, len(chars)) if chars[i - 1].isdigit() and chars[i].isdigit()]
        if not spots:
            return s
        for i in sorted(rng.sample(spots, rng.randrange(1, min(4, len(spots)) + 1)), reverse=True):
            chars.insert(i, "_")
        return "".join(chars)
    i = rng.randrange(len(chars) + 1)
    chars.insert(i, rng.choice(["_", "_", "__"]))
    return "".join(chars)


def gen_underscores(rng: random.Random, n: int) -> Iterator[str]:
    bases = ["1_0", "1_000.000_1", "1_2e1_0", "0_0", "0_1", "1_0.5_5e-0_1", "1e1_0", "1__0",
             "_1", "1_", "1_.5", "1._5", "1_e1", "1e_1", "1e1_", "+_1", "-_1", "_", "1 _0",
             "inf_", "in_f", "n_an", "1_0j", "1_2_3_4_5_6_7_8_9_0_1_2_3_4_5_6_7_8_9",
             " 1_0 ", "1_0 _", "\u0661_\u0662", "1_\u0662", "\u0661_2", "0x1_0", "1_e", ".1_0",
             "1_.", "._1", "1.0_", "1.0e+1_0", "1.0e-_10", "1.0e_-10", "1_\u00a0", "1\u00a0_1",
             "1_\x00", "\x00_1", "1_\U0001d7cf", "\U0001d7ce_\U0001d7cf", "1\u2028_0"]
    yield from bases
    for _ in range(n):
        x = random_double(rng)
        s = rng.choice([repr(x), "%.20g" % x, str(rng.randrange(10 ** rng.randrange(1, 30)))])
        yield with_underscores(s, rng, valid=rng.random() < 0.6)


def to_unicode_digits(s: str, rng: random.Random) -> str:
    zero = rng.choice(ND_ZEROS)
    out = []
    for ch in s:
        if ch.isdigit() and ch.isascii() and rng.random() < 0.8:
            z = zero if rng.random() < 0.8 else rng.choice(ND_ZEROS)
            out.append(chr(z + int(ch)))
        else:
            out.append(ch)
    return "".join(out)


def gen_unicode(rng: random.Random, n: int) -> Iterator[str]:
    # Every Nd digit alone and inside a number; every whitespace character around a number.
    for z in ND_ZEROS:
        for v in range(10):
            yield chr(z + v)
            yield f"{v}.{chr(z + v)}e{chr(z + (v + 1) % 10)}"
    for sp in NONASCII_SPACES + ASCII_SPACES + ["\x1c", "\x1d", "\x1e", "\x1f"]:
        yield sp + "1.5" + sp
        yield sp
        yield "1" + sp + "2"
        yield sp + "-" + sp + "1"
        yield "inf" + sp
    for la in LOOKALIKES:
        yield la
        yield "1" + la
        yield la + "1"
        yield "1" + la + "5"
    for _ in range(n):
        x = random_double(rng)
        s = to_unicode_digits(rng.choice([repr(x), "%.25g" % x, str(rng.randrange(10 ** 20))]), rng)
        r = rng.random()
        if r < 0.3:
            s = rng.choice(NONASCII_SPACES + ASCII_SPACES) + s + rng.choice(NONASCII_SPACES + ASCII_SPACES)
        elif r < 0.45:
            i = rng.randrange(len(s) + 1)
            s = s[:i] + rng.choice(LOOKALIKES + NONASCII_SPACES) + s[i:]
        elif r < 0.55:
            s = with_underscores(s, rng, valid=rng.random() < 0.5)
        yield s


def case_variants(word: str, rng: random.Random, k: int) -> list[str]:
    return ["".join(c.upper() if rng.random() < 0.5 else c for c in word) for _ in range(k)]


def gen_inf_nan(rng: random.Random, n: int) -> Iterator[str]:
    words = ["inf", "infinity", "nan"]
    for w in words:
        for mask in range(1 << len(w)):
            v = "".join(c.upper() if mask >> i & 1 else c for i, c in enumerate(w))
            for sign in ["", "-", "+"]:
                yield sign + v
    bad = ["in", "infinit", "infinityy", "infi", "infinite", "nana", "na", "nan0", "inf0",
           "infnan", "naninf", "-+inf", "+-nan", "--inf", "++nan", "- inf", "-\tnan", "inf-",
           "nan(123)", "nan()", "snan", "qnan", "1inf", "inf1", "infinity1", "INFINITY.",
           "inf.0", ".inf", "inf e1", "infe1", "1e inf", "\x00inf", "inf\x00", "i nf",
           "\u0131nf", "\u0130nf", "\uff49nf", "in\u0192", "\u221e", "-\u221e", "nan\u00a0",
           "\u3000-inf\u3000", "+"]
    for b in bad:
        yield b
    for _ in range(n):
        w = rng.choice(words)
        v = rng.choice(case_variants(w, rng, 1))
        pre = rng.choice(["", "", "-", "+", " ", "\t-", "\u00a0+"])
        post = rng.choice(["", "", " ", "\n", "\u2003", "x", "i", "ity", "inity"])
        yield pre + v + post


FUZZ_ALPHABET = "0123456789" * 3 + ".....eeEE++--__  \t\n\x0b\x0c\rinfatyINFATYx?\x00\x1c"


def gen_garbage(rng: random.Random, n: int) -> Iterator[str]:
    """Random strings over the float grammar's alphabet (mostly invalid, some valid)."""
    fixed = ["", " ", "\t\n", ".", "-", "+", "e", "E", "e5", ".e5", "1e", "1e+", "1e-", "1e+-1",
             "1.2.3", "1..2", "..1", "1e5.5", "1e5e5", "0x10", "0X1p3", "0b1", "0o7", "1j",
             "1+2j", "(1)", "1,5", "1 000", "١,٢", "0.", ".0", "0.e0", "-.e0", "-.", "+.",
             "00", "-0", "+0", "0000.0000", "-0e-0", "1E+05", "1.e5", ".5", "5.", "\x001",
             "1\x00", "\x00", "1\x1c", "\x1c1", "\x1f", "1 e5", "1e 5", "1. 5", "- 1", "+ 1",
             "1.5L", "1.5f", "1.5d", "1e5f", "1__", "  -1.5e-3  ", "\t+.5\n", "1" * 400,
             "0" * 500 + "1", "0." + "0" * 400 + "1", "1" + "0" * 400, "." + "0" * 1000 + "1e1000"]
    yield from fixed
    for _ in range(n):
        k = rng.choice([1, 2, 3, 4, 5, 6, 8, 12, 20])
        yield "".join(rng.choice(FUZZ_ALPHABET) for _ in range(k))


# ---------------------------------------------------------------------------------------------
# Drivers
# ---------------------------------------------------------------------------------------------

def golden_cases(rng: random.Random) -> Iterator[str]:
    yield from gen_boundaries()
    yield from gen_shortest(rng, 12000)
    yield from gen_midpoints(rng, 2500, "near1")
    yield from gen_midpoints(rng, 2500)
    yield from gen_midpoints(rng, 300, "sub")
    yield from gen_long_mantissas(rng, 300)
    yield from gen_long_decimals(rng, 14000)
    yield from gen_clinger(rng, 10000)
    yield from gen_integers(rng, 3000)
    yield from gen_underscores(rng, 4000)
    yield from gen_unicode(rng, 4000)
    yield from gen_inf_nan(rng, 1500)
    yield from gen_garbage(rng, 14000)


# Live mode: (weight, family) -- cheap families dominate, long ones are rarer.
LIVE_FAMILIES: list[tuple[float, Callable[[random.Random, int], Iterator[str]]]] = [
    (30, gen_shortest),
    (6, lambda r, n: gen_midpoints(r, n, "near1")),
    (10, gen_midpoints),
    (0.4, gen_long_mantissas),
    (20, gen_long_decimals),
    (12, gen_clinger),
    (4, gen_integers),
    (4, gen_underscores),
    (4, gen_unicode),
    (1.5, gen_inf_nan),
    (10, gen_garbage),
]


def live_cases(rng: random.Random, count: int) -> Iterator[str]:
    weights = [w for w, _ in LIVE_FAMILIES]
    families = [f for _, f in LIVE_FAMILIES]
    produced = 0
    while produced < count:
        family = rng.choices(families, weights)[0]
        for s in family(rng, 1):
            if representable(s):
                yield s
                produced += 1
                if produced >= count:
                    return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--live", action="store_true", help="stream fresh random cases to stdout")
    ap.add_argument("--count", type=int, default=1_000_000, help="number of live cases")
    ap.add_argument("--seed", type=int, default=None, help="live seed (default: random)")
    ap.add_argument("--out", default=GOLDEN, help="golden output path")
    args = ap.parse_args()

    if args.live:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 53)  # exact in JSON/JS
        rng = random.Random(seed)
        out = sys.stdout
        out.write(json.dumps({"meta": {"seed": seed, "count": args.count}}) + "\n")
        for s in live_cases(rng, args.count):
            out.write(json.dumps(expect(s)) + "\n")
        out.flush()
        return

    rng = random.Random(GOLDEN_SEED)
    seen: dict[str, None] = {}
    for s in golden_cases(rng):
        if representable(s):
            seen.setdefault(s, None)
    cases = [expect(s) for s in seen]
    errors = sum(1 for c in cases if "error" in c)
    meta = {"meta": golden_meta.meta("scripts/gen_float_corpus.py", "python3 scripts/gen_float_corpus.py", seed=GOLDEN_SEED,
                                     unidata_version=unicodedata.unidata_version, cases=len(cases), errors=errors)}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="ascii", newline="\n") as f:
        f.write(json.dumps(meta) + "\n")
        for c in cases:
            f.write(json.dumps(c) + "\n")
    size = os.path.getsize(args.out)
    print(f"wrote {os.path.relpath(args.out, ROOT)}: {len(cases)} cases ({errors} ValueError), "
          f"{size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
