#!/usr/bin/env python3
"""Generate src/condition/unicode-tables.ts and fixtures/unicode/golden-unicode.json.

Usage (from the repository root):

    python3 scripts/gen_unicode_tables.py

The condition-language tokenizer must behave exactly like CPython 3.11, whose
Unicode database is 14.0.0. The JS engine's own Unicode data (ICU, used by
`\\p{ID_Start}` etc.) is newer, so every Unicode fact the tokenizer needs is
generated here from the running CPython, which is the ground truth:

* isXidStart / isXidContinue: `str.isidentifier()` (i.e. `_PyUnicode_IsXidStart`
  and `_PyUnicode_IsXidContinue`, used by the tokenizer's `verify_identifier`).
* isPySpace: `str.isspace()` (what `str.strip()` strips).
* isPrintable: `str.isprintable()` (`Py_UNICODE_ISPRINTABLE`, which picks
  "invalid character '%c'" vs "invalid non-printable character").
* lookupUnicodeName: the names the `\\N{...}` escape of a str literal accepts.
  The alias list is not exposed by `unicodedata`, so it is read from
  unicodedata's own name C-API capsule (`unicodedata._ucnhash_CAPI`): the
  aliases and named sequences live in Private Use code points U+F0000.. of its
  name table.  Every expected value in the golden file is established by
  actually evaluating a `"\\N{...}"` literal.

The output is deterministic: it depends only on the CPython build.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
import unicodedata

import golden_meta

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TS_OUT = os.path.join(ROOT, "src", "condition", "unicode-tables.ts")
GOLDEN_OUT = os.path.join(ROOT, "fixtures", "unicode", "golden-unicode.json")
GENERATOR_CMD = "python3 scripts/gen_unicode_tables.py"

MAX_CP = 0x10FFFF

if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
    sys.exit("gen_unicode_tables.py must run under CPython 3.11 (the tokenizer's reference), "
             f"not {sys.implementation.name} {sys.version.split()[0]}")

# --------------------------------------------------------------------------
# unicodedata's name C API (struct _PyUnicode_Name_CAPI in CPython 3.11)
# --------------------------------------------------------------------------


class _NameCAPI:
    GETNAME = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
    GETCODE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                               ctypes.POINTER(ctypes.c_uint32), ctypes.c_int)

    class Struct(ctypes.Structure):
        pass

    Struct._fields_ = [("getname", GETNAME), ("getcode", GETCODE)]

    def __init__(self) -> None:
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype = ctypes.c_void_p
        get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        ptr = get_pointer(unicodedata._ucnhash_CAPI, b"unicodedata._ucnhash_CAPI")
        self._api = self.Struct.from_address(ptr)

    def getname(self, cp: int, with_alias_and_seq: bool) -> str | None:
        buf = ctypes.create_string_buffer(300)
        if self._api.getname(cp, buf, 300, 1 if with_alias_and_seq else 0):
            return buf.value.decode("ascii")
        return None

    def getcode(self, name: str, with_named_seq: bool) -> int | None:
        raw = name.encode("utf-8")
        out = ctypes.c_uint32(0xFFFFFFFF)
        if self._api.getcode(raw, len(raw), ctypes.byref(out), 1 if with_named_seq else 0):
            return out.value
        return None


def eval_named_escape(name: str) -> int | None:
    """Ground truth: the code point `"\\N{name}"` yields in a str literal, or None if rejected."""
    assert not any(ch in name for ch in '"\\}\n\r\0'), repr(name)
    try:
        value = eval('"\\N{' + name + '}"')  # noqa: S307 - fixed shape, vetted characters
    except SyntaxError:
        return None
    assert len(value) == 1
    return ord(value)


# --------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------


def predicate_values() -> dict[str, list[bool]]:
    chars = [chr(cp) for cp in range(MAX_CP + 1)]
    values = {
        "isXidStart": [c.isidentifier() and c != "_" for c in chars],
        "isXidContinue": [("a" + c).isidentifier() for c in chars],
        "isPySpace": [c.isspace() for c in chars],
        "isPrintable": [c.isprintable() for c in chars],
    }
    # Cross-checks against the definitions in CPython's makeunicodedata.py.
    for cp, c in enumerate(chars):
        cat = unicodedata.category(c)
        space = unicodedata.bidirectional(c) in ("WS", "B", "S") or cat == "Zs"
        printable = cat not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs") or c == " "
        assert values["isPySpace"][cp] == space, hex(cp)
        assert values["isPrintable"][cp] == printable, hex(cp)
        assert not values["isXidStart"][cp] or values["isXidContinue"][cp], hex(cp)
    return values


def to_ranges(flags: list[bool]) -> list[int]:
    """Flattened half-open ranges [start0, end0, start1, end1, ...] of the True code points."""
    out: list[int] = []
    cp = 0
    n = len(flags)
    while cp < n:
        if flags[cp]:
            start = cp
            while cp < n and flags[cp]:
                cp += 1
            out += [start, cp]
        else:
            cp += 1
    return out


def transitions(flags: list[bool]) -> dict:
    """Golden form, derived separately: value at 0 plus every cp where the value flips."""
    return {
        "initial": flags[0],
        "transitions": [cp for cp in range(1, len(flags)) if flags[cp] != flags[cp - 1]],
    }


# --------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------

SBASE, LCOUNT, VCOUNT, TCOUNT = 0xAC00, 19, 21, 28
HANGUL_PREFIX = "HANGUL SYLLABLE "
CJK_PREFIX = "CJK UNIFIED IDEOGRAPH-"

# Characters that may follow the front-coding "prefix digit"; everything else in
# printable ASCII except '"' and '\\' serves as a prefix digit (55 of them).
NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -")
PREFIX_DIGITS = "".join(ch for ch in map(chr, range(0x21, 0x7F)) if ch not in NAME_CHARS and ch not in '"\\')


class NameData:
    def __init__(self) -> None:
        api = _NameCAPI()
        self.all_names: dict[int, str] = {}
        for cp in range(MAX_CP + 1):
            n = unicodedata.name(chr(cp), None)
            if n is not None:
                self.all_names[cp] = n
                assert api.getname(cp, False) == n
        # Algorithmic names generated by CPython's _getucname (not in its phrasebook).
        self.hangul = [cp for cp, n in self.all_names.items() if n.startswith(HANGUL_PREFIX)]
        assert self.hangul == list(range(SBASE, SBASE + LCOUNT * VCOUNT * TCOUNT))
        cjk = [cp for cp, n in self.all_names.items() if n.startswith(CJK_PREFIX)]
        for cp in cjk:
            assert self.all_names[cp] == f"{CJK_PREFIX}{cp:X}"
        self.cjk_ranges = to_ranges_of(cjk)
        # Jamo short names, derived from the syllable names and checked against the
        # table hard-coded in unicodedata.c (hangul_syllables[][3]).
        ieung = 11

        def syl(l: int, v: int, t: int) -> str:
            return self.all_names[SBASE + (l * VCOUNT + v) * TCOUNT + t][len(HANGUL_PREFIX):]

        self.jamo_l = [syl(l, 0, 0)[:-1] for l in range(LCOUNT)]  # V=A, T=''
        self.jamo_v = [syl(ieung, v, 0) for v in range(VCOUNT)]  # L=''
        self.jamo_t = [syl(ieung, 0, t)[1:] for t in range(TCOUNT)]  # L='', V=A
        assert self.jamo_l == "G GG N D DD R M B BB S SS _ J JJ C K T P H".replace("_", "").split(" ")
        assert self.jamo_v == "A AE YA YAE EO E YEO YE O WA WAE OE YO U WEO WE WI YU EU YI I".split(" ")
        assert self.jamo_t == ("_ G GG GS N NJ NH D L LG LM LB LS LT LP LH M B BS S SS NG J C K T P H"
                               .replace("_", "").split(" "))
        for l in range(LCOUNT):
            for v in range(VCOUNT):
                for t in range(TCOUNT):
                    assert syl(l, v, t) == self.jamo_l[l] + self.jamo_v[v] + self.jamo_t[t]

        # Names stored in the phrasebook. Those of the form PREFIX + "%04X" % cp
        # (CJK COMPATIBILITY IDEOGRAPH-, KHITAN SMALL SCRIPT CHARACTER-, NUSHU
        # CHARACTER-) are emitted as code point ranges per prefix instead.
        self.explicit: dict[int, str] = {}
        hex_named: dict[str, list[int]] = {}
        for cp, n in self.all_names.items():
            if n.startswith(HANGUL_PREFIX) or n.startswith(CJK_PREFIX):
                continue
            assert set(n) <= NAME_CHARS and n == n.strip() and "  " not in n, n
            m = re.fullmatch(r"(.*-)([0-9A-F]{4,6})", n)
            if m and m.group(2) == f"{cp:04X}":
                hex_named.setdefault(m.group(1), []).append(cp)
            else:
                self.explicit[cp] = n
        self.hex_named = {p: to_ranges_of(cps) for p, cps in sorted(hex_named.items())}

        # Aliases and named sequences: PUA code points in unicodedata's name table.
        self.aliases: list[tuple[str, int]] = []
        self.named_sequences: list[str] = []
        for pua in range(0xF0000, 0xF1000):
            n = api.getname(pua, True)
            if n is None:
                continue
            assert set(n) <= NAME_CHARS, n
            target = api.getcode(n, False)
            if target is None:
                assert api.getcode(n, True) == pua  # named sequence: only with_named_seq
                assert len(unicodedata.lookup(n)) > 1
                self.named_sequences.append(n)
            else:
                assert ord(unicodedata.lookup(n)) == target
                self.aliases.append((n, target))
        assert len(self.aliases) > 400 and len(self.named_sequences) > 400

        keys = [n for n in self.explicit.values()] + [n for n, _ in self.aliases]
        keys += [p + f"{cp:04X}" for p, r in self.hex_named.items() for cp in expand(r)]
        assert len(keys) == len(set(keys)), "duplicate names"
        assert not any(k.startswith(HANGUL_PREFIX) or k.startswith(CJK_PREFIX) for k in keys)


def to_ranges_of(cps: list[int]) -> list[int]:
    out: list[int] = []
    for cp in sorted(cps):
        if out and out[-1] == cp:
            out[-1] = cp + 1
        else:
            out += [cp, cp + 1]
    return out


def expand(ranges: list[int]) -> list[int]:
    return [cp for i in range(0, len(ranges), 2) for cp in range(ranges[i], ranges[i + 1])]


def front_code(names: list[str]) -> list[str]:
    """Front coding: each entry = PREFIX_DIGITS[k] + name[k:], k = shared prefix with the previous name."""
    out = []
    prev = ""
    cap = len(PREFIX_DIGITS) - 1
    for n in names:
        k = 0
        limit = min(len(n), len(prev), cap)
        while k < limit and n[k] == prev[k]:
            k += 1
        out.append(PREFIX_DIGITS[k] + n[k:])
        prev = n
    return out


def front_decode(text: str) -> list[str]:
    out = []
    prev = ""
    i = 0
    while i < len(text):
        k = PREFIX_DIGITS.index(text[i])
        j = i + 1
        while j < len(text) and text[j] in NAME_CHARS:
            j += 1
        prev = prev[:k] + text[i + 1:j]
        out.append(prev)
        i = j
    return out


def runs_of(cps: list[int]) -> list[int]:
    """[start0, count0, start1, count1, ...] for a sorted list of code points."""
    out: list[int] = []
    for cp in cps:
        if out and out[-2] + out[-1] == cp:
            out[-1] += 1
        else:
            out += [cp, 1]
    return out


# --------------------------------------------------------------------------
# TypeScript output
# --------------------------------------------------------------------------


def fmt_numbers(nums: list[int], per_line: int = 12, indent: str = "  ") -> str:
    lines = []
    for i in range(0, len(nums), per_line):
        lines.append(indent + ", ".join(f"0x{n:X}" for n in nums[i:i + per_line]) + ",")
    return "\n".join(lines)


def fmt_range_table(name: str, doc: str, ranges: list[int]) -> str:
    return (f"/** {doc} ({len(ranges) // 2} ranges). */\n"
            f"const {name}: readonly number[] = [\n{fmt_numbers(ranges, per_line=10)}\n];\n")


def chunk_entries(entries: list[str], width: int = 110) -> list[str]:
    chunks: list[str] = []
    cur = ""
    for e in entries:
        if cur and len(cur) + len(e) > width:
            chunks.append(cur)
            cur = ""
        cur += e
    if cur:
        chunks.append(cur)
    return chunks


def js_str(s: str) -> str:
    return json.dumps(s)


TS_RUNTIME = r'''
function inRanges(table: readonly number[], cp: number): boolean {
  // Binary search for the number of boundaries <= cp; odd means cp lies in some [start, end).
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table[mid]! <= cp) lo = mid + 1;
    else hi = mid;
  }
  return (lo & 1) === 1;
}

/** `_PyUnicode_IsXidStart`: a valid first identifier character other than `_` (false for `_`). */
export function isXidStart(cp: number): boolean {
  return inRanges(XID_START, cp);
}

/** `_PyUnicode_IsXidContinue`: a valid non-first identifier character (includes `_` and digits). */
export function isXidContinue(cp: number): boolean {
  return inRanges(XID_CONTINUE, cp);
}

/** Python `str.isspace()` for one code point (`Py_UNICODE_ISSPACE`; what `str.strip()` removes). */
export function isPySpace(cp: number): boolean {
  return inRanges(PY_SPACE, cp);
}

/** Python `str.isprintable()` for one code point (`Py_UNICODE_ISPRINTABLE`). */
export function isPrintable(cp: number): boolean {
  return inRanges(PRINTABLE, cp);
}

/** PREFIX_DIGITS index of each ASCII code unit, -1 for name characters. */
const DIGIT = new Int8Array(128).fill(-1);
for (let d = 0; d < PREFIX_DIGITS.length; d++) DIGIT[PREFIX_DIGITS.charCodeAt(d)] = d;

/** Decoded groups (name remainder -> code point), filled on first use of each group. */
const groupCache: (Map<string, number> | undefined)[] = [];

function decodeGroup(g: number): Map<string, number> {
  const [, runs, chunks] = NAME_GROUPS()[g]!;
  const map = new Map<string, number>();
  const text = chunks.join("");
  let prev = "";
  let i = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const end = runs[r]! + runs[r + 1]!;
    for (let cp = runs[r]!; cp < end; cp++) {
      const keep = DIGIT[text.charCodeAt(i)]!;
      let j = i + 1;
      while (j < text.length && DIGIT[text.charCodeAt(j)]! < 0) j++;
      prev = prev.slice(0, keep) + text.slice(i + 1, j);
      map.set(prev, cp);
      i = j;
    }
  }
  if (i !== text.length) throw new Error("unicode-tables: corrupt NAME_GROUPS entry " + g);
  return map;
}

function lookupStoredName(upper: string): number | undefined {
  const space = upper.indexOf(" ");
  const key = space < 0 ? upper : upper.slice(0, space);
  const groups = NAME_GROUPS();
  let lo = 0;
  let hi = groups.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (groups[mid]![0] < key) lo = mid + 1;
    else hi = mid;
  }
  if (lo === groups.length || groups[lo]![0] !== key) return undefined;
  const map = (groupCache[lo] ??= decodeGroup(lo));
  return map.get(upper.slice(key.length));
}

let aliasMap: Map<string, number> | undefined;

/** Names found in CPython's name table (matched on the ASCII-upper-cased name). */
function lookupUpper(upper: string): number | undefined {
  for (const [prefix, ranges] of HEX_NAMED) {
    if (!upper.startsWith(prefix)) continue;
    const hex = upper.slice(prefix.length);
    const cp = parseInt(hex, 16);
    // Exactly the stored spelling: %04X of a code point in one of the ranges.
    if (/^[0-9A-F]+$/.test(hex) && cp.toString(16).toUpperCase().padStart(4, "0") === hex && inRanges(ranges, cp)) {
      return cp;
    }
  }
  const cp = lookupStoredName(upper);
  if (cp !== undefined) return cp;
  aliasMap ??= new Map(aliases());
  return aliasMap.get(upper);
}

/** `find_syllable` of unicodedata.c: longest (first on ties) case-sensitive match at `pos`. */
function findSyllable(s: string, pos: number, table: readonly string[]): [length: number, index: number] {
  let len = -1;
  let index = -1;
  for (let i = 0; i < table.length; i++) {
    const jamo = table[i]!;
    if (jamo.length <= len) continue;
    if (s.startsWith(jamo, pos)) {
      len = jamo.length;
      index = i;
    }
  }
  return [len < 0 ? 0 : len, index];
}

const NAME_SHAPE = /^[A-Za-z0-9 -]+$/;
const CJK_HEX = /^[0-9A-F]{4,5}$/;

/**
 * The code point that `\N{name}` denotes in a CPython 3.11 str literal, or undefined if CPython
 * rejects the escape ("unknown Unicode character name", or "malformed \N character escape" for
 * an empty name). `name` is the exact source text between `\N{` and the first `}`.
 *
 * - Character names, name aliases (NameAliases.txt: control, correction, figment, alternate and
 *   abbreviation aliases such as "LF", "BOM", "NBSP") are matched ASCII-case-insensitively,
 *   with spaces and hyphens exactly as in the name (no loose matching).
 * - "HANGUL SYLLABLE " + jamo and "CJK UNIFIED IDEOGRAPH-" + 4 or 5 hex digits are computed;
 *   here the prefix, the jamo and the hex digits are case-sensitive (upper case only).
 * - Named sequences and unassigned/unnamed code points (e.g. TANGUT IDEOGRAPH-17000) are rejected.
 */
export function lookupUnicodeName(name: string): number | undefined {
  // CPython upper-cases ASCII only, and turns non-ASCII source characters into "\UXXXXXXXX"
  // text before decoding escapes, so no name with other characters can ever match.
  if (!NAME_SHAPE.test(name)) return undefined;
  if (name.startsWith("HANGUL SYLLABLE ")) {
    let pos = 16;
    const [lLen, l] = findSyllable(name, pos, HANGUL_L);
    pos += lLen;
    const [vLen, v] = findSyllable(name, pos, HANGUL_V);
    pos += vLen;
    const [tLen, t] = findSyllable(name, pos, HANGUL_T);
    pos += tLen;
    if (l < 0 || v < 0 || t < 0 || pos !== name.length) return undefined;
    return 0xac00 + (l * 21 + v) * 28 + t;
  }
  if (name.startsWith("CJK UNIFIED IDEOGRAPH-")) {
    const hex = name.slice(22);
    if (!CJK_HEX.test(hex)) return undefined;
    const cp = parseInt(hex, 16);
    return inRanges(CJK_UNIFIED, cp) ? cp : undefined;
  }
  return lookupUpper(name.toUpperCase()); // ASCII-only here, so toUpperCase is Py_TOUPPER
}
'''


def name_groups(nd: NameData) -> list[tuple[str, list[int], list[str]]]:
    """Stored names grouped by first word; per group: key, code point runs, front-coded remainders."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for cp in sorted(nd.explicit):
        n = nd.explicit[cp]
        key = n.split(" ", 1)[0]
        groups.setdefault(key, []).append((cp, n[len(key):]))
    out = []
    for key in sorted(groups):
        cps = [cp for cp, _ in groups[key]]
        rests = [r for _, r in groups[key]]
        entries = front_code(rests)
        assert front_decode("".join(entries)) == rests
        out.append((key, runs_of(cps), chunk_entries(entries)))
    for prefix in nd.hex_named:
        assert not any(n.startswith(prefix) for n in nd.explicit.values()), prefix
    return out


