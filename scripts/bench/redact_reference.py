"""The original's redaction of a text artifact, for the bench: its newest path and IP regexes and order (the
`scrub` of scripts/gen_redact_golden.py, which the goldens hold ours to), over windows of whole lines of at most
10 MiB read as the original streams them (`errors="replace"`, `newline=""`), written as UTF-8.

Run: python3 scripts/bench/redact_reference.py LOG OUT  -> prints {"ms", "paths", "ips", "maxRssKiB"}
"""
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from gen_redact_golden import scrub  # noqa: E402

MAX_LOG_BYTES = 10 * 1024 * 1024


def windows(f):
    buf, size = [], 0
    for line in f:
        n = len(line.encode("utf-8", errors="surrogatepass"))
        if size + n > MAX_LOG_BYTES and buf:
            yield "".join(buf)
            buf, size = [], 0
        buf.append(line)
        size += n
    if buf:
        yield "".join(buf)


def main():
    t0 = time.perf_counter()
    paths = ips = 0
    # One index per file, as the original's newest shared indexes: scrub() numbers per call, so the counts are
    # what is compared; the placeholder numbers may restart per window here.
    with open(sys.argv[1], encoding="utf-8", errors="replace", newline="") as f, open(sys.argv[2], "w", encoding="utf-8", newline="") as out:
        for w in windows(f):
            text, counts = scrub(w)
            paths += counts["paths"]
            ips += counts["ips"]
            out.write(text)
    ms = (time.perf_counter() - t0) * 1000
    print(json.dumps({"ms": ms, "paths": paths, "ips": ips, "maxRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == "__main__":
    main()
