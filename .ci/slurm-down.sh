#!/usr/bin/env bash
# Stop the one-node Slurm cluster that .ci/slurm-up.sh started (slurmd, slurmctld, munged).
# Never fails: it runs from a trap, also after a failed test run.
set -u
STATE="${ROCETUNE_SLURM_STATE:-/var/spool/rocetune-slurm}"
stop() {
    local pidfile="$1" name="$2" pid=""
    [ -s "$pidfile" ] && pid="$(cat "$pidfile")"
    [ -n "$pid" ] || pid="$(pgrep -x "$name" | head -n 1)"
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
}
stop "$STATE/slurmd.pid" slurmd
stop "$STATE/slurmctld.pid" slurmctld
stop /run/munge/munged.pid munged
echo "slurm-down: stopped"
exit 0
