#!/usr/bin/env python3
"""Deterministic corpus generator for the `condition:` sandbox conformance tests.

Every record is a JSON line
    {"condition": str, "origin": str, "valid": bool, "kind": str, "node": str|null, "message": str}
where the verdict fields come from `cpython_oracle.verdict` (CPython 3.11 is the oracle).

    python3 scripts/gen_condition_corpus.py [--seed S] [--count N] (--out FILE | --stdout)

Defaults: seed 1, count 24000. The same seed and count always give the same file (for a given CPython
version: the verdicts are CPython's). Records are unique. A summary goes to stderr.

Generator branches (the `origin` field):
  seed              hand-written edge cases (hostile corpus, docs examples, tokenizer/parser corner cases)
  allowed           random expressions over the allowed subset (mostly valid)
  walker:<kind>     allowed expressions with 1-3 injected forbidden fragments
  grammar           random expressions over the whole CPython 3.11 eval-mode expression grammar
  grammar:illegal   the same, with deliberately illegal argument/parameter/target orders
  lexical:<what>    numeric / string / f-string / escape literals, valid and invalid
  unicode:<what>    identifiers and characters: NFKC spoofs, XID chars, invalid and non-printable chars
  layout:<what>     newlines (LF/CR/CRLF), comments, continuations, tabs, form feeds
  length:<what>     lengths around the 256 cap, strip()-vs-trim() edge whitespace, astral chars
  nesting:<what>    deep nesting near the tokenizer/parser limits
  mutate:<op>       mutations of generated and seed expressions (`+op2` when mutated twice)
  soup              short random token sequences (dense coverage of parser error paths)
  lexical:*soup     random characters from a literal's alphabet (numbers, prefixes, escapes, f-strings)
  seed:probe        hand-written walker-order / \\N{...} / f-string / lambda / comprehension probes
  seed:nfkc         every single-character NFKC spoof of every allowed name
To keep the required mix (>= 25% valid, >= 25% walker rejections) each verdict class is capped at
36% of the requested count; candidates of a full class are skipped.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import re
import sys
import time
import unicodedata

sys.dont_write_bytecode = True  # importing the sibling oracle must not leave scripts/__pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cpython_oracle import WALKER_KINDS, dumps, verdict  # noqa: E402
from golden_meta import meta  # noqa: E402

ALLOWED_NAMES = ["capture", "exit_code", "walltime_sec", "peak_vram_mib", "math", "float", "int", "len"]
VARS = ["exit_code", "walltime_sec", "peak_vram_mib"]
CAP = 10**9

# --------------------------------------------------------------------------------------------------
# Unicode pools (computed deterministically from this interpreter's Unicode 14 database)
# --------------------------------------------------------------------------------------------------


def _scan_unicode():
    xid_start, xid_cont_only, nfkc_ascii = [], [], collections.defaultdict(list)
    for cp in range(0x80, 0x32000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        if ch.isidentifier():
            xid_start.append(ch)
        elif ("a" + ch).isidentifier():
            xid_cont_only.append(ch)
        else:
            continue
        norm = unicodedata.normalize("NFKC", ch)
        if len(norm) == 1 and (norm.isascii() and (norm.isalnum() or norm == "_")):
            nfkc_ascii[norm].append(ch)
    return xid_start, xid_cont_only, nfkc_ascii


XID_START, XID_CONT_ONLY, NFKC_ASCII = _scan_unicode()
# Fullwidth low line U+FF3F and friends normalise to "_"; multi-letter ligatures normalise to several.
LIGATURES = {"fi": "\ufb01", "fl": "\ufb02", "ff": "\ufb00", "ffi": "\ufb03", "IX": "\u2168", "ii": "\u2171"}

# Letters that newer Unicode versions (15+, what Node's ICU knows) made identifier characters but
# CPython 3.11 (Unicode 14) rejects: a TS port using \p{ID_Start} would accept them.
NEWER_UNICODE_ID = ["\U00011F04", "\U0001E030", "\U00031350", "\U0001E4D0", "\u0CF3", "\U00010EFD", "\U0001123F",
                    "\U0001E4EB", "\U00011F1A"]
# Other_ID_Start / Pattern chars where ID_Start and XID_Start disagree.
ID_NOT_XID = ["\u309B", "\u309C", "\u037A", "\u0E33", "\uFC5E", "\uFE7A", "\uFF9E"]
INVALID_CHARS = ["\u20ac", "\u00a0", "\U0001F600", "\u200b", "\u200d", "\u2028", "\u2029", "\ufeff", "\u3000",
                 "\u00b0", "\u00a7", "\u00bf", "\u2212", "\u2013", "\u201c", "\u2018", "\u00d7", "\u00f7", "\u2260",
                 "\u2264", "\u2192", "\u221e", "\u00bd", "\u2070", "\u0660", "\u0301", "\u1680", "\ufffd", "\uffff",
                 "\U0010ffff", "\x7f", "\x80", "\x85", "\x9f", "\x01", "\x1b", "\x0b", "\x1c", "\x1f", "$", "?", "`",
                 "\u037e", "\uff08", "\uff09", "\uff1d", "\uff0b", "\U000E0001", "\u00ad", "\u061c", "\u202e"]
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00"]
# str.isspace() characters (what str.strip removes), and the differences with JS String.prototype.trim.
PY_WS = [chr(c) for c in range(0x110000) if chr(c).isspace()]
PY_ONLY_WS = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85"]
JS_ONLY_WS = ["\ufeff"]
BOTH_WS = [c for c in PY_WS if c not in PY_ONLY_WS]

VALID_N_NAMES = ["EN DASH", "en dash", "SNOWMAN", "snowman", "LATIN SMALL LETTER A", "latin small letter a",
                 "GREEK SMALL LETTER ALPHA", "SPACE", "NO-BREAK SPACE", "NBSP", "LF", "LINE FEED", "NUL", "NULL",
                 "BOM", "BYTE ORDER MARK", "ZWSP", "GRINNING FACE", "grinning face", "DIGIT ONE", "HANGUL SYLLABLE GA",
                 "HANGUL SYLLABLE GAG", "CJK UNIFIED IDEOGRAPH-4E00", "CJK UNIFIED IDEOGRAPH-04E00",
                 "CJK UNIFIED IDEOGRAPH-2A6DF", "CJK COMPATIBILITY IDEOGRAPH-F900", "cjk compatibility ideograph-f900",
                 "LATIN CAPITAL LETTER GHA", "LATIN CAPITAL LETTER OI", "HANGUL JUNGSEONG O-E",
                 "TIBETAN MARK BSKA- SHOG GI MGO RGYAN", "KHITAN SMALL SCRIPT CHARACTER-18B00", "NUSHU CHARACTER-1B170",
                 "QUOTATION MARK", "APOSTROPHE", "REVERSE SOLIDUS", "LEFT CURLY BRACKET", "RIGHT CURLY BRACKET",
                 "Latin Small Letter Sharp S", "CARRIAGE RETURN", "CR", "END OF LINE", "NEL", "DEL", "ESC",
                 "EURO SIGN", "VARIATION SELECTOR-16", "VS16", "SOFT HYPHEN"]
INVALID_N_NAMES = ["DASH", "EN  DASH", " EN DASH", "EN DASH ", "EN-DASH", "hangul syllable ga", "Hangul Syllable Ga",
                   "CJK UNIFIED IDEOGRAPH-4e00", "cjk unified ideograph-4e00", "CJK UNIFIED IDEOGRAPH-4E0",
                   "CJK UNIFIED IDEOGRAPH-2B739", "CJK UNIFIED IDEOGRAPH-31350", "TANGUT IDEOGRAPH-17000",
                   "KAWI LETTER A", "LATIN CAPITAL LETTER A WITH MACRON AND GRAVE", "HANGUL SYLLABLE", "EMOJI", "",
                   "a", "TIBETAN MARK BSKA-SHOG GI MGO RGYAN", "LATIN_SMALL_LETTER_A", "U+0041", "0041",
                   "LATIN SMALL LETTER A\tX"]

ALL_PREFIXES_STR = ["", "r", "u", "R", "U"]
ALL_PREFIXES_BYTES = ["b", "B", "br", "Br", "bR", "BR", "rb", "rB", "Rb", "RB"]
ALL_PREFIXES_F = ["f", "F", "fr", "Fr", "fR", "FR", "rf", "rF", "Rf", "RF"]
INVALID_PREFIXES = ["ur", "uR", "Ur", "UR", "ru", "bu", "ub", "fb", "bf", "Fb", "bF", "rr", "uu", "bb", "ff", "fu",
                    "uf", "rbr", "brb", "frb", "x", "c", "l", "s", "bR2", "_", "t", "ft"]

KEYWORDS = ["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
            "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
            "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"]
SOFT_KEYWORDS = ["match", "case", "_", "type"]
OTHER_NAMES = ["x", "y", "z", "a", "b", "k", "v", "i", "n", "os", "sys", "__import__", "open", "eval", "exec",
               "print", "getattr", "setattr", "type", "globals", "locals", "vars", "dir", "__builtins__", "__class__",
               "self", "range", "abs", "str", "bool", "round", "min", "max", "sum", "any", "all", "id", "hash",
               "Capture", "EXIT_CODE", "exitcode", "exit_code_", "capture_", "_capture", "Math", "MATH", "nan", "inf",
               "NaN", "true", "false", "none", "null", "undefined", "__debug__", "__name__", "math_", "isnan",
               "isinf", "fl0at", "lenn", "Int", "FLOAT", "Len"] + SOFT_KEYWORDS
PUNCT = ["(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "'", '"', "\\", "#", "@", "!", "?", "$", "`", "~", "=",
         ":=", "->", "**", "*", "/", "//", "%", "+", "-", "<", ">", "<=", ">=", "==", "!=", "<>", "|", "&", "^",
         "<<", ">>", "...", "..", "'''", '"""', "+=", "-=", "**=", "//=", "@=", "&&", "||", "!", "===", "=>"]
ODD_NUMBERS = ["0777", "00", "0_0", "09.5", "1e", "1e+", "1e-", "1.e5", "1._5", "1_", "1__0", "0x", "0x_", "0x_1",
               "0X1F", "0o8", "0O17", "0b2", "0B101", "0b_1", "0b1_", "1jj", "1.j", "1e1j", "1__j", ".5", "5.", ".",
               "1.2.3", "1..2", "0xg", "0xfor", "0x1for", "1if", "1or", "0or", "00or", "1and", "0x1and", "0b1and",
               "1in", "1is", "1not", "1else", "1lambda", "1x", "1_x", "1.real", "1 .real", "1..real", "1j.imag",
               "0e0", "0E0", "0_1", "1_000_000_000", "999_999_999", "0x3B9ACA00", "0x3b9ac9ff", "0o7346545000",
               "0o7346544777", "0b111011100110101100100000000000", "0b111011100110101100011111111111", "1e9",
               "1E9", "1000000000.0", "1000000000j", "1_0e1_0", "1e1_0", "1_e1", "1e_1", "0.0_1", "0_.1", "1_.1",
               "123456789012345678901234567890", "1" + "0" * 40, "0" * 30, "0" * 30 + "1", "00000000001",
               "1\u0661", "\u0661", "\uff11", "1\uff10", "\u00b2", "1\u00b2", "0b", "0o", "0b1e1", "0x1.5", "0o1.5",
               "1e1e1", "1E+09", "9.99999999e8", "-0", "+0", "0j", "00j", "0_0j", "01j", "01.5", "00.0", "01e1"]