def write_ts(preds: dict[str, list[bool]], nd: NameData) -> str:
    groups = name_groups(nd)
    v = sys.version.split()[0]
    # One JSON text in one string literal, a line continuation (backslash-newline, which adds nothing to the
    # value) after each group: importing the module then scans a single string token instead of pre-parsing
    # ~50,000 tokens of nested array literals, and JSON.parse builds the table on the first \\N{...} only.
    group_json = [json.dumps([key, runs, ["".join(chunks)]], separators=(",", ":")) for key, runs, chunks in groups]
    body = ",".join(js_str(g)[1:-1] + "\\\n" for g in group_json)
    name_groups_literal = '"[\\\n' + body + ']"'
    parts = [
        "// GENERATED FILE - DO NOT EDIT.\n",
        f"// Generated by: {GENERATOR_CMD}\n",
        f"// Source: CPython {v}, unicodedata.unidata_version = {unicodedata.unidata_version}\n",
        "//\n",
        "// Unicode facts the condition tokenizer needs to match CPython 3.11 exactly, independent of\n",
        "// the JS engine's (newer) Unicode/ICU version. Do not use \\p{...} regexes instead.\n",
        "//\n",
        "// Formats (chosen to be small, quick to parse and trivial to decode):\n",
        "// - Code point sets: sorted flattened half-open ranges [start0, end0, start1, end1, ...],\n",
        "//   searched by binary search.\n",
        "// - Character names stored in CPython's name table: NAME_GROUPS, one group per first word\n",
        "//   of the name, sorted by that word. A group is [first word, code point runs as\n",
        "//   [start, count, ...], front-coded name remainders (the name minus the first word, so\n",
        "//   \"\" or starting with a space) in code point order]. Front coding: each entry is one\n",
        "//   PREFIX_DIGITS character k (reuse the first k characters of the previous remainder)\n",
        "//   followed by the rest, whose characters ([A-Z0-9 -]) are never prefix digits. The\n",
        "//   groups are one JSON text in one string literal (NAME_GROUPS_JSON), parsed on the first\n",
        "//   \\N{...}. A lookup binary-searches the first word and decodes only that group (at most\n",
        "//   ~1300 names), once, into a Map, so neither import nor a lookup decodes every name.\n",
        "// - Names that are just PREFIX + %04X of the code point are stored as ranges (HEX_NAMED);\n",
        "//   HANGUL SYLLABLE and CJK UNIFIED IDEOGRAPH names are computed as unicodedata.c does.\n",
        "\n",
        f'export const UNICODE_DATA_VERSION = "{unicodedata.unidata_version}";\n\n',
        fmt_range_table("XID_START", "Code points with `chr(cp).isidentifier()`, except `_`",
                        to_ranges(preds["isXidStart"])), "\n",
        fmt_range_table("XID_CONTINUE", "Code points with `('a' + chr(cp)).isidentifier()`",
                        to_ranges(preds["isXidContinue"])), "\n",
        fmt_range_table("PY_SPACE", "Code points with `chr(cp).isspace()`", to_ranges(preds["isPySpace"])), "\n",
        fmt_range_table("PRINTABLE", "Code points with `chr(cp).isprintable()`",
                        to_ranges(preds["isPrintable"])), "\n",
        fmt_range_table("CJK_UNIFIED", "Code points named algorithmically \"CJK UNIFIED IDEOGRAPH-%X\"",
                        nd.cjk_ranges), "\n",
        "/** Jamo short names of unicodedata.c's hangul_syllables table (L, V, T columns). */\n",
        f"const HANGUL_L: readonly string[] = {json.dumps(nd.jamo_l)};\n",
        f"const HANGUL_V: readonly string[] = {json.dumps(nd.jamo_v)};\n",
        f"const HANGUL_T: readonly string[] = {json.dumps(nd.jamo_t)};\n\n",
        "/** Name prefixes whose names are PREFIX + %04X of the code point, with their code point ranges. */\n",
        "const HEX_NAMED: readonly (readonly [string, readonly number[]])[] = [\n",
        "".join(f"  [{js_str(p)}, [{', '.join(f'0x{n:X}' for n in r)}]],\n" for p, r in nd.hex_named.items()),
        "];\n\n",
        f"/** Name aliases (NameAliases.txt) accepted by \\N{{...}}, with their code points ({len(nd.aliases)}). */\n",
        "// The name tables sit in function bodies, which V8 only pre-parses until the first \\N{...} calls\n",
        "// them: importing the tokenizer then costs a fraction of building ~5,000 arrays.\n",
        "const aliases = (): readonly (readonly [string, number])[] => [\n",
        "".join(f"  [{js_str(n)}, 0x{cp:X}],\n" for n, cp in nd.aliases),
        "];\n\n",
        "/** Front-coding digits: PREFIX_DIGITS[k] starts an entry sharing k characters with the previous one. */\n",
        f"const PREFIX_DIGITS = {js_str(PREFIX_DIGITS)};\n\n",
        f"/** Stored character names by first word ({len(groups)} groups, {len(nd.explicit)} names; see the header). */\n",
        "type NameGroup = readonly [string, readonly number[], readonly string[]];\n",
        "let nameGroups: readonly NameGroup[] | undefined;\n",
        f"const NAME_GROUPS_JSON = {name_groups_literal};\n",
        "const NAME_GROUPS = (): readonly NameGroup[] => (nameGroups ??= JSON.parse(NAME_GROUPS_JSON) as NameGroup[]);\n",
        TS_RUNTIME,
    ]
    return "".join(parts)


