#!/usr/bin/env python3
"""CPython's answers for the VM's inline fast paths, at their edges (fixtures/conditions/golden-eval-fast-path.jsonl).

The VM's dispatch loop decides some operations itself instead of calling the general routine
(assembly/vm.ts): `int + int`, `int - int` and `int // int` while the result stays an i64 (the
`//` path only for a divisor > 0 or < -1), `float()` of a float or of a 'nan'/'inf' spelling, and
`math.isnan`/`math.isinf` of a float. Each path hands anything else to the general routine, so its
edges are where a mistake would hide: operands at and around 0, +-1, +-2**62 and the i64 limits
(whose sum, difference or quotient overflows into a big int), divisors 0 and -1, and the special
float words in every case, sign and surrounding. The random corpus (golden-eval.jsonl) reaches
these pairs only by chance; this one holds every pair.

Every record has golden-eval.jsonl's shape (the result is `cpython_eval_oracle.evaluate_record`'s):
    {"condition": str, "capture": {str: str}, "exit_code": int, "walltime_sec": float,
     "peak_vram_mib": int|null, "origin": str, ...result}

    python3 scripts/gen_fast_path_corpus.py --out fixtures/conditions/golden-eval-fast-path.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpython_eval_oracle as oracle  # noqa: E402
import golden_meta  # noqa: E402

I64_MAX = 2**63 - 1
I64_MIN = -(2**63)

# Operands of the int paths: small ones, the divisors each branch of `//` takes, and the values
# next to the i64 limits, with the first ones past them (big ints that must leave the fast path).
INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 1024, -1024,
        2**62, -(2**62), 2**62 - 1, -(2**62) - 1,
        I64_MAX, I64_MAX - 1, I64_MIN, I64_MIN + 1, I64_MAX + 1, I64_MIN - 1]

# Arguments of float() / math.isnan / math.isinf read from a capture: CPython's special words in
# every case and sign, the near misses float() refuses, and ordinary numbers.
FLOAT_WORDS = ["nan", "NaN", "NAN", "-nan", "+nan", "nAn", "inf", "-inf", "+inf", "INF", "Inf",
               "infinity", "-Infinity", "+INFINITY", "iNfInItY", " nan", "nan ", "\tinf\n",
               "in", "infinit", "infinityy", "nanx", "na", "-", "", "1e400", "-1e400", "1e-400",
               "0.0", "-0.0", "1.5", "-2", "1_000.5", "0x10"]

# The same paths on values that are not a str from a capture: a float, an int (a big one too), a
# bool, a str literal, None, an overflowed float, and the results of arithmetic. (Every condition
# here passes the walker, which refuses `**`, `*` and int literals over 10**9.)
LITERALS = ["float(1.5)", "float(0.0)", "float(-0.0)", "float(True)", "float(7)", "float(int('9223372036854775808'))",
            "float('nan')", "float('-inf')", "math.isnan(0.0)", "math.isnan(-0.0)", "math.isnan(1)",
            "math.isnan(True)", "math.isnan('nan')", "math.isnan(None)", "math.isinf(1.5)",
            "math.isinf(1e308 + 1e308)", "math.isinf(-1e308 - 1e308)", "math.isnan((1e308 + 1e308) - (1e308 + 1e308))",
            "math.isinf(int('9223372036854775808'))", "math.isinf(-0.0)", "math.isnan(float('nan') + 1)",
            "math.isinf(float('inf') - float('inf'))", "math.isnan(float('inf') - float('inf'))",
            "math.isnan(float(float('nan')))", "math.isinf(float(-1e400))"]


def records() -> list[dict]:
    out: list[dict] = []

    def add(condition: str, capture: dict[str, str], origin: str) -> None:
        rec = {"condition": condition, "capture": capture, "exit_code": 0, "walltime_sec": 1.0,
               "peak_vram_mib": None, "origin": origin}
        out.append({**rec, **oracle.evaluate_record(rec)})

    for a in INTS:
        for b in INTS:
            for op in ("+", "-", "//"):
                add(f"int(capture['a']) {op} int(capture['b'])", {"a": str(a), "b": str(b)}, "fast:int-pair")
    # The bench's shape: the quotient compared with an int.
    for a in INTS:
        add("int(capture['a']) // 1024 > 65536", {"a": str(a)}, "fast:int-compare")
    for word in FLOAT_WORDS:
        for f in ("float({0})", "math.isnan(float({0}))", "math.isinf(float({0}))", "math.isnan({0})"):
            add(f.format("capture['s']"), {"s": word}, "fast:float-word")
    for expr in LITERALS:
        add(expr, {}, "fast:float-literal")
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    recs = records()
    header = {"meta": golden_meta.meta(
        "scripts/gen_fast_path_corpus.py",
        f"python3 scripts/gen_fast_path_corpus.py --out {args.out}",
        oracle="CPython eval via scripts/cpython_eval_oracle.py", records=len(recs))}
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(oracle.dumps(header) + "\n")
        for r in recs:
            f.write(oracle.dumps(r) + "\n")
    print(f"{len(recs)} records -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
