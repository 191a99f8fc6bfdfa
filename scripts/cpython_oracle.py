#!/usr/bin/env python3
"""CPython oracle for the `condition:` sandbox verdict.

Re-implements the original `validate_and_compile` *verdict* (not its code): the order of checks below
is the original's (see docs/deviations.md), so the TypeScript port can be checked against the
real CPython 3.11 parser:

1. non-`str` input                         -> not-a-string
2. `stripped = expr.strip()`; empty        -> empty
3. `len(stripped) > 256` (code points)     -> too-long   (checked before parsing)
4. `ast.parse(stripped, mode="eval")`      -> syntax     (ANY exception, see below)
5. `ast.walk` (breadth-first) + `_check_node`, first failing node wins:
   a. Attribute: only `math.isnan` / `math.isinf`     -> forbidden-attribute
   b. node type outside the allow-list                -> forbidden-node
   c. Name outside the allowed names                  -> forbidden-name
   d. Subscript whose value is not `Name('capture')`  -> forbidden-subscript
   e. Call whose `ast.unparse(func)` is not allowed   -> forbidden-call
   f. int Constant (not bool) with abs >= 10**9       -> int-constant
6. `compile(tree, "<condition>", "eval")`  -> ok

Deviations, all deliberate and documented:

* The original only catches `SyntaxError` around `ast.parse`; other exceptions escape as-is. Here any
  exception from `ast.parse` (ValueError, UnicodeEncodeError for lone surrogates, MemoryError,
  RecursionError, ...) is reported as kind "syntax", with the exception text as `msg`.
* When `ast.unparse` fails while formatting a *forbidden attribute* message (the original lets that
  ValueError escape), the verdict is still forbidden-attribute, with the failure in the message.
* If `compile()` fails after the walker accepted the tree (never observed), the verdict is kind
  "syntax" with node null and a "compile error" message, so the corpus never silently claims "ok".

Python warnings (SyntaxWarning / DeprecationWarning for e.g. invalid escapes or `1if`) are ignored,
exactly as in a default interpreter; they never turn into errors.

Usage as a module: `from cpython_oracle import verdict`.
CLI: `python3 scripts/cpython_oracle.py --serve` reads JSON lines `{"condition": <any JSON value>}`
from stdin and writes one verdict JSON line per input line (flushed per line). Lines that are not
valid JSON get `{"error": "..."}` so the client never deadlocks.
`python3 scripts/cpython_oracle.py EXPR...` prints the verdict for each argument.
"""

from __future__ import annotations

import ast
import json
import sys
import warnings

MAX_EXPR_LEN = 256
MAX_INT_CONSTANT = 10**9

_ALLOWED_NODES = (
    ast.Expression,
    ast.BoolOp,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.Call,
    ast.Subscript,
    ast.Name,
    ast.Constant,
    ast.IfExp,
    ast.And,
    ast.Or,
    ast.Not,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.Add,
    ast.Sub,
    ast.Div,
    ast.FloorDiv,
    ast.USub,
    ast.UAdd,
    ast.Load,
)
_ALLOWED_NAMES = ("capture", "exit_code", "walltime_sec", "peak_vram_mib", "math", "float", "int", "len")
_ALLOWED_CALLS = ("float", "int", "len", "math.isnan", "math.isinf")
_MATH_ATTRS = ("isnan", "isinf")

KINDS = (
    "ok",
    "not-a-string",
    "empty",
    "too-long",
    "syntax",
    "forbidden-node",
    "forbidden-attribute",
    "forbidden-name",
    "forbidden-subscript",
    "forbidden-call",
    "int-constant",
)
WALKER_KINDS = KINDS[5:]


