"""Runs a command and writes the CPU time it and all its waited-for descendants used, as JSON, to a file:

    python3 rusage.py OUT.json CMD [ARGS...]

{"user_sec", "sys_sec", "wall_sec", "exit_code"}. scripts/gpu-check/run.mjs measures `aorta-probe run` with it
(the runner, its GPU tool calls and the trial): Node itself cannot read its children's CPU time.
"""

import json
import resource
import subprocess
import sys
import time


def main(argv):
    out, cmd = argv[0], argv[1:]
    start = time.monotonic()
    code = subprocess.run(cmd, check=False).returncode
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, 'w') as f:
        json.dump({'user_sec': usage.ru_utime, 'sys_sec': usage.ru_stime, 'wall_sec': wall, 'exit_code': code}, f)
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
