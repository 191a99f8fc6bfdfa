"""The python3 reference: what the original aorta sandbox does (spec: condition-sandbox.md).

validate_and_compile(text) -> code object: strip, reject empty/non-str, the 256-character cap
before parsing, ast.parse(mode="eval"), the default-deny walk in ast.walk order (nodes, names,
calls, attributes, subscripts, the 10**9 integer-literal cap), then compile().
evaluate(code, capture, exit_code, walltime_sec, peak_vram_mib) -> bool: eval with the spec's
globals and the four variables as locals (None VRAM -> 0), bool() of the value, any exception
meaning "did not fire".

This is the peer the benchmarks compare against; it is written from the spec, not copied from the
original, and is deliberately as small as the original's ~80-line walker.
"""
import ast
import math

MAX_EXPR_LEN = 256
MAX_INT_CONSTANT = 10**9

ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Subscript,
    ast.Name, ast.Constant, ast.IfExp, ast.And, ast.Or, ast.Not, ast.Eq, ast.NotEq, ast.Lt,
    ast.LtE, ast.Gt, ast.GtE, ast.Add, ast.Sub, ast.Div, ast.FloorDiv, ast.USub, ast.UAdd,
    ast.Load,
)
ALLOWED_NAMES = {"capture", "exit_code", "walltime_sec", "peak_vram_mib", "math", "float", "int", "len"}
ALLOWED_CALLS = {"float", "int", "len", "math.isnan", "math.isinf"}
GLOBALS = {"__builtins__": {}, "math": math, "float": float, "int": int, "len": len}


class SandboxError(Exception):
    pass


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else inner + "." + node.attr
    return None


def validate_and_compile(text):
    if not isinstance(text, str):
        raise SandboxError(f"condition: must be a string, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise SandboxError("condition: empty expression")
    if len(text) > MAX_EXPR_LEN:
        raise SandboxError(f"condition: expression length {len(text)} exceeds the {MAX_EXPR_LEN}-character cap")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise SandboxError(f"condition: syntax error: {exc.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if _dotted(node) not in ("math.isnan", "math.isinf"):
                raise SandboxError(f"condition: forbidden attribute: {ast.unparse(node)}")
            continue
        if not isinstance(node, ALLOWED_NODES):
            raise SandboxError(f"condition: forbidden AST node: {type(node).__name__}")
        if isinstance(node, ast.Name) and node.id not in ALLOWED_NAMES:
            raise SandboxError(f"condition: forbidden name: {node.id}")
        if isinstance(node, ast.Call):
            if _dotted(node.func) not in ALLOWED_CALLS or node.keywords:
                raise SandboxError(f"condition: forbidden call: {ast.unparse(node.func)}")
        if isinstance(node, ast.Subscript) and not (isinstance(node.value, ast.Name) and node.value.id == "capture"):
            raise SandboxError(f"condition: forbidden subscript: {ast.unparse(node.value)}")
        if (isinstance(node, ast.Constant) and isinstance(node.value, int)
                and not isinstance(node.value, bool) and abs(node.value) >= MAX_INT_CONSTANT):
            raise SandboxError("condition: integer constant magnitude")
    return compile(tree, "<condition>", "eval")


def evaluate(code, *, capture, exit_code, walltime_sec, peak_vram_mib):
    local_vars = {
        "capture": capture,
        "exit_code": exit_code,
        "walltime_sec": walltime_sec,
        "peak_vram_mib": peak_vram_mib if peak_vram_mib is not None else 0,
    }
    try:
        return bool(eval(code, GLOBALS, local_vars))
    except Exception:
        return False


# --- recipe check (cold-start peer of `aorta-probe check`) -------------------------------------
# The original loads recipes with PyYAML's safe_load, then validates custom_patterns in the
# order of the original's tier5_custom.py (ROCm/aorta) This is that validation, reduced to the checks and not the exact
# message texts (the benchmark times the work, the conformance lives in the test suite).
AUTOPSY_CATEGORIES = {"rccl_hang", "thermal_throttle", "illegal_mem", "oom_fragment", "checkpoint_race",
                      "launch_error", "perf_regression", "unknown", "gpu_race", "numeric_silent", "tooling_gap"}
PATTERN_KEYS = {"id", "match", "on_match", "required_for_pass", "category"}


class RecipeSchemaError(Exception):
    pass


def validate_custom_patterns(raw):
    import re
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise RecipeSchemaError(f"recipe.custom_patterns: must be a non-empty list, got {raw!r}")
    seen, out = set(), []
    for idx, p in enumerate(raw):
        path = f"recipe.custom_patterns[{idx}]"
        if not isinstance(p, dict):
            raise RecipeSchemaError(f"{path}: must be a mapping, got {type(p).__name__}")
        unknown = set(p) - PATTERN_KEYS
        if unknown:
            raise RecipeSchemaError(f"{path}: unknown keys {sorted(unknown)}; allowed: {sorted(PATTERN_KEYS)}")
        pid = p.get("id")
        if not isinstance(pid, str) or not pid:
            raise RecipeSchemaError(f"{path}.id: must be a non-empty string")
        if pid in seen:
            raise RecipeSchemaError(f"{path}.id: duplicate id {pid!r}")
        seen.add(pid)
        m = p.get("match")
        if not isinstance(m, dict) or set(m) - {"regex", "condition"}:
            raise RecipeSchemaError(f"{path}.match: must be a mapping with 'regex' (and optional 'condition')")
        rx = m.get("regex")
        if not isinstance(rx, str) or not rx:
            raise RecipeSchemaError(f"{path}.match.regex: must be a non-empty string")
        try:
            compiled = re.compile(rx)
        except re.error as exc:
            raise RecipeSchemaError(f"{path}.match.regex: invalid regex ({exc}): {rx!r}") from None
        code = None
        if m.get("condition") is not None:
            try:
                code = validate_and_compile(m["condition"])
            except SandboxError as exc:
                raise SandboxError(f"{path}.match.condition: {exc}") from None
        on_match = p.get("on_match", "fail")
        if on_match not in ("fail", "warn", "info"):
            raise RecipeSchemaError(f"{path}.on_match: must be one of ['fail', 'info', 'warn'], got {on_match!r}")
        req = p.get("required_for_pass", False)
        if not isinstance(req, bool):
            raise RecipeSchemaError(f"{path}.required_for_pass: must be a boolean, got {type(req).__name__}")
        if req and on_match != "fail":
            raise RecipeSchemaError(f"{path}.required_for_pass: only meaningful with on_match='fail'")
        if "category" in p and p["category"] not in AUTOPSY_CATEGORIES:
            raise RecipeSchemaError(f"{path}.category: must be one of {sorted(AUTOPSY_CATEGORIES)}, got {p['category']!r}")
        out.append(("custom:" + pid, compiled, code, on_match, req))
    return tuple(out)


def check_recipe(path):
    """safe_load + custom_patterns validation; returns the number of custom patterns.

    A `.json` path is read with the json module: the fallback where PyYAML is not installed
    (the bench then passes a JSON rendering of the same recipe and says so in its table).
    """
    with open(path, encoding="utf-8") as fh:
        if path.endswith(".json"):
            import json
            doc = json.load(fh)
        else:
            import yaml  # PyYAML, as the original
            doc = yaml.safe_load(fh)
    if not isinstance(doc, dict):
        raise RecipeSchemaError("recipe: top level must be a mapping")
    return len(validate_custom_patterns(doc.get("custom_patterns")))
