#!/usr/bin/env python3
"""Deterministic CPython *evaluation* corpus for the `condition:` sandbox.

Every record is a JSON line
    {"condition": str, "capture": {str: str}, "exit_code": int, "walltime_sec": float,
     "peak_vram_mib": int|null, "origin": str, ...result}
where `result` is what `cpython_eval_oracle.evaluate_record` returns (CPython 3.11 is the oracle):
    {"valid": true, "fired": bool, "value": {"type": str, "repr": str|null[, "repr_error": str]}}
    {"valid": true, "fired": false, "error": "<exception class>"}
    {"valid": false, "node": str|null, "kind": str}      (only the spec's rejected examples)

    python3 scripts/gen_eval_corpus.py [--seed S] [--count N] [--random-only [--sampled-share F]]
                                       (--out FILE | --stdout) [--quiet]

Defaults: seed 1, count 52000 (the fixed core is ~37,200 records, so 52,000 gives the ~70/30 mix).
The same seed and count give the same file (for the same CPython: results are CPython's; note that
`repr(math)` contains the interpreter's install path). The core does not depend on the seed; the
sampled and random parts do. Records are unique on (condition, capture, exit_code, walltime_sec,
peak_vram_mib), every line is under 64 KiB, and every input round-trips through JSON (inputs JSON
cannot represent, such as a high and a low surrogate as two separate code points, are skipped; such
strings are still covered, built at run time from escapes in the condition). A summary goes to stderr.

Layout of the output (the `origin` field says which generator made a record):
  * ~70% structured. First the fixed "core" (always in the same order; if N is smaller than the core,
    the output is its first N records):
      spec:*        the spec's worked examples, the original's tests/probe/test_sandbox.py (ROCm/aorta) seed tests with their inputs, the
                    the original's src/aorta/probe/sandbox.py (ROCm/aorta) semantics table, and the spec's rejected examples (valid: false)
      matrix:*      type x operator matrices: every binary operator over representatives of every
                    type (int, bool, float, complex, None, str, bytes, Ellipsis, dict, callables,
                    module), a dense numeric matrix (int boundaries, huge ints, -0.0, subnormals,
                    max, inf, nan, complex), unary operators, zero division for every type pair
      call:*        float/int/len/math.isnan/math.isinf over every type, every arity, int(x, base)
      parse:*       CPython string parsing: int()/float() over whitespace, Unicode digits,
                    underscores, signs, prefixes, bases, nan/inf spellings, exponents, hex floats,
                    halfway cases with long (up to ~800 digit) mantissas
      int:*         2**31/2**53/2**63/2**64/2**1024 boundaries, huge ints, the 4300-digit limit
      str:* bytes:* complex:* dict:* repr:* chain:* ternary:* boolop:* subscript:* nfkc layout
    then "matrix:sampled" (random three-operand combinations of the matrix atoms) up to 70% of N.
  * ~30% "random": random compositions (up to 256 chars) that pass the walker, with random inputs.

`--random-only` (for the live fuzzer, scripts/fuzz-conditions.ts) skips the seed-independent core, so
every record depends on the seed: first "matrix:sampled" up to --sampled-share of N (default 0.25),
then "random" for the rest. The default layout (and so the committed golden) is unchanged by it.
With --stdout, records are written as they are generated (same bytes as the buffered form).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import struct
import sys
import time
import unicodedata
from decimal import Decimal, localcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cpython_eval_oracle import dumps, evaluate_record  # noqa: E402
import golden_meta  # noqa: E402

DEFAULT_ENV = {"exit_code": 0, "walltime_sec": 1.0, "peak_vram_mib": None}
MAX_LINE = 64 * 1024
K = "\x01"  # capture-key placeholder marker inside atom texts: \x01<n>\x01


# --------------------------------------------------------------------------------------------------
# Atoms: an expression text with capture placeholders, its capture values and env requirements
# --------------------------------------------------------------------------------------------------


class Atom:
    __slots__ = ("text", "tag", "caps", "env")

    def __init__(self, text: str, tag: str, caps: tuple = (), env: dict | None = None) -> None:
        self.text = text
        self.tag = tag
        self.caps = caps
        self.env = env or {}

    def __repr__(self) -> str:  # debugging only
        return f"Atom({self.text!r}, {self.tag}, {self.caps!r}, {self.env!r})"


def ph(i: int = 0) -> str:
    return f"capture[{K}{i}{K}]"


def cap_atom(expr: str, tag: str, *values: str) -> Atom:
    """`expr` uses {0}, {1}... for `capture[...]` subscripts of the given values."""
    return Atom(expr.format(*(ph(i) for i in range(len(values)))), tag, tuple(values))


def env_atom(name: str, value, tag: str) -> Atom:
    return Atom(name, tag, (), {name: value})


KEY_NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"]


def render(template: str, atoms: list[Atom], base_capture: dict | None = None, env: dict | None = None):
    """Fill `template` ({0}, {1}, ...) with the atoms; give every capture placeholder a fresh key.
    Returns (condition, capture, env) or None when two atoms need different values of a variable."""
    capture = dict(base_capture or {})
    merged = dict(env or {})
    texts = []
    used = list(capture)
    for atom in atoms:
        for name, value in atom.env.items():
            if name in merged and merged[name] != value:
                return None
            merged[name] = value
        text = atom.text
        for i, value in enumerate(atom.caps):
            # Reuse a key holding the same value, else the next free key name.
            key = next((k for k in used if capture.get(k) == value), None)
            if key is None:
                key = next(k for k in KEY_NAMES + [f"k{j}" for j in range(100)] if k not in capture)
                capture[key] = value
                used.append(key)
            text = text.replace(f"{K}{i}{K}", repr(key))
        texts.append(text)
    return template.format(*texts), capture, merged


def paren(text: str) -> str:
    return f"({text})"


# --------------------------------------------------------------------------------------------------
# Value pools
# --------------------------------------------------------------------------------------------------

BIG30 = "123456789012345678901234567890"
BIG310 = "1" + "".join(str((i * 7 + 3) % 10) for i in range(309))  # 310 digits: beyond float range

# Representatives of every type reachable in an allowed condition (the type x operator matrix).
REPS = [
    Atom("0", "int"), Atom("7", "int"),
    cap_atom("int({0})", "bigint", BIG30),
    env_atom("exit_code", -11, "int"),
    Atom("True", "bool"), Atom("False", "bool"),
    Atom("0.0", "float"), Atom("-0.0", "float"), Atom("2.5", "float"),
    Atom("float('nan')", "float"), Atom("1e999", "float"), Atom("5e-324", "float"),
    env_atom("walltime_sec", 12.5, "float"),
    Atom("1j", "complex"), Atom("(2+3j)", "complex"), Atom("0j", "complex"),
    Atom("None", "NoneType"),
    Atom("''", "str"), Atom("'abc'", "str"), cap_atom("{0}", "str", "10"), Atom("'\\U0001d7cf'", "str"),
    Atom("b''", "bytes"), Atom("b'ab'", "bytes"),
    Atom("...", "ellipsis"),
    Atom("capture", "dict"),
    Atom("float", "type"), Atom("int", "type"), Atom("len", "builtin"), Atom("math.isnan", "builtin"),
    Atom("math", "module"),
]

# Dense numeric pool.
NUMS = [
    Atom("0", "int"), Atom("1", "int"), Atom("-1", "int"),
    Atom("True", "bool"), Atom("False", "bool"), Atom("999999999", "int"),
    env_atom("exit_code", 2**53 - 1, "int"),
    cap_atom("int({0})", "bigint", str(2**63)),
    cap_atom("int({0})", "bigint", BIG310),
    cap_atom("int({0})", "bigint", "-" + BIG310),
    Atom("0.0", "float"), Atom("-0.0", "float"), Atom("0.1", "float"), Atom("-2.5", "float"),
    Atom("5e-324", "float"), Atom("1.7976931348623157e+308", "float"), Atom("1e999", "float"),
    Atom("-1e999", "float"), Atom("float('nan')", "float"),
    env_atom("walltime_sec", 1e-05, "float"),
    Atom("1j", "complex"), Atom("-0j", "complex"), Atom("1e999j", "complex"),
]

BINOPS = ["+", "-", "/", "//", "==", "!=", "<", "<=", ">", ">=", "and", "or"]
ARITH = ["+", "-", "/", "//"]
CMPS = ["==", "!=", "<", "<=", ">", ">="]

PY_WS = [chr(c) for c in range(0x110000) if chr(c).isspace()]
NOT_WS = ["\u200b", "\ufeff", "\u180e", "\x00", "\u2060", "\x1b", "\x7f"]
ND_ZEROS = [c for c in range(0x110000) if unicodedata.category(chr(c)) == "Nd" and unicodedata.decimal(chr(c)) == 0]
# Digits that are not decimal digits (No / Nl), and Unicode 15 digits unknown to CPython 3.11.
NOT_DECIMAL = ["\u00b2", "\u00b9", "\u2460", "\u00bd", "\u216b", "\u3007", "\u2070", "\u0f2a", "\U00011f50",
               "\U00011f51", "\U0001e4f1", "\u4e00", "\u1369"]

INT_STRS = [
    "0", "42", " 42 ", "\t42\n", "+7", "-7", "--7", "+-7", "- 7", "+ 7", "7-", "1_000", "1__000", "_1", "1_",
    "1_000_000", "-1_0", "-_1", "0_0", "00", "000", "010", "007", "-00", "0x10", "0X1f", "0o17", "0O17", "0b101",
    "0B11", "0x", "0b", "0o", "1.5", "1.0", "1e3", "", " ", "   \t ", "abc", "1a", "0xg", "١٢٣", "٣", "۳", "३४",
    "１２", "𝟏𝟐", "𝟘", "𝟣", "߃", "๓", "1٣", "٣_٣", "1_٣", "0x١٢", "١_", "-٣", "+𝟏", "4 2", "42\x00", "\x0042",
    "1_000_", "0_7", "0__0", "99999999999999999999", "-99999999999999999999", "+0", "-0", "0x_1f", "0x__1f",
    "0b_1", "0o_7", "0_x1", "true", "True", "None", "nan", "inf", "1,000", "1'000", "١٠٠٠", "9" * 19, "-" + "9" * 19,
    "\u2212" + "7",  # MINUS SIGN is not a sign
    "\uff0b7", "\uff0d7",  # fullwidth plus/minus are not signs
]
FLOAT_STRS = [
    "0", "-0", "0.0", "-0.0", "+0.0", "1.5", " 1.5 ", ".5", "5.", ".", "-.5", "+.5e1", "1e5", "1E5", "1e+5", "1e-5",
    "1e", "e5", "1e+", "1.5e3", "1_000.5", "1_000.000_1", "1__0.5", "_1.5", "1.5_", "1_.5", "1._5", "1e1_0",
    "1e_10", "1_e10", "nan", "NaN", "NAN", "nAn", "+nan", "-nan", "inf", "INF", "Inf", "-iNF", "+Inf", "infinity",
    "Infinity", "-INFINITY", "+iNfInItY", "infinit", "infinityy", "infinty", "in f", " nan ", "nan(1)", "nan()",
    "snan", "qnan", "-", "+", "0x1p3", "0x10", "0x1.8p1", "0X1P-2", "1e500", "-1e500", "1e-400", "-1e-400",
    "4.9e-324", "5e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "2.2250738585072011e-308",
    "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
    "9007199254740993", "9007199254740992.5", "0.1", "0.30000000000000004", "１.５", "١.٥", "𝟏e𝟐", "٣e-١",
    "1.5\u3000", "\x851.5", "inf\u00a0", "nan\u2028", "1,5", "1.5.5", "++1", "1e5.5", "0e0", "00.5", "000", "007.5",
    "i", "n", "", " ", "1_000e1_0", "1e0001", "1e-0", "0.000000000000000000001", "123456789012345678901234567890",
    "1e22", "1e23", "1e21", "1e16", "1e15", "123456789e-20", "1.0e+308", "1e308", "1e309", "-0e5", "0.5e-323",
    ".e1", "1.e1", "1.5j", "1+2j", "0b1", "0o1", "infnan", "nani", "\u221e", "-\u221e", "\u2212" + "1.5", "1.5f",
    "1.5d", "1.5L", "1_5", "1.5E", "1.5E-", "+-1.5", "1d5", "1.5e+-3", "INFINITY ", "\tinf\n",
]

DIGITS_WORDS = ["loss", "nan", "inf", "Killed", "OOM", "", " ", "a", "10", "9", "137", "-11", "1.5", "0x1f", "abc"]

# Interesting code points for str repr / comparisons / len.
INTERESTING_CHARS = (
    [chr(c) for c in range(0, 0x21)] + ["\x7f", "\x80", "\x85", "\x9f", "\xa0", "\xad", "\xff", "'", '"', "\\",
                                         "\u0300", "\u0301", "\u0378", "\u05d0", "\u061c", "\u200b", "\u200d",
                                         "\u200e", "\u2028", "\u2029", "\u202e", "\u3000", "\ud7ff", "\ud800",
                                         "\udbff", "\udc00", "\udfff", "\ue000", "\uf8ff", "\ufeff", "\ufffd",
                                         "\ufffe", "\uffff", "\U00010000", "\U0001d7cf", "\U0001f600", "\U0001fae8",
                                         "\U0001f9cc", "\U000e0001", "\U000e0020", "\U000f0000", "\U0010ffff",
                                         "\U00020000", "\U0002a6df", "\U00031350", "\U00011f00", "\u0cf3",
                                         "é", "e\u0301", "\ufb01", "ß", "Σ", "ς", "İ", "\u1680", "\u180e"]
)

STR_ATOMS = [
    Atom("''", "str"), Atom("'a'", "str"), Atom("'b'", "str"), Atom("'ab'", "str"),
    Atom("'\\xe9'", "str"), Atom("'e\\u0301'", "str"), Atom("'\\uffff'", "str"),
    Atom("'\\U0001d7cf'", "str"), Atom("'\\U0001f600'", "str"), Atom("'\\ud800'", "str"),
    Atom("'\\ue000'", "str"), cap_atom("{0}", "str", "10"), cap_atom("{0}", "str", "9"),
    cap_atom("{0}", "str", "\ud83d"),
]
BYTES_ATOMS = [Atom("b''", "bytes"), Atom("b'a'", "bytes"), Atom("b'ab'", "bytes"), Atom("b'\\xff'", "bytes"),
               Atom("b'\\x00'", "bytes"), Atom("B'A'", "bytes"), Atom("rb'\\n'", "bytes")]
COMPLEX_ATOMS = [Atom(t, "complex") for t in ["1j", "(2+3j)", "0j", "-0j", "(-0.0+0j)", "1e999j", "(1e999j-1e999j)",
                                              "(0.1+0.2j)", "1e16j", "1e-05j", "(1+0j)", "(1-0j)", "-(1j)",
                                              "(1e308j+1e308j)", "(1e999+1j)", "(float('nan')+1j)"]]

FLOAT_REPR_VALUES = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.30000000000000004, 1.5, 100.0, 1e15, 1e16, 1e17, 9999999999999998.0,
    1234567890123456.8, 123456789012345680.0, 1e21, 1e22, 1e23, 0.001, 0.0001, 0.00001, 1.5e-05, 1e-07, 5e-324,
    1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, 1e308, 1e100, 2.0**53,
    2.0**53 + 2, 2.0**63, 2.0**64, 2.0**31, -2.0**31, 1 / 3, 2 / 3, 3.141592653589793, 1e-310, 123.456, -0.1,
    4.35, 0.1 + 0.7, 1e300 * 1e8 / 1e8, 9007199254740993.0, 1.1, 2.675, 1e-05, 0.000123, 12345678901234567.0,
]


# --------------------------------------------------------------------------------------------------
# The corpus builder
# --------------------------------------------------------------------------------------------------


class Corpus:
    def __init__(self, seed: int, limit: int) -> None:
        self.r = random.Random(seed)
        self.limit = limit
        self.records: list[dict] = []
        self.seen: set[str] = set()
        self.rejected_gen = 0
        self.unrepresentable = 0
        self.sink = None  # called with every record as it is kept (streaming --stdout)

    def full(self) -> bool:
        return len(self.records) >= self.limit

    def add(self, condition: str, capture: dict | None = None, origin: str = "?", accepted_only: bool = False,
            **env) -> dict | None:
        """Evaluate and keep one record. With `accepted_only`, a walker rejection is not kept (it is
        still remembered as seen and counted in `rejected_gen`) and None is returned."""
        if self.full():
            return None
        rec = {"condition": condition, "capture": dict(capture or {})}
        for name, default in DEFAULT_ENV.items():
            rec[name] = env.get(name, default)
        if rec["walltime_sec"] is not None:
            rec["walltime_sec"] = float(rec["walltime_sec"])
        key = dumps([rec["condition"], rec["capture"], rec["exit_code"], rec["walltime_sec"], rec["peak_vram_mib"]])
        if key in self.seen:
            return None
        if json.loads(key) != [rec["condition"], rec["capture"], rec["exit_code"], rec["walltime_sec"],
                               rec["peak_vram_mib"]]:
            # e.g. a high + low surrogate pair as two separate code points: JSON (and UTF-16) cannot tell
            # it from the astral character, so such inputs are not representable in the corpus. (Such
            # strings are still tested, built at run time from escapes in the condition text.)
            self.unrepresentable += 1
            return None
        rec["origin"] = origin
        res = evaluate_record(rec)
        out = {**rec, **res}
        line = dumps(out)
        if len(line) + 1 > MAX_LINE:
            raise AssertionError(f"line too long ({len(line)}): {condition!r}")
        self.seen.add(key)
        if accepted_only and not res["valid"]:
            self.rejected_gen += 1
            return None
        self.records.append(out)
        if self.sink is not None:
            self.sink(line)
        return out

    def add_r(self, rendered, origin: str, **extra_env) -> dict | None:
        if rendered is None:
            return None
        cond, capture, env = rendered
        return self.add(cond, capture, origin, **{**env, **extra_env})


# --------------------------------------------------------------------------------------------------
# Core sections
# --------------------------------------------------------------------------------------------------


def sec_spec(c: Corpus) -> None:
    o = "spec:example"
    c.add("math.isnan(float(capture['loss']))", {"loss": "nan"}, o)
    c.add("math.isnan(float(capture['loss']))", {"loss": "0.25"}, o)
    c.add("math.isnan(float(capture['loss']))", {"loss": "NaN"}, o)
    c.add("math.isnan(float(capture['loss']))", {"loss": "oops"}, o)
    c.add("math.isnan(float(capture['loss']))", {}, o)
    for w, v in [(61.0, 512), (61.0, None), (60.0, 512), (120.5, 0), (59.9, 80000)]:
        c.add("walltime_sec > 60 and peak_vram_mib > 0", {}, o, walltime_sec=w, peak_vram_mib=v)
    for e, msg in [(137, "Killed"), (137, ""), (1, "Killed"), (-9, "x")]:
        c.add("exit_code == 137 and len(capture['msg']) > 0", {"msg": msg}, o, exit_code=e)
    c.add("exit_code == 137 and len(capture['msg']) > 0", {}, o, exit_code=137)
    c.add("exit_code == 137 and len(capture['msg']) > 0", {}, o, exit_code=0)
    for code in ["137", " 137 ", "+137", "137.0", "0x89", "١٣٧", "1_37", "13 7"]:
        c.add("int(capture['code']) == 137", {"code": code}, o)
    o = "spec:test"  # the original's tests/probe/test_sandbox.py (ROCm/aorta)
    c.add("capture['loss'] == 'nan'", {"loss": "nan"}, o)
    c.add("capture['loss'] == 'nan'", {"loss": "fine"}, o)
    c.add("int(capture['count']) > 10 and len(capture) > 0", {"count": "42", "other": "v"}, o)
    c.add("math.isnan(float(capture['loss']))", {"loss": "1.0"}, o)
    c.add("exit_code != 0 and walltime_sec > 1.0 and peak_vram_mib > 100", {}, o, exit_code=137,
          walltime_sec=12.5, peak_vram_mib=512)
    c.add("peak_vram_mib > 0", {}, o)
    c.add("(1 if exit_code != 0 else 0) or (walltime_sec > 0)", {}, o, exit_code=1, walltime_sec=0.0)
    c.add("(1 if exit_code != 0 else 0) or (walltime_sec > 0)", {}, o, exit_code=0, walltime_sec=0.0)
    c.add("exit_code == 999999999", {}, o)
    c.add("math.isinf(float(capture['x']))", {"x": "inf"}, o)
    o = "spec:semantics"  # the original's src/aorta/probe/sandbox.py (ROCm/aorta) table
    for cond, cap in [
        ("7/2", {}), ("-5//2", {}), ("5.5//2", {}), ("1/0", {}), ("1//0", {}), ("int(' 42 ')", {}),
        ("int('1_000')", {}), ("int('+7')", {}), ("int('٣')", {}), ("int('1.5')", {}), ("int('0x10')", {}),
        ("int('')", {}), ("int(3.9)", {}), ("float('nan')", {}), ("float(' -Infinity ')", {}),
        ("float('1_0.5')", {}), ("float('abc')", {}), ("'nan' == float('nan')", {}), ("1 == True", {}),
        ("'10' > '9'", {}), ("'a' < 1", {}), ("'a' + 1", {}), ("'a' + 'b'", {}), ("len(5)", {}),
        ("len(capture)", {"a": "1", "b": "2"}), ("math.isnan('nan')", {}), ("capture['k']", {}),
        ("int(capture['n']) == 123456789012345678901234567891", {"n": "123456789012345678901234567891"}),
        ("int(capture['n']) + 1", {"n": "123456789012345678901234567891"}),
        ("int(capture['n']) - int(capture['m'])", {"n": "123456789012345678901234567891",
                                                   "m": "123456789012345678901234567890"}),
        ("int(capture['n']) == int(capture['m'])", {"n": "123456789012345678901234567891",
                                                    "m": "123456789012345678901234567890"}),
        ("float(capture['n']) == float(capture['m'])", {"n": "123456789012345678901234567891",
                                                        "m": "123456789012345678901234567890"}),
        ("bool(1)", {}),  # a forbidden call: rejected
    ]:
        c.add(cond, cap, o)
    o = "spec:rejected"
    here = os.path.dirname(os.path.abspath(__file__))
    hostile = os.path.join(here, "..", "fixtures", "conditions", "hostile.txt")
    lines = []
    if os.path.exists(hostile):
        with open(hostile, encoding="utf-8") as fh:
            lines = [ln.rstrip("\n") for ln in fh.read().splitlines() if ln.strip()]
    for line in lines + ["exit_code == 1000000000", "math.pi", "__import__('os')", "os.getenv('PATH')",
                         "'oom' in capture['msg']", "1" + " + 1" * 70, "", "   ", "capture[", "exit_code * 2"]:
        c.add(line, {"msg": "oom", "x": "1"}, o)


def sec_type_matrix(c: Corpus) -> None:
    for a in REPS:
        for b in REPS:
            for op in BINOPS:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "matrix:binop")


def sec_numeric_matrix(c: Corpus) -> None:
    for a in NUMS:
        for b in NUMS:
            for op in ARITH + CMPS:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "matrix:numeric")


def sec_unary(c: Corpus) -> None:
    atoms = REPS + NUMS + STR_ATOMS + BYTES_ATOMS + COMPLEX_ATOMS
    for a in atoms:
        c.add_r(render("{0}", [a]), "matrix:value")
        for t in ["-{0}", "+{0}", "not {0}", "-(-{0})", "+(-{0})", "not not {0}", "-(+{0})", "- - {0}"]:
            c.add_r(render(t, [a]), "matrix:unary")
    for t in ["-0", "-(0)", "+-0.0", "-(0.0)", "-(-0.0)", "-float('nan')", "-1e999", "--1e999", "not float('nan')",
              "not -0.0", "not 0j", "not -0j", "not b''", "not ...", "not capture", "-True", "+True", "-False",
              "+False", "not None", "-None", "+''", "-b''", "-...", "-capture", "+capture", "-len", "+math",
              "-math.isnan", "not math", "not len", "-(1e999j)", "-(1j)", "-(-0j)", "+(-0j)"]:
        c.add(t, {"a": "1"}, "matrix:unary")
        c.add(t, {}, "matrix:unary")


def sec_zero_division(c: Corpus) -> None:
    nums = [Atom("0", "int"), Atom("1", "int"), Atom("-1", "int"), Atom("True", "bool"), Atom("False", "bool"),
            Atom("0.0", "float"), Atom("-0.0", "float"), Atom("float('nan')", "float"), Atom("1e999", "float"),
            Atom("1j", "complex"), Atom("0j", "complex"), cap_atom("int({0})", "bigint", BIG310),
            env_atom("exit_code", 5, "int"), env_atom("walltime_sec", 2.5, "float"), Atom("'a'", "str"),
            Atom("None", "NoneType"), Atom("capture", "dict"), Atom("b'1'", "bytes")]
    dens = [Atom("0", "int"), Atom("0.0", "float"), Atom("-0.0", "float"), Atom("False", "bool"),
            Atom("0j", "complex"), Atom("-0j", "complex"), Atom("(0j-0j)", "complex"), Atom("-0", "int"),
            cap_atom("int({0})", "int", "0"), cap_atom("float({0})", "float", "-0.0"),
            env_atom("peak_vram_mib", None, "int"), env_atom("peak_vram_mib", 0, "int"),
            Atom("(1 - True)", "int"), Atom("(0.5 - 0.5)", "float"), Atom("(1e999 - 1e999)", "float")]
    for a in nums:
        for b in dens:
            for op in ["/", "//"]:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "matrix:zerodiv")
    for t in ["exit_code / exit_code", "exit_code // exit_code", "walltime_sec / walltime_sec",
              "walltime_sec // walltime_sec", "peak_vram_mib / 1", "1 / peak_vram_mib", "len('') // len('')"]:
        c.add(t, {}, "matrix:zerodiv", exit_code=0, walltime_sec=0.0)
        c.add(t, {}, "matrix:zerodiv", exit_code=0, walltime_sec=-0.0, peak_vram_mib=0)


ALL_VALUE_ATOMS = None  # filled lazily


def value_atoms() -> list[Atom]:
    global ALL_VALUE_ATOMS
    if ALL_VALUE_ATOMS is None:
        seen, out = set(), []
        for a in REPS + NUMS + STR_ATOMS + BYTES_ATOMS + COMPLEX_ATOMS + [
            Atom("b'42'", "bytes"), Atom("b' 4_2 '", "bytes"), Atom("b'1.5'", "bytes"), Atom("b'\\xd9\\xa3'", "bytes"),
            Atom("b'nan'", "bytes"), Atom("'42'", "str"), Atom("' 1.5 '", "str"), Atom("'nan'", "str"),
            Atom("'-inf'", "str"), Atom("3.9", "float"), Atom("-3.9", "float"), Atom("-0.5", "float"),
            Atom("0.5", "float"), Atom("1e300", "float"), Atom("1e16", "float"), Atom("2.5", "float"),
            Atom("-2.5", "float"), Atom("9.999999999999999e22", "float"),
            cap_atom("int({0})", "bigint", str(2**1024)), cap_atom("int({0})", "bigint", str(2**1024 - 2**970 - 1)),
            env_atom("peak_vram_mib", None, "int"), env_atom("peak_vram_mib", 24576, "int"),
        ]:
            k = (a.text, a.caps, tuple(sorted(a.env.items())))
            if k not in seen:
                seen.add(k)
                out.append(a)
        ALL_VALUE_ATOMS = out
    return ALL_VALUE_ATOMS


def sec_calls(c: Corpus) -> None:
    funcs = ["float", "int", "len", "math.isnan", "math.isinf"]
    atoms = value_atoms()
    for f in funcs:
        c.add(f"{f}()", {}, "call:arity")
        for a in atoms:
            c.add_r(render(f"{f}({{0}})", [a]), "call:type")
        for a, b in [("1", "2"), ("'1'", "2"), ("'1'", "10"), ("1.5", "0"), ("'x'", "'y'"), ("capture", "1")]:
            c.add(f"{f}({a}, {b})", {}, "call:arity")
        c.add(f"{f}(1, 2, 3)", {}, "call:arity")
        c.add(f"{f}('10', 2, 3)", {}, "call:arity")
        c.add(f"{f}({f})", {}, "call:type")
        c.add(f"{f}({f}(1))", {}, "call:type")
    # int(x, base) where x is not a string / the base has a wrong type or value.
    bases = ["0", "2", "10", "16", "36", "1", "37", "-1", "-0", "True", "False", "2.0", "'10'", "None", "1j",
             "int(capture['b'])", "exit_code", "...", "b'2'", "99999999", "-999999999", "int(10.5)"]
    xs = ["'10'", "b'10'", "10", "1.5", "True", "None", "capture", "'z'", "b'z'", "'0x10'", "...", "1j", "len"]
    for x in xs:
        for b in bases:
            for big in ("36", str(2**64), "-" + str(2**70)):
                c.add(f"int({x}, {b})", {"b": big}, "call:base", exit_code=16)
                if "capture['b']" not in b:
                    break
    # truncation of floats by int()
    for v in ["3.9", "-3.9", "-0.5", "0.5", "-0.0", "0.999999999999", "1e300", "-1e300", "1e16", "2.5", "-2.5",
              "float('nan')", "float('-nan')", "1e999", "-1e999", "5e-324", "1.7976931348623157e308",
              "9007199254740993.0", "4503599627370495.5", "True", "walltime_sec"]:
        for t in ["int({})", "int({}) == {}", "int(-{})", "float(int({}))", "int(float({}))", "int({}) // 1"]:
            c.add(t.format(v, v), {}, "call:int-float", walltime_sec=123456.789)


def sec_parse(c: Corpus) -> None:
    lit_ok = lambda s: len(repr(s)) <= 120  # noqa: E731
    for s in INT_STRS:
        for t in ["int({0})", "int({0}, 0)", "int({0}, 16)", "float({0})", "int({0}) == 42"]:
            c.add_r(render(t, [cap_atom("{0}", "str", s)]), "parse:int")
        if lit_ok(s):
            c.add(f"int({s!r})", {}, "parse:int")
            c.add(f"int({s!r}, 0)", {}, "parse:int")
        if s.isascii() and lit_ok(s):
            c.add(f"int({s.encode()!r})", {}, "parse:int-bytes")
            c.add(f"float({s.encode()!r})", {}, "parse:float-bytes")
    for s in FLOAT_STRS:
        for t in ["float({0})", "int({0})", "math.isnan(float({0}))", "math.isinf(float({0}))", "-float({0})",
                  "float({0}) == float({0})"]:
            c.add_r(render(t, [cap_atom("{0}", "str", s)]), "parse:float")
        if lit_ok(s):
            c.add(f"float({s!r})", {}, "parse:float")
        if s.isascii() and lit_ok(s):
            c.add(f"float({s.encode()!r})", {}, "parse:float-bytes")
    # Surrounding whitespace (every str.isspace char) and look-alikes that are not whitespace.
    for w in PY_WS + NOT_WS:
        for core in ["42", "-1.5", "-inf", "1_0"]:
            for s in [w + core, core + w, w * 3 + core + w]:
                c.add("int(capture['s'])", {"s": s}, "parse:ws")
                c.add("float(capture['s'])", {"s": s}, "parse:ws")
        c.add("int(capture['s'], 0)", {"s": w + "0x1f" + w}, "parse:ws")
        c.add(f"int({(w + '7' + w)!r})", {}, "parse:ws")
        c.add(f"float({(w + '7.5' + w)!r})", {}, "parse:ws")
        c.add("int(capture['s'])", {"s": "4" + w + "2"}, "parse:ws")
        c.add("float(capture['s'])", {"s": "-" + w + "1"}, "parse:ws")
    # Unicode decimal digits of every Nd block; non-decimal digits.
    for z in ND_ZEROS:
        d = [chr(z + i) for i in range(10)]
        for s, t in [(d[1] + d[2] + d[3], "int"), (d[9] + d[0], "int"), ("-" + d[7], "int"), (d[1] + "_" + d[0], "int"),
                     (d[1] + d[2], "int16"), ("0x" + d[1] + d[0], "int0"), (d[1] + "." + d[5], "float"),
                     (d[2] + "e" + d[3], "float"), ("1" + d[0], "int"), (d[4] + d[2], "int36"),
                     (d[1] + d[0] + d[1], "int2")]:
            fn = {"int": "int({0})", "int16": "int({0}, 16)", "int0": "int({0}, 0)", "float": "float({0})",
                  "int36": "int({0}, 36)", "int2": "int({0}, 2)"}[t]
            c.add(fn.format("capture['s']"), {"s": s}, "parse:digits")
        c.add(f"float({(d[3] + '.' + d[1] + d[4])!r})", {}, "parse:digits")
    for ch in NOT_DECIMAL:
        for s in [ch, "1" + ch, ch + "1"]:
            c.add("int(capture['s'])", {"s": s}, "parse:digits")
            c.add("float(capture['s'])", {"s": s}, "parse:digits")
        c.add("len(capture['s'])", {"s": ch}, "parse:digits")
    # int(x, base): every base 0, 2..36 plus invalid ones, over strings that probe prefixes and digits.
    all_bases = [0] + list(range(2, 37)) + [1, 37, -1, -2, 64]
    for s in ["10", "z", "Z", "0x10", "0b1", "0o7", "1_0", "9", "00", "010", "0", "-10", " +1f ", "7f", "0_1"]:
        for b in all_bases:
            c.add(f"int(capture['s'], {b})", {"s": s}, "parse:base")
    for s in ["0x7f", "0X7F", "0o17", "0O17", "0b11", "0B11", "0x_f", "0x__f", "0b_1", "0_x1", "-0x10", " +0b1 ",
              "0b2", "0o8", "0xg", "0x", "0b", "0o", "0b101", "0o0", "0x0", "0_0", "0_00", "00_0", "0__0", "-0b1",
              "+0o7", "- 0x1", "0x1_", "0x_", "1e5", "Zz", "zz", "-z", "_z", "z_", "0X_1", "١٠", "𝟏𝟎", "g", "G",
              "\uff41", "\uff21", "ａ"]:
        for b in [0, 2, 8, 10, 11, 16, 24, 33, 34, 35, 36]:
            c.add(f"int(capture['s'], {b})", {"s": s}, "parse:base")
    # Long mantissas and halfway cases (correct rounding).
    r = random.Random(4242)
    doubles = [0.0, 5e-324, 1e-323, 2.2250738585072009e-308, 2.2250738585072014e-308, 1.0, 0.1, 2.0**53, 2.0**52,
               2.0**-1022, 1.7976931348623155e308, 1e22, 1e23, 123.456, 1e-300, 9.5e-200]
    for _ in range(120):
        bits = r.getrandbits(64) & ~(1 << 63)
        d = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if math.isfinite(d) and d != 0:
            doubles.append(d)
    made = 0
    for d in doubles:
        strs = halfway_strings(d)
        if not strs:
            continue
        for s in strs:
            if made > 360:
                break
            made += 1
            c.add("float(capture['m'])", {"m": s}, "parse:mantissa")
            c.add("float(capture['m']) == float(capture['r'])", {"m": s, "r": repr(d)}, "parse:mantissa")
    for n in [17, 20, 40, 100, 300, 500, 800]:
        for s in ["1." + "0" * (n - 1) + "1", "0." + "0" * n + "1", "9" * n, "1" + "0" * n + "e-" + str(n),
                  "0." + "9" * n, "4" + "9" * n + "e-" + str(n + 324), "1" * n + ".5e-10", "-" + "7" * n + "e-999"]:
            c.add("float(capture['m'])", {"m": s}, "parse:mantissa")
        c.add("int(float(capture['m']))", {"m": "9" * n}, "parse:mantissa")


def halfway_strings(d: float) -> list[str]:
    up = math.nextafter(d, math.inf)
    if not math.isfinite(up):
        return []
    with localcontext() as ctx:
        ctx.prec = 2000
        mid = (Decimal(d) + Decimal(up)) / 2
        text = format(mid, "e")  # all significant digits
    mant, exp = text.split("e")
    if len(mant) > 800:
        return []
    digits = mant.replace(".", "")
    if not digits.endswith("5"):
        return []
    e = int(exp)
    above = f"{mant}000001e{e}"
    below = f"{mant[:-1]}4999999e{e}"
    return [f"{mant}e{e}", above, below]


def sec_int_boundaries(c: Corpus) -> None:
    vals = [2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 2**53 - 1, 2**53, 2**53 + 1, -2**53 - 1,
            2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 2**64 + 1, -2**64, 2**1023, 2**1024,
            2**1024 - 2**970, 2**1024 - 2**970 - 1, 2**1024 - 2**971, -(2**1024 - 2**970), 10**308, 10**309]
    tmpl = ["{0}", "{0} + 1", "{0} - 1", "{0} / 1", "{0} // 2", "{0} // -2", "{0} == float({1})", "float({0})",
            "{0} < float({1})", "{0} + 0.0", "{0} == {0} + 0.0", "-{0}", "{0} // 3", "{0} / 3", "{0} / -7",
            "math.isinf({0})", "math.isnan({0})", "{0} > 1e308", "{0} < 1e999", "1 / {0}", "{0} / {0}",
            "int(float({1}))", "{0} // 0.5", "{0} - {0} + 0.5", "{0} // 2 // 2",
            "{0} == {0} / 1", "{0} != {0} // 1", "{0} > 9007199254740992.0", "{0} // 1e300"]
    for v in vals:
        for t in tmpl:
            c.add(t.format("int(capture['n'])", "capture['n']"), {"n": str(v)}, "int:boundary")
    ev = [2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32, 2**53 - 1, -(2**53 - 1), 2**53 - 2, 0, -1, 255, -11, 137]
    for e in ev:
        for t in ["exit_code + 1", "exit_code + 2", "exit_code - -1", "exit_code / 1", "(exit_code + 2) / 1",
                  "exit_code + 2 == (exit_code + 2) / 1", "exit_code // 2", "exit_code // -2", "-exit_code",
                  "exit_code + 0.5", "exit_code + 1 > exit_code + 1.0", "exit_code + 1 == exit_code + 2.0",
                  "exit_code - exit_code", "exit_code / -exit_code", "exit_code // exit_code",
                  "exit_code + exit_code", "exit_code + exit_code + exit_code + exit_code",
                  "exit_code / 3", "exit_code // 7", "exit_code // -7", "float(exit_code + 1)",
                  "int(float(exit_code + 1))", "exit_code == 137", "exit_code < 0", "exit_code > walltime_sec"]:
            c.add(t, {}, "int:exit_code", exit_code=e, walltime_sec=float(abs(e)) + 0.5)
    for v in [0, 1, 100, 2**31, 2**53 - 1, 24576, -1]:
        for t in ["peak_vram_mib", "peak_vram_mib > 100", "peak_vram_mib / 1024", "peak_vram_mib // 1024",
                  "peak_vram_mib + walltime_sec", "peak_vram_mib == 0", "not peak_vram_mib"]:
            c.add(t, {}, "int:vram", peak_vram_mib=v)
            c.add(t, {}, "int:vram", peak_vram_mib=None)


def sec_huge_ints(c: Corpus) -> None:
    r = random.Random(777)

    def digits(n: int) -> str:
        return str(r.randint(1, 9)) + "".join(str(r.randint(0, 9)) for _ in range(n - 1))

    tmpl2 = ["int({0}) + int({1})", "int({0}) - int({1})", "int({0}) // int({1})", "int({0}) / int({1})",
             "int({0}) == int({1})", "int({0}) < int({1})", "int({0}) // -int({1})", "-int({0}) // int({1})",
             "int({0}) > float({1})", "int({0}) - int({1}) + 0.5"]
    tmpl1 = ["int({0})", "int({0}) > 0", "int({0}) // 7", "int({0}) // -7", "float({0})", "int({0}) == float({0})",
             "int({0}) / 1", "len({0})", "-int({0})", "int({0}) + 1 > int({0})", "int({0}) / 7", "int({0}) + 0.0",
             "math.isnan(int({0}))", "int({0}) < 1e999", "int({0}) > 1e308", "1 / int({0})",
             "int({0}) == int({0}) // 1", "int({0}, 0)", "int({0}, 36)", "float(int({0}))"]
    lengths = [20, 21, 25, 40, 60, 100, 150, 200, 300, 308, 309, 310, 320, 400]
    for n in lengths:
        for sign in ["", "-"]:
            a = sign + digits(n)
            for t in tmpl1:
                c.add(t.format("capture['a']"), {"a": a}, "int:huge")
            for m in [5, n, 300]:
                b = digits(m)
                for t in tmpl2:
                    c.add(t.format("capture['a']", "capture['b']"), {"a": a, "b": b}, "int:huge")
    for n in [1000, 2000]:
        a = digits(n)
        for t in ["int({0}) > 0", "int({0}) // int({1})", "int({0}) / int({1})", "float({0})", "int({0}) // 3"]:
            c.add(t.format("capture['a']", "capture['b']"), {"a": a, "b": digits(n - 3)}, "int:huge")
    # The int/str conversion limit (4300 digits) and the power-of-two-base exemption.
    n9 = "9" * 4300
    limit_cases = [
        ("int(capture['n']) > 0", "1" * 4300), ("int(capture['n']) > 0", "1" * 4301),
        ("int(capture['n']) > 0", "-" + "1" * 4300), ("int(capture['n']) > 0", "-" + "1" * 4301),
        ("int(capture['n']) > 0", "0" * 5 + "1" * 4295), ("int(capture['n']) > 0", "0" + "1" * 4300),
        ("int(capture['n']) > 0", "_".join("1" * 4300)), ("int(capture['n']) > 0", "   " + "1" * 4300 + "\n"),
        ("int(capture['n']) > 0", "١" * 4300), ("int(capture['n']) > 0", "١" * 4301),
        ("int(capture['n'], 10) > 0", "1" * 4301), ("int(capture['n'], 0) > 0", "1" * 4301),
        ("int(capture['n'], 16) > 0", "f" * 4301), ("int(capture['n'], 16)", "f" * 4301),
        ("int(capture['n'], 0) > 0", "0x" + "f" * 4400), ("int(capture['n'], 36) > 0", "z" * 4301),
        ("int(capture['n'], 32) > 0", "v" * 4400), ("int(capture['n'], 8) > 0", "7" * 4400),
        ("int(capture['n'], 2) > 0", "1" * 5000), ("int(capture['n'], 3) > 0", "2" * 4301),
        ("int(capture['n'], 3) > 0", "2" * 4300), ("int(capture['n'], 0) > 0", "0b" + "1" * 5000),
        ("int(capture['n'])", "1" * 4300), ("int(capture['n']) + int(capture['n'])", n9),
        ("int(capture['n']) + int(capture['n']) > 0", n9), ("int(capture['n']) - int(capture['n'])", n9),
        ("int(capture['n']) // 10", n9), ("int(capture['n']) + 1", n9),
        ("int(capture['n']) + 1 == int(capture['n'])", n9), ("len(capture['n'])", "1" * 5000),
        ("float(capture['n'])", "1" * 5000), ("float(capture['n'])", "0." + "0" * 4000 + "1"),
        ("int(float(capture['n']))", "1" * 5000), ("int(capture['n']) / int(capture['n'])", n9),
        ("int(capture['n']) > 1e999", "1" * 4300), ("-int(capture['n'])", "1" * 4300),
        ("int(capture['n'], 16) // int(capture['n'], 16)", "f" * 4301),
        ("float(int(capture['n'], 16))", "f" * 256), ("float(int(capture['n'], 16))", "f" * 255),
        ("float(int(capture['n'], 16))", "f" * 13 + "8" + "0" * 242),  # 2**1024 - 2**971: the max float
        ("float(int(capture['n'], 16))", "f" * 13 + "c" + "0" * 242),  # 2**1024 - 2**970: halfway -> overflow
        ("float(int(capture['n'], 16))", "f" * 13 + "b" + "f" * 242),  # just below halfway -> max float
        ("int(capture['n'], 16) / 1", "f" * 13 + "c" + "0" * 242),
        ("int(capture['n'], 16) // 1", "f" * 13 + "c" + "0" * 241 + "1"),
        ("int(capture['n'], 16) > 1.7976931348623157e308", "f" * 13 + "8" + "0" * 241 + "1"),
        ("int(capture['n'], 16) / 2", "f" * 300), ("int(capture['n'], 16) / int(capture['n'], 16)", "f" * 300),
    ]
    for cond, n in limit_cases:
        c.add(cond, {"n": n}, "int:limit")


def sec_float_repr(c: Corpus) -> None:
    r = random.Random(99)
    vals = list(FLOAT_REPR_VALUES)
    for _ in range(220):
        bits = r.getrandbits(64)
        d = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if math.isfinite(d):
            vals.append(d)
    for e in range(-330, 310, 7):
        vals.append(float(f"1.2345678901234567e{e}"))
        vals.append(float(f"5e{e}"))
    for v in vals:
        c.add("float(capture['f'])", {"f": repr(v)}, "repr:float")
        c.add("walltime_sec", {}, "repr:float", walltime_sec=v)
        c.add("walltime_sec + 0.1", {}, "repr:float", walltime_sec=v)
        c.add("walltime_sec // 1", {}, "repr:float", walltime_sec=v)
    for t in ["0.1 + 0.2", "1 / 3", "2 / 3", "1e16 + 1", "1e16 + 2", "0.1 + 0.7", "1 - 0.9", "1e22 + 0.0",
              "int('123456789012345678') / 1", "1 / 7", "100 / 3", "1e308 + 1e308", "-1e308 - 1e308", "1e-320 / 10",
              "5e-324 / 2", "5e-324 // 2", "1.5e-323 / 2", "2.5e-323 / 2", "1e300 / 1e-300", "1e-300 / 1e300",
              "7 // 0.1", "1 // 0.1", "1 / 0.1", "-1 // 0.1", "0.3 // 0.1", "5.5 // -2", "-5.5 // 2", "1e16 // 3",
              "1e308 // 1e-308", "-1e-300 // 1e300", "1e-300 // -1e300", "1 // 1e999", "-1 // 1e999",
              "1e999 // 1", "1e999 // 1e999", "-0.0 // 1e999", "1e999 / 1e999", "1e999 - 1e999",
              "float('nan') // 1", "1 // float('nan')", "0.0 // -1", "-0.0 // -1", "0 // -1.0", "-0.0 // 1",
              "0 / -1", "-0 / 1", "0 / -1.0", "-0.0 + 0", "-0.0 - 0", "0 - 0.0", "-0.0 + -0.0", "-0.0 - -0.0",
              "0.0 - 0.0", "-0.0 + 0.0", "0.0 + -0.0", "-(0.0 - 0.0)", "-0.0 / 5", "0.0 / -5", "-0.0 // 5",
              "-5 // 1e999", "5 // -1e999", "-5.0 // 1e300", "1e300 // -1e-300", "4.35 // 0.01", "0.07 // 0.01"]:
        c.add(t, {}, "repr:float-arith")


def sec_str(c: Corpus) -> None:
    ops = ["+", "==", "!=", "<", "<=", ">", ">=", "and", "or"]
    for a in STR_ATOMS:
        for b in STR_ATOMS:
            for op in ops:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "str:op")
            c.add_r(render("len({0} + {1})", [a, b]), "str:len")
    for a in STR_ATOMS:
        for t in ["len({0})", "{0} + 1", "1 + {0}", "{0} - {0}", "{0} / 1", "{0} // 1", "{0} < 1", "{0} == 1",
                  "{0} == b''", "{0} < b''", "{0} + b''", "{0} < None", "{0} == None", "{0} + None"]:
            c.add_r(render(t, [a]), "str:type")
    for ch in INTERESTING_CHARS:
        c.add("capture['s']", {"s": "a" + ch + "b"}, "repr:str")
        c.add("capture['s']", {"s": ch}, "repr:str")
        c.add("len(capture['s'])", {"s": ch + ch}, "str:len")
        c.add("capture['s'] < 'z'", {"s": ch}, "str:cmp")
        c.add("capture['s'] > '\\uffff'", {"s": ch}, "str:cmp")
        c.add("capture['s'] + capture['t']", {"s": ch, "t": "\udc00"}, "str:concat")
        c.add("capture", {ch: ch}, "repr:dict")
    r = random.Random(5)
    for _ in range(400):
        plane = r.choice([0, 0, 0, 1, 1, 2, 3, 14, 15, 16])
        cp = plane * 0x10000 + r.randrange(0x10000)
        c.add("capture['s']", {"s": chr(cp)}, "repr:str")
    for s in ["it's", 'say "hi"', "both ' and \"", "\\", "'", '"', "''", '""', "\\'", "\n\r\t\x0b\x0c",
              "\x00\x01\x1f", "tab\there", "\u00e9t\u00e9", "\U0001f600\U0001f600", "\ud83d\ude00", "\ude00\ud83d",
              "a" * 100, "mix\u202eRTL", "x\u0378y"]:
        c.add("capture['s']", {"s": s}, "repr:str")
        c.add(f"{s!r}", {}, "repr:str")
        c.add("capture", {"s": s, s: "v"}, "repr:dict")
    # code-point (not UTF-16) ordering and astral lengths
    pairs = [("\uffff", "\U00010000"), ("\ue000", "\U0001f600"), ("\ud800", "\ue000"), ("\udfff", "\ue000"),
             ("\ud83d\ude00", "\ufb01"), ("\ud83d", "\U0001f600"), ("\ud83d\ude00", "\U0001f600"),
             ("\ud83d", "\ude00"), ("\udbff", "\udfff"), ("a", "a\x00"), ("", "\x00"), ("é", "e\u0301"), ("Z", "a"), ("10", "9"), ("\U0010ffff", "\udbff")]
    for a, b in pairs:
        for op in CMPS:
            c.add(f"capture['a'] {op} capture['b']", {"a": a, "b": b}, "str:cmp")
            c.add(f"{ascii(a)} {op} {ascii(b)}", {}, "str:cmp")
        c.add("capture['a'] + capture['b']", {"a": a, "b": b}, "str:concat")
        c.add("len(capture['a'] + capture['b'])", {"a": a, "b": b}, "str:len")
        c.add("capture['a'] + capture['b'] == capture['c']", {"a": a, "b": b, "c": a + b}, "str:concat")
    # string literal forms
    for lit in ["'a' 'b'", "'\\N{EN DASH}'", "'\\N{GRINNING FACE}'", "r'\\d'", "'\\d'", "u'x'", "'''a'''",
                "'\\x41\\101\\u0041\\U00000041'", "'\\0'", "'\\777'", "'\\\\'", "'a\\\nb'", "\"it's\"",
                "'\\ud83d\\ude00'", "'\\ud83d' + '\\ude00'", "len('\\ud83d\\ude00')", "len('\\U0001f600')",
                "'\\ud83d\\ude00' == '\\U0001f600'", "'\\ud83d' 'x'", "len('e\\u0301')", "'\\N{LATIN SMALL LETTER E WITH ACUTE}' == '\\xe9'",
                "'\\u00e9' == 'e\\u0301'", "'ﬁ' == 'fi'", "'\\t'", "'\\x0b'", "'\\x7f'", "'\\x80'", "'\\xa0'"]:
        c.add(lit, {}, "str:literal")


def sec_bytes(c: Corpus) -> None:
    ops = ["+", "==", "!=", "<", "<=", ">", ">=", "and", "or"]
    for a in BYTES_ATOMS:
        for b in BYTES_ATOMS:
            for op in ops:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "bytes:op")
    for a in BYTES_ATOMS:
        for t in ["len({0})", "{0} == ''", "{0} != ''", "{0} < ''", "{0} + ''", "{0} + 1", "{0} == 0", "{0} - {0}",
                  "{0} / 1", "{0} // {0}", "int({0})", "float({0})", "{0} == None", "{0} < None"]:
            c.add_r(render(t, [a]), "bytes:type")
    for lit in ["b'\\x00\\x7f\\x80\\xff'", "b'\\''", "b'\"'", "b'\\'\"'", "b'\\\\'", "b'\\n\\r\\t'", "b'a' b'b'",
                "b'\\x41'", "b'\\777'", "b'\\u0041'", "b'\\N{EN DASH}'", "b'\\x20\\x7e'", "b'\\x1f'", "b'\\x0b\\x0c'",
                "br'\\x41'", "len(b'\\xff\\xfe')", "b'\\xff' > b'\\x7f'", "b'a' < b'ab'", "b'' + b''", "b'' == b''",
                "b'a' == 'a'", "b'a' != 'a'", "b'1' == 1", "int(b'  42  ')", "int(b'4_2')", "int(b'ff', 16)",
                "int(b'0x1f', 0)", "int(b'\\xd9\\xa3')", "float(b'  -1.5e3 ')", "float(b'nan')", "float(b'inf_')",
                "int(b'')", "float(b'')", "int(b'\\x00')", "int(b'1\\xa0')", "float(b'\\xa01.5')", "int(b'\\x0c7\\x0b')",
                "int(b'\\x1c7')", "float(b'\\x1c7')", "float(b'\\x857')"]:
        c.add(lit, {}, "bytes:literal")


def sec_complex(c: Corpus) -> None:
    others = [Atom("1", "int"), Atom("0", "int"), Atom("True", "bool"), Atom("False", "bool"), Atom("0.5", "float"),
              Atom("-0.0", "float"), Atom("1e999", "float"), Atom("float('nan')", "float"),
              cap_atom("int({0})", "bigint", BIG310), Atom("'1'", "str"), env_atom("exit_code", 3, "int")]
    for i, a in enumerate(COMPLEX_ATOMS):
        for b in (COMPLEX_ATOMS[:8] if i < 8 else COMPLEX_ATOMS[:3]) + others:
            for op in ARITH + ["==", "!=", "<"]:
                c.add_r(render(f"{{0}} {op} {{1}}", [a, b]), "complex:op")
                if b not in COMPLEX_ATOMS:
                    c.add_r(render(f"{{1}} {op} {{0}}", [a, b]), "complex:op")
    for t in ["1j <= 1j", "1j > 0", "1j >= 1j", "(1+0j) == 1", "(1+0j) == True", "0j == False", "0j == 0.0",
              "0j == -0.0", "(1+0j) == 1.0", "1j == 1j", "(0+1j) == 1j", "1j != 1j", "1j + 1j == 2j",
              "(1e999j - 1e999j) == (1e999j - 1e999j)", "(2+3j) / (2+3j)", "(1+2j) / (3+4j)", "1 / (1e-320j)",
              "1e308j / 1e-308", "(1e308+1e308j) / (1e-308+1e-308j)", "1j / 1e999", "1e999j / 1e999",
              "(1e999+0j) / (1e999+0j)", "0j / 1j", "-0j / 1", "1j // 1j", "1j + len", "int(1j)", "float(1j)",
              "len(1j)", "math.isnan(1j)", "math.isinf(1e999j)", "1j + ''", "1j + b''", "1j + ...", "1j + capture",
              "-(-0j)", "0j - 0j", "-0j - 0j", "-0j + 0j", "-0.0 + 0j", "0j + -0.0", "-0.0 - 0j", "0j - -0.0",
              "2j - 2j", "(-1-1j) // 1", "1e16j + 1", "1.5e-05j - 2", "123456789012345678j", "1e22j", "1e16j",
              "0.1j + 0.2j", "(1e999 - 1e999) + 1j", "1j - 1e999", "1j + int(capture['n'])", "int(capture['n']) / 1j"]:
        c.add(t, {"n": "123456789012345678901234567890123"}, "complex:misc")


def sec_dict_and_callables(c: Corpus) -> None:
    captures = [{}, {"a": "1"}, {"a": "1", "b": "x"}, {"it's": '"'}, {"": ""}, {"\ud800": "\U0001f600"},
                {"k\n": "v\t"}, {"z": "1", "a": "2", "m": "3"}, {"\x00": "\x7f"}, {"é": "é", "e\u0301": "e\u0301"},
                {"key": "'", "k2": "\"'", "k3": "\\"}, {str(i): str(i) for i in range(12)}]
    tmpl = ["capture", "capture == capture", "capture != capture", "len(capture)", "not capture", "capture or 1",
            "capture and 1", "1 and capture", "0 or capture", "capture + 1", "capture + capture", "capture - capture",
            "capture < capture", "capture <= capture", "capture == 1", "capture == None", "capture[capture]",
            "-capture", "1 if capture else 0", "float(capture)", "int(capture)", "math.isnan(capture)",
            "capture / 1", "capture // 1", "len(capture) == 1", "capture == capture == capture",
            "capture[0]", "capture['0']", "capture['a']", "capture[True]", "capture[None]", "capture[b'a']",
            "capture[...]", "capture[1j]", "capture[float('nan')]", "capture[math]", "capture[len]",
            "capture['a' + '']", "capture[capture['a']]", "capture[1.0]", "capture[-0.0]", "capture[int]",
            "capture[(0)]", "capture[exit_code]", "capture[capture['a'] + '']", "capture['\\ud800']",
            "capture['\\xe9']", "capture['e\\u0301']", "capture['ﬁ']", "capture['\\x00']", "capture[\"it's\"]",
            "capture['']", "capture['k\\n']", "capture['1'] if capture else capture['2']", "capture['11']"]
    for cap in captures:
        for t in tmpl:
            c.add(t, cap, "dict:op")
    callables = ["float", "int", "len", "math.isnan", "math.isinf", "math"]
    for a in callables:
        for b in callables + ["1", "0.5", "'s'", "None", "capture", "...", "True", "1j", "b''"]:
            for op in BINOPS:
                c.add(f"{a} {op} {b}", {}, "callable:op")
                if b not in callables:
                    c.add(f"{b} {op} {a}", {}, "callable:op")
        for t in ["{0}", "not {0}", "-{0}", "+{0}", "{0} if {0} else 0", "len({0})", "float({0})", "int({0})",
                  "math.isnan({0})", "capture[{0}]", "{0} == {0}", "{0} != {0}", "{0} < {0}"]:
            c.add(t.format(a), {}, "callable:op")
    for t in ["math.isnan == math.isnan", "math.isnan == math.isinf", "math.isnan != math.isinf", "float == int",
              "len == len", "int == int", "float != float", "int < float", "math == math", "math.isinf",
              "math.isnan(float)", "float(len)", "int(len)", "len(math)", "len(len)", "math.isinf(math)"]:
        c.add(t, {}, "callable:misc")


def sec_chains_ternary_boolop(c: Corpus) -> None:
    vals = ["0", "1", "2", "-1", "0.0", "-0.0", "float('nan')", "1e999", "True", "False", "'a'", "'b'", "None",
            "1j", "b'x'", "capture", "...", "len", "(1/0)", "capture['zz']"]
    r = random.Random(31337)
    for a in ["1", "2", "float('nan')", "'a'", "None"]:
        for op1 in CMPS:
            for b in ["1", "2", "'b'"]:
                for op2 in CMPS:
                    for cc in ["(1/0)", "'c'"]:
                        c.add(f"{a} {op1} {b} {op2} {cc}", {}, "chain:cmp")
    for _ in range(700):
        n = r.randint(2, 6)
        parts = [r.choice(vals)]
        for _ in range(n):
            parts.append(r.choice(CMPS))
            parts.append(r.choice(vals))
        c.add(" ".join(parts), {"a": "1"}, "chain:random")
    for t in ["1 > 2 < 1/0", "1 < 2 < 1/0", "0 == 0 == 0.0 == False", "1 < 2 > 1", "'a' < 'b' < 1", "1 < 0 < 'a'",
              "float('nan') < 1 < 1/0", "1 == 1.0 == True != 2", "0 <= -0.0 <= 0 >= -0.0",
              "exit_code < walltime_sec < peak_vram_mib", "-1 < exit_code < 1 < walltime_sec",
              "1 < 2 < 3 < 4 < 5 < 6 < 7 < 8 < 9 < 10", "1 < 2 < 3 < 4 < 5 < 6 < 7 < 8 < 9 < 1", "None == None != 0",
              "capture['a'] < capture['b'] < capture['c']", "int(capture['a']) < int(capture['b']) < 1/0"]:
        c.add(t, {"a": "1", "b": "2", "c": "3"}, "chain:seed")
        c.add(t, {"a": "9", "b": "10", "c": "3"}, "chain:seed", exit_code=-3, walltime_sec=0.5, peak_vram_mib=1)
    for cnd in vals + ["-0j", "0j", "b''", "''", "' '", "math", "float('nan') != float('nan')", "capture['a']"]:
        for t in ["1 if {0} else 2", "(1/0) if {0} else 2", "1 if {0} else (1/0)", "{0} if {0} else {0}",
                  "{0} and 1", "{0} or 1", "{0} and (1/0)", "{0} or (1/0)", "not {0}", "{0} and {0} or 0"]:
            c.add(t.format(cnd), {"a": ""}, "ternary:boolop")
            c.add(t.format(cnd), {}, "ternary:boolop")
    for t in ["1 if 0 else 2 if 0 else 3", "1 if 1 else 2 if 0 else 3", "(1 if 0 else 2) if 1 else 3",
              "0 or '' or b'' or None", "1 and 'a' and b'x' and 2.5", "0 or '' or 0.0 or 0j or capture",
              "capture and 1 or 2", "None or None", "0 and 1 or 0 and 2", "not 0 and 1 / 1", "not (0 and 1 / 0)",
              "exit_code or walltime_sec or peak_vram_mib", "exit_code and walltime_sec and peak_vram_mib",
              "1 if exit_code else float('nan') if walltime_sec else 'x'",
              "(exit_code == 0) + (walltime_sec > 0) + (peak_vram_mib == 0)", "True + True", "True / 2",
              "True // 2", "-True // 2", "True - 1.5", "False + 0j", "(1 < 2) + 1", "(1 < 2) / (2 > 1)",
              "(0 == 0) == 1 == 1.0", "not 1 == 2", "not (1 == 2) == True", "-1 < -0 <= 0 < 1"]:
        c.add(t, {}, "ternary:seed")
        c.add(t, {}, "ternary:seed", exit_code=2, walltime_sec=0.0, peak_vram_mib=3)


def sec_nfkc_layout(c: Corpus) -> None:
    for t in ["ｅxit_code == 0", "𝐜𝐚𝐩𝐭𝐮𝐫𝐞['a']", "ｌｅｎ(capture)", "𝑚𝑎𝑡ℎ.𝑖𝑠𝑛𝑎𝑛(float('nan'))", "ﬂoat('1.5')",
              "exit_ｃode + walltime_ｓec", "ｉｎｔ('7')", "peak_vram_ｍib > 0",
              "math.isｎan(1.0)", "𝕗𝕝𝕠𝕒𝕥"]:
        c.add(t, {"a": "x"}, "nfkc", exit_code=3)
    for t in ["exit_code == 0  # comment", "(exit_code\n== 0)", "(exit_code ==\r\n 0)", "( exit_code\t== 0 )",
              "exit_code == \\\n0", "  exit_code == 0  ", "\n\texit_code == 0\n", "(exit_code # c\n == 0)",
              "\u3000exit_code == 0\x85", "exit_code==0", "exit_code\x0c== 0", "((((0))))",
              "capture [ 'a' ]", "math . isnan ( 1.0 )", "1if 1else 2", "0x1f+0o17+0b1", "1_0 + 0_0", "1e3 + .5",
              "1.j + 1J", "0xFF", "0O7", "0B1", "00", "0e0", "1E-3", "999_999_999", "-999_999_999"]:
        c.add(t, {"a": "x"}, "layout")


# --------------------------------------------------------------------------------------------------
# Sampled matrix and random compositions
# --------------------------------------------------------------------------------------------------


def sec_sampled(c: Corpus, target: int) -> None:
    r = c.r
    atoms = value_atoms()
    ops = BINOPS
    tries = 0
    while len(c.records) < target and tries < target * 20:
        tries += 1
        a, b, d = r.choice(atoms), r.choice(atoms), r.choice(atoms)
        op1, op2 = r.choice(ops), r.choice(ops)
        shape = r.randrange(4)
        tmpl = [f"{{0}} {op1} {{1}} {op2} {{2}}", f"({{0}} {op1} {{1}}) {op2} {{2}}",
                f"{{0}} {op1} ({{1}} {op2} {{2}})", f"{{0}} if {{1}} else {{2}}"][shape]
        c.add_r(render(tmpl, [a, b, d]), "matrix:sampled")


class RandomGen:
    """Typed random compositions over the allowed language."""

    def __init__(self, r: random.Random) -> None:
        self.r = r
        self.capture: dict[str, str] = {}
        self.env: dict = {}

    def p(self, x: float) -> bool:
        return self.r.random() < x

    def key(self, kind: str) -> str:
        r = self.r
        if self.capture and self.p(0.35):
            return r.choice(list(self.capture))
        if self.p(0.04):
            return r.choice(["missing", "nope", "\ud800", "é"])  # probably missing -> KeyError
        k = r.choice(["a", "b", "loss", "msg", "code", "n", "x", "y", "step", "lr", "é", "k1", "\U0001f600", "A"])
        if k not in self.capture:
            self.capture[k] = self.cap_value(kind)
        return k

    def cap_value(self, kind: str) -> str:
        r = self.r
        if kind == "int":
            return r.choice([str(r.randint(-300, 300)), str(r.randint(-10**12, 10**12)), str(2**r.randint(30, 70)),
                             r.choice(INT_STRS), str(r.randint(0, 10**r.randint(15, 60))), "137", "0", "-11"])
        if kind == "float":
            return r.choice([repr(r.uniform(-1e3, 1e3)), repr(r.random()), r.choice(FLOAT_STRS),
                             repr(r.uniform(-1, 1) * 10 ** r.randint(-320, 308)), "nan", "inf", "-inf", "1e-5"])
        return r.choice(DIGITS_WORDS + ["\U0001f600", "e\u0301", "\ud800", "é", "Killed process 123", "x" * 20])

    def lit_key(self, kind: str) -> str:
        return f"capture[{self.key(kind)!r}]"

    def num(self, d: int) -> str:
        r = self.r
        if d <= 0 or self.p(0.35):
            return r.choice([
                lambda: str(r.randint(0, 10)), lambda: str(r.randint(-5, 5)), lambda: str(r.randint(0, 999999999)),
                lambda: repr(r.choice([0.0, -0.0, 0.5, 1.5, 2.5, 1e-5, 1e16, 5e-324, 1e308, 0.1, 3.9, -3.9])),
                lambda: r.choice(["1e999", "-1e999", "float('nan')", "True", "False", "1j", "(1+2j)"]),
                lambda: "exit_code", lambda: "walltime_sec", lambda: "peak_vram_mib",
                lambda: f"int({self.lit_key('int')})", lambda: f"float({self.lit_key('float')})",
                lambda: f"len({self.lit_key('str')})", lambda: "len(capture)",
            ])()
        choice = r.randrange(10)
        if choice < 5:
            return f"{self.wrap(self.num(d - 1))} {r.choice(ARITH)} {self.wrap(self.num(d - 1))}"
        if choice == 5:
            return f"{r.choice(['-', '+', '- -'])}{self.wrap(self.num(d - 1))}"
        if choice == 6:
            return f"{self.wrap(self.num(d - 1))} if {self.wrap(self.boolean(d - 1))} else {self.wrap(self.num(d - 1))}"
        if choice == 7:
            return f"{r.choice(['int', 'float'])}({self.num(d - 1)})"
        if choice == 8:
            base = r.choice(["0", "2", "8", "10", "16", "36", str(r.randint(2, 36)), "1", "37"])
            return f"int({self.lit_key('int')}, {base})"
        return f"{self.wrap(self.any(d - 1))} {r.choice(['and', 'or'])} {self.wrap(self.num(d - 1))}"

    def string(self, d: int) -> str:
        r = self.r
        if d <= 0 or self.p(0.5):
            return r.choice([lambda: self.lit_key("str"),
                             lambda: repr(r.choice(DIGITS_WORDS + ["\U0001f600", "\ud800", "é"]))])()
        if self.p(0.6):
            return f"{self.wrap(self.string(d - 1))} + {self.wrap(self.string(d - 1))}"
        return f"{self.wrap(self.string(d - 1))} if {self.wrap(self.boolean(d - 1))} else {self.wrap(self.string(d - 1))}"

    def boolean(self, d: int) -> str:
        r = self.r
        choice = r.randrange(12)
        if d <= 0:
            choice = r.choice([0, 1, 2])
        if choice in (0, 1, 2, 3):
            n = 1 if self.p(0.7) else r.randint(2, 3)
            gen = self.num if self.p(0.75) else self.string
            parts = [self.wrap(gen(d - 1))]
            for _ in range(n):
                parts += [r.choice(CMPS), self.wrap(gen(d - 1))]
            return " ".join(parts)
        if choice == 4:
            return f"{r.choice(['math.isnan', 'math.isinf'])}({self.num(d - 1)})"
        if choice == 5:
            return f"not {self.wrap(self.boolean(d - 1))}"
        if choice in (6, 7, 8):
            n = r.randint(2, 3)
            op = r.choice(["and", "or"])
            return f" {op} ".join(self.wrap(self.boolean(d - 1)) for _ in range(n))
        if choice == 9:
            return f"{self.wrap(self.boolean(d - 1))} if {self.wrap(self.boolean(d - 1))} else {self.wrap(self.boolean(d - 1))}"
        return self.any(d - 1)

    def any(self, d: int) -> str:
        r = self.r
        pick = r.randrange(10)
        if pick < 4:
            return self.num(d)
        if pick < 6:
            return self.string(d)
        if pick < 8:
            return self.boolean(d)
        return r.choice(["None", "...", "b''", "b'ab'", "capture", "math", "len", "float", "int", "math.isnan",
                         "math.isinf", "0j", "-0j", "''", f"capture[{r.choice(['exit_code', '0', 'None', 'True'])}]"])

    def wrap(self, text: str) -> str:
        simple = text.replace("_", "").replace(".", "").replace("'", "").replace("[", "").replace("]", "")
        if simple.isalnum() or (text.endswith(")") and text.count("(") == 1 and text[0].isalpha()):
            return text
        if text.startswith("capture[") and text.endswith("]") and text.count("[") == 1:
            return text
        if self.p(0.08):  # occasionally drop the parentheses (precedence is then CPython's)
            return text
        return f"({text})"

    def env_random(self) -> dict:
        r = self.r
        return {
            "exit_code": r.choice([0, 0, 1, 2, 137, 139, -9, -11, 255, -1, 2**31 - 1, -2**31, 2**53 - 1,
                                   r.randint(-300, 300)]),
            "walltime_sec": r.choice([0.0, -0.0, 1.0, 12.5, 60.0, 61.0, 0.1, 3600.25, 1e-05, 5e-324, 1e16,
                                      1.7976931348623157e308, round(r.uniform(0, 7200), r.randint(0, 6))]),
            "peak_vram_mib": r.choice([None, None, 0, 1, 512, 24576, 81920, 2**31, r.randint(0, 100000)]),
        }


def sec_random(c: Corpus, target: int) -> None:
    g = RandomGen(c.r)
    tries = 0
    while len(c.records) < target and tries < target * 30:
        tries += 1
        g.capture = {}
        depth = g.r.randint(1, 4)
        text = g.boolean(depth) if g.p(0.8) else g.any(depth)
        if len(text) > 256:
            continue
        if g.p(0.3):  # unused extra keys
            for k in g.r.sample(["extra", "rank", "gpu", "host", "\u3000", ""], g.r.randint(1, 3)):
                g.capture.setdefault(k, g.cap_value("str"))
        # keep the corpus all-accepted: drop walker rejections (e.g. an unparenthesised `not`)
        c.add(text, g.capture, "random", accepted_only=True, **g.env_random())


CORE_SECTIONS = [sec_spec, sec_type_matrix, sec_numeric_matrix, sec_unary, sec_zero_division, sec_calls, sec_parse,
                 sec_int_boundaries, sec_huge_ints, sec_float_repr, sec_str, sec_bytes, sec_complex,
                 sec_dict_and_callables, sec_chains_ternary_boolop, sec_nfkc_layout]


def generate(seed: int, count: int, random_only: bool = False, sampled_share: float = 0.25,
             sink=None) -> tuple[list[dict], int, Corpus]:
    c = Corpus(seed, count)
    c.sink = sink
    if random_only:
        # Everything depends on the seed: no core, a share of sampled matrix combinations, then random.
        sec_sampled(c, min(count, round(count * sampled_share)))
        if not c.full():
            sec_random(c, count)
        if len(c.records) < count:
            sec_sampled(c, count)
        return c.records, 0, c
    for sec in CORE_SECTIONS:
        sec(c)
        if c.full():
            break
    core = len(c.records)
    structured_target = max(core, round(count * 0.7))
    if not c.full():
        sec_sampled(c, min(structured_target, count))
    if not c.full():
        sec_random(c, count)
    if len(c.records) < count:  # the random generator is practically unbounded; fill up if ever needed
        sec_sampled(c, count)
    return c.records, core, c


def summarize(records: list[dict], core: int, c: Corpus, nbytes: int, elapsed: float, seed: int,
              out=sys.stderr) -> None:
    n = len(records)
    outcome = collections.Counter()
    errors = collections.Counter()
    origins = collections.Counter()
    families = collections.Counter()
    fired = collections.Counter()
    for rec in records:
        origins[rec["origin"]] += 1
        families[rec["origin"].split(":")[0]] += 1
        if not rec["valid"]:
            outcome["rejected"] += 1
            continue
        fired[rec["fired"]] += 1
        if "error" in rec:
            outcome["error"] += 1
            errors[rec["error"]] += 1
        else:
            outcome["value:" + rec["value"]["type"]] += 1
    longest = max(len(dumps(r)) for r in records) if records else 0
    rnd = origins["random"]
    print(f"gen_eval_corpus: seed {seed}, {n} records ({core} core, {n - core - rnd} sampled, {rnd} random = "
          f"{100 * rnd / max(n, 1):.1f}%), {nbytes / 1e6:.2f} MB, longest line {longest} B, {elapsed:.1f} s", file=out)
    print(f"  fired: true {fired[True]}, false {fired[False]}; rejected {outcome['rejected']}; skipped while "
          f"generating: {c.rejected_gen} random candidates the walker rejected, {c.unrepresentable} inputs JSON "
          "cannot represent", file=out)
    print("  result types:", file=out)
    for k, v in outcome.most_common():
        print(f"    {k:28s} {v:7d}  {100 * v / n:5.1f}%", file=out)
    print("  exception classes:", file=out)
    for k, v in errors.most_common():
        print(f"    {k:28s} {v:7d}", file=out)
    print("  origin families:", file=out)
    for k, v in families.most_common():
        print(f"    {k:28s} {v:7d}", file=out)
    print("  origins: " + ", ".join(f"{k} {v}" for k, v in origins.most_common()), file=out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=52000)
    dest = ap.add_mutually_exclusive_group()
    dest.add_argument("--out", help="write the JSONL corpus to this file")
    dest.add_argument("--stdout", action="store_true", help="write the JSONL corpus to stdout")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    ap.add_argument("--random-only", action="store_true",
                    help="skip the seed-independent core: only seed-dependent sampled + random records")
    ap.add_argument("--sampled-share", type=float, default=0.25,
                    help="with --random-only: share of matrix:sampled records (default 0.25)")
    args = ap.parse_args(argv)
    if not args.out and not args.stdout:
        ap.error("one of --out FILE or --stdout is required")
    if args.count < 1:
        ap.error("--count must be >= 1")
    if sys.get_int_max_str_digits() != 4300:
        print(f"warning: sys.int_max_str_digits is {sys.get_int_max_str_digits()}, not CPython's default 4300 "
              "(PYTHONINTMAXSTRDIGITS / -X int_max_str_digits?)", file=sys.stderr)
    if not 0.0 <= args.sampled_share <= 1.0:
        ap.error("--sampled-share must be between 0 and 1")
    t0 = time.perf_counter()
    if args.stdout:
        # Stream: every record is written as soon as it is kept, so a consumer starts at once.
        nbytes = 0

        def sink(line: str) -> None:
            nonlocal nbytes
            sys.stdout.write(line + "\n")
            nbytes += len(line) + 1

        try:
            records, core, corpus = generate(args.seed, args.count, args.random_only, args.sampled_share, sink)
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader went away; keep the interpreter's final flush from complaining.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
        elapsed = time.perf_counter() - t0
        if not args.quiet:
            summarize(records, core, corpus, nbytes, elapsed, args.seed)
        return 0
    records, core, corpus = generate(args.seed, args.count, args.random_only, args.sampled_share)
    opts = (" --random-only" if args.random_only else "") + (
        f" --sampled-share {args.sampled_share}" if args.sampled_share != 0.25 else "")
    header = {"meta": golden_meta.meta(
        "scripts/gen_eval_corpus.py",
        f"python3 scripts/gen_eval_corpus.py --seed {args.seed} --count {args.count}{opts} --out {args.out}",
        oracle="CPython eval via scripts/cpython_eval_oracle.py", records=len(records))}
    text = dumps(header) + "\n" + "".join(dumps(r) + "\n" for r in records)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".tmp", "w", encoding="ascii", newline="\n") as fh:
        fh.write(text)
    os.replace(args.out + ".tmp", args.out)
    elapsed = time.perf_counter() - t0
    if not args.quiet:
        summarize(records, core, corpus, len(text), elapsed, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
