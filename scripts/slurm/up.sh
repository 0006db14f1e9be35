#!/usr/bin/env bash
# Start a real single-node SLURM (munged, slurmctld, slurmd) on 127.0.0.1, as root, without
# systemd or cgroups, so that CI and laptops can run mcsweep's submitit_slurm launcher for real.
# Installs Debian's packages when they are missing. Idempotent: a second run only checks.
# Everything (config, munge key/socket, spool, logs, pids) lives in $MCSWEEP_SLURM_DIR
# (default: <repo>/.slurm, git-ignored). Clients need `source $MCSWEEP_SLURM_DIR/env.sh`.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
STATE=${MCSWEEP_SLURM_DIR:-$REPO/.slurm}
CTLD_PORT=${MCSWEEP_SLURM_CTLD_PORT:-6817}
SLURMD_PORT=${MCSWEEP_SLURM_SLURMD_PORT:-6818}
DEF_MEM=${MCSWEEP_SLURM_DEF_MEM_PER_CPU:-1024}
PACKAGES=(slurmctld slurmd slurm-client munge)
T0=$(date +%s.%N)

die() { echo "up.sh: $*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local t; t=$(date +%s.%N)
  echo "up.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "up.sh: installed in $(elapsed "$t") s"
}

render_config() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  # Leave 1 GiB to the OS; slurmd refuses to register a node with less memory than declared.
  mem=$(( $(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p') - 1024 ))
  mkdir -p "$STATE"/{munge,ctld,slurmd,run,log}
  chmod 700 "$STATE/munge"
  sed -e "s|@STATE@|$STATE|g" -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem|g" \
      -e "s|@DEF_MEM@|$DEF_MEM|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" \
      "$HERE/slurm.conf.in" > "$STATE/slurm.conf.new"
  if [ -f "$STATE/slurm.conf" ] && ! cmp -s "$STATE/slurm.conf" "$STATE/slurm.conf.new" \
     && { alive "$STATE/run/slurmctld.pid" || alive "$STATE/run/slurmd.pid"; }; then
    echo "up.sh: slurm.conf changed; restarting SLURM"
    bash "$HERE/down.sh"
  fi
  mv "$STATE/slurm.conf.new" "$STATE/slurm.conf"
  cat > "$STATE/env.sh" <<EOF
# Source me to use the mcsweep SLURM: its config, and the sacct shim first on PATH.
export SLURM_CONF=$STATE/slurm.conf
case ":\$PATH:" in *":$HERE/bin:"*) ;; *) export PATH=$HERE/bin:\$PATH ;; esac
EOF
}

start_munge() {
  local sock=$STATE/munge/munge.socket
  [ ${#sock} -lt 100 ] || die "munge socket path too long for a unix socket ($sock); set MCSWEEP_SLURM_DIR"
  alive "$STATE/run/munged.pid" && return 0
  [ -s "$STATE/munge/munge.key" ] || { dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 2>/dev/null; }
  chmod 400 "$STATE/munge/munge.key"
  # --force: the repo may sit under directories munged finds too permissive; the key is still 0400.
  munged --force --socket="$sock" --key-file="$STATE/munge/munge.key" --pid-file="$STATE/run/munged.pid" \
    --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munged.seed"
  munge -n -S "$sock" | unmunge -S "$sock" >/dev/null || die "munge does not round-trip; see $STATE/log/munged.log"
}

start_slurm() {
  export SLURM_CONF=$STATE/slurm.conf
  # -c: start with no job state, so a restarted SLURM does not resurrect old CI jobs.
  alive "$STATE/run/slurmctld.pid" || slurmctld -c -f "$SLURM_CONF" \
    || die "slurmctld did not start; see $STATE/log/slurmctld.log"
  alive "$STATE/run/slurmd.pid" || slurmd -f "$SLURM_CONF" -N "$(hostname -s)" \
    || die "slurmd did not start; see $STATE/log/slurmd.log"
}

wait_idle() {
  local state=""
  for _ in $(seq 1 120); do
    state=$(sinfo -h -N -o %T 2>/dev/null | head -1)
    case "$state" in idle|mixed|allocated) return 0 ;; esac
    sleep 0.25
  done
  die "node not idle after 30 s (state: '${state:-no answer}'); see $STATE/log/"
}

[ "$(id -u)" -eq 0 ] || die "must run as root (SlurmdUser=root, no cgroups)"
install_packages
T1=$(date +%s.%N)
render_config
start_munge
start_slurm
wait_idle
echo "up.sh: SLURM up on 127.0.0.1 (node $(hostname -s), $(nproc) CPUs) in $(elapsed "$T1") s" \
  "(total $(elapsed "$T0") s); run: source $STATE/env.sh"
