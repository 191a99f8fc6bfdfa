"""Writes fixtures/capture/golden-capture-order.jsonl: CPython's repr() and len() of a capture dict built in a
given insertion order, for the test that `capture` keeps insertion order (issue 13 section 1).

    python3 scripts/gen_capture_order_golden.py

The first line is the header (scripts/golden_meta.py); then each line: {"entries": [[key, value], ...], "repr": repr(dict(entries)), "len": len(...)}.
Keys include integer-like ones, which a JavaScript object would list first.
"""
import json
import os
import random
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
]

rng = random.Random(13)
pool = ["0", "1", "2", "10", "007", "99", "-3", "1.5", "a", "b", "gpu", "rank", "loss", "1e3", " 1", "2147483648"]
for _ in range(30):
    keys = rng.sample(pool, rng.randint(1, 8))
    CASES.append([[k, str(rng.randint(0, 999))] for k in keys])

with open("fixtures/capture/golden-capture-order.jsonl", "w", encoding="utf-8") as out:
    out.write(json.dumps({"meta": meta("scripts/gen_capture_order_golden.py",
                                       "python3 scripts/gen_capture_order_golden.py")}) + "\n")
    for entries in CASES:
        d = dict(entries)
        out.write(json.dumps({"entries": entries, "repr": repr(d), "len": len(d)}, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases")
