#!/usr/bin/env python3
"""Golden corpus for the recipe YAML layer: PyYAML `yaml.safe_load` (YAML 1.1) is the oracle.

Every record is a JSON line {"yaml": str, "group": str, "ok": bool, "value": tagged|null, "error": str|null,
"repr": str} where `repr` is `repr(value)` (left out when the value holds a set, whose order is per process)
and `value` encodes the loaded Python value with its type, so a test can compare without Python:
    ["None"] ["bool", b] ["int", "<decimal>"] ["float", "<repr>"] ["str", s] ["bytes", "<hex>"]
    ["date", "YYYY-MM-DD"] ["datetime", "<isoformat(): microseconds and UTC offset as Python prints them>"]
    ["list", [...]] ["tuple", [...]] ["dict", [[k, v], ...]] ["set", [k, ...]]

    python3 scripts/gen_yaml_corpus.py --out fixtures/yaml/golden-yaml.jsonl

The output is deterministic for a given PyYAML version (the header line records it).
Groups: scalar:<form> (plain/quoted/tagged scalars of every YAML 1.1 type, as a mapping value),
break:<kind> (line breaks CR, CRLF, NEL, LS, PS), directive, structure (flow/block collections,
anchors, merge keys, documents), quirk:<class> (where PyYAML's scanner, parser or constructor differs
from the YAML spec or from `yaml`: tabs, flow indicators, empty keys and anchor names, merge order,
quoted-scalar indentation, directives and `...`, CR/NEL/LS/PS), recipe (whole custom_patterns entries).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import os
import sys

import yaml

sys.dont_write_bytecode = True  # importing the sibling module must not leave scripts/__pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_meta import meta  # noqa: E402


def enc(v):
    if v is None:
        return ["None"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, bytes):
        return ["bytes", v.hex()]
    if isinstance(v, datetime.datetime):
        return ["datetime", v.isoformat()]
    if isinstance(v, datetime.date):
        return ["date", v.isoformat()]
    if isinstance(v, list):
        return ["list", [enc(x) for x in v]]
    if isinstance(v, tuple):
        return ["tuple", [enc(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[enc(k), enc(x)] for k, x in v.items()]]
    if isinstance(v, (set, frozenset)):
        return ["set", sorted((enc(k) for k in v), key=json.dumps)]
    raise TypeError(type(v).__name__)


def oracle(text: str) -> dict:
    try:
        value = yaml.load(text, Loader=yaml.SafeLoader)  # what yaml.safe_load does
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        rec = {"ok": False, "value": None, "error": type(exc).__name__ + ": " + str(exc).split("\n")[0]}
        if mark is not None:  # where PyYAML points: 1-based line and column (code points)
            rec["line"], rec["col"] = mark.line + 1, mark.column + 1
        return rec
    except yaml.YAMLError as exc:
        return {"ok": False, "value": None, "error": type(exc).__name__ + ": " + str(exc).split("\n")[0]}
    except Exception as exc:  # a constructor crash (impossible date, `!!bool y`, `!!timestamp x`): not loadable
        return {"ok": False, "value": None, "error": type(exc).__name__ + ": " + str(exc)}
    try:
        rec = {"ok": True, "value": enc(value), "error": None}
    except TypeError as exc:
        return {"ok": False, "value": None, "error": f"unencodable value {exc}"}
    if not has_set(value):  # a set's repr order follows string hashing, which differs per process
        rec["repr"] = repr(value)
    return rec


def has_set(v) -> bool:
    if isinstance(v, (set, frozenset)):
        return True
    if isinstance(v, (list, tuple)):
        return any(has_set(x) for x in v)
    if isinstance(v, dict):
        return any(has_set(k) or has_set(x) for k, x in v.items())
    return False


INTS = ["0", "1", "-1", "+1", "12", "0012", "0o17", "017", "0x1F", "0X1f", "-0x1F", "0b101", "-0b101", "1_000",
        "0_1", "1__0", "_1", "1_", "190:20:30", "1:30", "-1:30", "1:60", "1:5", "0:0", "123456789012345678901234567890",
        "9223372036854775808", "0x_1F", "0b_1", "0b", "0x", "08", "09", "0o8", "+0", "-0", "00", "1:2:3:4"]
FLOATS = ["1.5", "-1.5", "+1.5", "1.", ".5", "-.5", "1.0e+5", "1.0e5", "1.0E-5", "1e5", "1e400", "1.0e400", "-1.0e400",
          "1.5e+400", "6.8523015e+5", "685.230_15e+03", "685_230.15", "190:20:30.15", "1:30.5", ".inf", "-.inf", "+.inf",
          ".Inf", ".INF", ".nan", ".NaN", ".NAN", "inf", "nan", "-.Nan", "1.e+5", "1.E+5", "0.", "00.5", "1_.5",
          "1.5_", "._5", "1.0e+", "1.0e", "e5", "1.0e+5.0", "1,5", "1.5.5", "3.14159265358979323846", "1e-400",
          "1.0e-400", "0.1", "1.7976931348623157e+308", "2.2250738585072014e-308", "5e-324", "-0.0", "+0.0"]
BOOLS = ["true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON",
         "off", "Off", "OFF", "y", "Y", "n", "N", "tRue", "yEs", "oN"]
NULLS = ["null", "Null", "NULL", "~", "", "nULL", "None", "none"]
DATES = ["2001-12-14", "2002-12-14", "2001-1-1", "2001-01-01", "2001-12-14t21:59:43.10-05:00",
         "2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10", "2001-12-15T02:59:43.1Z", "2001-12-15 2:59:43.10",
         "2001-12-14T21:59:43+05:30", "2001-13-01", "2001-02-30", "2001-12-14T25:00:00Z", "1-1-1", "20011214",
         "2001-12-14 21:59", "2001-12-14T21:59:43.123456789Z", "2001-12-14  21:59:43",
         # datetime's own range checks and the constructor's details (fraction digits, offsets)
         "2001-12-14 21:59:43.1234567", "2001-12-14 21:59:43.", "2001-12-14T21:59:43+99", "2001-12-14T21:59:43+05:99",
         "2001-12-14T21:59:43-23:59", "2001-12-14T21:59:43+00:00", "2001-12-14T21:59:43-00", "0001-01-01", "0000-01-01",
         "9999-12-31", "2000-02-29", "1900-02-29", "2004-02-29", "2001-12-14T23:59:60Z", "2001-12-14T12:60:00Z",
         "2001-12-14 1:02:03 +1", "2001-12-14\t1:02:03", "2001-1-1 1:02:03", "2001-12-14T00:00:00"]
STRINGS = ["abc", "hello world", "a:b", "a: b", "a #b", "a#b", "-a", "- a", "?a", ":a", "a,b", "[a", "a]", "{a", "a}",
           "'a", '"a', "a'b", 'a"b', "@a", "`a", "!a", "&a", "*a", "%a", "|a", ">a", "a|b", "0.5.1", "v1.2", "1.2.3",
           "=", "<<", "é", "日本", "😀", "\u00a0a", "a\u00a0", "\ufeffa", "a\u0085b", "a\u2028b", "a\u2029b",
           "a\tb", "a\x7fb", "a\x01b", "a\x1bb", "a\u200bb", "\ue000", "\ufffe", "a  b", "0x", "0xZZ", "+", "-", ".",
           "..", "...", "---", "-- -", "#", "a\\b", "\\n", "%YAML"]
DQ_ESCAPES = ["\\n", "\\t", "\\\\", '\\"', "\\/", "\\0", "\\a", "\\b", "\\v", "\\f", "\\r", "\\e", "\\ ", "\\N",
              "\\_", "\\L", "\\P", "\\x41", "\\x4", "\\u00e9", "\\u00E9", "\\U0001F600", "\\U00110000", "\\ud800",
              "\\q", "\\'", "\\x", "\\u12", "\\\t", "a\\\n  b", "\\\r\n"]
TAGS = ["!!str 1", "!!str true", "!!str", "!!int '1'", "!!int 1.5", "!!int abc", "!!float 1", "!!float '1e5'",
        "!!float abc", "!!bool yes", "!!bool 'y'", "!!bool 1", "!!null ''", "!!null x", "!!binary aGVsbG8=",
        "!!binary 'aGVs bG8='", "!!binary '!!'", "!!timestamp 2001-12-14", "!!timestamp x", "!foo x",
        "!!python/object:os.system x", "!!python/name:os.system ''", "!<tag:yaml.org,2002:str> 1", "!!seq []",
        "!!map {}", "!!set {a, b}", "!!omap [{a: 1}]", "!!pairs [{a: 1}]", "!!merge <<", "!!value =",
        "!!str [1]", "!!int [1]", "!!float ~", "! 1", "!!str &x 1", "&x !!str 1",
        # explicit tags reach the constructor without the resolver's pattern
        "!!float ' 1 '", "!!float 'inf'", "!!float 'infinity'", "!!float 1_0", "!!float '1:30'", "!!float '1:30:00.5'",
        "!!float 0x10", "!!float ''", "!!float '1,5'", "!!float 1e5", "!!float -.inf", "!!float .NaN", "!!int '0x1F'",
        "!!int ' 1'", "!!int '0b_'", "!!int 0x_1", "!!int +0x10", "!!int -010", "!!int 1:0", "!!int ''", "!!int 1_000",
        "!!bool YES", "!!bool tRuE", "!!bool 'off'", "!!null ~", "!!null [1]", "!!bool [1]", "!!timestamp '2001-1-1'",
        "!!timestamp '2001-12-14 1:02:03'", "!!binary 'aGVsbG8=aGVsbG8='", "!!binary 'aGVsbA=='", "!!binary 'aGVsbA='",
        "!!binary 'a==='", "!!binary 'aG=Vs'", "!!binary ''", "!!binary aGVsbA", "!!binary a", "!!binary é",
        "!!binary aGVs*bG8=", "!!binary aGVsbG8=x", "!!value x", "!!value =",
        # `!` resolves the text as a plain scalar, quoted or not
        "! '1'", "! yes", "! ~", "! -1.5", "! 2001-12-14", "! '<<'", "! 0x1F", "! [1]", "! {b: 1}",
        "!!set {x: 1, y}", "!!set {x}", "!!omap [{a: 1}, {b: 2}]", "!!omap [{a: 1, b: 2}]", "!!omap [1]",
        "!!omap {a: 1}", "!!pairs [{a: 1}, {a: 2}]", "!!omap [{[1]: 2}]", "!!set {<<: {b: 1}, c}"]


def scalar_records():
    for group, pool in (("int", INTS), ("float", FLOATS), ("bool", BOOLS), ("null", NULLS), ("date", DATES),
                        ("str", STRINGS)):
        for s in pool:
            yield f"scalar:{group}:plain", f"v: {s}\n"
            yield f"scalar:{group}:flow", f"[{s}]\n"
            yield f"scalar:{group}:single", "v: '" + s.replace("'", "''") + "'\n"
            yield f"scalar:{group}:double", 'v: "' + s.replace("\\", "\\\\").replace('"', '\\"') + '"\n'
            yield f"scalar:{group}:key", f"{s}: 1\n"
            yield f"scalar:{group}:neg", f"v: -{s}\n"
            yield f"scalar:{group}:seq", f"- {s}\n- x\n"
    for e in DQ_ESCAPES:
        yield "scalar:escape", f'v: "a{e}b"\n'
        yield "scalar:escape:single", f"v: 'a{e}b'\n"
    for t in TAGS:
        yield "scalar:tag", f"v: {t}\n"
        yield "scalar:tag:seq", f"- {t}\n"


BREAKS = {"lf": "\n", "crlf": "\r\n", "cr": "\r", "nel": "\x85", "ls": "\u2028", "ps": "\u2029"}


def break_records():
    docs = ["a: 1{n}b: 2{n}", "a:{n}  - x{n}  - y{n}", "a: |{n}  x{n}  y{n}b: 1{n}", "a: >{n}  x{n}  y{n}{n}  z{n}",
            "a: 'x{n}  y'{n}", 'a: "x{n}  y"{n}', "a: x{n}  y{n}", "# c{n}a: 1{n}", "a: 1 # c{n}", "{n}{n}a: 1",
            "a: [1,{n} 2]{n}", "a: {{b: 1,{n} c: 2}}{n}", "--- {n}a: 1{n}...{n}"]
    for (name, n), d in itertools.product(BREAKS.items(), docs):
        yield f"break:{name}", d.format(n=n)
        yield f"break:{name}:mixed", d.format(n=n).replace(n, "\n", 1)


def directive_records():
    for v in ["1.0", "1.1", "1.2", "1.3", "2.0", "0.9", "1", "1.1.1", "x"]:
        yield "directive", f"%YAML {v}\n---\na: 1\n"
    yield "directive", "%YAML 1.1\n%YAML 1.1\n---\na: 1\n"
    yield "directive", "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n"
    yield "directive", "%TAG ! tag:yaml.org,2002:\n---\na: !str 1\n"
    yield "directive", "%FOO bar\n---\na: 1\n"
    yield "directive", "%YAML 1.1\na: 1\n"


STRUCTURES = [
    "", "---\n", "...\n", "---\n...\n", "# only a comment\n", "a: 1\n---\nb: 2\n", "--- a\n", "--- |\n  x\n",
    "[1, 2, 3]\n", "[1, [2, [3]]]\n", "{a: 1, b: [2, 3]}\n", "{a, b}\n", "[a: 1]\n", "[a: 1, b]\n", "{? a : 1}\n",
    "[1, 2,]\n", "[1,, 2]\n", "{a: 1,}\n", "[\n1,\n2\n]\n", "- - 1\n  - 2\n- 3\n", "-  - a\n   - b\n",
    "a:\n  b:\n    c: 1\n", "a:\n- 1\n- 2\n", "a:\n  - 1\n  -\n  - 3\n", "- \n- ~\n-\n", "a:\n", "a: \nb:\n",
    "? a\n: 1\n", "? [a, b]\n: 1\n", "? {a: 1}\n: 2\n", "? a\n", "a: &x 1\nb: *x\n", "a: &x [1, 2]\nb: *x\n",
    "a: *x\n", "a: &x 1\nb: &x 2\nc: *x\n", "a: &x {p: 1}\nb:\n  <<: *x\n  q: 2\n",
    "a: &x {p: 1}\nb:\n  <<: *x\n  p: 2\n", "a: &x {p: 1}\nc: &y {q: 2}\nb:\n  <<: [*x, *y]\n",
    "a: &x {p: 1}\nc: &y {p: 2}\nb:\n  <<: [*x, *y]\n", "b:\n  <<: {p: 1}\n  <<: {q: 2}\n", "b:\n  <<: 1\n",
    "b:\n  <<: [1]\n", "<<: {a: 1}\n", "'<<': {a: 1}\n", "a: 1\na: 2\n", "a: 1\nb: 2\na: 3\n", "1: a\n1.0: b\n",
    "true: a\n1: b\n", "? [1]\n: a\n", "? {a: 1}\n: a\n", "a: [1, 2]\n? !!set {x}\n: 1\n", "\ta: 1\n", "a:\t1\n",
    "a: \t1\n", "a:\n\t- 1\n", "- a\n -b\n", "a: 1\n b: 2\n", " a: 1\nb: 2\n", "a: b: c\n", "a: - b\n", "- a: 1\n  b: 2\n",
    "- a: 1\n b: 2\n", "a: 'unterminated\n", 'a: "unterminated\n', "a: [1, 2\n", "a: {b: 1\n", "a: ]\n", "a: }\n",
    "a: @x\n", "a: `x\n", "a: %x\n", "\ufeffa: 1\n", "a: 1\n\ufeff", "a: x\x00\n", "a: x\x07\n", "a: \x1b\n",
    "&a a: 1\n", "a: !!str &x 1\nb: *x\n", "[*a]\n", "a: &x\nb: *x\n", "a: &x !!int 3\nb: [*x, *x]\n",
    "a: 1\n...\n", "a: 1\n... # c\n", "a: 1\n--- \n", "--- !!set\n? a\n? b\n", "--- !!omap\n- a: 1\n- b: 2\n",
    "--- !!pairs\n- a: 1\n- a: 2\n", "a: |-\n  x\n", "a: |+\n  x\n\n", "a: >-\n  x\n  y\n", "a: |2\n   x\n",
    "a: |\n x\n  y\n", "a: |\n  x\n y\n", "a: >\n\n  x\n\n\n  y\n", "a: |1\n  x\n", "a: |0\n  x\n", "a: |10\n  x\n",
    "a: | # c\n  x\n", "a: |x\n  x\n", "a: >+\n\n", "a: |\n\n", "a: |\n  \ty\n", "a: >\n  a\n   b\n  c\n",
    "a: x\n  # c\n  y\n", "a: x\n\n  y\n", "a: 'x\n\n  y'\n", 'a: "x\\\n  y"\n', "a: 'x''y'\n", "a: ''\n",
    'a: ""\n', "a: '  x  '\n", "a:    x   \n", "a: x #c\n", "a: x#c\n", "a: [x #c\n  ]\n", "{a: 1} # c\n",
    "a: !!binary |\n  aGVs\n  bG8=\n", "a: !!binary aGVsbG8\n", "- !!float\n", "a: !!set {x: 1}\n",
    "- [a, b]: 1\n", "{[a]: 1}\n", "a: -\n", "a: - \n", "- -\n", "--- >\n  a\n  b\n", "a: x\n--- \n",
]


QUIRKS = {
    # PyYAML separates tokens with spaces only; tabs are content in quoted and block scalars and comments
    "tab": ["a: 1\t# c\n", "a: 1 \t# c\n", "a: 1\t\n", "a: 'x'\t\n", "a: x\n\ty\n", "a: x\n \ty\n",
            "a: [1,\t2]\n", "a: [1\t, 2]\n", "a:\n  - 1\t\n", "-\t1\n", "- \t1\n", 'a: "x\ty"\n', "# \tc\na: 1\n",
            "a: 1 # \t\n", "a: 'x\n\ty'\n", "a: {b:\t1}\n", "a: [\t1]\n", "? a\t\n: 1\n", "a\t: 1\n", "a :\t1\n",
            "a: |\n  x\n\ty\n", "a: |\n  x\n\t\n  y\n", "a: |\n  x\n  \t\n  y\n", "a: |\t\n  x\n", "a: |\n \tx\n",
            "a: |\n\t x\n", "a: >\n  x\n  \ty\n", "%YAML\t1.1\n---\na: 1\n", "---\t\na: 1\n", "a: 1 #\tc\n",
            "\t# c\na: 1\n", "a: 1\n\t\nb: 2\n", "a: |2\n  \tx\n", "a: |2\n \tx\n", "a: >\n  x\n\n\t\n  y\n",
            "a: 'x'  # \tc\n", "[a, # \tc\n b]\n"],
    # in a flow collection `?` and a leading `:` are indicators; `-` before `,` `]` `}` is a plain `-`
    "flow": ["[?a]\n", "{?a: 1}\n", "[?a: 1]\n", "[?'a']\n", "[?&x a]\n", "[?-a]\n", "[? a]\n", "[?1]\n", "{?a}\n", "[?a, b]\n",
             "{?a: 1, ?b}\n", "[a?b]\n", "{a?b: 1}\n", "[a ?b]\n", "{a: b?}\n", "[-]\n", "[-, a]\n", "[a, -]\n",
             "{a: -}\n", "{-: a}\n", "[ -, b]\n", "[-,-]\n", "{? -: x}\n", "[-a]\n", "[a-]\n", "[--]\n", "[ - ]\n",
             "[:a]\n", "{:a}\n", "[a, :b]\n", "{a: :b}\n", "{a::b}\n", "[a :b]\n", "{: 1}\n", "[: 1]\n",
             "{a: 1, : 2}\n", "{? : 1}\n", "[? : 1]\n"],
    # an empty key needs `?` or a property; anchor names are ASCII letters, digits, `-` and `_`
    "key": [": 1\n", "a: 1\n: 2\n", "- : 1\n", "? \n: 1\n", "&a : 1\n", "!!str : 1\n", "&a: 1\n", "{&a: 1}\n",
            "[&a, 1]\n", "[&a]\n", "- &a.b x\n", "- &a? x\n", "- *a.b\n", "a: &a-b_C9 1\nb: *a-b_C9\n", "=: 1\n",
            "!!value x: 1\n", "!!merge x: {a: 1}\nb: 1\n", "? !!merge x\n: {a: 1}\n", "'=': 1\n", "! '<<': {a: 1}\n",
            "? !!binary aGVsbG8=\n: 1\n", "? 2001-12-14\n: 1\n2001-12-14 00:00:00: 2\n",
            "? 2001-12-14T10:00:00+01:00\n: 1\n? 2001-12-14T09:00:00Z\n: 2\n", "a: &x 1\nb: &x 2\n"],
    # flatten_mapping: merged keys first (a list merges in reverse), the mapping's own values win
    "merge": ["a: &x {p: 1}\nb: {<<: *x, p: 2, q: 3}\n", "a: &x {p: 1, q: 1}\nc: &y {q: 2, r: 2}\nb:\n  r: 3\n  <<: [*x, *y]\n",
              "a: &x {p: 1}\nb:\n  <<: *x\n  <<: {p: 2, z: 1}\n", "a: &x [1]\nb:\n  <<: *x\n", "a: &x {p: 1}\nb:\n  <<: [*x, 1]\n",
              "b:\n  <<: {1: a}\n  1.0: b\n", "b:\n  <<: {true: a}\n  1: b\n", "b:\n  <<: [{a: 1}, {a: 2, b: 2}]\n  c: 3\n",
              "!!str <<: 1\n", "? <<\n: {a: 1}\n", "a: &x {p: 1}\nb: !!set {<<: *x, q}\n", "<<: {a: 1}\n<<: {a: 2}\n"],
    # a quoted scalar may continue at any indentation, up to a document marker
    "quoted": ["v: 'a\nb'\n", 'v: "a\nb"\n', "a:\n  b: 'x\ny'\n  c: 1\n", "- 'a\nb'\n- c\n", "v: 'a\n---\nb'\n",
               "v: 'a\n...\nb'\n", 'v: "a\\\r\nb"\n', 'v: "a\\\nb"\n', "[ 'a\nb' ]\n",
               "'a\nb': 1\n", "? 'a\nb'\n: 1\n", "a:\n  - 'x\ny'\n  - z\n", "a:\n  b:\n    'x\n  y': 1\n"],
    # directives: 1.x only, once each, before `---`; `...` cannot open the stream, and repeats are skipped
    "document": ["%YAML 1.2\n---\na: yes\nb: 0o7\nc: 1e5\nd: 2001-1-1\n", "%YAML 1.1 # c\n---\na: 1\n",
                 "%YAML  1.1\n---\na: 1\n", "%YAML 1.1\n", "%YAML 1.1\n...\n", "%YAML 2.0\na: 1\n", "%YAML 1.9\n---\na: 1\n",
                 "%YAML 10.1\n---\na: 1\n", "%YAML 01.1\n---\na: 1\n", "%TAG !e! tag:e,2000:\n%TAG !e! tag:f,2000:\n---\na: 1\n",
                 "%YAML 1.1\n---\na: 1\n...\n%YAML 2.0\n---\nb: 1\n", "a: 1\n...\n%YAML 1.1\n", "a: 1\n...\n# c\n",
                 "a: 1\n... # c\n...\n", "--- x\n...\n# c\n...\n", "# c\n...\n", "\n...\na: 1\n", "--- x\n...\n...\n",
                 "a: 1\n---\n", "a: 1\n--- b\n", "a: 1\n...\n---\n", "%YAML 1.1\n---\n",
                 "%YAML 1.1\n--- # c\na: 1\n", "\ufeff%YAML 1.1\n---\na: 1\n"],
    # CR alone and NEL are line breaks read as LF; LS and PS are kept in values
    "break": ["a: 1\rb: 2\r", "a: |\r  x\r  y\rb: 1\r", "a: 'x\r  y'\r", 'a: "x\\\r  y"\r', "a: 1\x85b: 2\x85",
              "a: |\x85  x\x85  y\x85", "v: a\x85b\n", "v: 'a\x85b'\n", "v: a\u2028b\n", "v: 'a\u2028b'\n",
              "a: |\n  x\u2029y\n"],
}


def quirk_records():
    for group, pool in QUIRKS.items():
        for s in pool:
            yield f"quirk:{group}", s


def structure_records():
    for s in STRUCTURES:
        yield "structure", s
    for depth in (1, 5, 50, 150):
        yield "structure:nested", "a: " + "[" * depth + "1" + "]" * depth + "\n"
        yield "structure:nested", "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "v\n"


def recipe_records():
    base = "custom_patterns:\n  - id: {id}\n    match:\n      regex: {rx}\n      condition: {cond}\n    on_match: {on}\n"
    ids = ["a", "'a'", '"a"', "1", "yes", "~", "a b", "2001-12-14", "0x1F", "1e5", "1.5"]
    rxs = ['"Segmentation fault"', "'\\d+ errors'", "\"\\\\d+ errors\"", "NCCL WARN", "'(?P<n>\\d+)'", "|\n        x\\d"]
    conds = ["exit_code != 0", "'exit_code != 0'", "\"len(capture) > 0\"", ">\n        exit_code\n        != 0", "~",
             "1", "yes", "exit_code == 1e5"]
    ons = ["fail", "warn", "info", "'fail'", "yes", "~"]
    for i, (a, b, c, d) in enumerate(itertools.product(ids, rxs, conds, ons)):
        if i % 7 == 0:
            yield "recipe", base.format(id=a, rx=b, cond=c, on=d)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    seen = set()
    recs = []
    for gen in (scalar_records, break_records, directive_records, structure_records, quirk_records, recipe_records):
        for group, text in gen():
            if text in seen:
                continue
            seen.add(text)
            recs.append({"yaml": text, "group": group, **oracle(text)})
    header = meta(
        "scripts/gen_yaml_corpus.py",
        "python3 scripts/gen_yaml_corpus.py --out fixtures/yaml/golden-yaml.jsonl",
        pyyaml=yaml.__version__,
        loader="yaml.SafeLoader (yaml.safe_load)",
        records=len(recs),
    )
    with open(args.out + ".tmp", "w", encoding="ascii", newline="\n") as fh:
        fh.write(json.dumps({"meta": header}, ensure_ascii=True) + "\n")
        for r in recs:
            fh.write(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n")
    os.replace(args.out + ".tmp", args.out)
    ok = sum(r["ok"] for r in recs)
    print(f"gen_yaml_corpus: {len(recs)} records ({ok} load, {len(recs) - ok} rejected by PyYAML)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
