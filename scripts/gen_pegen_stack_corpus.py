#!/usr/bin/env python3
"""Golden corpus for pegen's MAXSTACK in deep bracket nests (src/condition/pegen-stack.ts).

Every record is a JSON line {"condition", "message", "level"}: CPython 3.11's verdict message (from
`cpython_oracle.verdict`, so a MemoryError reads "MemoryError:  (line None, col None)") and the frame
count the model gives. The conditions have the modelled shape, (U* O)* U* A '{' (U* O)* [U* B | U+]
with nothing closed (U a unary operator), drawn so that many fall within 15 frames of the limit.

It also draws the same nests with one foreign token inserted (an operator, a string, a closing
bracket, a second A '{', a binary operator), which the model does not cover; they are not written, but the meta line
counts how many of them CPython stops with MemoryError (`outside_shape`), the size of the deviation
docs/deviations.md lists.

    python3 scripts/gen_pegen_stack_corpus.py --seed 1 --count 3000 --out fixtures/conditions/golden-pegen-stack.jsonl

Before writing, it checks the model (the frame counts read from pegen-stack.ts) against every verdict and
exits 1 on any difference, so a CPython whose frame counts differ cannot produce a golden that agrees
with a wrong model.
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpython_oracle import verdict  # noqa: E402



def _model_constants() -> dict:
    """The frame counts, read from src/condition/pegen-stack.ts (one table, checked here)."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "condition", "pegen-stack.ts"),
               encoding="utf-8").read()
    out = {}
    for name, value in re.findall(r"^const (\w+)(?:: [^=]+)? = ([^;]+);", src, re.M):
        if value.startswith("{"):
            out[name] = {k: int(v) for k, v in re.findall(r"'(.)': (\d+)", value)}
        elif value.isdigit():
            out[name] = int(value)
    return out


_C = _model_constants()
BRACKET, FINAL_BRACKET = _C["BRACKET"], _C["FINAL_BRACKET"]
FINAL_BREAK, FINAL_NUMBER, FINAL_NAME_IN_BRACE = _C["FINAL_BREAK"], _C["FINAL_NUMBER"], _C["FINAL_NAME_IN_BRACE"]
UNARY, FINAL_UNARY, FINAL_NOT = _C["UNARY"], _C["FINAL_UNARY"], _C["FINAL_NOT"]
LIMIT = _C["PEGEN_MAXSTACK_LEVEL"]
# CPython's own list: True/False/None are atoms and are told apart before this is asked.
HARD_KEYWORDS = frozenset(keyword.kwlist)
TOKEN = re.compile(r"\s*([([{]|[-+~]|[0-9][0-9.]*j?|[^\W\d]\w*)")


def model_level(s: str) -> int | None:
    """The model's second-pass level, or None when `s` is not the modelled shape."""
    toks, i = [], 0
    while i < len(s):
        m = TOKEN.match(s, i)
        if not m:
            return None
        toks.append(m.group(1))
        i = m.end()
    opens = [n for n, t in enumerate(toks) if t in BRACKET]
    if len(opens) > 200:  # the tokenizer's 201st bracket ends the tokens
        toks = toks[: opens[200]]
    if not toks:
        return None

    def kind(t: str) -> str | None:
        if t in BRACKET:
            return "open"
        if t in ("+", "-", "~"):
            return "unary"
        if t == "not":
            return "not"
        if t[0].isdigit() or t in ("True", "False", "None"):
            return "number"
        return None if t in HARD_KEYWORDS else "name"

    level, prev, broken, brk = 0, "start", False, -1
    for n, t in enumerate(toks):
        k = kind(t)
        if k is None or (k == "not" and prev not in ("start", "open", "not", "break")):
            return None
        if k in ("number", "name"):
            if not broken:  # A, then the '{' that ends the first pass
                if n + 1 >= len(toks) or toks[n + 1] != "{":
                    return None
                prev = "atom"
                continue
            if n + 1 != len(toks):  # B ends the nest
                return None
        elif k == "open" and prev == "atom":
            broken, brk = True, n
            level += BRACKET[t]
            prev = "break"
            continue
        elif k == "open":
            level += BRACKET[t]
        else:
            level += UNARY
        prev = k
    if not broken:
        return None
    last, before = toks[-1], toks[-2]
    k = kind(last)
    if k == "open":
        return level - BRACKET[last] + (FINAL_BREAK if len(toks) - 1 == brk else FINAL_BRACKET[last])
    if k == "unary":
        return level - UNARY + FINAL_UNARY
    if k == "not":
        return level - UNARY + FINAL_NOT
    if k == "number" or kind(before) in ("unary", "not"):
        return level + FINAL_NUMBER
    return level + (FINAL_NAME_IN_BRACE if before == "{" and len(toks) - 2 != brk else 0)


