#!/usr/bin/env bash
# Stop the single-node SLURM started by up.sh: cancel its jobs, stop slurmd, slurmctld and munged,
# and check that none of them (nor a job step) is left. `--purge` also deletes the state folder.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
STATE=${MCSWEEP_SLURM_DIR:-$REPO/.slurm}
export SLURM_CONF=$STATE/slurm.conf

pid_of() { [ -s "$STATE/run/$1.pid" ] && cat "$STATE/run/$1.pid"; }

stop() {  # stop <name>...: TERM the daemons from their pid files together, KILL any left after 10 s
  local name pid pids=()
  for name in "$@"; do
    pid=$(pid_of "$name") || continue
    kill -0 "$pid" 2>/dev/null && kill "$pid" && pids+=("$pid")
    rm -f "$STATE/run/$name.pid"
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && { echo "down.sh: pid $pid ignored TERM; killing"; kill -9 "$pid"; }
  done
  return 0
}

cancel_jobs() {  # job steps (slurmstepd) end with their jobs; wait for them before slurmd goes
  [ -f "$SLURM_CONF" ] && scontrol ping >/dev/null 2>&1 || return 0
  scancel --full --partition=debug 2>/dev/null || true
  for _ in $(seq 1 60); do
    [ -z "$(squeue -h -o %i -t PD,R,CG 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "down.sh: jobs still running after 30 s: $(squeue -h -o %i | tr '\n' ' ')" >&2
}

cancel_jobs
stop slurmd slurmctld
munged_pid=$(pid_of munged) || munged_pid=""
stop munged
# A system munged may run beside ours; slurm daemons on this host can only be ours.
left=$(ps -eo pid=,comm= | awk '$2 ~ /^(slurmstepd|slurmd|slurmctld|slurmscriptd)$/ {print $1 "(" $2 ")"}')
[ -n "$munged_pid" ] && kill -0 "$munged_pid" 2>/dev/null && left="$left $munged_pid(munged)"
if [ -n "$left" ]; then
  echo "down.sh: processes left: $left" >&2
  exit 1
fi
[ "${1:-}" = "--purge" ] && rm -rf "$STATE"
echo "down.sh: SLURM stopped, no daemons left"
