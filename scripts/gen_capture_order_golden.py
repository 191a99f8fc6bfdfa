"""Writes fixtures/capture/golden-capture-order.jsonl: CPython's repr() and len() of a capture dict built in a
given insertion order, for the test that `capture` keeps insertion order (issue 13 section 1).

    python3 scripts/gen_capture_order_golden.py

The first line is the header (scripts/golden_meta.py); then each line is one of
  {"entries": [[key, value], ...], "repr": repr(dict(entries)), "len": len(...)}   a capture given in this order
  {"regex": pattern, "text": text, "repr": ..., "len": ...}                         the capture of re.search(pattern, text)
  {"regex": pattern, "error": msg, "pos": pos}                                      a group name re rejects
Keys include integer-like ones, which a JavaScript object would list first.
"""
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from golden_meta import meta  # noqa: E402

CASES = [
    [["b", "1"], ["0", "2"]],
    [["loss", "nan"], ["1", "x"], ["step", "10"]],
    [["9", "a"], ["10", "b"], ["2", "c"], ["-1", "d"], ["01", "e"], ["4294967295", "f"], ["4294967294", "g"]],
    [["z", ""], ["y", "'"], ["x", '"'], ["w", "\\"], ["v", "\n"]],
    [["é", "ü"], ["😀", "\u00ad"], ["", "empty key"]],
    [["__proto__", "p"], ["constructor", "c"], ["toString", "t"], ["0", "zero"]],
    # a repeated key keeps its first place and takes its last value (JSON text may repeat one)
    [["a", "1"], ["0", "2"], ["a", "3"]],
]

rng = random.Random(13)
pool = ["0", "1", "2", "10", "007", "99", "-3", "1.5", "a", "b", "gpu", "rank", "loss", "1e3", " 1", "2147483648"]
for _ in range(30):
    keys = rng.sample(pool, rng.randint(1, 8))
    CASES.append([[k, str(rng.randint(0, 999))] for k in keys])

# Captures from a regex: the named groups that took part, in the pattern's order (Python's
# groupdict() minus the None values, as the original builds `capture`). A group name must be an
# identifier, so these keys are never integer-like; the rejected names are recorded with re's error.
REGEX_CASES = [
    (r"(?P<zeta>\w+) (?P<alpha>\w+) (?P<mid>\w+)", "one two three"),
    (r"rank=(?P<rank>\d+) loss=(?P<loss>\S+)(?: step=(?P<step>\d+))?", "rank=3 loss=nan"),
    (r"(?P<b>x)|(?P<a>y)", "y"),
    (r"(?P<_9>\d)(?P<A0>\d)(?P<a>\d)(?P<Z>\d)", "1234"),
    (r"(?P<y>a)(?P<x>b)?(?P<w>c)", "ac"),
]
BAD_NAMES = ["0", "10", "a-b", "\u0660a"]


def regex_record(pattern, text):
    m = re.search(pattern, text)
    d = {k: v for k, v in m.groupdict().items() if v is not None}
    return {"regex": pattern, "text": text, "repr": repr(d), "len": len(d)}


def bad_record(name):
    pattern = "(?P<%s>x)" % name
    try:
        re.compile(pattern)
    except re.error as e:
        return {"regex": pattern, "error": e.msg, "pos": e.pos}
    raise AssertionError(pattern)


with open("fixtures/capture/golden-capture-order.jsonl", "w", encoding="utf-8") as out:
    out.write(json.dumps({"meta": meta("scripts/gen_capture_order_golden.py",
                                       "python3 scripts/gen_capture_order_golden.py")}) + "\n")
    for entries in CASES:
        d = dict(entries)
        out.write(json.dumps({"entries": entries, "repr": repr(d), "len": len(d)}, ensure_ascii=False) + "\n")
    for pattern, text in REGEX_CASES:
        out.write(json.dumps(regex_record(pattern, text), ensure_ascii=False) + "\n")
    for name in BAD_NAMES:
        out.write(json.dumps(bad_record(name), ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} dict cases, {len(REGEX_CASES)} regex cases, {len(BAD_NAMES)} rejected group names")
