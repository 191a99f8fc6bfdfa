"""Runs one command as a whole process, `repeats` times; spec (JSON) on stdin:

  {"cmd": [...], "cwd": str, "repeats": int, "ok": [exit statuses that count as success]}

Prints {"result": {"timesMs": [...], "maxRssKiB": [...], "status": int, "stdout": str}, "maxRssKiB": 0}.
Wall time is from spawn to reaped exit; peak RSS is the child's own ru_maxrss from wait4 (KiB on Linux), so the
figures are the command's, not this wrapper's (Node has no rusage of a child, hence python). Output goes to
temporary files (no pipe for the child to wait on); stdout is the last run's, for what fired.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    spec = json.load(sys.stdin)
    times, rss = [], []
    status, out = None, ""
    for _ in range(spec["repeats"]):
        with tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
            t0 = time.perf_counter()
            p = subprocess.Popen(spec["cmd"], cwd=spec["cwd"], stdout=fout, stderr=ferr)
            _, wstatus, ru = os.wait4(p.pid, 0)
            times.append((time.perf_counter() - t0) * 1000)
            status = os.waitstatus_to_exitcode(wstatus)
            fout.seek(0)
            ferr.seek(0)
            out = fout.read().decode(errors="replace")
            if status not in spec["ok"]:
                err = ferr.read().decode(errors="replace")
                sys.stderr.write(f"{spec['cmd'][0]} exited {status}: {err[-2000:]}\n")
                sys.exit(1)
        rss.append(ru.ru_maxrss)
    json.dump({"result": {"timesMs": times, "maxRssKiB": rss, "status": status, "stdout": out[-4000:]},
               "maxRssKiB": 0}, sys.stdout)


if __name__ == "__main__":
    main()
