#!/usr/bin/env python3
"""CPython oracle for *evaluating* `condition:` expressions (the original sandbox's `evaluate`).

`evaluate_record(rec)` takes
    {"condition": str, "capture": {str: str}, "exit_code": int, "walltime_sec": float,
     "peak_vram_mib": int | None}
and returns one of
    {"valid": false, "node": str|null, "kind": str}                      rejected by the walker
    {"valid": true, "fired": bool, "value": {"type": str, "repr": str}}  evaluated
    {"valid": true, "fired": false, "error": str}                        evaluation raised

1. The condition is validated exactly like the original `validate_and_compile`, through
   `cpython_oracle.verdict` (kind/node as in fixtures/conditions/golden-validate.jsonl).
2. An accepted condition is compiled from its stripped text (the original compiles the tree that
   `ast.parse(stripped, mode="eval")` returned, which is the same code) and evaluated like the spec's
   `evaluate` (the original's src/aorta/probe/sandbox.py (ROCm/aorta)):
     * `peak_vram_mib` None -> 0;
     * globals `{"__builtins__": {}, "math": math, "float": float, "int": int, "len": len}`;
     * locals `{"capture": dict(capture), "exit_code", "walltime_sec", "peak_vram_mib"}`.
   `fired` is `bool(value)` (Python truthiness; `and`/`or` return an operand, `bool(nan)` is True).
   `value.type` is `type(value).__name__` and `value.repr` is `repr(value)`, uncapped.
   Any exception raised by `eval` (or by `bool`) gives `fired: false` and `error:
   type(exc).__name__`, which is what the original's Tier-5 caller does ("did not fire").
   CPython's int/str conversion limit (4300 digits) keeps its default (`sys.int_max_str_digits`).

Edge cases beyond the original, which never computes a repr:
   * `repr()` of an int with more than 4300 decimal digits raises ValueError (the conversion limit).
     Such a value (reachable as e.g. `int(capture['h'], 16)` on a long hex string, or a sum of two
     4300-digit ints) is reported as `{"type": "int", "repr": null, "repr_error": "ValueError"}`;
     `fired` is still `bool(value)`.
   * The record's variable types are normalised the way a JSON consumer sees them: `walltime_sec` is
     always made a float (JSON `12` is the float 12.0 here), an integral float `exit_code` /
     `peak_vram_mib` (JSON `137.0`) becomes an int. Anything else ill-typed raises `TypeError` from
     `evaluate_record` (the serve loop answers it with `{"error": ...}`).
   * Python warnings raised while compiling (invalid escape DeprecationWarning, ...) are ignored,
     exactly as in a default interpreter.

Usage as a module: `from cpython_eval_oracle import evaluate_record`.
CLI: `python3 scripts/cpython_eval_oracle.py --serve` reads one JSON record per line from stdin and
writes one result JSON line per input line, flushed per line (blank input lines are skipped; an
unusable line gets `{"error": "..."}` so a client never deadlocks). JSON is written with
`ensure_ascii=True`, so lone surrogates round-trip as `\\udXXX` escapes.
`python3 scripts/cpython_eval_oracle.py RECORD_JSON...` prints the result for each argument.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cpython_oracle import serve_requests, verdict  # noqa: E402

_FIELDS = ("condition", "capture", "exit_code", "walltime_sec", "peak_vram_mib")


def _globals() -> dict:
    # A fresh dict per evaluation, as the original builds one per call.
    return {"__builtins__": {}, "math": math, "float": float, "int": int, "len": len}


def _as_int(name: str, value: object, nullable: bool = False) -> object:
    if value is None and nullable:
        return None
    if isinstance(value, bool):
        raise TypeError(f"field {name!r} must be an integer, got bool")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise TypeError(f"field {name!r} must be an integer{' or null' if nullable else ''}, got {value!r}")


def _normalise(rec: dict) -> tuple:
    if not isinstance(rec, dict):
        raise TypeError("record must be an object")
    missing = [f for f in _FIELDS if f not in rec]
    if missing:
        raise TypeError(f"record is missing {', '.join(missing)}")
    capture = rec["capture"]
    if not isinstance(capture, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in capture.items()
    ):
        raise TypeError("field 'capture' must be an object of strings")
    exit_code = _as_int("exit_code", rec["exit_code"])
    wall = rec["walltime_sec"]
    if isinstance(wall, bool) or not isinstance(wall, (int, float)):
        raise TypeError(f"field 'walltime_sec' must be a number, got {wall!r}")
    wall = float(wall)
    vram = _as_int("peak_vram_mib", rec["peak_vram_mib"], nullable=True)
    return dict(capture), exit_code, wall, vram


def describe_value(value: object) -> dict:
    try:
        text = repr(value)
    except ValueError as exc:  # int -> str conversion limit
        return {"type": type(value).__name__, "repr": None, "repr_error": type(exc).__name__}
    return {"type": type(value).__name__, "repr": text}


def evaluate_record(rec: dict) -> dict:
    """The original validate_and_compile + evaluate outcome for one record (see module doc)."""
    cond = rec.get("condition") if isinstance(rec, dict) else None
    ver = verdict(cond)
    if not ver["valid"]:
        return {"valid": False, "node": ver["node"], "kind": ver["kind"]}
    capture, exit_code, wall, vram = _normalise(rec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = compile(cond.strip(), "<condition>", "eval")
    local_vars = {
        "capture": capture,
        "exit_code": exit_code,
        "walltime_sec": wall,
        "peak_vram_mib": 0 if vram is None else vram,
    }
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(code, _globals(), local_vars)
            fired = bool(value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # everything else: did not fire
        return {"valid": True, "fired": False, "error": type(exc).__name__}
    return {"valid": True, "fired": fired, "value": describe_value(value)}


def dumps(obj: object) -> str:
    """One JSON line; ensure_ascii keeps lone surrogates and all non-ASCII as \\u escapes."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def serve(stdin=None, stdout=None) -> int:
    return serve_requests(evaluate_record, stdin, stdout)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        stdin = open(sys.stdin.fileno(), "r", encoding="utf-8", errors="surrogatepass", closefd=False)
        return serve(stdin, sys.stdout)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    for arg in argv:
        rec = json.loads(arg)
        print(dumps({**rec, **evaluate_record(rec)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