# --------------------------------------------------------------------------
# Golden cases (every expectation is the result of evaluating a real literal)
# --------------------------------------------------------------------------


def mixed_case(s: str, seed: int) -> str:
    return "".join(ch.lower() if (i * 7 + seed) % 3 == 0 else ch for i, ch in enumerate(s))


def golden_name_cases(nd: NameData) -> dict[str, list]:
    kinds: dict[str, list[str]] = {}

    def add(kind: str, name: str) -> None:
        kinds.setdefault(kind, []).append(name)

    explicit = sorted(nd.explicit.items())
    for i, (cp, n) in enumerate(explicit):
        if i % 16 == 0 or i == len(explicit) - 1:
            add("explicit", n)
        if i % 37 == 5:
            add("explicit_lowercase", n.lower())
        if i % 41 == 7:
            add("explicit_mixedcase", mixed_case(n, i))
    for i, (n, cp) in enumerate(nd.aliases):
        add("alias", n)
        if i % 4 == 1:
            add("alias_lowercase", n.lower() if i % 8 == 1 else mixed_case(n, i))
    for prefix, ranges in nd.hex_named.items():
        cps = expand(ranges)
        for i, cp in enumerate(cps):
            if i % 23 == 0 or i == len(cps) - 1 or cp in ranges:
                add("hex_named", f"{prefix}{cp:04X}")
            if i % 47 == 3:
                add("hex_named_lowercase", f"{prefix}{cp:04X}".lower())
                add("hex_named_mixedcase", f"{prefix.lower()}{cp:04X}")
        for r in range(0, len(ranges), 2):
            add("hex_named_reject", f"{prefix}{ranges[r] - 1:04X}")
            add("hex_named_reject", f"{prefix}{ranges[r + 1]:04X}")
        add("hex_named_reject", f"{prefix}0{cps[0]:04X}")
        add("hex_named_reject", f"{prefix}{cps[0]:04X} ")
        add("hex_named_reject", f"{prefix}{cps[0]:X}"[:-1])
    for i, cp in enumerate(nd.hangul):
        if i % 7 == 0 or i == len(nd.hangul) - 1:
            add("hangul", nd.all_names[cp])
        if i % 211 == 3:
            n = nd.all_names[cp]
            add("hangul_reject", n.lower())
            add("hangul_reject", n[:16].lower() + n[16:])
            add("hangul_reject", n[:16] + n[16:].lower())
            add("hangul_reject", n + " ")
            add("hangul_reject", n.replace("SYLLABLE ", "SYLLABLE  "))
    jl, jv, jt = nd.jamo_l, nd.jamo_v, nd.jamo_t
    for i in range(200):  # deterministic jamo soup, mostly invalid
        pieces = [jl[(i * 5) % LCOUNT], jl[(i * 3) % LCOUNT] if i % 4 == 0 else "", jv[(i * 7) % VCOUNT],
                  jv[(i * 11) % VCOUNT] if i % 3 == 0 else "", jt[(i * 13) % TCOUNT],
                  jt[(i * 17) % TCOUNT] if i % 5 == 0 else ""]
        add("hangul_soup", HANGUL_PREFIX + "".join(pieces))
    for extra in ["", "A", "GG", "GGG", "GGA", "GAGG", "AGGG", "YI", "WAE", "NGA", "ANG", "GAGS", "G", "X", "GA-"]:
        add("hangul_soup", HANGUL_PREFIX + extra)
    add("hangul_soup", "HANGUL SYLLABLE")
    add("hangul_soup", "HANGUL SYLLABLEGA")
    cjk = expand(nd.cjk_ranges)
    for i, cp in enumerate(cjk):
        if i % 97 == 0 or cp in nd.cjk_ranges or cp + 1 in nd.cjk_ranges:
            add("cjk_unified", f"{CJK_PREFIX}{cp:X}")
        if i % 1999 == 11 and cp < 0x10000:
            add("cjk_unified", f"{CJK_PREFIX}0{cp:X}")
        if i % 1013 == 17:
            add("cjk_reject", f"{CJK_PREFIX}{cp:x}")
            add("cjk_reject", f"{CJK_PREFIX.lower()}{cp:X}")
            add("cjk_reject", f"CJK Unified Ideograph-{cp:X}")
            add("cjk_reject", f"{CJK_PREFIX}00{cp:X}")
            add("cjk_reject", f"{CJK_PREFIX}{cp:X} ")
            add("cjk_reject", f"{CJK_PREFIX}{cp:X}"[:-1])
    for r in range(0, len(nd.cjk_ranges), 2):
        add("cjk_reject", f"{CJK_PREFIX}{nd.cjk_ranges[r] - 1:X}")
        add("cjk_reject", f"{CJK_PREFIX}{nd.cjk_ranges[r + 1]:X}")
    for s in ["", "0", "00041", "41", "+4E00", " 4E00", "4E00 ", "4E 00", "X4E00", "10FFFF", "F900", "0F900"]:
        add("cjk_reject", CJK_PREFIX + s)
    for n in nd.named_sequences:
        add("named_sequence", n)
    for n in nd.named_sequences[::9]:
        add("named_sequence", n.lower())
    for i, (cp, n) in enumerate(explicit):
        if i % 151 != 9:
            continue
        add("near_miss", n + " ")
        add("near_miss", " " + n)
        add("near_miss", n[:-1])
        add("near_miss", n + "S")
        if " " in n:
            add("near_miss", n.replace(" ", "  ", 1))
            add("near_miss", n.replace(" ", "-", 1))
            add("near_miss", n.replace(" ", "", 1))
            add("near_miss", n.replace(" ", "\t", 1))
            add("near_miss", n.replace(" ", "_", 1))
        if "-" in n:
            add("near_miss", n.replace("-", " ", 1))
    for n, _ in nd.aliases[::13]:
        add("near_miss", n + " ")
        add("near_miss", n.replace(" ", "  ") if " " in n else n + n)
    # Characters that JS String.prototype.toUpperCase would fold into ASCII, and other non-ASCII.
    for n in ["CROß MARK", "CROẞ MARK", "LATıN SMALL LETTER A", "LATİN SMALL LETTER A", "ﬁSHEYE", "FIſHEYE",
              "LATIN SMALL LETTER \u212a", "\u212aEYCAP", "LATIN SMALL LETTER Ａ", "LATIN\u00a0SMALL LETTER A",
              "LATIN SMALL LETTER A\u0301", "ŉ", "LATIN SMALL LETTER ǅ", "ﬀ", "SPACE\u200b", "\ufeffSPACE",
              "LATIN SMALL LETTER É", "LATIN SMALL LETTER E WITH ACUTE\u00a0", "ᾈ"]:
        add("non_ascii", n)
    for n in ["", " ", "  ", "-", "A", "a", "{", "A{B", "SPACE\t", "\tSPACE", "SPACE\x0b", "SPACE\x0c", "SPACE\x1f",
              "TANGUT IDEOGRAPH-17000", "tangut ideograph-17000", "TANGUT COMPONENT-001",
              "LATIN SMALL LETTER A", "latin small letter a", "SPACE", "space", "LINE FEED", "LF", "lf", "BOM",
              "BYTE ORDER MARK", "NBSP", "ZWJ", "NULL", "NUL", "NEXT LINE", "NEL", "VS1", "VS256", "VS257",
              "ZERO WIDTH NO-BREAK SPACE", "LATIN CAPITAL LETTER GHA", "LATIN CAPITAL LETTER OI",
              "KEYCAP NUMBER SIGN", "CJK UNIFIED IDEOGRAPH", "HANGUL SYLLABLE", "SYLLABLE GA",
              "CJK COMPATIBILITY IDEOGRAPH-F900", "cjk compatibility ideograph-f900",
              "CJK COMPATIBILITY IDEOGRAPH-0F900", "CJK COMPATIBILITY IDEOGRAPH-2F800",
              "KHITAN SMALL SCRIPT CHARACTER-18B00", "NUSHU CHARACTER-1B170", "nushu character-1b170",
              "HANGUL CHOSEONG KIYEOK", "hangul choseong kiyeok", "PRIVATE USE-E000", "<control>",
              "LATIN SMALL LETTER A WITH DOT ABOVE", "LATIN SMALL LETTER A WITH DOT-ABOVE",
              "TIBETAN LETTER A", "TIBETAN LETTER -A", "TIBETAN MARK TSA -PHRU", "TIBETAN MARK TSA-PHRU",
              "HANGUL JUNGSEONG O-E", "HANGUL JUNGSEONG OE", "HANGUL JUNGSEONG O E"]:
        add("misc", n)
    out: dict[str, list] = {}
    for kind, names in kinds.items():
        seen = set()
        cases = []
        for n in names:
            if n in seen:
                continue
            seen.add(n)
            cases.append([n, eval_named_escape(n)])
        out[kind] = cases
    return out