ATOMS = ["x", "_", "match", "case", "True", "None", "exit_code", "\u946b", "1", "0.5", "7j", "capture"]
OTHER = ["'s'", ")", "]", "}", "+", ",", "not", "lambda", "x{", "1 2", "*", "."]


def draw(rng: random.Random, foreign: bool) -> str:
    total = rng.randint(185, 214)
    k = rng.randint(0, total - 1) if rng.random() < 0.75 else rng.randint(max(0, total - 6), total - 1)
    k = min(k, 199)  # a 201st bracket before A is the tokenizer's error in the first pass
    weights = rng.choice([(1, 1, 1), (5, 1, 1), (1, 5, 1), (1, 1, 5), (0, 0, 1), (0, 1, 0), (1, 0, 0)])
    unary = rng.choice([0, 0, 0.02, 0.1])  # unary operators before operands
    def operands(n: int) -> str:
        out = []
        for _ in range(n):
            if rng.random() < unary:
                out.append(rng.choice(["+", "-", "~", "not ", "not ", "-+"]))
            out.append(rng.choices("([{", weights=weights)[0])
        return "".join(out)
    def prefix() -> str:
        return rng.choice(["+", "-", "~", "not ", "not -"]) if rng.random() < unary * 3 else ""
    outer = operands(k)
    inner = operands(total - 1 - k)
    a = prefix() + rng.choice(ATOMS)
    b = rng.choice([prefix() + rng.choice(ATOMS), "", "", "", rng.choice(["+", "-", "not", "~"])])
    s = outer + a + "{" + inner + b
    if foreign:
        at = rng.randint(0, len(s))
        s = s[:at] + rng.choice(OTHER) + s[at:]
    return s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seen, records, wrong = set(), [], 0
    outside = {"draws": 0, "memory_errors": 0}
    while len(records) < args.count:
        foreign = rng.random() < 0.15
        s = draw(rng, foreign)
        if len(s) > 256 or s in seen:  # a condition is at most 256 characters
            continue
        seen.add(s)
        v = verdict(s)
        level = model_level(s)
        memory = v["message"].startswith("condition: syntax error: MemoryError")
        if level is None:
            if not foreign:
                print(f"a drawn nest is not the modelled shape: {s!r}", file=sys.stderr)
                wrong += 1
            outside["draws"] += 1
            outside["memory_errors"] += memory
            continue
        if (level >= LIMIT) != memory:
            wrong += 1
            print(f"model disagrees: level {level}, {v['message'][:80]}: {s!r}", file=sys.stderr)
        records.append({"condition": s, "message": v["message"], "level": level})
    if wrong:
        return 1
    meta = {"generator": "scripts/gen_pegen_stack_corpus.py",
            "command": f"python3 scripts/gen_pegen_stack_corpus.py --seed {args.seed} --count {args.count} --out {args.out}",
            "python": sys.version.split()[0], "records": len(records),
            "memory_errors": sum(r["message"].startswith("condition: syntax error: MemoryError") for r in records),
            "near_limit": sum(abs(r["level"] - LIMIT) <= 15 for r in records),
            "outside_shape": outside}
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps({"meta": meta}, ensure_ascii=False) + "\n")
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(json.dumps(meta), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
