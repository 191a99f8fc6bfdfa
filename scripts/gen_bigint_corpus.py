#!/usr/bin/env python3
"""Golden corpus for assembly/bigint.ts, computed by CPython 3.11 itself.

    python3 scripts/gen_bigint_corpus.py [--out fixtures/bigint/golden-bigint.jsonl]
    python3 scripts/gen_bigint_corpus.py --oracle < cases.jsonl > results.jsonl

Each line of the corpus is a JSON array [op, x, y, expected]:
  ints    Python hex() text ("-0x1f", "0x0")
  floats  16 hex digits of the IEEE-754 bits, big-endian (struct.pack('>d', v).hex())
  errors  "OverflowError", "LIMIT" (4300-digit ValueError; for parse "LIMIT <digits in message>"),
          "ERR" (other ValueError)
Ops (see scripts/bigint-harness.mjs): add sub mul floordiv mod pow neg abs cmp sign i64 fromi64
truediv tof64 fromf64 cmpf64 repr parse fmt.

Deterministic: a fixed seed, no dependence on hash randomisation or the clock.
--oracle reads [op, x, y] lines and writes [op, x, y, expected] lines (used by
scripts/check-bigint-live.mjs for fresh random cases).
"""
import json
import random
import re
import struct
import sys

import golden_meta

assert sys.version_info[:2] == (3, 11), "the oracle is CPython 3.11"
assert sys.get_int_max_str_digits() == 4300

SEED = 0xB16_1A7


# ----------------------------------------------------------------------------------------------
# Encoding and the oracle

def h(v):
    return hex(v)


def unh(s):
    return int(s, 16)


def fbits(x):
    return struct.pack('>d', x).hex()


def unf(s):
    return struct.unpack('>d', bytes.fromhex(s))[0]