def dump_golden(golden: dict) -> str:
    """JSON with one name case (or 16 transition points) per line, so diffs stay reviewable."""
    def j(v) -> str:
        return json.dumps(v, ensure_ascii=True, separators=(",", ":"))

    out = ["{\n"]
    out.append(f"  {j('meta')}: {j(golden['meta'])},\n")
    for key in ("comment", "python", "unidata_version"):
        out.append(f"  {j(key)}: {j(golden[key])},\n")
    out.append('  "predicates": {\n')
    preds = list(golden["predicates"].items())
    for pi, (name, p) in enumerate(preds):
        ts = p["transitions"]
        rows = [",".join(map(str, ts[i:i + 16])) for i in range(0, len(ts), 16)]
        out.append(f"    {j(name)}: {{\"initial\": {j(p['initial'])}, \"transitions\": [\n")
        out.append(",\n".join("      " + r for r in rows))
        out.append("\n    ]}" + ("," if pi < len(preds) - 1 else "") + "\n")
    out.append("  },\n")
    out.append('  "names": {\n')
    kinds = list(golden["names"].items())
    for ki, (kind, cases) in enumerate(kinds):
        out.append(f"    {j(kind)}: [\n")
        out.append(",\n".join("      " + j(c) for c in cases))
        out.append("\n    ]" + ("," if ki < len(kinds) - 1 else "") + "\n")
    out.append("  }\n}\n")
    text = "".join(out)
    assert json.loads(text) == golden
    return text


