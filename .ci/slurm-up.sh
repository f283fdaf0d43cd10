#!/usr/bin/env bash
# Start a one-node Slurm cluster on this machine for tests/integration/test_slurm.py.
#
# Installs Debian's slurm-wlm and munge when missing (root + apt only), creates a munge key,
# starts munged, writes a one-node slurm.conf (this host with its real CPU count and memory;
# proctrack/linuxproc and task/none work as root in a container without cgroups or systemd),
# starts slurmctld and slurmd, and waits until `sinfo` shows the node idle.
# .ci/slurm-down.sh stops what this started. Idempotent: a running cluster is left alone.
set -euo pipefail

STATE="${ROCETUNE_SLURM_STATE:-/var/spool/rocetune-slurm}"
CONF_DIR=/etc/slurm
WAIT="${ROCETUNE_SLURM_WAIT:-60}"

if [ "$(id -u)" != 0 ]; then
    echo "slurm-up: needs root" >&2
    exit 1
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurm-wlm munge >/dev/null
fi

node="$(hostname -s)"
if sinfo -h -n "$node" -o '%t' 2>/dev/null | grep -qx idle; then
    echo "slurm-up: $node is already idle"
    exit 0
fi

LOGS=/var/log/rocetune-slurm
mkdir -p "$STATE"/{ctld,d} "$LOGS" /run/munge /var/lib/munge
chmod 0755 "$LOGS"
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 0400 /etc/munge/munge.key
if ! pgrep -x munged >/dev/null; then
    # As root with its own log file (munged checks the log's owner); --force: a stale
    # socket left by a killed munged is replaced instead of refusing to start.
    munged --force --log-file="$LOGS/munged.log"
fi

# This host as Slurm sees it (CPUs, RealMemory), minus a little memory for the daemons.
read -r cpus mem < <(slurmd -C | awk '
    /NodeName=/ { for (i = 1; i <= NF; i++) { split($i, kv, "=");
        if (kv[1] == "CPUs") c = kv[2]; if (kv[1] == "RealMemory") m = kv[2] } }
    END { print c, m }')
mem=$((mem > 1024 ? mem - 512 : mem))

mkdir -p "$CONF_DIR"
cat >"$CONF_DIR/slurm.conf" <<CONF
# Written by rocetune .ci/slurm-up.sh (one-node test cluster).
ClusterName=rocetune-ci
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=60
NodeName=$node CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
# Newer Slurm wants a cgroup.conf only with cgroup plugins; none here.

pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd

for _ in $(seq "$WAIT"); do
    state="$(sinfo -h -n "$node" -o '%t' 2>/dev/null || true)"
    case "$state" in
        idle) echo "slurm-up: $node idle ($cpus CPUs, ${mem} MiB)"; exit 0 ;;
        down*|drain*) scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 1
done
echo "slurm-up: $node not idle after ${WAIT}s (state: ${state:-none}); logs:" >&2
tail -n 20 "$LOGS"/*.log >&2 || true
exit 1
