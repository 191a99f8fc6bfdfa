#!/usr/bin/env bash
# Stops the daemons scripts/slurm-up.sh started, by their pid files (nothing else is signalled).
set -uo pipefail
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      $SUDO kill "$pid"
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    fi
  fi
done
echo "slurm-down: stopped"