def main() -> None:
    preds = predicate_values()
    nd = NameData()
    ts = write_ts(preds, nd)
    os.makedirs(os.path.dirname(TS_OUT), exist_ok=True)
    with open(TS_OUT, "w", encoding="ascii", newline="\n") as f:
        f.write(ts)
    golden = {
        "meta": golden_meta.meta("scripts/gen_unicode_tables.py", GENERATOR_CMD),
        "comment": "Generated by " + GENERATOR_CMD + "; every name expectation is the result of "
                   "evaluating a \"\\N{...}\" str literal (null = rejected).",
        "python": sys.version.split()[0],
        "unidata_version": unicodedata.unidata_version,
        "predicates": {k: transitions(v) for k, v in preds.items()},
        "names": golden_name_cases(nd),
    }
    os.makedirs(os.path.dirname(GOLDEN_OUT), exist_ok=True)
    with open(GOLDEN_OUT, "w", encoding="ascii", newline="\n") as f:
        f.write(dump_golden(golden))
    total = sum(len(v) for v in golden["names"].values())
    accepted = sum(1 for v in golden["names"].values() for _, cp in v if cp is not None)
    print(f"wrote {os.path.relpath(TS_OUT, ROOT)} ({os.path.getsize(TS_OUT)} bytes), "
          f"{os.path.relpath(GOLDEN_OUT, ROOT)} ({os.path.getsize(GOLDEN_OUT)} bytes, "
          f"{total} name cases, {accepted} accepted)")


if __name__ == "__main__":
    main()
