#!/usr/bin/env bash
# A single-node Slurm cluster on this machine for the end-to-end sweep test (test/sweep-slurm.test.ts):
# installs Debian's slurm-wlm and munge when missing, writes a minimal slurm.conf (no cgroups: process
# tracking from /proc, no task binding, consumable cores), and starts munged, slurmctld and slurmd as root.
# Idempotent: a running cluster is left as it is. Stop it with scripts/slurm-down.sh.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "slurm-up: installing slurm-wlm and munge"
  $SUDO apt-get update -qq < /dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge < /dev/null
fi

host=$(hostname -s)
conf_dir=/etc/slurm
$SUDO mkdir -p "$conf_dir" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
$SUDO tee "$conf_dir/slurm.conf" > /dev/null <<CONF
# Written by aorta-probe scripts/slurm-up.sh: one node, one partition, for tests.
ClusterName=aorta-probe-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/builtin
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if [ ! -s /etc/munge/munge.key ]; then
  $SUDO mkdir -p /etc/munge
  $SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
$SUDO chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
$SUDO chmod 0400 /etc/munge/munge.key
$SUDO chmod 0755 /run/munge
if ! running /run/munge/munged.pid; then
  $SUDO runuser -u munge -- /usr/sbin/munged
fi
running /run/slurmctld.pid || $SUDO /usr/sbin/slurmctld
running /run/slurmd.pid || $SUDO /usr/sbin/slurmd

# Ready when the node is idle (a node left DOWN by an earlier run is resumed).
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  case "$state" in
    idle*|mixed*|allocated*) echo "slurm-up: node $host is $state"; exit 0 ;;
    down*|drain*) $SUDO scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
  esac
  sleep 0.5
done
echo "slurm-up: the node did not become idle; state: ${state:-unknown}" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