class _Reject(Exception):
    def __init__(self, kind: str, node: ast.AST, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.node = type(node).__name__
        self.message = message


def _result(valid: bool, kind: str, node: str | None, message: str) -> dict:
    return {"valid": valid, "kind": kind, "node": node, "message": message}


def _check_node(node: ast.AST) -> None:
    # 1. Attribute first: only math.isnan / math.isinf. An allowed Attribute returns immediately
    #    (its children are still visited by ast.walk).
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in _MATH_ATTRS:
            return
        try:
            text = ast.unparse(node)
        except Exception as exc:  # the original would let this escape (not a SandboxError)
            text = f"<ast.unparse raised {type(exc).__name__}: {exc}>"
        raise _Reject("forbidden-attribute", node, f"condition: forbidden attribute access: {text}")
    # 2. Node allow-list.
    if type(node) not in _ALLOWED_NODES:
        raise _Reject("forbidden-node", node, f"condition: forbidden AST node: {type(node).__name__}")
    # 3. Names.
    if isinstance(node, ast.Name) and node.id not in _ALLOWED_NAMES:
        raise _Reject("forbidden-name", node, f"condition: forbidden name: {node.id}")
    # 4. Subscript only on capture[...].
    if isinstance(node, ast.Subscript):
        if not (isinstance(node.value, ast.Name) and node.value.id == "capture"):
            raise _Reject("forbidden-subscript", node, "condition: subscript only allowed on capture[...]")
    # 5. Call target by exact unparse text.
    if isinstance(node, ast.Call):
        try:
            target = ast.unparse(node.func)
        except (AttributeError, ValueError):
            raise _Reject(
                "forbidden-call", node, f"condition: forbidden call target: {type(node.func).__name__}"
            ) from None
        if target not in _ALLOWED_CALLS:
            raise _Reject("forbidden-call", node, f"condition: forbidden call: {target}")
    # 6. Integer literal magnitude (bool exempt; floats/complex/str/bytes/None/... pass).
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return
        if isinstance(value, int) and abs(value) >= MAX_INT_CONSTANT:
            raise _Reject(
                "int-constant",
                node,
                f"condition: integer constant magnitude {abs(value)} >= {MAX_INT_CONSTANT} "
                "(rejected to prevent resource exhaustion)",
            )


def verdict(value: object) -> dict:
    """The original validate_and_compile verdict for `value`, as a JSON-ready dict."""
    if not isinstance(value, str):
        return _result(False, "not-a-string", None, f"condition: must be a string, got {type(value).__name__}")
    stripped = value.strip()
    if not stripped:
        return _result(False, "empty", None, "condition: expression must be non-empty")
    if len(stripped) > MAX_EXPR_LEN:
        return _result(
            False,
            "too-long",
            None,
            f"condition: expression length {len(stripped)} exceeds the {MAX_EXPR_LEN}-character cap "
            "(rejected before ast.parse to bound parse-time work)",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(stripped, mode="eval")
        except SyntaxError as exc:
            return _result(
                False, "syntax", None, f"condition: syntax error: {exc.msg} (line {exc.lineno}, col {exc.offset})"
            )
        except BaseException as exc:  # ValueError, UnicodeEncodeError, MemoryError, RecursionError, ...
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            msg = f"{type(exc).__name__}: {exc}"
            return _result(False, "syntax", None, f"condition: syntax error: {msg} (line None, col None)")
        try:
            for node in ast.walk(tree):
                _check_node(node)
        except _Reject as rej:
            return _result(False, rej.kind, rej.node, rej.message)
        try:
            compile(tree, "<condition>", "eval")
        except BaseException as exc:  # pragma: no cover - never observed for walker-accepted trees
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return _result(False, "syntax", None, f"condition: compile error: {type(exc).__name__}: {exc}")
    return _result(True, "ok", None, "ok")


def dumps(obj: object) -> str:
    """One JSON line; ensure_ascii keeps lone surrogates and all non-ASCII as \\u escapes."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"))


def serve_requests(handle, stdin=None, stdout=None) -> int:
    """JSON-lines server shared by the oracles: one `{"condition": ...}` object per line in, one
    JSON answer per line out, flushed at once; a malformed request gets `{"error": ...}`."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or "condition" not in req:
                raise ValueError('expected an object with a "condition" key')
            out = handle(req)
        except (ValueError, TypeError) as exc:
            out = {"error": f"bad request: {type(exc).__name__}: {exc}"}
        stdout.write(dumps(out) + "\n")
        stdout.flush()
    return 0


def serve(stdin=None, stdout=None) -> int:
    return serve_requests(lambda req: verdict(req["condition"]), stdin, stdout)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        # Read/write UTF-8 regardless of locale; the protocol is ASCII JSON anyway.
        stdin = open(sys.stdin.fileno(), "r", encoding="utf-8", errors="surrogatepass", closefd=False)
        return serve(stdin, sys.stdout)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    for arg in argv:
        print(dumps({"condition": arg, **verdict(arg)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