class Gen:
    """Random expression generators. All randomness comes from self.r (seeded)."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.brk = 0  # bracket depth (newlines are allowed when > 0)
        self.fstack: list[tuple[str, bool]] = []  # enclosing f-string (quote char, triple) stack
        self.style = "normal"
        self.spoof = 0.0  # probability of NFKC-spoofing an allowed name
        self.pending: list[str] = []  # walker: fragments still to be placed
        self.illegal = False
        self.recent: collections.deque[str] = collections.deque(maxlen=400)

    # ---------------------------------------------------------------- helpers
    def p(self, prob: float) -> bool:
        return self.r.random() < prob

    def ch(self, seq):
        return self.r.choice(seq)

    def wch(self, pairs):
        """Weighted choice from [(weight, value), ...]."""
        total = sum(w for w, _ in pairs)
        x = self.r.random() * total
        for w, v in pairs:
            x -= w
            if x < 0:
                return v
        return pairs[-1][1]

    def in_fstring(self) -> bool:
        return bool(self.fstack)

    def newline(self) -> str:
        return self.wch([(6, "\n"), (2, "\r\n"), (1, "\r")])

    def comment(self) -> str:
        body = self.wch([(4, " c"), (2, " note: x == 1"), (1, " é ünïcödé €"), (1, "'\"{}()"), (1, "#"),
                         (1, " \\"), (1, ""), (1, " " + self.ch(INVALID_CHARS[:30]))])
        return "#" + body

    def ws(self) -> str:
        """Optional whitespace between two tokens that do not need separation."""
        st = self.style
        if st == "tight":
            return ""
        if st == "normal":
            return " " if self.p(0.55) else ""
        # messy
        if self.in_fstring():
            triple = all(t for _, t in self.fstack)
            return self.wch([(5, ""), (5, " "), (1, "  "), (1, "\t"), (1, "\x0c"), (1 if triple else 0, "\n")])
        opts = [(6, ""), (6, " "), (1, "  "), (1, "\t"), (1, "\x0c"), (1, " \t ")]
        if self.brk > 0:
            opts += [(2, self.newline()), (1, " " + self.comment() + self.newline()), (1, self.newline() + "    ")]
        else:
            opts += [(1, " \\" + self.newline()), (1, "\\" + self.newline() + "  ")]
        return self.wch(opts)

    def ws1(self) -> str:
        """Whitespace that must separate two tokens (keyword boundaries)."""
        w = self.ws()
        return w if w else " "

    @staticmethod
    def _idch(c: str) -> bool:
        # "\x00" marks a walker hole that is filled later with an arbitrary fragment
        return c.isalnum() or c == "_" or ord(c) >= 128 or c == "\x00"

    def cat(self, *parts: str) -> str:
        """Concatenate token groups with optional whitespace; forces a space at identifier boundaries."""
        out = ""
        for part in parts:
            if not part:
                continue
            if out:
                w = self.ws()
                if not w and self._idch(out[-1]) and self._idch(part[0]):
                    w = " "
                if not w and out[-1] in "0123456789" and part[0] == ".":
                    w = " "
                out += w
            out += part
        return out

    def kwj(self, left: str, kw: str, right: str) -> str:
        """left <kw> right with mandatory separation where needed (sometimes `1if`-style tight)."""
        w1 = self.ws() if left else ""
        if not w1 and left and self._idch(left[-1]):
            # Number immediately followed by a keyword (`1if`) is legal in 3.11 for decimals.
            w1 = "" if (left[-1].isdigit() and self.style == "tight" and self.p(0.2)) else " "
        w2 = self.ws()
        if not w2 and right and (self._idch(right[0]) or right[0] in "'\""):
            w2 = " "
        return left + w1 + kw + w2 + right

    def bracket(self, open_: str, inner_fn, close: str) -> str:
        self.brk += 1
        try:
            w1 = self.ws()
            inner = inner_fn()
            w2 = self.ws() if inner else ""
        finally:
            self.brk -= 1
        return open_ + w1 + inner + w2 + close

    def comma_join(self, items: list[str], trailing: bool = False) -> str:
        out = ""
        for i, it in enumerate(items):
            if i:
                if self.p(0.3):
                    out += self.ws() + "," + self.ws1()
                else:
                    out += "," if self.style == "tight" else ", "
            out += it
        if trailing and items:
            out += ","
        return out

    # ---------------------------------------------------------------- names
    def spoof_name(self, name: str) -> str:
        """Replace some characters by Unicode characters whose NFKC form is that character."""
        out = []
        for lig, rep in LIGATURES.items():
            if lig in name and self.p(0.3):
                name = name.replace(lig, rep, 1)
        for c in name:
            if c in NFKC_ASCII and self.p(0.5):
                pool = NFKC_ASCII[c]
                # Leading position must be an XID_Start character.
                cand = self.ch(pool)
                if not out and not cand.isidentifier():
                    cand = c
                out.append(cand)
            else:
                out.append(c)
        return "".join(out)

    def allowed_name(self, name: str) -> str:
        if self.spoof and self.p(self.spoof):
            return self.spoof_name(name)
        return name

    def any_name(self) -> str:
        c = self.r.random()
        if c < 0.35:
            return self.allowed_name(self.ch(ALLOWED_NAMES))
        if c < 0.85:
            return self.ch(OTHER_NAMES)
        if c < 0.95:
            return self.unicode_ident()
        return self.spoof_name(self.ch(OTHER_NAMES[:20] + ALLOWED_NAMES))

    def unicode_ident(self) -> str:
        n = self.r.randint(1, 4)
        s = self.ch(XID_START) if self.p(0.7) else self.ch(["_", "x", "é", "π", "变量", "Ω", "ℌ", "ｘ"])
        for _ in range(n - 1):
            s += self.ch(XID_START) if self.p(0.6) else self.ch(XID_CONT_ONLY + ["_", "1", "a"])
        return s

    # ---------------------------------------------------------------- numbers
    def int_text(self, value: int) -> str:
        """Render a non-negative int in a random valid base/underscore form."""
        base = self.wch([(8, 10), (2, 16), (1, 8), (1, 2)])
        if base == 10:
            digits = str(value)
        elif base == 16:
            digits = format(value, "x")
            if self.p(0.5):
                digits = digits.upper()
        elif base == 8:
            digits = format(value, "o")
        else:
            digits = format(value, "b")
        if self.p(0.2) and len(digits) > 1:
            # insert single underscores between digits
            out = digits[0]
            for d in digits[1:]:
                if self.p(0.3):
                    out += "_"
                out += d
            digits = out
        if base == 10:
            return digits
        prefix = {16: "x", 8: "o", 2: "b"}[base]
        if self.p(0.3):
            prefix = prefix.upper()
        under = "_" if self.p(0.1) else ""
        return "0" + prefix + under + digits

    def int_value(self) -> int:
        return self.wch([
            (10, self.r.randint(0, 9)),
            (6, self.r.randint(10, 999)),
            (3, self.r.choice([0, 1, 2, 127, 128, 137, 139, 255, 256, 1024, 4096, 65535, 65536])),
            (3, CAP - self.r.randint(1, 3)),
            (2, CAP + self.r.randint(0, 2)),
            (1, self.r.choice([CAP * 10, 2**31, 2**31 - 1, 2**32, 2**53, 2**53 + 1, 2**63, 2**64, 10**18, 10**30])),
            (2, self.r.randint(0, CAP - 1)),
        ])

    def float_text(self) -> str:
        return self.wch([
            (4, f"{self.r.randint(0, 999)}.{self.r.randint(0, 99)}"),
            (2, f"{self.r.randint(0, 9)}."),
            (2, f".{self.r.randint(0, 99)}"),
            (2, f"{self.r.randint(1, 9)}e{self.r.randint(-5, 20)}"),
            (1, f"{self.r.randint(1, 9)}E+{self.r.randint(0, 12)}"),
            (1, f"{self.r.randint(1, 9)}.{self.r.randint(0, 9)}e-{self.r.randint(0, 9)}"),
            (1, "1_000.000_1"),
            (1, "1e1_0"),
            (1, "1e309"),
            (1, "1_000_000_000.0"),
            (1, "999999999.9"),
            (1, "1.5e12"),
            (1, "0.0"),
            (1, "1e-400"),
        ])

    def number(self) -> str:
        c = self.r.random()
        if c < 0.6:
            return self.int_text(self.int_value())
        if c < 0.9:
            return self.float_text()
        base = str(self.r.randint(0, 10**self.r.randint(1, 10))) if self.p(0.6) else self.float_text()
        return base + self.ch(["j", "J"])

    # ---------------------------------------------------------------- strings
    def quote_for_context(self, allow_triple: bool = True) -> tuple[str, bool]:
        """A quote (char, triple) usable inside the current f-string context."""
        banned = set()
        for q, triple in self.fstack:
            banned.add(q)
        choices = [q for q in ("'", '"') if q not in banned]
        if not choices:
            return "", False
        q = self.ch(choices)
        triple = allow_triple and not self.fstack and self.p(0.12)
        return q, triple

    def str_body(self, quote: str, triple: bool, raw: bool, is_bytes: bool, allow_escapes: bool, maxlen: int = 8) -> str:
        banned = {q for q, _ in self.fstack}  # enclosing f-string quote characters can never appear
        out = []
        n = self.r.randint(0, maxlen)
        for _ in range(n):
            c = self.r.random()
            if c < 0.55:
                out.append(self.ch("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_ -.:/%"))
            elif c < 0.62:
                q = self.ch(["'", '"'])
                if q in banned:
                    continue
                if q == quote:
                    if not allow_escapes:
                        continue
                    q = "\\" + q  # also fine in raw literals: \' does not terminate them
                out.append(q)
            elif c < 0.75 and allow_escapes:
                out.append(self.escape(is_bytes, raw))
            elif c < 0.85 and not is_bytes:
                out.append(self.ch(["é", "ß", "π", "€", "😀", "变", "\u00a0", "\u200b", "\x01", "\x7f", "\x85",
                                    "\u2028", "\ufeff", "\U0001d400", "\u0301", "\t"]))
            elif c < 0.9:
                out.append(self.ch(["{", "}", "{{", "}}", "#", "%s", "%d"]))
            elif triple and c < 0.95:
                out.append(self.newline())
            else:
                out.append(" ")
        return fix_trailing_backslash("".join(out))

    def escape(self, is_bytes: bool, raw: bool) -> str:
        common = [(3, "\\n"), (2, "\\t"), (1, "\\r"), (2, "\\\\"), (2, "\\'"), (2, '\\"'), (1, "\\a"), (1, "\\b"),
                  (1, "\\f"), (1, "\\v"), (1, "\\0"), (2, f"\\x{self.r.randint(0, 255):02x}"),
                  (1, f"\\x{self.r.randint(0, 255):02X}"), (2, f"\\{self.r.randint(0, 0o777):o}"),
                  (1, "\\" + self.newline()), (1, "\\q"), (1, "\\8"), (1, "\\9"), (1, "\\ "), (1, "\\{"),
                  (1, "\\%")]
        if not is_bytes:
            common += [(2, f"\\u{self.r.randint(0, 0xFFFF):04x}"), (1, f"\\U{self.r.randint(0, 0x10FFFF):08x}"),
                       (1, "\\U0001F600"), (1, "\\ud800"), (1, "\\U0000DFFF"),
                       (3, "\\N{" + self.ch(VALID_N_NAMES) + "}")]
        else:
            common += [(1, "\\u1234"), (1, "\\U0001F600"), (1, "\\N{EN DASH}")]
        return self.wch(common)

    def bad_escape(self, is_bytes: bool) -> str:
        return self.ch(["\\x", "\\x4", "\\xZZ", "\\xg0", "\\u12", "\\u", "\\U0011FFFF", "\\U00110000", "\\Ud800",
                        "\\U1234567", "\\N", "\\N{", "\\N{}", "\\N{EN DASH", "\\N{" + self.ch(INVALID_N_NAMES) + "}",
                        "\\N{" + self.ch(VALID_N_NAMES) + "}" if is_bytes else "\\x1"])

    def string_lit(self, kind: str | None = None) -> str:
        """A (possibly implicitly concatenated) string literal valid in the current context."""
        in_f = self.in_fstring()
        if kind is None:
            kind = self.wch([(10, "str"), (2, "bytes"), (1 if in_f else 3, "f")])
        q, triple = self.quote_for_context()
        if not q:
            return self.number()
        if kind == "bytes":
            prefix = self.ch(ALL_PREFIXES_BYTES)
        elif kind == "f":
            prefix = self.ch(ALL_PREFIXES_F)
        else:
            prefix = self.ch(ALL_PREFIXES_STR)
        raw = "r" in prefix.lower()
        allow_esc = not in_f
        if kind == "f":
            body = self.fstring_body(q, triple, raw)
        else:
            body = self.str_body(q, triple, raw, kind == "bytes", allow_esc)
            if kind == "bytes":
                body = "".join(c if ord(c) < 128 else "x" for c in body)
            if raw:
                body = fix_trailing_backslash(body)
        lit = prefix + (q * 3 if triple else q) + body + (q * 3 if triple else q)
        if self.p(0.12) and not in_f:
            # implicit concatenation with a compatible literal
            other = self.string_lit("bytes" if kind == "bytes" else self.ch(["str", "str", "f"]))
            sep = self.ws() if self.p(0.7) else ""
            lit = lit + sep + other
        return lit

    def fstring_body(self, q: str, triple: bool, raw: bool) -> str:
        self.fstack.append((q, triple))
        try:
            parts = []
            for _ in range(self.r.randint(0, 3)):
                c = self.r.random()
                if c < 0.45:
                    parts.append(self.replacement_field(depth=0))
                elif c < 0.75:
                    body = self.str_body(q, triple, raw, False, not raw and len(self.fstack) == 1, maxlen=5)
                    body = body.replace("{", "{{").replace("}", "}}")
                    parts.append(body)
                else:
                    esc_ok = not raw and len(self.fstack) == 1
                    parts.append(self.ch(["{{", "}}", "{{}}", " ", "x", "\\N{EN DASH}" if esc_ok else "n"]))
            body = fix_trailing_backslash("".join(parts))
            if body.endswith(q) and triple:
                body += " "
            return body
        finally:
            self.fstack.pop()

    def replacement_field(self, depth: int) -> str:
        saved = self.style
        if self.style == "messy" and self.p(0.5):
            self.style = "normal"
        try:
            expr = self.fexpr()
        finally:
            self.style = saved
        eq = ""
        if depth == 0 and self.p(0.12):
            eq = self.ch(["=", " =", "= ", " = "])
        conv = ""
        if self.p(0.2):
            conv = "!" + self.ch(["r", "s", "a"])
        spec = ""
        if self.p(0.25):
            pieces = []
            for _ in range(self.r.randint(0, 3)):
                if depth == 0 and self.p(0.3):
                    pieces.append(self.replacement_field(depth + 1))
                else:
                    pieces.append(self.ch([">10", "<5", "^", ".2f", "x", "#x", "08.3", "_", ",", "=", " ", "!r",
                                           ":", "{{", "}}", "%", "e", "n", "s", "\\n" if len(self.fstack) == 1 else ""]))
            spec = ":" + "".join(pieces)
        return "{" + expr + eq + conv + spec + "}"

    def fexpr(self) -> str:
        """An expression suitable for an f-string replacement field."""
        c = self.r.random()
        if c < 0.3:
            e = self.any_name()
        elif c < 0.6:
            e = self.g_expression(2)
        elif c < 0.85:
            e = self.a_expr(2)
        else:
            e = self.ch(["capture['k']", "exit_code", "x", "1", "(x)", "x, y", "x,", "*x,", "(lambda: 1)",
                         "(y := 2)", "yield", "x if y else z", "a[0]", "a.b", "{'a': 1}", "[1, 2]"])
            q, _ = self.quote_for_context(allow_triple=False)
            e = e.replace("'", q) if q else e.replace("'", "")
        if e.lstrip().startswith("{"):
            e = " " + e  # "{{" would be an escaped brace
        if e.rstrip().endswith("=") or e.rstrip().endswith("!"):
            e += " "
        return e

    # ---------------------------------------------------------------- allowed subset
    def a_expr(self, d: int) -> str:
        if d > 0 and self.p(0.07):
            return self.kwj(self.kwj(self.a_disj(d - 1), "if", self.a_disj(d - 1)), "else", self.a_expr(d - 1))
        return self.a_disj(d)

    def a_disj(self, d: int) -> str:
        if d > 0 and self.p(0.18):
            parts = [self.a_conj(d - 1) for _ in range(self.r.randint(2, 3))]
            out = parts[0]
            for p_ in parts[1:]:
                out = self.kwj(out, "or", p_)
            return out
        return self.a_conj(d)

    def a_conj(self, d: int) -> str:
        if d > 0 and self.p(0.25):
            parts = [self.a_inv(d - 1) for _ in range(self.r.randint(2, 3))]
            out = parts[0]
            for p_ in parts[1:]:
                out = self.kwj(out, "and", p_)
            return out
        return self.a_inv(d)

    def a_inv(self, d: int) -> str:
        if self.p(0.08):
            return self.kwj("", "not", self.a_inv(d))
        return self.a_cmp(d)

    A_CMP = ["==", "!=", "<", "<=", ">", ">="]
    BAD_CMP = ["in", "not in", "is", "is not"]

    def a_cmp(self, d: int) -> str:
        if self.p(0.55):
            out = self.a_sum(d)
            for _ in range(self.wch([(8, 1), (2, 2), (1, 3)])):
                op = self.ch(self.A_CMP)
                if self.pending and self.p(0.25):
                    op = self.take_op(self.BAD_CMP, op)
                if op[0].isalpha():
                    out = self.kwj(out, op, self.a_sum(d))
                else:
                    out = self.cat(out, op, self.a_sum(d))
            return out
        return self.a_sum(d)

    def take_op(self, pool, default):
        """If a pending walker fragment asks for an operator, use one from pool."""
        for i, frag in enumerate(self.pending):
            if frag == "OP":
                del self.pending[i]
                return self.ch(pool)
        return default

    def a_sum(self, d: int) -> str:
        if d > 0 and self.p(0.2):
            out = self.a_term(d - 1)
            for _ in range(self.r.randint(1, 2)):
                op = self.ch(["+", "-"])
                if self.pending and self.p(0.3):
                    op = self.take_op(["|", "^", "&", "<<", ">>"], op)
                out = self.cat(out, op, self.a_term(d - 1))
            return out
        return self.a_term(d)

    def a_term(self, d: int) -> str:
        if d > 0 and self.p(0.12):
            out = self.a_factor(d - 1)
            for _ in range(self.r.randint(1, 2)):
                op = self.ch(["/", "//"])
                if self.pending and self.p(0.4):
                    op = self.take_op(["*", "%", "@", "**"], op)
                out = self.cat(out, op, self.a_factor(d - 1))
            return out
        return self.a_factor(d)

    def a_factor(self, d: int) -> str:
        if self.p(0.1):
            op = self.ch(["-", "-", "+"])
            if self.pending and self.p(0.3):
                op = self.take_op(["~"], op)
            return self.cat(op, self.a_factor(d))
        return self.a_primary(d)

    def a_primary(self, d: int) -> str:
        if self.pending and self.p(0.25):
            return "\x00HOLE\x00"
        c = self.r.random()
        if c < 0.24:
            return self.allowed_name(self.ch(VARS))
        if c < 0.44:
            return self.a_capture(d)
        if c < 0.64:
            return self.a_call(d)
        if c < 0.88:
            return self.a_const()
        if c < 0.92:
            return self.cat(self.allowed_name("math"), ".", self.allowed_name(self.ch(["isnan", "isinf"])))
        if d > 0:
            return self.bracket("(", lambda: self.a_expr(d - 1), ")")
        return self.a_const()

    def a_key(self, d: int) -> str:
        c = self.r.random()
        if c < 0.72:
            return self.string_lit("str") if self.p(0.85) else self.string_lit("bytes")
        if c < 0.8:
            return self.int_text(self.r.randint(0, 20))
        if c < 0.88 and d > 0:
            return self.a_expr(d - 1)
        return self.ch(["exit_code", "None", "True", "...", "-1", "1.5", "''", "'\\N{EN DASH}'", "1j"])

    def a_capture(self, d: int) -> str:
        name = self.allowed_name("capture")
        if self.p(0.05):
            name = "(" + name + ")"
        return self.cat(name, self.bracket("[", lambda: self.a_key(d), "]"))

    def a_call(self, d: int) -> str:
        fn = self.wch([(4, "float"), (4, "int"), (3, "len"), (3, "math.isnan"), (2, "math.isinf")])
        if "." in fn:
            m, a = fn.split(".")
            ftxt = self.cat(self.allowed_name(m), ".", self.allowed_name(a))
            if self.p(0.04):
                ftxt = "(" + ftxt + ")"
        else:
            ftxt = self.allowed_name(fn)
            if self.p(0.03):
                ftxt = "(" + ftxt + ")"

        def args() -> str:
            n = self.wch([(10, 1), (2, 0), (2, 2), (1, 3)])
            items = []
            for _ in range(n):
                if fn == "len" and self.p(0.5):
                    items.append(self.allowed_name("capture") if self.p(0.4) else self.a_capture(max(d - 1, 0)))
                elif fn.startswith("math") and self.p(0.6):
                    items.append(self.cat("float", self.bracket("(", lambda: self.a_capture(max(d - 1, 0)), ")")))
                elif self.p(0.5):
                    items.append(self.a_capture(max(d - 1, 0)))
                else:
                    items.append(self.a_expr(max(d - 1, 0)))
            return self.comma_join(items, trailing=bool(items) and self.p(0.08))

        return self.cat(ftxt, self.bracket("(", args, ")"))

    def a_const(self) -> str:
        c = self.r.random()
        if c < 0.45:
            v = self.int_value() if self.p(0.7) else self.r.randint(0, 200)
            if v >= CAP and not self.pending and self.p(0.85):
                v = CAP - 1 - self.r.randint(0, 5)
            return self.int_text(v)
        if c < 0.65:
            return self.float_text()
        if c < 0.75:
            return self.ch(["True", "False", "None", "..."]) if self.p(0.9) else self.allowed_name("True")
        if c < 0.95:
            return self.string_lit(self.ch(["str", "str", "str", "bytes"]))
        return self.number()

    # ---------------------------------------------------------------- walker fragments
    FRAG_KINDS = ["forbidden-node", "forbidden-attribute", "forbidden-name", "forbidden-subscript",
                  "forbidden-call", "int-constant"]

    def small(self) -> str:
        saved = self.pending
        self.pending = []
        try:
            return self.a_primary(0) if self.p(0.7) else self.a_expr(1)
        finally:
            self.pending = saved

    def fragment(self, kind: str) -> str:
        s = self.small
        if kind == "forbidden-node":
            return self.wch([
                (3, "OP"),
                (1, f"({s()} * {s()})"), (1, f"({s()} % {s()})"), (1, f"({s()} ** {s()})"),
                (1, f"({s()} @ {s()})"), (1, f"({s()} | {s()})"), (1, f"({s()} & {s()})"),
                (1, f"({s()}^{s()})"), (1, f"({s()} << {s()})"), (1, f"({s()}>>{s()})"), (1, f"~{s()}"),
                (1, f"({s()} in {s()})"), (1, f"({s()} not in {s()})"), (1, f"({s()} is {s()})"),
                (1, f"({s()} is not {s()})"), (1, f"({s()}, {s()})"), (1, "()"), (1, f"({s()},)"),
                (1, f"[{s()}]"), (1, "[]"), (1, f"{{{s()}}}"), (1, "{}"), (1, f"{{{s()}: {s()}}}"),
                (1, f"[x for x in {s()}]"), (1, f"{{x for x in {s()}}}"), (1, f"{{k: v for k, v in {s()}}}"),
                (1, f"(x for x in {s()})"), (1, f"(lambda: {s()})"), (1, f"(lambda x: x)({s()})"),
                (2, self.string_lit("f")), (1, f"(n := {s()})"), (1, f"float(*{s()})"), (1, f"int(x={s()})"),
                (1, f"len(**{s()})"), (1, f"capture[{s()}:{s()}]"), (1, "capture[::]"), (1, "capture[:]"),
                (1, f"capture[{s()}, {s()}]"), (1, "capture['a',]"), (1, f"capture[*{s()}]"), (1, "(yield)"),
                (1, f"(yield {s()})"), (1, f"(yield from {s()})"), (1, f"(await {s()})"),
                (1, f"float(x for x in {s()})"), (1, f"'a' f'{{{s()}}}'"), (1, f"math.isnan(*{s()})"),
                (1, f"int({s()}, base=16)"), (1, f"[*{s()}]"), (1, f"{{**{s()}}}"),
                (1, f"({s()} if {s()} else [{s()}])"), (1, "not capture is None"),
                (1, f"capture[{s()}][::2]"),
            ])
        if kind == "forbidden-attribute":
            return self.wch([
                (3, self.ch(["math.pi", "math.e", "math.nan", "math.inf", "math.tau", "math.isfinite", "math.sqrt",
                             "math.floor", "math.__loader__", "math.__dict__", "math.ISNAN", "math.isnan_",
                             "math.Isinf", "math.isnan.__call__", "math.isnan.__self__", "ｍａｔｈ.ｐｉ"])),
                (2, self.cat(self.ch(["capture", "exit_code", "walltime_sec", "float", "int", "len"]), ".",
                             self.ch(["keys", "get", "real", "imag", "__class__", "update", "pop", "fromhex",
                                      "bit_length", "__doc__", "isnan", "x"]))),
                (1, f"({s()}).real"), (1, "1 .real"), (1, "(1).imag"), (1, "1.5.real"), (1, "'a'.upper"),
                (1, "b'a'.hex"), (1, "None.__class__"), (1, "(...).__class__"), (1, f"capture[{s()}].strip"),
                (1, "(math).pi"), (1, "(math.isnan).x"), (1, "math.isnan.isnan"), (1, "math.math"),
                (1, "float(1).is_integer"), (1, "math .pi"), (1, "math.\\\npi"),
            ])
        if kind == "forbidden-name":
            return self.wch([
                (4, self.ch(OTHER_NAMES)),
                (1, self.unicode_ident()),
                (1, self.spoof_name(self.ch(["True", "False", "None", "os", "x", "nan"]))),
                (1, self.ch(["Ｔｒｕｅ", "Ｎｏｎｅ", "ℌ", "ｘ", "ﬁ", "µ", "ª", "ⅰ", "𝔘", "Ⅸ", "ｅｘｉｔ", "exit_codé",
                             "ｃａｐｔｕｒｅs", "capture\u0301", "capture_\uff3f"])),
            ])
        if kind == "forbidden-subscript":
            return self.wch([
                (1, f"len(capture)[{s()}]"), (2, f"capture[{s()}][{s()}]"), (1, f"'abc'[{s()}]"),
                (1, "math[0]"), (1, f"exit_code[{s()}]"), (1, f"float({s()})[0]"), (1, f"int({s()})[{s()}]"),
                (1, "[1][0]"), (1, "(1, 2)[0]"), (1, f"walltime_sec[{s()}]"), (1, "capture['a'] [0]"),
                (1, "(capture['a'])['b']"), (1, f"b'x'[{s()}]"), (1, f"math.isnan[{s()}]"), (1, "x[0]"),
                (1, "None[0]"), (1, "...[0]"), (1, "capture[0][:]"),
            ])
        if kind == "forbidden-call":
            return self.wch([
                (2, f"{self.ch(['abs', 'round', 'min', 'max', 'str', 'bool', 'type', 'print', 'open', 'eval', 'exec', 'getattr', 'hash', 'id', 'repr', 'chr', 'ord'])}({s()})"),
                (2, f"capture.{self.ch(['get', 'keys', 'items', 'pop', 'update', 'values', 'setdefault'])}({s()})"),
                (1, f"math.{self.ch(['sqrt', 'floor', 'ceil', 'isfinite', 'log', 'pow', 'exp', 'fabs', 'ISNAN'])}({s()})"),
                (1, f"math.isnan({s()})({s()})"), (1, f"float({s()})({s()})"), (1, f"capture[{s()}]({s()})"),
                (1, "(lambda: 1)()"), (1, "exit_code()"), (1, "(1)(2)"), (1, "'x'()"), (1, f"f'{{{s()}}}'()"),
                (1, f"(float if {s()} else int)({s()})"), (1, f"math.isnan.__call__({s()})"), (1, f"len({s()})()"),
                (1, "__import__('os')"), (1, f"capture.get({s()}, {s()})"), (1, "float.fromhex('0x1p3')"),
                (1, f"int.from_bytes({s()})"), (1, "(math.isnan, 1)[0](1)"), (1, "capture()"), (1, "math()"),
                (1, f"{self.spoof_name('abs')}({s()})"), (1, f"(len)(len)({s()})"), (1, f"(math.isnan)(x)"),
            ])
        # int-constant
        v = self.wch([(4, CAP), (2, CAP + self.r.randint(1, 1000)), (2, self.r.randint(CAP, 10**12)),
                      (1, self.ch([2**31, 2**32, 2**63, 2**64, 10**18, 10**30, 10**60, 16**20]))])
        t = self.int_text(v)
        return self.wch([(4, t), (2, "-" + t), (1, "- " + t), (1, f"capture[{t}]"), (1, f"int({t})"),
                         (1, f"({t})"), (1, f"--{t}"), (1, f"+{t}"), (1, f"not {t}"), (1, f"{t} if 1 else 0")])

    def walker_expr(self) -> tuple[str, str]:
        kind = self.ch(self.FRAG_KINDS)
        frags = [self.fragment(kind)]
        while self.p(0.25) and len(frags) < 3:
            frags.append(self.fragment(self.ch(self.FRAG_KINDS)))
        self.pending = list(frags)
        self.style = self.ch(["normal", "normal", "tight", "messy"])
        self.spoof = 0.03
        text = self.a_expr(self.r.randint(1, 4))
        # Fill holes with fragments (non-OP); unused fragments are glued on with a random operator.
        frag_iter = [f for f in self.pending if f != "OP"]
        self.pending = []
        out = []
        pieces = text.split("\x00HOLE\x00")
        for i, piece in enumerate(pieces):
            out.append(piece)
            if i < len(pieces) - 1:
                out.append(frag_iter.pop(0) if frag_iter else self.a_primary(0))
        text = "".join(out)
        for f in frag_iter:
            text = self.ch([f"{text} and {f}", f"{f} or {text}", f"({text}) == {f}", f"({f}) < ({text})",
                            f"{text} if {f} else 0", f"not {f} or {text}", f"({text}) + ({f})"])
        return text, "walker:" + kind

    # ---------------------------------------------------------------- full grammar
    def leaf(self) -> str:
        c = self.r.random()
        if c < 0.4:
            return self.any_name()
        if c < 0.65:
            return self.number()
        if c < 0.85:
            return self.string_lit()
        return self.ch(["True", "False", "None", "..."])

    def g_expressions(self, d: int) -> str:
        if self.p(0.1):
            items = [self.g_expression(d - 1) for _ in range(self.r.randint(1, 3))]
            return self.comma_join(items, trailing=len(items) == 1 or self.p(0.3))
        return self.g_expression(d)

    def g_expression(self, d: int) -> str:
        if d <= 0:
            return self.g_primary(0)
        c = self.r.random()
        if c < 0.06:
            return self.kwj(self.kwj(self.g_disj(d - 1), "if", self.g_disj(d - 1)), "else", self.g_expression(d - 1))
        if c < 0.1:
            return self.g_lambda(d)
        return self.g_disj(d)

    def g_named(self, d: int) -> str:
        if self.p(0.06):
            return self.cat(self.any_name(), ":=", self.g_expression(d - 1))
        return self.g_expression(d)

    def g_star_named(self, d: int) -> str:
        if self.p(0.08):
            return "*" + self.ws() + self.g_bitor(d - 1)
        return self.g_named(d)

    def g_disj(self, d: int) -> str:
        if d > 0 and self.p(0.1):
            out = self.g_conj(d - 1)
            for _ in range(self.r.randint(1, 2)):
                out = self.kwj(out, "or", self.g_conj(d - 1))
            return out
        return self.g_conj(d)

    def g_conj(self, d: int) -> str:
        if d > 0 and self.p(0.1):
            out = self.g_inv(d - 1)
            for _ in range(self.r.randint(1, 2)):
                out = self.kwj(out, "and", self.g_inv(d - 1))
            return out
        return self.g_inv(d)

    def g_inv(self, d: int) -> str:
        if self.p(0.06):
            return "not" + self.ws1() + self.g_inv(d - 1 if d > 0 else 0)
        return self.g_cmp(d)

    G_CMP = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"]

    def g_cmp(self, d: int) -> str:
        if d > 0 and self.p(0.15):
            out = self.g_bitor(d - 1)
            for _ in range(self.wch([(6, 1), (2, 2), (1, 4)])):
                op = self.ch(self.G_CMP)
                if " " in op:
                    op = op.replace(" ", self.ws1())
                if op[0].isalpha():
                    out = self.kwj(out, op, self.g_bitor(d - 1))
                else:
                    out = self.cat(out, op, self.g_bitor(d - 1))
            return out
        return self.g_bitor(d)

    BIN_LEVELS = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "//", "%", "@"]]

    def g_bitor(self, d: int, level: int = 0) -> str:
        if level >= len(self.BIN_LEVELS):
            return self.g_factor(d)
        if d > 0 and self.p(0.07):
            out = self.g_bitor(d - 1, level + 1)
            for _ in range(self.r.randint(1, 2)):
                out = self.cat(out, self.ch(self.BIN_LEVELS[level]), self.g_bitor(d - 1, level + 1))
            return out
        return self.g_bitor(d, level + 1)

    def g_factor(self, d: int) -> str:
        if self.p(0.08):
            return self.ch(["-", "+", "~"]) + self.ws() + self.g_factor(d - 1 if d > 0 else 0)
        return self.g_power(d)

    def g_power(self, d: int) -> str:
        if d > 0 and self.p(0.05):
            return self.cat(self.g_await(d - 1), "**", self.g_factor(d - 1))
        return self.g_await(d)

    def g_await(self, d: int) -> str:
        if self.p(0.03):
            return "await" + self.ws1() + self.g_primary(d - 1 if d > 0 else 0)
        return self.g_primary(d)

    def g_primary(self, d: int) -> str:
        out = self.g_atom(d)
        n = self.wch([(10, 0), (3, 1), (2, 2), (1, 3)]) if d > 0 else self.wch([(10, 0), (1, 1)])
        for _ in range(n):
            c = self.r.random()
            if c < 0.3:
                out = self.cat(out, ".", self.ch(["real", "imag", "x", "__class__", "isnan", "isinf", "get",
                                                   "keys", "pi", self.any_name()]))
            elif c < 0.6:
                out = self.cat(out, self.bracket("(", lambda: self.g_arguments(max(d - 1, 0)), ")"))
            elif c < 0.9:
                out = self.cat(out, self.bracket("[", lambda: self.g_slices(max(d - 1, 0)), "]"))
            else:
                out = self.cat(out, self.bracket("(", lambda: self.g_genexp_body(max(d - 1, 0)), ")"))
        return out

    def g_slices(self, d: int) -> str:
        def one() -> str:
            c = self.r.random()
            if c < 0.35:
                lo = self.g_expression(d) if self.p(0.6) else ""
                hi = self.g_expression(d) if self.p(0.6) else ""
                s = lo + self.ws() + ":" + self.ws() + hi
                if self.p(0.3):
                    s += ":" + (self.g_expression(d) if self.p(0.6) else "")
                return s
            if c < 0.45:
                return "*" + self.g_expression(d)
            return self.g_named(d)
        n = self.wch([(8, 1), (2, 2), (1, 3)])
        items = [one() for _ in range(n)]
        return self.comma_join(items, trailing=self.p(0.1))

    def g_arguments(self, d: int) -> str:
        legal = self.p(0.8)
        self.illegal = self.illegal or not legal
        n = self.wch([(3, 0), (6, 1), (4, 2), (2, 3), (1, 5)])
        items = []
        for _ in range(n):
            k = self.wch([(6, "pos"), (1, "star"), (2, "kw"), (1, "dstar"), (1, "walrus")])
            if k == "pos":
                items.append(("p", self.g_expression(d)))
            elif k == "star":
                items.append(("s", "*" + self.ws() + self.g_expression(d)))
            elif k == "kw":
                name = self.any_name() if self.p(0.95) else self.ch(["True", "None", "1", "x.y", "(x)"])
                items.append(("k", self.cat(name, "=", self.g_expression(d))))
            elif k == "dstar":
                items.append(("d", "**" + self.ws() + self.g_expression(d)))
            else:
                items.append(("p", self.cat(self.any_name(), ":=", self.g_expression(d))))
        if legal:
            first = [t for t in items if t[0] in "ps"]
            mid = [t for t in items if t[0] == "k"]
            last = [t for t in items if t[0] == "d"]
            items = first + mid + last
        else:
            self.r.shuffle(items)
        texts = [t for _, t in items]
        if n == 1 and self.p(0.1):
            return self.g_genexp_body(d) + ("," if self.p(0.3) else "")
        return self.comma_join(texts, trailing=bool(texts) and self.p(0.1))

    def g_lambda_params(self, d: int) -> str:
        legal = self.p(0.8)
        self.illegal = self.illegal or not legal
        parts = []
        names = [self.ch(["a", "b", "c", "x", "y", "self", "_", "π", "capture", "exit_code"]) for _ in range(6)]
        i = 0

        def default() -> str:
            return "=" + self.ws() + self.g_expression(max(d - 1, 0))

        seen_default = False
        if self.p(0.2):  # positional-only
            for _ in range(self.r.randint(1, 2)):
                seen_default = seen_default or self.p(0.3)
                parts.append(names[i] + (default() if seen_default else ""))
                i += 1
            parts.append("/")
        for _ in range(self.wch([(2, 0), (3, 1), (2, 2)])):
            seen_default = seen_default or self.p(0.3)
            parts.append(names[i % 6] + (default() if seen_default else ""))
            i += 1
        if self.p(0.25):
            parts.append("*" + (names[i % 6] if self.p(0.5) else ""))
            i += 1
            for _ in range(self.r.randint(1, 2)):
                parts.append(names[i % 6] + (default() if self.p(0.4) else ""))
                i += 1
        if self.p(0.15):
            parts.append("**" + names[i % 6])
        if not legal and parts:
            self.r.shuffle(parts)
            if self.p(0.3):
                parts.append(self.ch(["/", "*", "**k", "*a=1", "(a)", "a b", "1", "**", "*, /", "a=1, b"]))
        return self.comma_join(parts, trailing=bool(parts) and self.p(0.1))

    def g_lambda(self, d: int) -> str:
        params = self.g_lambda_params(d)
        head = "lambda" + (self.ws1() + params if params else self.ws())
        return head + self.ws() + ":" + self.ws() + self.g_expression(d - 1)

    def g_target(self, d: int) -> str:
        c = self.r.random()
        if c < 0.5:
            return self.any_name()
        if c < 0.65:
            return self.comma_join([self.any_name() for _ in range(self.r.randint(2, 3))])
        if c < 0.75:
            return "(" + self.comma_join([self.any_name(), "*" + self.any_name()]) + ")"
        if c < 0.82:
            return "[" + self.comma_join([self.any_name(), self.any_name()]) + "]"
        if c < 0.9:
            return self.g_primary(0) + self.ch([".a", "[0]"])
        return self.ch(["1", "f()", "a + b", "*a", "(a := b)", "None", "True", "'s'", "[]", "()", "a.b.c", "*a, *b"])

    def g_for_if(self, d: int) -> str:
        out = ""
        for _ in range(self.wch([(6, 1), (2, 2), (1, 3)])):
            clause = ("async" + self.ws1() if self.p(0.1) else "") + "for" + self.ws1() + self.g_target(d)
            clause = self.kwj(clause, "in", self.g_disj(d))
            for _ in range(self.wch([(6, 0), (3, 1), (1, 2)])):
                clause = self.kwj(clause, "if", self.g_disj(d))
            out = self.kwj(out, "", clause).strip() if out else clause
        return out

    def g_genexp_body(self, d: int) -> str:
        elt = self.g_named(d)
        return self.kwj(elt, "", self.g_for_if(d))

    def g_atom(self, d: int) -> str:
        if d <= 0:
            return self.leaf()
        c = self.r.random()
        if c < 0.45:
            return self.leaf()
        if c < 0.52:
            return self.bracket("(", lambda: self.g_named(d - 1), ")")
        if c < 0.57:
            def tup() -> str:
                n = self.wch([(1, 0), (3, 1), (3, 2), (1, 3)])
                items = [self.g_star_named(d - 1) for _ in range(n)]
                return self.comma_join(items, trailing=n == 1 or (n > 0 and self.p(0.3)))
            return self.bracket("(", tup, ")")
        if c < 0.63:
            return self.bracket("[", lambda: self.comma_join(
                [self.g_star_named(d - 1) for _ in range(self.r.randint(0, 3))], trailing=self.p(0.1)), "]")
        if c < 0.67:
            return self.bracket("{", lambda: self.comma_join(
                [self.g_star_named(d - 1) for _ in range(self.r.randint(1, 3))], trailing=self.p(0.1)), "}")
        if c < 0.72:
            def kv() -> str:
                items = []
                for _ in range(self.r.randint(0, 3)):
                    if self.p(0.15):
                        items.append("**" + self.ws() + self.g_bitor(d - 1))
                    elif self.p(0.03):
                        items.append(self.cat(self.g_expression(d - 1), ":", "*" + self.g_bitor(d - 1)))
                    else:
                        items.append(self.cat(self.g_expression(d - 1), ":", self.g_expression(d - 1)))
                return self.comma_join(items, trailing=self.p(0.1))
            return self.bracket("{", kv, "}")
        if c < 0.8:
            kind = self.ch(["list", "set", "dict", "gen"])
            if kind == "list":
                return self.bracket("[", lambda: self.g_genexp_body(d - 1), "]")
            if kind == "set":
                return self.bracket("{", lambda: self.g_genexp_body(d - 1), "}")
            if kind == "gen":
                return self.bracket("(", lambda: self.g_genexp_body(d - 1), ")")
            return self.bracket("{", lambda: self.kwj(
                self.cat(self.g_expression(d - 1), ":", self.g_expression(d - 1)), "", self.g_for_if(d - 1)), "}")
        if c < 0.85:
            def y() -> str:
                k = self.r.random()
                if k < 0.3:
                    return "yield"
                if k < 0.7:
                    return "yield" + self.ws1() + self.g_expressions(d - 1)
                if k < 0.8:
                    return "yield" + self.ws1() + "*" + self.g_bitor(d - 1) + ", " + self.g_expression(d - 1)
                return "yield" + self.ws1() + "from" + self.ws1() + self.g_expression(d - 1)
            return self.bracket("(", y, ")")
        if c < 0.9:
            return self.bracket("(", lambda: self.cat(self.any_name(), ":=", self.g_expression(d - 1)), ")")
        if c < 0.97:
            return self.string_lit(self.ch(["f", "str", "f"]))
        return self.number()

    # ---------------------------------------------------------------- branches
    def b_allowed(self) -> tuple[str, str]:
        self.style = self.wch([(5, "normal"), (2, "tight"), (2, "messy")])
        self.spoof = 0.05 if self.p(0.2) else 0.0
        text = self.a_expr(self.r.randint(0, 4))
        if self.p(0.08):
            text += self.ch(["  ", " ", ""]) + self.comment()
        if self.p(0.08):
            text = self.edge_ws(True) + text + self.edge_ws(True)
        return text, "allowed"

    def edge_ws(self, py_only_ok: bool) -> str:
        n = self.r.randint(1, 3)
        pool = BOTH_WS + (PY_ONLY_WS * 3 if py_only_ok else [])
        return "".join(self.ch(pool) for _ in range(n))

    def b_grammar(self) -> tuple[str, str]:
        self.style = self.wch([(5, "normal"), (2, "tight"), (2, "messy")])
        self.spoof = 0.02
        self.illegal = False
        text = self.g_expressions(self.r.randint(1, 4))
        return text, "grammar:illegal" if self.illegal else "grammar"

    def b_lexical(self) -> tuple[str, str]:
        self.style = "normal"
        sub = self.ch(["number", "number", "string", "string", "fstring", "escape", "prefix", "concat"])
        if sub == "number":
            lit = self.number() if self.p(0.5) else self.ch(ODD_NUMBERS)
            if self.p(0.3):
                lit = "-" + lit
            ctx = self.ch(["{}", "exit_code == {}", "{} < walltime_sec", "capture[{}]", "float({})",
                           "{} if exit_code else 0", "({})", "{}.real", "{} .real", "{}if 1 else 2",
                           "{}or 1", "{}and 1", "{}in capture", "{}not in capture", "{}is None", "[{}for x in y]",
                           "exit_code=={}", "{}==exit_code", "{}+1", "{}-1", "{}//2", "{}.5", "{}e5", "{}_0", "{}j"])
            return ctx.replace("{}", lit), "lexical:number"
        if sub in ("string", "escape", "prefix", "concat"):
            kind = self.ch(["str", "str", "bytes"])
            if sub == "prefix":
                q = self.ch(["'", '"', "'''", '"""'])
                prefix = self.ch(ALL_PREFIXES_STR + ALL_PREFIXES_BYTES + ALL_PREFIXES_F + INVALID_PREFIXES * 2)
                lit = prefix + q + self.ch(["", "x", "a b", "{x}", "\\n", "\\N{EN DASH}", "{{}}", "é"]) + q
            elif sub == "escape":
                q = self.ch(["'", '"'])
                prefix = self.ch(["", "", "b", "u", "r", "rb", "f", "B", "U", "R"])
                is_b = "b" in prefix.lower()
                esc = self.bad_escape(is_b) if self.p(0.5) else self.escape(is_b, False)
                lit = prefix + q + self.ch(["", "a"]) + esc + self.ch(["", "b", "0", "F", "}"]) + q
            elif sub == "concat":
                a = self.string_lit(kind)
                b = self.string_lit(self.ch(["str", "bytes", "f"]))
                lit = a + self.ch([" ", "", "  ", "\t"]) + b
            else:
                lit = self.string_lit(kind)
                if self.p(0.3):
                    lit = self.ch([lit[:-1], lit + lit[-1], lit.replace("'", '"', 1), lit[1:] if lit[0] in "'\"" else lit])
            ctx = self.ch(["{}", "capture[{}]", "capture[{}] == {}", "len({}) > 0", "float({})", "{} == capture['k']",
                           "({})", "{}.upper()", "{}[0]", "{} {}", "{} + {}", "{}if 1 else 2"])
            return ctx.replace("{}", lit), "lexical:" + sub
        # fstring
        self.style = self.ch(["normal", "tight", "messy"])
        lit = self.string_lit("f")
        if self.p(0.35):
            lit = self.mutate_fstring(lit)
        ctx = self.ch(["{}", "{}", "capture[{}]", "{} == capture['k']", "len({})", "{}()", "{}.x", "{}[0]"])
        return ctx.replace("{}", lit), "lexical:fstring"

    SOUP_TOKENS = (["capture", "exit_code", "walltime_sec", "peak_vram_mib", "math", "float", "int", "len", "x", "isnan",
                    "0", "1", "9", "1.5", "1e9", "0x1", "1j", "'s'", '"s"', "b'b'", "f'{x}'", "...", "True", "None"]
                   + ["(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", ":=", "==", "!=", "<", "<=", ">", ">=",
                      "+", "-", "*", "/", "//", "%", "**", "@", "|", "&", "^", "~", "<<", ">>", "!", "->", "\\", "#"]
                   + ["not", "and", "or", "if", "else", "in", "is", "lambda", "for", "async", "await", "yield",
                      "from", "import", "del", "pass"])

    def b_soup(self) -> tuple[str, str]:
        """Short random token sequences: dense coverage of parser decisions and error paths."""
        n = self.wch([(3, 1), (5, 2), (6, 3), (5, 4), (3, 5), (2, 7), (1, 10)])
        toks = [self.ch(self.SOUP_TOKENS) for _ in range(n)]
        text = toks[0]
        for t in toks[1:]:
            sep = " " if self.p(0.6) else ""
            if not sep and self._idch(text[-1]) and self._idch(t[0]):
                sep = " " if self.p(0.8) else ""
            text += sep + t
        return text, "soup"

    def b_literal_soup(self) -> tuple[str, str]:
        """Random character strings from a literal's alphabet: numbers, prefixes, escapes, f-strings."""
        sub = self.ch(["numsoup", "numsoup", "prefixsoup", "escsoup", "escsoup", "fsoup", "fsoup", "fsoup"])
        if sub == "numsoup":
            text = "".join(self.ch("0123456789_.eEjJxXoObBaAfF+-lL") for _ in range(self.r.randint(1, 8)))
            if not text[0].isdigit() and self.p(0.7):
                text = self.ch("0123456789.") + text
        elif sub == "prefixsoup":
            pre = "".join(self.ch("rRbBuUfFxc") for _ in range(self.r.randint(0, 3)))
            q = self.ch(["'", '"', "'''", '"""'])
            text = pre + q + self.ch(["", "a", "{x}", "\\n", "{{", "\\\\"]) + q
        elif sub == "escsoup":
            pre = self.ch(["", "", "b", "r", "u", "f", "rb"])
            q = self.ch(["'", '"'])
            body = ""
            for _ in range(self.r.randint(1, 3)):
                body += "\\" + self.wch([
                    (3, self.ch("abfnrtvx01234567uUN89qz'\"\\{} ")),
                    (2, "x" + "".join(self.ch("0123456789abcdefABCDEFgG") for _ in range(self.r.randint(0, 3)))),
                    (2, "u" + "".join(self.ch("0123456789abcdefABCDEFdD") for _ in range(self.r.randint(0, 5)))),
                    (2, "U" + "".join(self.ch("0123456789abcdefABCDEF") for _ in range(self.r.randint(0, 9)))),
                    (2, "".join(self.ch("012345678") for _ in range(self.r.randint(1, 4)))),
                    (3, "N{" + self.ch(VALID_N_NAMES + INVALID_N_NAMES) + self.ch(["}", "}", "}", ""])),
                    (1, self.newline()),
                ])
                body += self.ch(["", "", "a", "0", "F", "}"])
            text = pre + q + body + q
        else:
            pre = self.ch(["f", "F", "rf", "fR"])
            q = self.ch(["'", '"', "'''"])
            alphabet = ["{", "}", "{", "}", "!", ":", "=", "r", "s", "a", "x", "1", " ", "'", '"', "\\", "#", "(", ")",
                        "[", "]", ",", "*", "lambda ", "y", ">", "<", "\\n", "\n"]
            body = "".join(self.ch(alphabet) for _ in range(self.r.randint(1, 9)))
            text = pre + q + body + q
        ctx = self.ch(["{}", "{}", "{}", "capture[{}]", "exit_code == {}", "{} == exit_code", "len({})"])
        return ctx.replace("{}", text), "lexical:" + sub

    def mutate_fstring(self, lit: str) -> str:
        ops = [
            lambda s: s.replace("{", "", 1),
            lambda s: s.replace("}", "", 1),
            lambda s: s.replace("{", "{{", 1),
            lambda s: s.replace("}", "}}}", 1),
            lambda s: s.replace("{", "{ ", 1),
            lambda s: s.replace("}", "!x}", 1),
            lambda s: s.replace("}", "!}", 1),
            lambda s: s.replace("}", "=}", 1),
            lambda s: s.replace("}", "!r=}", 1),
            lambda s: s.replace("}", ":{x:{y}}}", 1),
            lambda s: s.replace("}", ":{x}}", 1),
            lambda s: s.replace("{", "{#", 1),
            lambda s: s.replace("{", "{\\n", 1),
            lambda s: s.replace("{", "{\n", 1),
            lambda s: s.replace("{", "{}", 1),
            lambda s: s.replace("{", "{*", 1),
            lambda s: s.replace("{", "{lambda x: ", 1),
            lambda s: s.replace("{", "{yield ", 1),
            lambda s: s.replace("{", "{;", 1),
            lambda s: s[:-1],
            lambda s: s + "{",
            lambda s: s.replace("}", "'}", 1),
            lambda s: s.replace("}", '"}', 1),
        ]
        return self.ch(ops)(lit)

    def b_unicode(self) -> tuple[str, str]:
        self.style = "normal"
        sub = self.ch(["spoof", "spoof", "ident", "invalid", "newer", "instring", "incomment", "surrogate",
                       "keyword-spoof", "nonprintable"])
        if sub == "spoof":
            self.spoof = 0.6
            text = self.a_expr(self.r.randint(0, 3))
        elif sub == "ident":
            name = self.unicode_ident()
            text = self.ch(["{}", "{} == 1", "capture[{}]", "float({})", "math.{}", "{}(1)", "exit_code + {}",
                            "capture['{}']", "lambda {}: 1", "f'{{{}}}'", "({} := 1)"]).replace("{}", name)
        elif sub in ("invalid", "newer", "nonprintable"):
            pool = {"invalid": INVALID_CHARS + ID_NOT_XID, "newer": NEWER_UNICODE_ID + ID_NOT_XID,
                    "nonprintable": ["\x00", "\x01", "\x08", "\x0b", "\x0e", "\x1b", "\x7f", "\x85", "\u200e",
                                     "\u2066", "\ufffe", "\U000e0020", "\ue000", "\U000f0000", "\U0010fffd"]}[sub]
            c = self.ch(pool)
            base = self.a_expr(self.r.randint(0, 2))
            pos = self.r.randint(0, len(base))
            text = self.ch([base[:pos] + c + base[pos:], c + base, base + c, "exit_code" + c, "capture" + c + "['x']",
                            "x" + c, c + "x", "exit_" + c + "code", "'" + c + "'", "b'" + c + "'", "# " + c + "\n1",
                            "1 # " + c, "capture['" + c + "'] == '" + c + "'", "f'" + c + "{exit_code}'"])
        elif sub == "instring":
            c = self.ch(INVALID_CHARS + NEWER_UNICODE_ID + XID_START[:50] + ["\\", "\n", "\r", "\r\n"])
            q = self.ch(["'", '"', "'''", '"""'])
            pre = self.ch(["", "r", "b", "u", "f", "rb", "fr"])
            text = f"capture[{pre}{q}{c}{q}] == {pre}{q}x{c}{q}"
        elif sub == "incomment":
            c = self.ch(INVALID_CHARS + NEWER_UNICODE_ID + LONE_SURROGATES[:2] + ["\r", "\\", "'''"])
            text = self.a_expr(1) + "  # " + c + " comment"
        elif sub == "surrogate":
            c = self.ch(LONE_SURROGATES)
            text = self.ch(["{}", "'{}'", "capture['{}']", "exit_code # {}", "{}exit_code", "exit_code{}",
                            "b'{}'", "f'{}'", "r'{}'", "'''{}'''"]).replace("{}", c)
            if self.p(0.1):
                text = text + "x" * 260  # too-long must win over the surrogate
        else:  # keyword-spoof: NFKC forms of keywords/constants become plain names, not keywords
            kw = self.ch(["True", "False", "None", "not", "and", "or", "if", "else", "lambda", "in", "is", "await",
                          "yield", "for"])
            sp = self.spoof_name(kw)
            if sp == kw:
                sp = "".join(NFKC_ASCII[c][0] if c in NFKC_ASCII else c for c in kw)
            text = self.ch(["{}", "exit_code == {}", "capture[{}]", "{}(1)", "exit_code {} 1", "not {}",
                            "1 if {} else 2", "({} := 1)"]).replace("{}", sp)
        return text, "unicode:" + sub

    def b_layout(self) -> tuple[str, str]:
        sub = self.ch(["brackets", "toplevel", "continuation", "comment", "indent", "mixed"])
        self.style = "messy"
        base = self.a_expr(self.r.randint(1, 3)) if self.p(0.7) else self.g_expression(2)
        if sub == "brackets":
            text = "(" + self.newline() + base + self.newline() + ")"
        elif sub == "toplevel":
            toks = base.split(" ")
            i = self.r.randint(0, len(toks))
            text = " ".join(toks[:i]) + self.newline() + " ".join(toks[i:])
        elif sub == "continuation":
            toks = base.split(" ")
            i = self.r.randint(0, len(toks))
            cont = self.ch(["\\\n", "\\\r\n", "\\\r", " \\\n ", "\\ \n", "\\\n\\\n", "\\\n\t", "\\"])
            text = " ".join(toks[:i]) + cont + " ".join(toks[i:])
        elif sub == "comment":
            text = self.ch([
                "# lead" + self.newline() + base,
                base + " # trail",
                "(" + base + " # inner" + self.newline() + ")",
                "# lead" + self.newline() + "  " + base,
                base + self.newline() + "# trail",
                "#" + self.newline() + "#" + self.newline() + base,
                base + " #" + self.newline() + "+ 1",
            ])
        elif sub == "indent":
            text = self.ch(["\\" + self.newline() + self.ch(["  ", "\t", "\x0c", " \x0c"]) + base,
                            "#c" + self.newline() + self.ch(["  ", "\t", "\x0c"]) + base,
                            base + self.newline() + "  ",
                            "(" + base + self.newline() + "\t)",
                            "\x0c" + base, base + "\x0c"])
        else:
            text = base
        return text, "layout:" + sub

    def pad_to(self, target: int) -> tuple[str, str]:
        """An expression with exactly `target` code points (after strip)."""
        how = self.ch(["string", "spaces", "comment", "chain", "astral", "parens"])
        if how == "string":
            head = "capture['"
            tail = "'] == 'x'"
            fill = target - len(head) - len(tail)
            ch = self.ch(["a", "é", "😀", "变", " "])
            return head + ch * max(fill, 0) + tail, how
        if how == "astral":
            head = "len('"
            tail = "') > 0"
            fill = target - len(head) - len(tail)
            return head + "\U0001d400" * max(fill, 0) + tail, how
        if how == "spaces":
            head = "exit_code"
            tail = "== 0"
            return head + " " * max(target - len(head) - len(tail), 0) + tail, how
        if how == "comment":
            head = "exit_code == 0  # "
            return head + "c" * max(target - len(head), 1), how
        if how == "parens":
            core = "exit_code"
            k = max((target - len(core)) // 2, 0)
            s = "(" * k + core + ")" * k
            return s + "#" * (target - len(s)), how
        unit = " or exit_code == 1"
        s = "exit_code == 0"
        while len(s) + len(unit) <= target:
            s += unit
        if len(s) < target:
            s = s + " " * (target - len(s) - 1) + "#" if target - len(s) >= 1 else s
        return s[:target] if len(s) > target else s, how

    def b_length(self) -> tuple[str, str]:
        target = self.ch([254, 255, 256, 256, 257, 258, 250, 300, 1000, 128, 129, 257])
        text, how = self.pad_to(target)
        edge = self.ch(["none", "py-only", "js-only", "both", "mixed"])
        if edge == "py-only":
            text = self.edge_ws(False).replace(" ", "") + self.ch(PY_ONLY_WS) + text + self.ch(PY_ONLY_WS)
        elif edge == "js-only":
            bom = self.ch(JS_ONLY_WS)
            text = self.ch([bom + text, text + bom, bom + text + bom])
        elif edge == "both":
            text = self.edge_ws(True) + text + self.edge_ws(True)
        elif edge == "mixed":
            text = self.ch(PY_ONLY_WS) + "\ufeff" + text if self.p(0.5) else text + "\ufeff" + self.ch(PY_ONLY_WS)
        if self.p(0.04):
            text = self.ch(["", " ", "\t\n", "\x1c", "\x85", "\ufeff", "\u3000\u2028", "\x1f\x1e\x1d\x1c", "\x0b\x0c",
                            "\u200b", "\x00", "#", "\\", "\\\n", "\n#\n"])
            how = "blank"
        return text, f"length:{how}:{edge}"

    def b_nesting(self) -> tuple[str, str]:
        sub = self.ch(["parens", "unbalanced", "capture", "calls", "unary", "not", "ternary", "lambda", "lists",
                       "attr", "binop", "compare", "boolop", "fstring", "mixed", "spec"])
        if sub == "parens":
            k = self.ch([1, 2, 10, 50, 100, 120, 123, 124, 125, 126, 127, 128, 199, 200, 201])
            core = self.ch(["exit_code", "1", "x", "capture['a']"])
            return "(" * k + core + ")" * k, "nesting:parens"
        if sub == "unbalanced":
            k = self.ch([199, 200, 201, 202, 210, 250, 100, 255])
            b = self.ch(["(", "[", "{", "([{", "f(", "capture["])
            s = (b * k)[:k]
            if self.p(0.5):
                s = s + "1" + ")" * self.r.randint(0, 3)
            return s, "nesting:unbalanced"
        if sub == "capture":
            k = self.r.randint(1, 30)
            return "capture[" * k + "'k'" + "]" * k + self.ch(["", " == 'x'"]), "nesting:capture"
        if sub == "calls":
            k = self.r.randint(1, 50)
            fn = self.ch(["float(", "int(", "len(", "math.isnan(", "f(", "abs("])
            return fn * k + self.ch(["1", "capture['x']", "exit_code", ""]) + ")" * k, "nesting:calls"
        if sub == "unary":
            k = self.r.randint(1, 260)
            op = self.ch(["-", "+", "~", "- ", "+-", "-+"])
            return (op * k)[:k] + self.ch(["1", "exit_code", "x", ""]), "nesting:unary"
        if sub == "not":
            k = self.r.randint(1, 70)
            return "not " * k + self.ch(["exit_code", "1", "x", "(1)"]), "nesting:not"
        if sub == "ternary":
            k = self.r.randint(1, 25)
            left = self.p(0.5)
            s = "exit_code"
            for _ in range(k):
                s = (f"1 if {s} else 0" if left else f"({s}) if 1 else 0") if self.p(0.5) else f"0 if 1 else {s}"
            return s, "nesting:ternary"
        if sub == "lambda":
            k = self.r.randint(1, 40)
            return "lambda:" * k + "0", "nesting:lambda"
        if sub == "lists":
            k = self.r.randint(1, 130)
            b = self.ch([("[", "]"), ("(", ",)"), ("{", "}"), ("[", ",]")])
            return b[0] * k + self.ch(["", "1"]) + b[1] * k, "nesting:lists"
        if sub == "attr":
            k = self.r.randint(1, 125)
            return self.ch(["math", "capture", "x", "1 "]) + ".isnan" * k, "nesting:attr"
        if sub == "binop":
            k = self.r.randint(1, 130)
            op = self.ch(["+", "-", "/", "//", "*", "|", "**"])
            return op.join(["1"] * k) if self.p(0.5) else op.join(["exit_code"] * max(1, k // 5)), "nesting:binop"
        if sub == "compare":
            k = self.r.randint(2, 80)
            op = self.ch(["<", "==", "<=", " is ", " in ", "!="])
            return op.join(["1"] * k), "nesting:compare"
        if sub == "boolop":
            k = self.r.randint(2, 60)
            op = self.ch([" and ", " or "])
            return op.join(["1"] * k), "nesting:boolop"
        if sub == "fstring":
            forms = ["f'{f\"{x}\"}'", "f'''{f'{f\"{x}\"}'}'''", "f'''{f\"\"\"{f'{f\"{x}\"}'}\"\"\"}'''",
                     "f\"{f'{f\"{x}\"}'}\"", "f'{(' + '(' * 60 + 'x' + ')' * 60 + ')}'",
                     "(" * 100 + "f'{" + "(" * 100 + "x" + ")" * 100 + "}'" + ")" * 100,
                     "f'{" + "[" * 120 + "]" * 120 + "}'", "f'{" + "(" * 201 + "}'", "f'{{{{{{x}}}}}}'",
                     "f'{x:{y:{z}}}'", "f'{x:{y}}'", "f'{x:{{y}}}'", "f'{x:{y!r:{z}}}'", "f'{x!r:{y}{z}}'"]
            return self.ch(forms), "nesting:fstring"
        if sub == "spec":
            k = self.r.randint(1, 4)
            s = "x"
            for _ in range(k):
                s = "x:{" + s + "}"
            return "f'{" + s + "}'", "nesting:spec"
        # mixed brackets
        k = self.r.randint(10, 120)
        opens = [self.ch(["(", "[", "{"]) for _ in range(k)]
        closes = [{"(": ")", "[": "]", "{": "}"}[o] for o in reversed(opens)]
        if self.p(0.3):
            closes[self.r.randrange(len(closes))] = self.ch([")", "]", "}"])
        return "".join(opens) + "1" + "".join(closes), "nesting:mixed"

    # ---------------------------------------------------------------- mutations
    TOKEN_RE = re.compile(
        r"""(?P<str>[rRbBuUfF]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
        r"""|(?P<num>0[xXoObB][0-9a-fA-F_]*|\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?[jJ]?|\.\d[\d_]*(?:[eE][+-]?\d+)?[jJ]?)"""
        r"""|(?P<name>[^\W\d]\w*)"""
        r"""|(?P<op>\*\*=?|//=?|<<=?|>>=?|<=|>=|==|!=|:=|->|\.\.\.|[-+*/%@&|^~<>()\[\]{},:;.=!])"""
        r"""|(?P<ws>\s+)"""
        r"""|(?P<other>[\s\S])"""
    )

    def tokens(self, s: str) -> list[str]:
        return [m.group(0) for m in self.TOKEN_RE.finditer(s)]

    def mutate(self, s: str) -> tuple[str, str]:
        op = self.wch([(4, "truncate"), (2, "delete-char"), (3, "delete-token"), (2, "duplicate-token"),
                       (2, "swap-tokens"), (3, "insert-punct"), (2, "insert-keyword"), (2, "insert-unicode"),
                       (2, "unbalance"), (2, "quote"), (2, "odd-literal"), (2, "newline"), (1, "case"),
                       (1, "replace-token"), (1, "splice")])
        toks = self.tokens(s)
        if not toks:
            toks = [s]
        r = self.r
        if op == "truncate":
            how = r.random()
            if how < 0.4:
                cut = r.randint(0, len(s))
            elif how < 0.7:
                cut = len("".join(toks[: r.randint(0, len(toks))]))
            else:
                idx = [i + 1 for i, c in enumerate(s) if c in "'\"([{,:.=+-*/\\#!<>"]
                cut = r.choice(idx) if idx else r.randint(0, len(s))
            return s[:cut] if r.random() < 0.8 else s[cut:], op
        if op == "delete-char":
            if not s:
                return s, op
            i = r.randrange(len(s))
            return s[:i] + s[i + 1:], op
        if op == "delete-token":
            i = r.randrange(len(toks))
            return "".join(toks[:i] + toks[i + 1:]), op
        if op == "duplicate-token":
            i = r.randrange(len(toks))
            return "".join(toks[: i + 1] + [toks[i]] + toks[i + 1:]), op
        if op == "swap-tokens":
            if len(toks) < 2:
                return s + s, op
            i = r.randrange(len(toks) - 1)
            j = i + 1 if r.random() < 0.6 else r.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
            return "".join(toks), op
        if op in ("insert-punct", "insert-keyword", "insert-unicode"):
            if op == "insert-punct":
                ins = r.choice(PUNCT)
            elif op == "insert-keyword":
                ins = r.choice(KEYWORDS + SOFT_KEYWORDS + ALLOWED_NAMES)
                ins = r.choice([ins, " " + ins + " ", ins + " ", " " + ins])
            else:
                ins = r.choice(INVALID_CHARS + NEWER_UNICODE_ID + LONE_SURROGATES + PY_WS + XID_START[::97]
                               + XID_CONT_ONLY[::53])
            if r.random() < 0.5:
                i = r.randint(0, len(s))
                return s[:i] + ins + s[i:], op
            i = r.randint(0, len(toks))
            return "".join(toks[:i] + [ins] + toks[i:]), op
        if op == "unbalance":
            idx = [i for i, c in enumerate(s) if c in "()[]{}"]
            if idx and r.random() < 0.6:
                i = r.choice(idx)
                return s[:i] + s[i + 1:], op
            i = r.randint(0, len(s))
            return s[:i] + r.choice("()[]{}") + s[i:], op
        if op == "quote":
            idx = [i for i, c in enumerate(s) if c in "'\""]
            if idx:
                i = r.choice(idx)
                rep = r.choice(["", "'" if s[i] == '"' else '"', s[i] * 2, s[i] * 3, "\\" + s[i]])
                return s[:i] + rep + s[i + 1:], op
            i = r.randint(0, len(s))
            return s[:i] + r.choice(["'", '"', "'''", "f'", "b'", "r'"]) + s[i:], op
        if op == "odd-literal":
            nums = [i for i, t in enumerate(toks) if t[:1].isdigit() or (t[:1] == "." and t[1:2].isdigit())]
            strs = [i for i, t in enumerate(toks) if t[-1:] in "'\"" and len(t) >= 2]
            if nums and (not strs or r.random() < 0.6):
                i = r.choice(nums)
                toks[i] = r.choice(ODD_NUMBERS)
            elif strs:
                i = r.choice(strs)
                t = toks[i]
                toks[i] = r.choice([r.choice(INVALID_PREFIXES) + t.lstrip("rRbBuUfF"),
                                    t[:-1] + self.bad_escape("b" in t[:2].lower()) + t[-1],
                                    "b" + t.lstrip("rRbBuUfF").replace("a", "é"),
                                    t + " " + r.choice(["b'x'", "f'{x}'", "'y'", "u'z'", "rb'w'"])])
            else:
                i = r.randint(0, len(toks))
                toks.insert(i, r.choice(ODD_NUMBERS))
            return "".join(toks), op
        if op == "newline":
            i = r.randint(0, len(s))
            return s[:i] + r.choice(["\n", "\r", "\r\n", "\\\n", "\\\r\n", " \\\n  ", "\n#c\n", "\x0c\n",
                                     "\\"]) + s[i:], op
        if op == "case":
            words = [i for i, t in enumerate(toks) if t[:1].isalpha()]
            if not words:
                return s.upper(), op
            i = r.choice(words)
            t = toks[i]
            toks[i] = r.choice([t.upper(), t.lower(), t.capitalize(), t.swapcase()])
            return "".join(toks), op
        if op == "replace-token":
            i = r.randrange(len(toks))
            toks[i] = r.choice(PUNCT + KEYWORDS + ODD_NUMBERS[:20] + ["capture", "x", "1", "'a'", ""])
            return "".join(toks), op
        # splice with another recent expression
        other = r.choice(list(self.recent)) if self.recent else "exit_code"
        i = r.randint(0, len(s))
        j = r.randint(0, len(other))
        return s[:i] + other[j:], op


# --------------------------------------------------------------------------------------------------
# Hand-written seeds
# --------------------------------------------------------------------------------------------------

HOSTILE = [
    "__import__('os').system('rm -rf /')",
    "(0).__class__.__bases__[0].__subclasses__()",
    "().__class__.__mro__[-1]",
    "open('/etc/passwd').read()",
    "exec(\"import os; os.system('id')\")",
    "eval(\"1+1\")",
    "lambda x: x",
    "[x for x in range(10)]",
    "{k: v for k, v in capture.items()}",
    "capture.update({'pwn': '1'})",
    "type(capture)",
    "getattr(capture, 'pop')('eval_loss')",
    "capture['x'].__class__",
    "math.__loader__.load_module('os')",
    "2 ** 1000000000  # forbidden-node: ast.Pow is no longer in the allow-list (would otherwise build a huge int via int.__pow__)",
    "'a' * 999999998  # forbidden-node: ast.Mult is no longer in the allow-list (string repetition would allocate ~1 GiB without crossing MAX_INT_CONSTANT)",
    "'%999999998s' % capture['x']  # forbidden-node: ast.Mod is no longer in the allow-list (printf-style %s would allocate the same billion-byte buffer)",
    "capture['x'] * 999999998  # forbidden-node: ast.Mult; the multiplier dodges the integer-literal cap because it's named",
    "'oom' in capture['msg']  # forbidden-node: ast.In is not in the allow-list (the docs explicitly point users at the regex field for substring matching)",
]

# (condition, expected message) pairs from the original's src/aorta/probe/sandbox.py (ROCm/aorta) and §1.7: a self-check of the oracle.
EXPECTED = [
    ("__import__('os').system('rm -rf /')", "condition: forbidden call: __import__('os').system"),
    ("(0).__class__.__bases__[0].__subclasses__()", "condition: forbidden call: 0 .__class__.__bases__[0].__subclasses__"),
    ("().__class__.__mro__[-1]", "condition: subscript only allowed on capture[...]"),
    ("open('/etc/passwd').read()", "condition: forbidden call: open('/etc/passwd').read"),
    ("exec(\"import os; os.system('id')\")", "condition: forbidden call: exec"),
    ("eval(\"1+1\")", "condition: forbidden call: eval"),
    ("lambda x: x", "condition: forbidden AST node: Lambda"),
    ("[x for x in range(10)]", "condition: forbidden AST node: ListComp"),
    ("{k: v for k, v in capture.items()}", "condition: forbidden AST node: DictComp"),
    ("capture.update({'pwn': '1'})", "condition: forbidden call: capture.update"),
    ("type(capture)", "condition: forbidden call: type"),
    ("getattr(capture, 'pop')('eval_loss')", "condition: forbidden call: getattr(capture, 'pop')"),
    ("capture['x'].__class__", "condition: forbidden attribute access: capture['x'].__class__"),
    ("math.__loader__.load_module('os')", "condition: forbidden call: math.__loader__.load_module"),
    (HOSTILE[14], "condition: forbidden AST node: Pow"),
    (HOSTILE[15], "condition: forbidden AST node: Mult"),
    (HOSTILE[16], "condition: forbidden AST node: Mod"),
    (HOSTILE[17], "condition: forbidden AST node: Mult"),
    (HOSTILE[18], "condition: forbidden AST node: In"),
    ("(1,) * 999999998", "condition: forbidden AST node: Tuple"),
    ("exit_code is None", "condition: forbidden AST node: Is"),
    ("float(x=1)", "condition: forbidden AST node: keyword"),
    ("len(*capture)", "condition: forbidden AST node: Starred"),
    ("f'{exit_code}'", "condition: forbidden AST node: JoinedStr"),
    ("x", "condition: forbidden name: x"),
    ("capture.get('x')", "condition: forbidden call: capture.get"),
    ("math.pi", "condition: forbidden attribute access: math.pi"),
    ("exit_code == 1000000000",
     "condition: integer constant magnitude 1000000000 >= 1000000000 (rejected to prevent resource exhaustion)"),
    ("capture[", None),  # syntax
    ("1" + " + 1" * 70, None),  # too-long
    ("", "condition: expression must be non-empty"),
    ("   ", "condition: expression must be non-empty"),
]

DOC_ALLOWED = [
    "math.isnan(float(capture['loss']))",
    "walltime_sec > 60 and peak_vram_mib > 0",
    "exit_code == 137 and len(capture['msg']) > 0",
    "int(capture['code']) == 137",
    "capture['loss'] == 'nan'",
    "int(capture['count']) > 10 and len(capture) > 0",
    "exit_code != 0 and walltime_sec > 1.0 and peak_vram_mib > 100",
    "peak_vram_mib > 0",
    "(1 if exit_code != 0 else 0) or (walltime_sec > 0)",
    "exit_code == 999999999",
    "math.isinf(float(capture['x']))",
    "2 ** 31", "10 ** int(capture['exp'])", "2 ** exit_code", "exit_code * 2", "exit_code % 2",
    "'%s' % capture['code']",
]

EDGE_SEEDS = [
    # allowed-subset corner cases
    "math.isnan", "math.isinf", "capture[0]", "capture[exit_code]", "capture[capture['x']]", "(capture)['x']",
    "capture [ 'a' ]", "float (1)", "math . isnan(1)", "math.\\\nisnan(1)", "(math).isnan(1)", "(math.isnan)(1)",
    "(float)(1)", "((len))(capture)", "float(1, 2)", "float()", "len()", "int(capture['x'], 16)", "math.isnan()",
    "1.5e12", "1e999", "1e9", "999999999", "-999999999", "999_999_999", "0x3B9AC9FF", "0x3b9ac9ff", "0X3B9AC9FF",
    "0o7346544777", "0O7346544777", "0b111011100110101100100111111111", "0B111011100110101100100111111111",
    "1000000000", "-1000000000", "1_000_000_000", "0x3B9ACA00", "-0x3B9ACA00", "0o7346545000",
    "0b111011100110101100101000000000", "--999999999", "+999999999", "- -1000000000", "1000000000.0",
    "1000000000j", "999999999j", "True + True", "False", "None", "...", "not None", "'a' 'b'", "b'x'", "u'x'",
    "1j", "0", "00", "0_0", "0.0", "capture[...]", "capture[None]", "capture[True]", "capture[1.5]", "capture[b'k']",
    "capture['a' 'b']", "capture[r'\\d']", "capture['\\N{EN DASH}']", "capture['\\x41']", "capture['\\101']",
    "capture['\\u00e9']", "capture['\\U0001F600']", "capture['\\ud800']", "capture['''k''']", "capture[\"k\"]",
    "exit_code < 1 < 2", "1 < exit_code <= 3 != 4", "not not exit_code", "not -exit_code", "-(-exit_code)",
    "+exit_code", "exit_code // 2", "exit_code / 2", "exit_code - -1", "exit_code+-+-1",
    "exit_code if walltime_sec else peak_vram_mib", "exit_code if 1 else 2 if 3 else 4",
    "(exit_code if 1 else 2) if 3 else 4", "exit_code == 0 or walltime_sec > 1 and peak_vram_mib",
    "len(capture) == len(capture['a'])", "math.isnan(float('nan'))", "float('inf') > 1e308",
    "int('1_000') == 1000", "capture['k'] == '' and True", "walltime_sec >= 1.5e3", "peak_vram_mib > 0x10",
    "exit_code == -11", "exit_code == 0o0", "exit_code == 0b0", "exit_code == 0x_1", "exit_code == 1_0",
    "1if exit_code else 2", "1 if exit_code else 2", "exit_code if 1else 2", "[1for x in y]", "1or exit_code",
    "exit_code or 1and 2", "0x1or 2", "0or 1", "00or 1", "0x1and 2", "0b1and 1", "1jif 1 else 2",
    "1 # comment", "1  #", "1 # -*- coding: latin-1 -*-", "exit_code # é € \U0001F600", "(exit_code # c\n)",
    "(exit_code # c\r\n== 1)", "(exit_code # c\r== 1)", "(\nexit_code\n)", "(\r\nexit_code\r\n)", "(\rexit_code\r)",
    "exit_code \\\n== 1", "exit_code \\\r\n== 1", "exit_code \\\r== 1", "exit_code\\\n==1", "\\\nexit_code",
    "\\\n  exit_code", "# c\n  exit_code", "# c\nexit_code", "#\n#\nexit_code", "exit_code\n# c", "exit_code\n\n# c",
    "exit_code\n== 1", "exit_code\r== 1", "exit_code\r\n== 1", "exit_code \\ \n== 1", "exit_code \\", "\\",
    "exit_code\x0c== 1", "\x0cexit_code", "exit_code\t==\t1", "(exit_code\x0c\n== 1)", "exit_code\x0b== 1",
    "exit_code\x1c== 1", "exit_code\x85== 1", "exit_code\u2028== 1", "exit_code\u00a0== 1", "exit_code\u3000== 1",
    "exit_code\ufeff", "\ufeffexit_code", "\x1cexit_code\x1f", "\x85exit_code\x85", "\u2028exit_code\u2029",
    "\u3000exit_code\u3000", "\u00a0exit_code", "\x1c", "\x85", "\x1c\x1d\x1e\x1f\x85", "\ufeff", "\u200b",
    "exit_code\x00", "\x00", "capture['\x00']", "# \x00\n1", "exit_code\ud800", "'\ud800'", "# \udc00\n1",
    "\ud800", "\udfff\ud800",
    # non-ASCII identifiers / NFKC
    "ｅｘｉｔ_code", "ｅｘｉｔ＿ｃｏｄｅ == 1", "ｃａｐｔｕｒｅ['k']", "math.ｉｓｎａｎ(1.0)", "ｍａｔｈ.isnan(1)",
    "ﬂoat(1)", "𝐞𝐱𝐢𝐭_𝐜𝐨𝐝𝐞", "𝔢xit_code", "ℯxit_code", "ｌｅｎ(capture)", "ℌ", "Ｔｒｕｅ", "Ｎｏｎｅ", "ＮＯＮＥ",
    "ｎｏｔ", "ｎｏｔ exit_code", "ｉｆ", "exit_code ｉｆ 1 else 2", "ｌａｍｂｄａ", "µ", "ª", "ⅰ", "Ⅸ", "ﬁ",
    "𝔘", "℘", "℮", "゛", "\u309b", "\u037a", "á", "\u0301a", "a\u0301", "١", "a١", "1١", "exit_codé",
    "exit_code\u0301", "\U00011f04", "\U0001e030", "\U00031350", "a\u0cf3", "\u0cf3", "x\U00010efd", "ᇰ4",
    "€", "a€", "😀", "exit_code 😀", "capture['😀']", "capture['😀' * 1]", "变量", "π", "Ω == 1",
    # strings / bytes / prefixes / escapes
    "ur''", "bu''", "fb''", "bf''", "Rb''", "bR''", "rB''", "RB''", "Br''", "fR''", "Rf''", "FR''", "rf''",
    "U''", "u''", "R''", "rb''", "Ur''", "uR''", "rr''", "'a' b'b'", "b'a' 'b'", "f'a' b'c'", "b'a' f'b'",
    "rb'a' b'b'", "u'a' f'{x}'", "'a' f'b' 'c'", "'a' u'b'", "b'\\777'", "b'\\400'", "'\\777'", "'\\400'",
    "'\\8'", "'\\0'", "'\\q'", "b'\\q'", "'\\x4'", "'\\x'", "'\\xZZ'", "b'\\x'", "b'\\x4'", "'\\u12'", "'\\u'",
    "'\\U'", "'\\Ud800'", "'\\U00110000'", "'\\U0010FFFF'", "'\\U0000D800'", "b'\\u1234'", "b'\\N{EN DASH}'",
    "'\\N{EN DASH}'", "'\\N{en dash}'", "'\\N{DASH}'", "'\\N{ EN DASH}'", "'\\N{EN  DASH}'", "'\\N{}'", "'\\N'",
    "'\\N{EN DASH'", "'\\N{LF}'", "'\\N{NUL}'", "'\\N{BOM}'", "'\\N{HANGUL SYLLABLE GA}'",
    "'\\N{hangul syllable ga}'", "'\\N{CJK UNIFIED IDEOGRAPH-4E00}'", "'\\N{CJK UNIFIED IDEOGRAPH-4e00}'",
    "'\\N{CJK UNIFIED IDEOGRAPH-04E00}'", "'\\N{TANGUT IDEOGRAPH-17000}'", "'\\N{KAWI LETTER A}'",
    "'\\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}'", "'\\N{LATIN CAPITAL LETTER GHA}'", "f'\\N{EN DASH}'",
    "f'\\N{DASH}'", "rf'\\N{DASH}'", "fr'\\N{EN DASH}'", "f'{x:\\N{EN DASH}}'", "r'\\'", "r'\\''", "'\\\n'",
    "'a\nb'", "'''a\nb'''", "'''a\rb'''", "'a\\\nb'", "\"\"\"abc", "'''", "'", "\"", "'abc", "b'é'", "b'\x7f'",
    "b'\x01'", "'\x01'", "'\x7f'", "'\x1c'", "'\u2028'", "'\ufeff'", "'\x0c'",
    # f-strings
    "f'{x!r}'", "f'{x!s:>10}'", "f'{x!a}'", "f'{x!z}'", "f'{x!}'", "f'{x=!r:^{w}.{p}}'", "f'{}'", "f'{ }'",
    "f'{x:{y:{z}}}'", "f'{x:{y}}'", "f'{'", "f'}'", "f'{{'", "f'}}'", "f'{x}}'", "f'{{x}'", "f'{x:}}'",
    "f'{x:{{}}}'", "f'{x:}}}'", "f'{x =}'", "f'{x==y}'", "f'{x!=y}'", "f'{x:=1}'", "f'{(x:=1)}'",
    "f'{lambda x: 1}'", "f'{(lambda x: 1)}'", "f'{yield}'", "f'{*a}'", "f'{*a,}'", "f'{a,b}'", "f'{\"a\"}'",
    "f\"{'a'}\"", "f'{'a'}'", "f'''{'a'}'''", "f'{x:\\n}'", "f'\\{x}'", "f'\\{{x}}'", "rf'\\{x}'", "f'{x!r=}'",
    "f'{x:{y!r}}'", "f'{a[\"b\"]}'", "f'{3!r}'", "f'{3.real}'", "f'{x#}'", "f'{(x#\n)}'", "f'''{x\n}'''",
    "f'''{\nx}'''", "f'{x}' f'{y}'", "F'{x}'", "fR'{x}'", "f'{\\n}'", "f'{#}'", "f'{\"\\n\"}'", "f'''{'''a'''}'''",
    "f'{ x = }'", "f'{x ! r}'", "f'{x !r}'", "f'{x!r }'", "f'{x;}'", "f'{x[\"a\"]}'", "f\"{x[\"a\"]}\"",
    "f\"{f'{x}'}\"", "f\"{f'{f'{x}'}'}\"", "f'{\"\x01\"}'()", "f'{\"\x01\"}'.x", "f'{x:{\"\x01\"}}'()",
    "f'{\"\x85\"}'()", "f'{exit_code}'()", "f'{exit_code}'.x", "f'{exit_code}'[0]", "'a' f'{exit_code}'",
    "f''", "f'' 'a'", "f'' == ''", "capture[f'k']", "capture[f'{1}']",
    # numbers
    "0777", "0_7", "07", "0_", "1_", "1__0", "1e_1", "1_e1", "1.5_", "1._5", "0x_1", "0b_", "1jj", "1.j", "1e1j",
    "1__j", ".5", "5.", "1e", "1.e", "1.__class__", "1 .real", "1..real", "1.0.real", "1j.real", "0x1.real",
    "0x1 .real", "1e5.real", "0b2", "0o8", "0xg", "0xfor", "0x1for", "1x", "1_x", "1lambda", "1.eif", "1ein x",
    "1e1e1", "0x1.5", "0b1e1", "1" + "0" * 100, "0" * 100, "1" + "_0" * 60, "0x" + "f" * 100,
    # operators and grammar
    "exit_code <> 1", "exit_code != 1", "exit_code === 1", "exit_code => 1", "exit_code =< 1", "exit_code = 1",
    "exit_code := 1", "(exit_code := 1)", "(x := 1)", "x := 1", "(True := 1)", "(__debug__ := 1)", "f(True=1)",
    "f(__debug__=1)", "lambda __debug__: 1", "(a, b) := 1", "a not b", "a is not not b", "- not x", "not",
    "await x", "await await x", "-await x", "await -x", "await x ** 2", "(yield)", "(yield from x)", "(yield from)",
    "yield", "yield x", "(yield *a)", "(yield *a, b)", "a and (yield)", "lambda: (yield)", "[*a]", "*a", "*a,",
    "a, b", "exit_code,", "(exit_code,)", "()", "[]", "{}", "..", "....", "a[*b]", "a[*b:c]", "a[*b, c]",
    "capture[*b]", "capture['a':]", "capture[::]", "capture[:]", "capture[1:2, 3]", "capture[a:=1]",
    "capture[(a:=1):2]", "f(**k, a)", "f(*a, b)", "f(a, *b, c=1, **d, e=2)", "f(**d, *e)", "f(a=1, b)",
    "f(a=1, *b)", "f(x for x in y)", "f(x for x in y, 1)", "f((x for x in y), 1)", "f(a=x for x in y)",
    "f(1, x for x in y)", "f(x for x in y,)", "{**a, 'b': 1}", "{*a, 1}", "{**a}", "{a: *b}", "[x := 1]",
    "{x := 1}", "a[x := 1, 2]", "f(x := 1)", "f(a=x := 1)", "lambda: x := 1", "lambda: (x := 1)",
    "lambda x=1, /, y=2, *, z, **k: 0", "lambda *, a: 0", "lambda *: 0", "lambda **k, a: 0", "lambda a=1, b: 0",
    "lambda /: 0", "lambda a, /: 0", "lambda a, /, /: 0", "lambda *a, *b: 0", "lambda *a=1: 0", "lambda **a=1: 0",
    "lambda (a): 0", "lambda a, *, : 0", "lambda a, a: 1", "f(a=1, a=2)", "[(yield) for x in y]",
    "[x async for x in y]", "(x async for x in y)", "[x for x in y if 1 if 2 for z in w]", "[x for 1 in y]",
    "[x for f() in y]", "[x for a.b in y]", "[x for a[0] in y]", "[x for *a, b in y]", "[x for (a, b) in y]",
    "[x for [a, b] in y]", "[i := 0 for x in y]", "[(i := 0) for x in y]", "[x for x in (i := y)]",
    "[x for x in i := y]", "{x: y for x, y in z}", "{x: y for x in z if x}", "{x for x in y}",
    "exit_code if 1", "exit_code if 1 else", "1 if 2 else 3 if 4 else 5", "print 1", "exec 'x'",
    "exit_code; 1", "exit_code;", "def f(): pass", "import os", "exit_code = 1", "exit_code += 1",
    "del exit_code", "pass", "return 1", "assert 1", "global x", "if 1: 2", "1 if 1 else 2;",
    "x[1](2)[3].a", "x.y.z()", "x().y", "'a'.upper()", "b'a'.upper()", "...['a']", "None.x", "True()",
    "exit_code(1)", "exit_code.real", "capture.keys()", "math.sqrt(4)", "math.isnan.x", "math.isinf()()",
    "math.isnan(1)(2)", "capture()", "capture['a']['b']", "capture['a'].x", "'abc'[0]", "len(capture)[0]",
    "math[0]", "math.isnan[0]", "(1)(2)", "'x'()", "(lambda: 1)()", "(float if 1 else int)(2)",
    "int(x=1)", "float(*capture)", "len(**capture)", "float(x for x in y)", "exit_code @ 2", "exit_code | 2",
    "exit_code ^ 2", "exit_code & 2", "exit_code << 2", "exit_code >> 2", "~exit_code", "exit_code not in capture",
    "exit_code is not None", "exit_code in capture", "exit_code % 2", "exit_code ** 2", "-exit_code ** 2",
    "exit_code**-1", "not exit_code ** 2", "exit_code == 1 == True", "capture['a'] < capture['b'] is None",
    "(capture, 1)[0]", "[capture][0]", "{'a': 1}['a']", "capture[0] if 1 else capture.x",
    "float(1) + int(2) * 3", "float(1) + int(2) % 3", "exit_code * capture.x", "capture.x * exit_code",
    "x * capture.y", "capture.y(x * 2)", "math.pi(1)", "math.pi + exit_code", "exit_code + math.pi",
    "math.isnan(math.pi)", "float(math.e)", "Ｔｒｕｅ(1)", "math.Ｔｒｕｅ", "f(Ｔｒｕｅ=1)",
    "1 if 2 else 1000000000", "1000000000 if 2 else x", "x if 2 else 1000000000", "capture[1000000000]",
    "capture[x]", "capture[x][1000000000]", "[1000000000]", "(1000000000, x)", "x(1000000000)",
    "1000000000(x)", "exit_code == 1000000000 == x", "x == 1000000000", "1000000000 == x",
]


PROBE_SEEDS = [
    # walker order (ast.walk BFS + _fields order), call/keyword order, comprehension and lambda forms,
    # \\N{...} names (aliases, algorithmic CJK/Hangul names, case rules), f-string corner cases

 "exit_code < x in y", "capture < x is 1", "1 < x is 2", "x * 2", "exit_code * y", "(x * 2) + capture.y", "float(a=1, *b)", "float(a=1, *capture)", "int(x, y=z)",
 "a if b else c", "exit_code if b else c", "a if exit_code else c", "capture.x if y else z", "x if capture.y else z", "x if y else capture.z", "capture[x] if y.z else q",
 "not x.y", "-x.y", "x.y(z)", "x.y[z]", "capture[x][y]", "capture[x.y]", "{x: y}", "float(*a, **b)", "float(**b)", "len(x for x in y)",
 "# c\n\x0c1", "# c\n \x0c1", "# c\n\x0c 1", "\\\n\x0c1", "'a\rb'", "'''a\rb'''", "1 # c \\\n+ 2", "(1 # c \\\n+ 2)",
 "(a.b := 1)", "(a[0] := 1)", "((a) := 1)", "(*a)", "(*a,)", "[*a for a in b]", "{**a for a in b}", "f(**a for a in b)", "f(*a for a in b)", "[x for x in 1, 2]", "x[]", "()()", "await", "async", "match", "lambda x: yield", "[x for x in y] = 1",
 "f(a, b for b in c)", "(x for x in y)()", "1 if 2 else 3 if 4", "not 1 in 2", "a is not in b", "x = y", "x == y == ", "print(f'{x!r:}')",
 "(yield x) if 1 else 2", "[i for i in range(3) if (j := i)]", "[(j := i) for i in range(3)]", "[j := i for i in range(3)]", "{j := i for i in range(3)}", "[i for i in (j := [1])]", "[i for i in j := [1]]", "(lambda: (j := 1))", "lambda: j := 1",
 "[x for x in y if z := 1]", "[x for x in y if (z := 1)]", "f(x=1, x=2)", "f(*, a)", "lambda *a, **a: 1", "lambda a, *, b=1, **c: 1", "lambda a=1, /, b=2, *c, d, e=3, **f: 1", "lambda a, /, *, b: 1", "lambda a, / , b: 1", "lambda a, /: 1", "lambda /, a: 1", "lambda a=1, /, b: 1", "lambda *, **k: 1", "lambda *a, b: 1", "lambda **k,: 1", "lambda *a,: 1", "lambda a,: 1", "lambda a, b=1,: 1",
 "x[a:b, c:d]", "x[::, ::]", "x[a:b:c:d]", "x[:,]", "x[*a, *b]", "x[(*a)]", "x[*a:]",
 "{a: b for a, b in c if d}", "{a: b, **c, d: e}", "{**a, **b}", "{a, *b, *c}", "{*a}", "{*a: b}", "{a: b: c}", "{a:}", "{:a}", "{,}", "[,]", "(,)", "[1,,2]", "f(,)", "f(a,,b)", "f(a,)", "f(*a,)", "f(**a,)", "f(a=1,)",
 "1 if True else 2 if False else 3", "x.y.z.w", "x .y", "x. y", "1.j", "1.J", "1_0j", "0x1j", "0o1j", "0b1j", "1e1_0j", "09j", "09.j", "09e1", "00.5", "0_9.5", "1__2.3", ".5_5", "._5", "1.5e+_3", "0e", "0e0j", "0.e0",
 "b'\\N{EN DASH}'", "'\\N{EN DASH}'", "'\\N{latin small letter a with grave}'", "'\\N{LATIN SMALL LETTER A WITH GRAVE}'", "'\\N{Latin Small Letter A With Grave}'", "'\\N{HANGUL SYLLABLE GAGG}'", "'\\N{HANGUL SYLLABLE KIYEOK}'", "'\\N{HANGUL SYLLABLE G}'", "'\\N{CJK UNIFIED IDEOGRAPH-3400}'", "'\\N{CJK UNIFIED IDEOGRAPH-4DBF}'", "'\\N{CJK UNIFIED IDEOGRAPH-4DC0}'", "'\\N{CJK UNIFIED IDEOGRAPH-9FFF}'", "'\\N{CJK UNIFIED IDEOGRAPH-A000}'", "'\\N{CJK UNIFIED IDEOGRAPH-20000}'", "'\\N{CJK UNIFIED IDEOGRAPH-2A6DF}'", "'\\N{CJK UNIFIED IDEOGRAPH-2A6E0}'", "'\\N{CJK UNIFIED IDEOGRAPH-30000}'", "'\\N{CJK UNIFIED IDEOGRAPH-3134A}'", "'\\N{CJK UNIFIED IDEOGRAPH-3134B}'", "'\\N{CJK UNIFIED IDEOGRAPH-004E00}'", "'\\N{CJK UNIFIED IDEOGRAPH-4E00 }'", "'\\N{CJK UNIFIED IDEOGRAPH- 4E00}'", "'\\N{CJK UNIFIED IDEOGRAPH-+4E00}'",
 "'\\N{TANGUT IDEOGRAPH-17000}'", "'\\N{KHITAN SMALL SCRIPT CHARACTER-18B00}'", "'\\N{NUSHU CHARACTER-1B170}'", "'\\N{CJK COMPATIBILITY IDEOGRAPH-2F800}'", "'\\N{CJK COMPATIBILITY IDEOGRAPH-FA6E}'", "'\\N{CJK COMPATIBILITY IDEOGRAPH-FA70}'", "'\\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}'", "'\\N{KEYCAP NUMBER SIGN}'", "'\\N{<control>}'", "'\\N{<CJK Ideograph>}'", "'\\N{NULL}'", "'\\N{null}'", "'\\N{nul}'", "'\\N{PADDING CHARACTER}'", "'\\N{PAD}'", "'\\N{HIGH OCTET PRESET}'", "'\\N{XXX}'", "'\\N{SINGLE GRAPHIC CHARACTER INTRODUCER}'", "'\\N{SGC}'", "'\\N{ZWNJ}'", "'\\N{ZWJ}'", "'\\N{WJ}'", "'\\N{LRM}'", "'\\N{FVS1}'", "'\\N{VS1}'", "'\\N{VS256}'", "'\\N{VS257}'", "'\\N{HANGUL JUNGSEONG O-E}'", "'\\N{TIBETAN MARK BSKA- SHOG GI MGO RGYAN}'", "'\\N{BYZANTINE MUSICAL SYMBOL FHTORA SKLIRON CHROMA VASIS}'", "'\\N{LATIN SMALL LETTER GHA}'", "'\\N{MICRO SIGN}'", "'\\N{KELVIN SIGN}'", "'\\N{PRESENTATION FORM FOR VERTICAL RIGHT WHITE LENTICULAR BRAKCET}'", "'\\N{PRESENTATION FORM FOR VERTICAL RIGHT WHITE LENTICULAR BRACKET}'", "'\\N{EGYPTIAN HIEROGLYPH A001}'", "'\\N{EGYPTIAN HIEROGLYPH-13000}'", "'\\N{HANGUL SYLLABLE HIH}'", "'\\N{HANGUL SYLLABLE PWILH}'",
 "'\\N{SPACE }'", "'\\N{SPACE}\\N{SPACE}'", "'\\N{\\N{SPACE}}'", "'\\N{SP\\\nACE}'", "'\\N{SPACE'", "'\\N SPACE'", "'\\N{SPAC E}'", "'\\N{ÉLAN}'", "'\\N{SPACE\\x00}'",
 "f'{x!r:{y!r:{z}}}'", "f'{x:{y}:{z}}'", "f'{x:{{}'", "f'{x:{y}}}'", "f'{x!r:}}}'", "f'{x}{'", "f'{{}'", "f'{x:{'", "f'{x:{}}'", "f'{x:{ }}'", "f'{x:{y:}}'", "f'{x!s=}'", "f'{x=!s:}'", "f'{x=:{y}}'", "f'{=}'", "f'{=x}'", "f'{!r}'", "f'{:x}'", "f'{x!r!s}'", "f'{x::}'", "f'{x:=:}'", "f'{(x:=1):}'", "f'{x!r:=}'", "f'{x:!}'", "f'{x:{y=}!r}'", "f'{x}}}'", "f'{{{x}'",
 "f'{x:\\N{EN DASH}}'", "f'\\N{EN DASH}{x}'", "f'\\N{DASH}{x}'", "f'{x}\\N{'", "f'\\N{{x}}'", "f'\\N{x}'", "rf'\\N{x}'", "f'{x:\\x41}'", "f'{x:\\}'", "f'{x:\\{}'", "f'{x:{{\\n}}}'", "f'\\{x\\}'", "f'{x\\}'", "f'{\"\\\\\"}'",
 "f'''{x!r\n}'''", "f'''{x\n!r}'''", "f'''{x:\n}'''", "f'''{x=\n}'''", "f'''{\nx=}'''", "f'{x=   }'", "f'{ x=}'", "f'{x =\t}'", "f'{x!r }'", "f'{x !r :>3}'", "f'{x! r}'", "f'{ !r}'",
 "f'{x[\"a\"]}'", "f\"{x['a']}\"", "f'{x[\\'a\\']}'", "f'{\"a\" \"b\"}'", "f'{\"\"}'", "f'{\"{\"}'", "f'{\"}\"}'", "f'{\"{{\"}'", "f'{\"!\"}'", "f'{\":\"}'", "f'{\"#\"}'", "f'{x:\"#\"}'", "f'{x:#}'", "f'{x:{\"#\"}}'", "f'{{#}}'", "f'#{x}'",
 "f'{(x:=1)=}'", "f'{x:=1=}'", "f'{(x, y)=}'", "f'{x, y=}'", "f'{lambda: 1}'", "f'{(lambda: 1)}'", "f'{lambda x: 1}'", "f'{x if y else z}'", "f'{x if y else z:}'", "f'{yield x}'", "f'{await x}'", "f'{*x}'", "f'{**x}'", "f'{x, *y}'",
 "f'{f\"{1}\"}'", "f'{f\"{f'{1}'}\"}'", "f'{rf\"{1}\"}'", "f'{b\"x\"}'", "f'{u\"x\"}'", "f'{1!r}{2!s}{3!a}'", "f'{1}' 'x' f'{2}'", "'x' f'{1}' b'y'", "f'{1}' u'x'", "u'x' f'{1}'",
]


def nfkc_seeds() -> list[str]:
    """Every single-character NFKC spoof of every allowed name (plus the two multi-letter ones)."""
    contexts = {"capture": "{}['k'] == 'v'", "exit_code": "{} > 0", "walltime_sec": "{} > 0", "peak_vram_mib": "{} > 0",
                "math": "{}.isnan(1.0)", "float": "{}(capture['k'])", "int": "{}(capture['k'])",
                "len": "{}(capture['k'])", "isnan": "math.{}(1.0)", "isinf": "math.{}(1.0)"}
    out = []
    for name, ctx in contexts.items():
        for i, letter in enumerate(name):
            for variant in NFKC_ASCII.get(letter, []):
                if i == 0 and not variant.isidentifier():
                    continue
                out.append(ctx.replace("{}", name[:i] + variant + name[i + 1:]))
    out += ["e\u217at_code > 0", "\ufb02oat(capture['k'])", "\u217a", "e\u217a"]
    return out

def nested_fstring_seeds() -> list[str]:
    return [
        "f'{f\"{x}\"}'",
        "f'''{f'{f\"{x}\"}'}'''",
        "f'''{f\"\"\"{f'{f\"{x}\"}'}\"\"\"}'''",
        "f'{" + "(" * 150 + "x" + ")" * 50 + "}'",
        "(" * 120 + "f'{" + "(" * 60 + "x" + ")" * 60 + "}'" + ")" * 2,
        "(" * 127 + "1" + ")" * 127,
        "(" * 128 + ")" * 128,
        "(" * 200,
        "(" * 201,
        "[" * 201,
        "{" * 199 + "}",
        "-" * 255 + "1",
        "-" * 256,
        "not " * 63 + "1",
        "~" * 255 + "1",
        "capture[" * 25 + "'k'" + "]" * 25,
        "float(" * 40 + "1" + ")" * 40,
        "lambda:" * 36 + "0",
        "1+" * 127 + "1",
        "1<" * 127 + "1",
        "a." * 120 + "b",
        "x[" * 85 + "]" * 85,
        # CPython's second (error-reporting) parser pass overflows its stack here: a bare MemoryError,
        # which the original would not even turn into a SandboxError. Still a syntax verdict.
        "{" * 22 + "x" + "{" * 178 + "1",
        "{" * 22 + "\ub1ed" + "{" * 178 + "1",
    ]


def length_seeds() -> list[str]:
    out = []
    for n in (254, 255, 256, 257):
        body = "capture['" + "a" * (n - len("capture['']")) + "']"
        out.append(body)
        out.append(" " + body + " ")
        out.append("\x1c" + body + "\x85")
        out.append("\ufeff" + body)
        out.append(body + "\ufeff")
        astral = "capture['" + "\U0001F600" * (n - len("capture['']")) + "']"
        out.append(astral)
    out.append("1" + " + 1" * 70)
    out.append("1" + " + 1" * 63 + "  ")
    out.append("exit_code" + " " * 245 + "== 1")
    out.append("exit_code == 0  # " + "c" * 238)
    out.append("exit_code == 0  # " + "c" * 239)
    out.append("\u3000" * 300 + "exit_code" + "\u3000" * 300)
    return out


# --------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------


def fix_trailing_backslash(body: str) -> str:
    """A literal body must not end in an odd number of backslashes (it would escape the quote)."""
    n = len(body) - len(body.rstrip("\\"))
    return body + "\\" if n % 2 else body


def fix_surrogate_pairs(s: str) -> str:
    """Never emit a high surrogate directly followed by a low one: JSON would fuse them into one astral
    character on the JS side while CPython sees two lone surrogates."""
    out = []
    for c in s:
        if out and 0xDC00 <= ord(c) <= 0xDFFF and 0xD800 <= ord(out[-1]) <= 0xDBFF:
            out.append(" ")
        out.append(c)
    return "".join(out)


def verdict_class(v: dict) -> str:
    if v["valid"]:
        return "valid"
    if v["kind"] in WALKER_KINDS:
        return "walker"
    return "other"


def syntax_span(cond: str) -> dict:
    """CPython's SyntaxError position fields for a condition the oracle calls a syntax error."""
    import ast
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(cond.strip(), mode="eval")
        except SyntaxError as exc:
            return {"lineno": exc.lineno, "offset": exc.offset, "end_lineno": exc.end_lineno, "end_offset": exc.end_offset}
        except BaseException:  # ValueError etc.: no position
            pass
    return {"lineno": None, "offset": None, "end_lineno": None, "end_offset": None}


# Issue 13 section 1: one literal example of each syntax-error class it names, so the syntax corpus
# holds them whatever the random branches draw (the classes found while closing the gap included).
ISSUE13_SYNTAX_SEEDS = [
    "(*x)", "(**x)", "capture.get(k=1, y)", "capture.get(**k, y)", "[,", "0\u00ad", "(.5or1)", "'\\N{}'",
    "b'\\u12''\\u12'", "b'a' 'b'", "'a' b'b'", "b'\u00e9'", "'\\x4'", "'\\N{EN DASH'",
    "lambda a=1, b: 0", "lambda *: 0", "lambda (a): 0", "lambda **a, b: 0", "lambda a, /*: 0",
    "[x for 1 in y]", "[x for f() in y]", "[x for x iny]", "{*a 1}", "N{a b}", "[c b]", "{**a for a in b}",
    "f'{a b}'", "f'{*a}'", "f'{3.real}'", "f'{lambda x: 1}'", "f\"{f'{x'}\"",
    "x +\\\n y \\z", "1\u0661", "1andx", "1é", "int(c\napture['x'], 16)", "f(1, x for x in y)",
    "f(a=x for x in y)", "#c\n  x )", "'x' \\\n+ 'é' \\\n+ None = 1",
]


def generate(seed: int, count: int, emit, stats: dict | None = None, syntax_only: bool = False) -> dict:
    g = Gen(seed)
    seen: set[str] = set()
    caps = {"valid": int(count * 0.36), "walker": int(count * 0.36), "other": int(count * 0.36)}
    if syntax_only:
        # The syntax-error corpus: only records CPython rejects with a SyntaxError, with its span.
        caps = {"valid": 0, "walker": 0, "other": count}
    # make sure the caps can always add up to count
    while sum(caps.values()) < count:
        caps["other"] += 1
    used = collections.Counter()
    kinds = collections.Counter()
    nodes = collections.Counter()
    origins = collections.Counter()
    produced = 0

    def offer(cond: str, origin: str, force: bool = False) -> bool:
        nonlocal produced
        if produced >= count:
            return False
        cond = fix_surrogate_pairs(cond)
        if cond in seen:
            return False
        v = verdict(cond)
        cls = verdict_class(v)
        if syntax_only and v["kind"] != "syntax":
            return False
        if not force and used[cls] >= caps[cls]:
            return False
        if syntax_only:
            v = {**v, **syntax_span(cond)}
        seen.add(cond)
        used[cls] += 1
        kinds[v["kind"]] += 1
        if v["node"]:
            nodes[v["node"]] += 1
        origins[":".join(origin.split("+")[0].split(":")[:2])] += 1
        produced += 1
        g.recent.append(cond)
        emit({"condition": cond, "origin": origin, **v})
        return True

    # 1. seeds (always first; small enough to never hit a cap)
    seeds = HOSTILE + [c for c, _ in EXPECTED] + DOC_ALLOWED + EDGE_SEEDS + nested_fstring_seeds() + length_seeds()
    for s in seeds:
        offer(s, "seed", force=True)
    for s in PROBE_SEEDS:
        offer(s, "seed:probe", force=True)
    for s in nfkc_seeds():
        offer(s, "seed:nfkc", force=True)
    if syntax_only:
        for s in ISSUE13_SYNTAX_SEEDS:
            offer(s, "seed:issue13", force=True)
    seed_pool = [s for s in seeds + PROBE_SEEDS if s]

    branches = [
        (26, "allowed"), (20, "walker"), (12, "grammar"), (10, "lexical"), (6, "unicode"), (4, "layout"),
        (3, "length"), (3, "nesting"), (12, "mutate"), (4, "soup"),
    ]
    if syntax_only:
        # Weighted towards the branches that produce syntax errors.
        branches = [(4, "allowed"), (2, "walker"), (14, "grammar"), (16, "lexical"), (8, "unicode"), (8, "layout"),
                    (2, "length"), (3, "nesting"), (26, "mutate"), (17, "soup")]
    attempts = 0
    max_attempts = count * 200 + 10000
    while produced < count and attempts < max_attempts:
        attempts += 1
        br = g.wch(branches)
        g.pending = []
        g.spoof = 0.0
        g.brk = 0
        g.fstack = []
        try:
            if br == "allowed":
                text, origin = g.b_allowed()
            elif br == "walker":
                text, origin = g.walker_expr()
            elif br == "grammar":
                text, origin = g.b_grammar()
            elif br == "lexical":
                text, origin = g.b_lexical() if g.p(0.6) else g.b_literal_soup()
            elif br == "soup":
                text, origin = g.b_soup()
            elif br == "unicode":
                text, origin = g.b_unicode()
            elif br == "layout":
                text, origin = g.b_layout()
            elif br == "length":
                text, origin = g.b_length()
            elif br == "nesting":
                text, origin = g.b_nesting()
            else:
                src = g.r.choice(seed_pool) if g.p(0.25) or not g.recent else g.r.choice(list(g.recent))
                text, op = g.mutate(src)
                origin = "mutate:" + op
                if g.p(0.3):
                    text, op2 = g.mutate(text)
                    origin += "+" + op2
        except RecursionError:
            continue
        if len(text) > 1200:
            continue
        if len(text.strip()) > 256 and br not in ("length", "nesting") and g.p(0.85):
            continue  # keep some over-long random expressions, but not too many
        offer(text, origin)
    if produced < count:
        raise SystemExit(f"gen_condition_corpus: only produced {produced}/{count} records after {attempts} attempts")
    result = {"kinds": kinds, "nodes": nodes, "origins": origins, "classes": used, "attempts": attempts}
    if stats is not None:
        stats.update(result)
    return result


def self_check() -> None:
    """Oracle sanity checks against the facts recorded in the original's src/aorta/probe/sandbox.py / tests/probe/test_sandbox.py (ROCm/aorta)"""
    bad = []
    for cond, msg in EXPECTED:
        v = verdict(cond)
        if msg is not None and v["message"] != msg:
            bad.append((cond, msg, v["message"]))
    if verdict("capture[")["kind"] != "syntax" or verdict("1" + " + 1" * 70)["kind"] != "too-long":
        bad.append(("capture[ / length", "syntax / too-long", "mismatch"))
    for ok in DOC_ALLOWED[:11]:
        if not verdict(ok)["valid"]:
            bad.append((ok, "ok", verdict(ok)["message"]))
    if verdict(42)["message"] != "condition: must be a string, got int":
        bad.append(("42", "not-a-string", verdict(42)["message"]))
    if bad:
        for b in bad:
            print("self-check FAILED:", b, file=sys.stderr)
        raise SystemExit(3)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=24000)
    dest = ap.add_mutually_exclusive_group()
    dest.add_argument("--out", help="write the JSONL corpus to this file")
    dest.add_argument("--stdout", action="store_true", help="stream JSONL records to stdout")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    ap.add_argument("--syntax-only", action="store_true",
                    help="only syntax errors, each with CPython's lineno/offset/end_lineno/end_offset")
    args = ap.parse_args(argv)
    if not args.out and not args.stdout:
        ap.error("one of --out FILE or --stdout is required")
    if args.count < 1:
        ap.error("--count must be >= 1")
    if args.syntax_only and not args.out:
        ap.error("--syntax-only writes a golden file: use --out FILE")

    t0 = time.perf_counter()
    self_check()
    if args.stdout:
        fh = sys.stdout
    else:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        fh = open(args.out + ".tmp", "w", encoding="ascii", newline="\n")
    nbytes = 0

    def emit(rec: dict) -> None:
        nonlocal nbytes
        line = dumps(rec) + "\n"
        nbytes += len(line)
        fh.write(line)
        if args.stdout:
            fh.flush()

    if args.out:
        # Goldens carry their provenance so the test needs no Python.
        only = " --syntax-only" if args.syntax_only else ""
        emit({"meta": meta(
            "scripts/gen_condition_corpus.py",
            f"python3 scripts/gen_condition_corpus.py{only} --seed {args.seed} --count {args.count} --out {args.out}",
            oracle="CPython ast.parse(mode='eval') via scripts/cpython_oracle.py",
            records=args.count,
        )})
    try:
        stats = generate(args.seed, args.count, emit, syntax_only=args.syntax_only)
    except BrokenPipeError:
        return 0
    if not args.stdout:
        fh.close()
        os.replace(args.out + ".tmp", args.out)
    elapsed = time.perf_counter() - t0
    if not args.quiet:
        n = args.count
        err = sys.stderr
        print(f"gen_condition_corpus: seed {args.seed}, {n} records, {nbytes / 1e6:.2f} MB, {elapsed:.1f} s "
              f"({stats['attempts']} candidates)", file=err)
        cls = stats["classes"]
        print("  classes: " + ", ".join(f"{k} {cls[k]} ({100 * cls[k] / n:.1f}%)" for k in ("valid", "walker", "other")),
              file=err)
        print("  kinds:   " + ", ".join(f"{k} {c}" for k, c in stats["kinds"].most_common()), file=err)
        print("  nodes:   " + ", ".join(f"{k} {c}" for k, c in stats["nodes"].most_common(40)), file=err)
        print(f"           ({len(stats['nodes'])} distinct node types)", file=err)
        print("  origins: " + ", ".join(f"{k} {c}" for k, c in stats["origins"].most_common(40)), file=err)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
