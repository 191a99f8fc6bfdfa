"""python3 side of the benchmark suite; one JSON spec on stdin, one JSON result on stdout.

  python3 pybench.py eval      conditions: compile (validate_and_compile) and evaluate rates
  python3 pybench.py scan      the original's scan: Tier 4 then Tier 5 over 10 MiB windows
  python3 pybench.py everyline re.finditer + evaluate on every match (our firing semantics)
  python3 pybench.py search    one re.search (ReDoS probe; the caller enforces the time cap)

Peak RSS is this process's ru_maxrss (KiB on Linux), read at the end.
"""
import json
import re
import resource
import sys
import time

import reference

MAX_LOG_BYTES = 10 * 1024 * 1024  # the original's window (counted in code points)
WINDOW_OVERLAP = 4096


def summarize_rates(fn, runs, ms, budget_ms=float("inf")):
    """One operations-per-second figure per timed loop of about `ms` milliseconds.

    Slow cases stop after at least two loops once `budget_ms` is spent (as stats.mjs does).
    """
    rates = []
    start = time.perf_counter()
    for r in range(runs):
        if r >= 2 and (time.perf_counter() - start) * 1000 > budget_ms:
            break
        n = 0
        t0 = time.perf_counter()
        t = t0
        while t - t0 < ms / 1000:
            n += fn()
            t = time.perf_counter()
        rates.append(n / (t - t0))
    return rates


def cmd_eval(spec):
    out = []
    for c in spec["conditions"]:
        v = c["vars"]
        kwargs = dict(capture=v["capture"], exit_code=v["exit_code"], walltime_sec=v["walltime_sec"],
                      peak_vram_mib=v["peak_vram_mib"])
        code = reference.validate_and_compile(c["expr"])
        fired = reference.evaluate(code, **kwargs)
        inner = c.get("inner", 1000)

        def evals():
            ev = reference.evaluate
            for _ in range(inner):
                ev(code, **kwargs)
            return inner

        def compiles():
            reference.validate_and_compile(c["expr"])
            return 1

        out.append({
            "expr": c["expr"],
            "fired": fired,
            "evalRates": summarize_rates(evals, spec["runs"], spec["ms"], spec.get("budgetMs", float("inf")))
            if spec.get("evaluate", True) else [],
            "compileRates": summarize_rates(compiles, spec["runs"], spec["ms"]) if spec.get("compile", True) else [],
        })
    return out


def iter_windows(text, window):
    """The original's _iter_windows (newest version)."""
    if len(text) <= window:
        yield text
        return
    overlap = min(WINDOW_OVERLAP, max(window // 2, 0))
    start = 0
    while True:
        end = min(start + window, len(text))
        yield text[start:end]
        if end == len(text):
            return
        start = end - overlap


def flags_of(names):
    f = 0
    for n in names:
        f |= getattr(re, n)
    return f


def scan_once(path, spec):
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", errors="replace")
    tier4 = [(p["id"], re.compile(p["regex"], flags_of(p["pythonFlags"]))) for p in spec["tier4"]]
    tier5 = [("custom:" + p["id"], re.compile(p["regex"]),
              reference.validate_and_compile(p["condition"]) if p.get("condition") else None)
             for p in spec["custom"]]
    v = spec["vars"]
    fired = []
    if text:  # Tier 4 returns nothing for an empty log
        done = set()
        for window in iter_windows(text, MAX_LOG_BYTES):
            for pid, rx in tier4:
                if pid not in done and rx.search(window):
                    done.add(pid)
                    fired.append(pid)
            if len(done) == len(tier4):
                break
    done = set()
    for window in iter_windows(text or "", MAX_LOG_BYTES):
        for pid, rx, code in tier5:
            if pid in done:
                continue
            m = rx.search(window)  # the original looks at the first match of each window only
            if m is None:
                continue
            named = {k: val for k, val in m.groupdict().items() if val is not None}
            if code is None or reference.evaluate(code, capture=named, **v):
                done.add(pid)
                fired.append(pid)
        if len(done) == len(tier5):
            break
    return sorted(fired)


def cmd_scan(spec):
    times, fired = [], None
    for _ in range(spec["repeats"]):
        t0 = time.perf_counter()
        fired = scan_once(spec["file"], spec)
        times.append((time.perf_counter() - t0) * 1000)
    return {"timesMs": times, "fired": fired}


def cmd_everyline(spec):
    """Every match in log order until the condition holds, as our scanner does (no windows needed)."""
    times, fired = [], None
    p = spec["pattern"]
    code = reference.validate_and_compile(p["condition"])
    v = spec["vars"]
    for _ in range(spec["repeats"]):
        t0 = time.perf_counter()
        with open(spec["file"], "rb") as fh:
            text = fh.read().decode("utf-8", errors="replace")
        fired, matches = False, 0
        for m in re.finditer(p["regex"], text):
            matches += 1
            named = {k: val for k, val in m.groupdict().items() if val is not None}
            if reference.evaluate(code, capture=named, **v):
                fired = True
                break
        del text
        times.append((time.perf_counter() - t0) * 1000)
    return {"timesMs": times, "fired": fired, "matches": matches}


def cmd_search(spec):
    rx = re.compile(spec["regex"])
    subject = spec["subject"]
    t0 = time.perf_counter()
    m = rx.search(subject)
    return {"timeMs": (time.perf_counter() - t0) * 1000, "matched": m is not None}


def main():
    spec = json.load(sys.stdin)
    result = {"eval": cmd_eval, "scan": cmd_scan, "everyline": cmd_everyline, "search": cmd_search}[sys.argv[1]](spec)
    json.dump({"result": result, "maxRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}, sys.stdout)


if __name__ == "__main__":
    main()