def compute(op, x, y):
    """Expected result text for one case, computed by CPython."""
    if op in ('add', 'sub', 'mul', 'floordiv', 'mod', 'cmp'):
        a, b = unh(x), unh(y)
        if op == 'add':
            return h(a + b)
        if op == 'sub':
            return h(a - b)
        if op == 'mul':
            return h(a * b)
        if op == 'floordiv':
            return h(a // b)
        if op == 'mod':
            return h(a % b)
        return str((a > b) - (a < b))
    if op == 'pow':
        return h(unh(x) ** int(y))
    if op == 'neg':
        return h(-unh(x))
    if op == 'abs':
        return h(abs(unh(x)))
    if op == 'sign':
        a = unh(x)
        return f'{(a > 0) - (a < 0)} {a.bit_length()}'
    if op == 'i64':
        a = unh(x)
        return str(a) if -2**63 <= a < 2**63 else 'no'
    if op == 'fromi64':
        return h(int(x))
    if op == 'truediv':
        try:
            return fbits(unh(x) / unh(y))
        except OverflowError:
            return 'OverflowError'
    if op == 'tof64':
        try:
            return fbits(float(unh(x)))
        except OverflowError:
            return 'OverflowError'
    if op == 'fromf64':
        return h(int(unf(x)))
    if op == 'cmpf64':
        a, f = unh(x), unf(y)
        return str((a > f) - (a < f))
    if op == 'repr':
        try:
            return repr(unh(x))
        except ValueError as e:
            assert 'Exceeds the limit' in str(e)
            return 'LIMIT'
    if op == 'parse':
        try:
            return h(int(x, int(y)))
        except ValueError as e:
            m = re.search(r'Exceeds the limit \(4300 digits\) for integer string conversion: value has (\d+) digits',
                          str(e))
            return f'LIMIT {m.group(1)}' if m else 'ERR'
    if op == 'fmt':
        return {2: bin, 8: oct, 16: hex}[int(y)](unh(x))
    raise ValueError(op)


# ----------------------------------------------------------------------------------------------
# Operand generators

def digits_to_bits(d):
    return max(1, int(d * 3.3219280948873626))


class Gen:
    def __init__(self, rng):
        self.r = rng

    def bits_random(self, nbits):
        if nbits <= 0:
            return 0
        return self.r.getrandbits(nbits) | (1 << (nbits - 1))

    def limb_pattern(self, nlimbs):
        """Limbs drawn from edge values: exercises carries and Knuth D's qhat corrections."""
        r = self.r
        choices = [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1, 0xFFFFFFFE, None]
        v = 0
        for _ in range(nlimbs):
            c = r.choice(choices)
            if c is None:
                c = r.getrandbits(32)
            v = (v << 32) | c
        if v == 0:
            v = 1
        return v

    def special(self):
        r = self.r
        k = r.choice([1, 2, 7, 8, 15, 16, 29, 30, 31, 32, 33, 52, 53, 54, 55, 60, 61, 62, 63, 64, 65,
                      95, 96, 97, 127, 128, 129, 255, 256, 511, 512, 1021, 1022, 1023, 1024, 1025,
                      1074, 1075, 1076, 2048, 3000, 4000, 9999])
        base = r.choice([1 << k, 10 ** min(k, 1300), 1 << k, (1 << k) - (1 << max(0, k - 54))])
        return base + r.choice([-2, -1, -1, 0, 0, 1, 1, 2])

    def size_digits(self):
        """Operand size in decimal digits: mostly small, some medium, a few up to ~3000."""
        r = self.r
        p = r.random()
        if p < 0.55:
            return r.randint(1, 20)
        if p < 0.80:
            return r.randint(20, 45)
        if p < 0.985:
            return int(45 * (300 / 45) ** r.random())
        return int(300 * 10 ** r.random())

    def int_(self, allow_zero=True, signed=True):
        r = self.r
        p = r.random()
        if p < 0.6:
            v = self.bits_random(digits_to_bits(self.size_digits()))
            if r.random() < 0.05:
                v = r.randint(0, 20)
        elif p < 0.8:
            d = self.size_digits()
            v = self.limb_pattern(max(1, digits_to_bits(d) // 32))
        else:
            v = self.special()
        if not allow_zero and v == 0:
            v = 1
        if signed and r.random() < 0.5:
            v = -v
        return v

    def float_(self):
        r = self.r
        p = r.random()
        if p < 0.25:
            while True:
                x = struct.unpack('>d', r.getrandbits(64).to_bytes(8, 'big'))[0]
                if x == x and abs(x) != float('inf'):
                    return x
        if p < 0.5:
            return r.choice([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, 0.9999999999999999,
                             2.0 ** 52, 2.0 ** 52 + 0.5, 2.0 ** 53, 2.0 ** 53 + 2, -(2.0 ** 53),
                             2.0 ** 63, -(2.0 ** 63), 2.0 ** 63 - 1024, 2.0 ** 64, 1e308,
                             1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -5e-324,
                             2.2250738585072014e-308, 1e-300, 123456789.75, -987654321.125,
                             4503599627370495.5, -4503599627370495.5, 1e16, 1e22, 1e23,
                             float('inf'), float('-inf')])
        if p < 0.75:
            e = r.randint(-60, 1023)
            m = r.random() + 1.0
            x = m * 2.0 ** e
            return -x if r.random() < 0.5 else x
        if p < 0.9:
            # integral floats
            return float(r.choice([-1, 1]) * self.bits_random(r.randint(1, 1024))) if r.random() < 0.999 else 0.0
        return r.randint(-10**6, 10**6) / r.choice([2, 4, 8, 3, 10])

    def base_float_int(self, f):
        """An int near the float f (for comparisons)."""
        r = self.r
        if f != f or f in (float('inf'), float('-inf')):
            return self.int_()
        t = int(f)
        return t + r.choice([-1, 0, 0, 0, 1, r.randint(-1000, 1000)])


# ----------------------------------------------------------------------------------------------
# Case families

def cases_arith(g, out, n):
    r = g.r
    for _ in range(n):
        op = r.choice(['add', 'sub', 'mul', 'cmp'])
        a = g.int_()
        if op == 'cmp' and r.random() < 0.3:
            b = a + r.choice([-1, 0, 1, 0])
        elif r.random() < 0.15:
            b = -a + r.choice([-1, 0, 1])
        else:
            b = g.int_()
        if op == 'mul' and abs(a).bit_length() + abs(b).bit_length() > 20000:
            b = b >> max(0, abs(b).bit_length() - 2000)
        out.append([op, h(a), h(b)])


def cases_div(g, out, n):
    r = g.r
    for _ in range(n):
        op = r.choice(['floordiv', 'mod'])
        p = r.random()
        if p < 0.4:
            a, b = g.int_(), g.int_(allow_zero=False)
        elif p < 0.7:
            # divisor a few limbs, dividend larger: exercises Knuth D
            b = g.limb_pattern(r.randint(1, 12)) if r.random() < 0.5 else g.bits_random(r.randint(1, 400))
            a = g.limb_pattern(r.randint(1, 30)) if r.random() < 0.5 else g.bits_random(r.randint(1, 1200))
            a = -a if r.random() < 0.5 else a
            b = -b if r.random() < 0.5 else b
        else:
            # exact multiples and off-by-one around them, all sign combinations
            b = g.int_(allow_zero=False)
            q = g.int_()
            a = q * b + r.choice([0, 0, 1, -1, b // 2 if b else 0])
            if r.random() < 0.5:
                a, b = -a, b
            if r.random() < 0.5:
                b = -b
        out.append([op, h(a), h(b)])


def cases_knuth_addback(g, out):
    """Known add-back triggers for 32-bit-digit Knuth D, plus scaled variants."""
    B = 1 << 32
    seeds = [
        (0x7FFF800000000000000000000000, 0x800000000000000000000001),
        (0x800000000000000000000003, 0x200000000000000000000001),
        (0x80000000000000000000000000000000, 0x4000000000000000000000000001),
        ((B ** 3) * 0x7FFFFFFF + B - 1, B ** 2 * 0x80000000 + 1),
        (B ** 4 - 1, B ** 2 - 1),
        (B ** 6 - B ** 3, B ** 3 + 0xFFFFFFFF),
        (0x00007FFF_FFFF_0000_0000_FFFF_FFFF_0000_0001, 0x8000_0000_FFFF_FFFF_0000_0001),
    ]
    for a, b in seeds:
        for sa in (1, -1):
            for sb in (1, -1):
                for shift in (0, 1, 31, 32, 33):
                    for op in ('floordiv', 'mod'):
                        out.append([op, h(sa * (a << shift)), h(sb * b)])
    r = g.r
    # Brute-force search for add-back cases among edge-limb operands (checked cheaply here).
    found = 0
    tries = 0
    while found < 300 and tries < 200000:
        tries += 1
        n = r.randint(2, 4)
        b = g.limb_pattern(n)
        if b.bit_length() <= 32 * (n - 1):
            continue
        a = g.limb_pattern(n + r.randint(0, 3))
        if needs_addback(a, b):
            found += 1
            out.append([r.choice(['floordiv', 'mod']), h(a * r.choice([1, -1])), h(b * r.choice([1, -1]))])


def needs_addback(u, v):
    """Simulates Knuth D (32-bit digits) and reports whether any step needed the add-back."""
    B = 1 << 32
    vd = []
    t = v
    while t:
        vd.append(t & (B - 1))
        t >>= 32
    n = len(vd)
    if n < 2 or u < v:
        return False
    s = 32 - vd[-1].bit_length()
    v <<= s
    u <<= s
    vd = [(v >> (32 * i)) & (B - 1) for i in range(n)]
    m = max(1, (u.bit_length() + 31) // 32)
    ud = [(u >> (32 * i)) & (B - 1) for i in range(m + 1)]
    m = len(ud) - 1
    for j in range(m - n, -1, -1):
        num = ud[j + n] * B + ud[j + n - 1]
        qhat, rhat = divmod(num, vd[n - 1])
        while qhat >= B or qhat * vd[n - 2] > rhat * B + ud[j + n - 2]:
            qhat -= 1
            rhat += vd[n - 1]
            if rhat >= B:
                break
        cur = sum(ud[j + i] << (32 * i) for i in range(n + 1))
        cur -= qhat * v
        if cur < 0:
            return True
        for i in range(n + 1):
            ud[j + i] = (cur >> (32 * i)) & (B - 1)
    return False


def cases_pow(g, out, n):
    r = g.r
    for _ in range(n):
        a = g.int_()
        if r.random() < 0.6:
            a = r.randint(-20, 20)
        bl = max(1, abs(a).bit_length())
        emax = max(0, min(200, 9000 // bl))
        e = r.randint(0, emax)
        out.append(['pow', h(a), str(e)])
    for a in (0, 1, -1, 2, -2, 10, 3):
        for e in (0, 1, 2, 63, 64, 100):
            out.append(['pow', h(a), str(e)])


def cases_unary(g, out, n):
    r = g.r
    for _ in range(n):
        out.append([r.choice(['neg', 'abs', 'sign']), h(g.int_()), ''])
    out.append(['sign', h(0), ''])
    out.append(['neg', h(0), ''])


def cases_i64(g, out, n):
    r = g.r
    bounds = [0, 1, -1, 2**31, 2**32, 2**32 - 1, -2**32, 2**53, 2**62, 2**63 - 1, 2**63, -2**63,
              -2**63 - 1, 2**64 - 1, 2**64, -2**64, 2**65, 10**18, 10**19, -10**19]
    for v in bounds:
        for d in (-2, -1, 0, 1, 2):
            out.append(['i64', h(v + d), ''])
    for _ in range(n):
        v = r.choice([r.randint(-2**63, 2**63 - 1), r.randint(-2**70, 2**70), g.int_(),
                      r.randint(-2**40, 2**40)])
        out.append(['i64', h(v), ''])
    for v in [0, 1, -1, 2**63 - 1, -2**63, -2**63 + 1, 2**32, -2**32, 2**31 - 1, -2**31] + \
             [r.randint(-2**63, 2**63 - 1) for _ in range(200)] + [r.randint(-1000, 1000) for _ in range(50)]:
        out.append(['fromi64', str(v), ''])


def cases_truediv(g, out, n):
    r = g.r
    for _ in range(n):
        p = r.random()
        if p < 0.3:
            a, b = g.int_(), g.int_(allow_zero=False)
        elif p < 0.55:
            # exact ties and near-ties at 53 bits: a/b = M (+-tiny) with M a 54..56-bit odd number
            M = g.bits_random(r.choice([54, 55, 56])) | 1
            b = g.int_(allow_zero=False, signed=False)
            if b.bit_length() > 600:
                b >>= b.bit_length() - 600
            a = M * b + r.choice([0, 0, 0, 1, -1])
            k = r.randint(-1100, 1000) if r.random() < 0.5 else r.randint(-80, 80)
            if k > 0:
                a <<= k
            else:
                b <<= -k
            a *= r.choice([1, -1])
            b *= r.choice([1, -1])
        elif p < 0.75:
            # subnormal and underflow region
            M = g.bits_random(r.randint(1, 60))
            rr = g.bits_random(r.randint(1, 200))
            e = r.randint(1000, 1140)
            a = M * rr + r.choice([0, 0, 1, -1])
            b = rr << e
            a *= r.choice([1, -1])
            b *= r.choice([1, -1])
        elif p < 0.9:
            # overflow boundary near 2**1024
            top = r.choice([2**1024 - 2**970, 2**1024 - 2**971, 2**1024, 2**1023, 2**1024 - 2**970 - 1,
                            2**1024 - 2**969, 2**1024 - 1])
            rr = g.bits_random(r.randint(1, 300))
            a = top * rr + r.choice([0, 0, 1, -1])
            b = rr * r.choice([1, 1, 2, 3])
            a *= r.choice([1, -1])
        else:
            # huge operands with a representable quotient, zero dividend, small cases
            c = r.random()
            if c < 0.4:
                q = g.bits_random(r.randint(1, 1000))
                b = g.bits_random(r.randint(1000, 4000))
                a = q * b + r.randint(-10**6, 10**6)
            elif c < 0.6:
                a, b = 0, g.int_(allow_zero=False)
            else:
                a, b = r.randint(-2**60, 2**60), r.choice([r.randint(1, 2**60), r.randint(1, 1000)]) * r.choice([1, -1])
        out.append(['truediv', h(a), h(b)])


def cases_tof64(g, out, n):
    r = g.r
    for k in (52, 53, 54, 63, 64, 65, 1021, 1022, 1023, 1024, 1025):
        for d in (-3, -2, -1, 0, 1, 2, 3):
            out.append(['tof64', h(2**k + d), ''])
            out.append(['tof64', h(-(2**k + d)), ''])
    for k in (0, 1, 2, 900, 969, 970, 971):
        for top in (2**1024, 2**1023):
            for d in (-1, 0, 1):
                out.append(['tof64', h(top - 2**k + d), ''])
    for _ in range(n):
        p = r.random()
        if p < 0.5:
            v = g.int_()
        else:
            # ties: 54+ significant bits with a 1 right after the 53rd
            nb = r.randint(54, 1030)
            v = g.bits_random(nb)
            cut = nb - 53
            v = (v >> cut) << cut
            v |= 1 << (cut - 1)
            k = r.random()
            if k < 0.35 and cut > 1:
                v |= r.getrandbits(cut - 1)
            elif k < 0.7 and cut > 1:
                v |= 1 << r.randrange(cut - 1)  # a lone sticky bit far below the guard bits
            elif k < 0.85:
                v -= 1 << (cut - 1) if r.random() < 0.5 else 0  # exactly representable
            v *= r.choice([1, -1])
        out.append(['tof64', h(v), ''])


def cases_fromf64(g, out, n):
    for _ in range(n):
        x = g.float_()
        if x != x or x in (float('inf'), float('-inf')):
            continue
        out.append(['fromf64', fbits(x), ''])


def cases_cmpf64(g, out, n):
    r = g.r
    fixed = [(10**400, 1e308), (2**53 + 1, 2.0**53), (2**53, 2.0**53), (-(2**53 + 1), -(2.0**53)),
             (0, -0.0), (0, 0.0), (0, 5e-324), (0, -5e-324), (1, 0.9999999999999999), (-1, -1.5),
             (2**1024, float('inf')), (-(2**1024), float('-inf')), (2**1024, 1.7976931348623157e308),
             (2**1023, 2.0**1023), (2**64, 2.0**64), (2**64 - 1, 2.0**64), (3, 2.5), (2, 2.5), (-3, -2.5),
             (-2, -2.5), (10**22, 1e22), (10**23, 1e23)]
    for a, f in fixed:
        out.append(['cmpf64', h(a), fbits(f)])
    for _ in range(n):
        f = g.float_()
        a = g.base_float_int(f) if r.random() < 0.7 else g.int_()
        out.append(['cmpf64', h(a), fbits(f)])


def cases_repr(g, out, n):
    r = g.r
    for _ in range(n):
        out.append(['repr', h(g.int_()), ''])
    # Around the 4300-digit limit (the sign does not count).
    for v in [10**4300 - 1, 10**4300, 10**4300 + 1, 10**4299, 2**14284, 2**14285, 2**14286, 2**14300,
              2**14301, 10**4301, 2**20000, 10**5000 + 12345]:
        out.append(['repr', h(v), ''])
        out.append(['repr', h(-v), ''])
    for _ in range(6):
        out.append(['repr', h(r.randint(10**4299, 10**4300 - 1) * r.choice([1, -1])), ''])
    for _ in range(10):
        d = r.randint(1000, 4300)
        out.append(['repr', h(r.randint(10**(d - 1), 10**d - 1)), ''])


def cases_fmt(g, out, n):
    r = g.r
    for _ in range(n):
        out.append(['fmt', h(g.int_()), str(r.choice([2, 8, 16]))])
    for b in (2, 8, 16):
        for v in (0, 1, -1, 7, 8, -8, 2**32, -(2**64 - 1)):
            out.append(['fmt', h(v), str(b)])


DIGITS36 = '0123456789abcdefghijklmnopqrstuvwxyz'
WS = [' ', '\t', '\n', '\r', '\x0b', '\x0c']


def rand_digits(r, base, n, upper=False):
    s = ''.join(r.choice(DIGITS36[:base]) for _ in range(n))
    if upper:
        s = ''.join(c.upper() if r.random() < 0.5 else c for c in s)
    return s


def sprinkle_underscores(r, s, p=0.2):
    out = []
    for i, c in enumerate(s):
        out.append(c)
        if i < len(s) - 1 and r.random() < p:
            out.append('_')
    return ''.join(out)


def mutate(r, s):
    if not s:
        return r.choice(['_', ' ', '0', 'x', '\x00'])
    i = r.randrange(len(s) + 1)
    k = r.random()
    junk = r.choice(['_', '__', ' ', '+', '-', '0', 'x', 'X', 'o', 'b', 'B', '?', '.', 'e', '\x00', '\x1c',
                     '\x7f', 'g', 'z', 'Z', '9', '1', 'j', 'L', '\t'])
    if k < 0.4:
        return s[:i] + junk + s[i:]
    if k < 0.7 and len(s) > 0:
        i = min(i, len(s) - 1)
        return s[:i] + s[i + 1:]
    i = min(i, len(s) - 1)
    return s[:i] + junk + s[i + 1:]


def gen_parse_string(r, base):
    """A plausible int() string for `base` (0 or 2..36), sometimes broken."""
    real = base
    prefix = ''
    if base == 0:
        real = r.choice([10, 10, 16, 8, 2])
        prefix = {10: '', 16: r.choice(['0x', '0X']), 8: r.choice(['0o', '0O']), 2: r.choice(['0b', '0B'])}[real]
    elif base in (16, 8, 2) and r.random() < 0.4:
        prefix = {16: r.choice(['0x', '0X']), 8: r.choice(['0o', '0O']), 2: r.choice(['0b', '0B'])}[base]
    nd = r.choice([1, 1, 2, 3, r.randint(1, 12), r.randint(1, 40), r.randint(1, 120)])
    body = rand_digits(r, real, nd, upper=r.random() < 0.3)
    if r.random() < 0.3:
        body = '0' * r.randint(1, 3) + body
    if r.random() < 0.3:
        body = sprinkle_underscores(r, body)
    if prefix and r.random() < 0.2:
        body = '_' + body
    s = prefix + body
    if r.random() < 0.4:
        s = r.choice(['+', '-']) + s
    if r.random() < 0.3:
        s = ''.join(r.choice(WS) for _ in range(r.randint(1, 3))) + s
    if r.random() < 0.3:
        s = s + ''.join(r.choice(WS) for _ in range(r.randint(1, 3)))
    if r.random() < 0.35:
        for _ in range(r.randint(1, 2)):
            s = mutate(r, s)
    return s


def cases_parse(g, out, n):
    r = g.r
    fixed = [
        ('010', 0), ('0_0', 0), ('00', 0), ('0_', 0), ('0x', 16), ('0x_1f', 0), ('0x__1f', 0), ('0b1', 16),
        ('\x1c5', 10), (' 5 ', 10), ('- 5', 10), ('+_5', 10), ('5\x00', 10), ('\x005', 10), ('0o17', 8),
        ('0O17', 0), ('_5', 10), ('5_', 10), ('1__2', 10), ('\x0b5\x0c', 10), ('0b', 0), ('0x_', 16),
        ('00x1', 0), ('0_1', 0), ('0', 0), ('-0', 0), ('-00', 0), ('0_x1', 0), ('z', 36), ('Z', 36),
        ('', 10), ('+', 10), ('-', 10), ('\t-12\n', 10), ('  ', 10), ('0x1f', 16), ('0X1F', 16), ('0x1f', 10),
        ('0o7', 8), ('0o8', 8), ('0b2', 2), ('0b10', 2), ('0b10', 0), ('0B10', 0), ('0b10', 12), ('0o7', 25),
        ('0x', 34), ('0x1', 34), ('1_000_000', 10), ('1_000_000', 0), ('0_7', 0), ('07', 0), ('0_0_0', 0),
        ('-0_0', 0), ('0x0', 0), ('0o0', 0), ('0b0', 0), ('0o_0', 0), ('+0x_F', 0), ('++1', 10), ('--1', 10),
        ('+-1', 10), ('1 2', 10), ('1\x00', 10), ('1?', 10), ('?', 10), ('12?', 0), ('9', 9), ('8', 9),
        ('10', 2), ('2', 2), ('zz', 35), ('zz', 36), ('ZZ_zz', 36), ('0z', 36), ('0x10', 36), ('0b', 12),
        ('0B1', 12), ('0b1', 11), ('0o1', 25), ('0o1', 24), ('1e5', 10), ('1.0', 10), ('0.5', 10),
        ('0' * 20 + '1', 10), ('0' * 20, 0), ('0' * 20 + '1', 0), ('\r\n\t\x0b\x0c 42 \x0c\x0b\t\n\r', 7),
        ('1_', 16), ('_', 10), ('_0', 0), ('0x_', 0), ('0_x', 0), ('0o', 0), ('0O', 8), ('0o_', 8),
    ]
    for s, b in fixed:
        out.append(['parse', s, str(b)])
    bases = [0, 0, 0, 10, 10, 10, 2, 8, 16, 16, 3, 7, 36] + list(range(2, 37))
    for _ in range(n):
        b = r.choice(bases)
        out.append(['parse', gen_parse_string(r, b), str(b)])
    # Random bases x prefix letters: '0b' is a valid base-12+ number, '0x' in base 34+, etc.
    for _ in range(600):
        b = r.randint(2, 36)
        p = r.choice(['0x', '0X', '0o', '0O', '0b', '0B', '0'])
        s = p + r.choice(['', '_', '1', 'z', '_1', '__1', 'f', '7', '9', 'b'])
        out.append(['parse', s, str(b)])
    # The 4300-digit limit (non-power-of-two bases only; underscores and the sign do not count,
    # leading zeros do; a later syntax error does not matter, an underscore error does).
    for b in (10, 0, 3, 7, 36, 2, 8, 16, 32, 4):
        real = 10 if b == 0 else b
        full = b in (10, 0)
        pow2 = real & (real - 1) == 0
        for nd in ((4299, 4300, 4301) if full else (4301,) if pow2 else (4300, 4301)):
            body = rand_digits(r, real, nd)
            if body[0] == '0':
                body = '1' + body[1:]
            variants = [body, '-' + body, body + ('x' if real < 34 else '?')]
            if not pow2:
                variants += [body + '_', body + '__1', '0' * 5 + body[5:]]
            if full:
                variants += [' ' + sprinkle_underscores(r, body, 0.05) + '\n', body + ' 1', body + '\x00']
            for v in variants:
                out.append(['parse', v, str(b)])
    for s, b in [('0' * 4301, 10), ('0' * 4301, 0), ('0' * 4300, 0), ('0x' + 'f' * 9000, 0), ('f' * 9000, 16),
                 ('1' * 20000, 2), ('7' * 5000, 8), ('0b' + '1' * 5000, 0), ('0o' + '7' * 5000, 0),
                 ('1' * 4400, 10), ('1_' * 4300 + '1', 10), ('1_' * 4299 + '1', 10), ('9' * 4300, 0),
                 ('-' + '9' * 4300, 0), ('0' + '9' * 4300, 0), ('0' * 4300 + '1', 0), ('v' * 5000, 32),
                 ('3' * 9000, 4), ('1' * 4301 + '?', 10), ('\x00' + '1' * 4301, 10)]:
        out.append(['parse', s, str(b)])


def generate():
    rng = random.Random(SEED)
    g = Gen(rng)
    out = []
    cases_arith(g, out, 7500)
    cases_div(g, out, 5800)
    cases_knuth_addback(g, out)
    cases_pow(g, out, 800)
    cases_unary(g, out, 1200)
    cases_i64(g, out, 1200)
    cases_truediv(g, out, 5000)
    cases_tof64(g, out, 2500)
    cases_fromf64(g, out, 1500)
    cases_cmpf64(g, out, 3000)
    cases_repr(g, out, 2500)
    cases_fmt(g, out, 700)
    cases_parse(g, out, 6000)
    return [c + [compute(*c)] for c in out]


def main(argv):
    if '--oracle' in argv:
        w = sys.stdout.write
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            op, x, y = json.loads(line)[:3]
            w(json.dumps([op, x, y, compute(op, x, y)]) + '\n')
        return 0
    path = 'fixtures/bigint/golden-bigint.jsonl'
    if '--out' in argv:
        path = argv[argv.index('--out') + 1]
    cases = generate()
    with open(path, 'w', encoding='ascii', newline='\n') as f:
        f.write(json.dumps({'meta': golden_meta.meta('scripts/gen_bigint_corpus.py', 'python3 scripts/gen_bigint_corpus.py')}) + '\n')
        for c in cases:
            f.write(json.dumps(c) + '\n')
    from collections import Counter
    counts = Counter(c[0] for c in cases)
    print(f'wrote {len(cases)} cases to {path}: ' + ', '.join(f'{k}={v}' for k, v in sorted(counts.items())),
          file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
