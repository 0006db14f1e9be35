#!/usr/bin/env bash
# Run a micro campaign and regenerate its report: every axis sweep in the micro world under one
# experiment (the temperature sweeps evaluate their temperature robustness in the run), then the report.
# The work is a queue of units (a sweep at one seed; the seeds sweep and the pipeline arm whole), the
# longest first, pulled by two workers, one run per core: a worker takes the next unit as its last
# one ends, so no core idles while work is left. Re-running skips finished runs (found by their run
# id) and resumes interrupted ones, so a campaign can span several sessions.
#   scripts/micro_report.sh     # the current campaign, experiment=micro_campaign3: world 3, 140 rollouts,
#                               # 3 seeds per arm (conf/experiment/micro_campaign3.yaml), resumed
#   EXPERIMENT=micro_campaign ...   # issue 19's first campaign, world 2 (conf/experiment/micro_campaign.yaml)
#   EXPERIMENT=micro_report SEEDS=0 REPORT=reports/micro_report/ ...  # world 1, 40 steps, 1 seed (session 5)
#   DRY_RUN=1 ... scripts/micro_report.sh   # restore the archive, then list every run (arm, seed, run id,
#                                           # status); train nothing
#   ORDER="context masking ..." ...         # the 9 sweeps after the seeds sweep in this order
# Runs land in runs/micro/ (or $MCSWEEP_RUNS), the report in reports/micro/ (or $REPORT), headed by
# campaigns/<experiment>/notes.md (or $NOTES): how the runs were made. Finished runs
# are also packed, every 5 minutes and at the end, into campaigns/<experiment>/ (or $ARCHIVE; commit
# it), with the base policy they started from; a re-run on a fresh machine first restores from there
# (mcsweep.launch.archive), so the campaign resumes with the same base weights.
set -euo pipefail
cd "$(dirname "$0")/.."
export MCSWEEP_RUNS="${MCSWEEP_RUNS:-runs/micro}"
EXPERIMENT="${EXPERIMENT:-micro_campaign3}"
SEEDS="${SEEDS:-0,1,2}"
REPORT="${REPORT:-reports/micro/}"
ARCHIVE="${ARCHIVE:-campaigns/$EXPERIMENT}"
NOTES="${NOTES:-campaigns/$EXPERIMENT/notes.md}"  # how the experiment's runs were made, put under the report's title
PY=.venv/bin/python
dry=()
[ -n "${DRY_RUN:-}" ] && dry=(hydra.sweeper.dry_run=true)
if [ -z "${DRY_RUN:-}" ] && [ ! -f "$NOTES" ]; then  # checked now, not after hours of runs
  echo "no notes for the report: $NOTES (say how the runs are made, or set NOTES=<file>)" >&2
  exit 2
fi

# Issue 19's campaigns (micro_campaign: world 2; micro_campaign3: world 3) run 140 rollouts.
campaign=
case $EXPERIMENT in micro_campaign | micro_campaign3) campaign=1 ;; esac

# Table 1's presets make one update per rollout, the analysis base two: the campaign's Table 1 runs
# half the optimizer steps for the same 140 rollouts, its switch to high temperature at the same share.
table1=()
[ -n "$campaign" ] && table1=(train.steps=140 train.eval_every=28 sizes.switch_step=65)

sweep() {
  local name=$1
  shift
  $PY -m mcsweep +sweep="$name" experiment="$EXPERIMENT" hydra.launcher.n_jobs=1 "${dry[@]}" "$@" -m
}

# The data axis's third arm: the hard set the dataset pipeline builds (issue #7), same run length,
# from the experiment's world, its pass rates sampled as the experiment evaluates.
# Its difficulty is calibrated on the policy the experiment's runs start from (world and SFT steps).
pipeline_params=()
if [ -n "$campaign" ]; then
  read -r world sft < <($PY -c "from mcsweep.gpu.__main__ import compose_run_config as c
m = c(['experiment=$EXPERIMENT']).model.micro
print(m.world_version, m.sft_steps)")
  pipeline_params=("params.world_version=$world" "params.sft_steps=$sft" params.temperature=1.0 params.max_new_tokens=240)
fi
pipeline_arm() {
  [ -n "${DRY_RUN:-}" ] || $PY -m mcsweep.data build --config conf/data_pipeline/micro_hard.yaml "${pipeline_params[@]}"
  $PY -m mcsweep data=micro_pipeline sweep_name=data experiment="$EXPERIMENT" "seed=$SEEDS" \
    launcher.torch_threads=1 hydra.launcher.n_jobs=1 "${dry[@]}" "$@" -m
}

# The seeds sweep first: other sweeps' points copy its finished runs (mcsweep.launch.reuse).
# ORDER: the sweeps after the seeds sweep, longest first by default; a campaign spread over sessions
# may put the sweeps it most needs first (every sweep must still be listed once).
ORDER="${ORDER:-temperature temperature_schedules masking context table1 evaluator data kl_clip batch}"
if [ "$(tr ' ' '\n' <<< "$ORDER" | sort | tr '\n' ' ')" != "batch context data evaluator kl_clip masking table1 temperature temperature_schedules " ]; then
  echo "ORDER must list each of the 9 sweeps once (got: $ORDER)" >&2
  exit 2
fi
units=(seeds)
for name in $ORDER; do
  for seed in ${SEEDS//,/ }; do units+=("$name $seed"); done
done
units+=(pipeline)

run_unit() {
  local worker=$1 name=$2 seed=${3:-}
  # A multirun folder per worker: two sweeps started in the same second would share one.
  local dir=("hydra.sweep.dir=\${runs_root}/.hydra/multirun_\${now:%Y-%m-%d_%H-%M-%S}_w$worker")
  case $name in
    seeds) sweep seeds "${dir[@]}" ;;
    pipeline) pipeline_arm "${dir[@]}" ;;
    table1) sweep table1 "seed=$seed" "${table1[@]}" "${dir[@]}" ;;
    *) sweep "$name" "seed=$seed" "${dir[@]}" ;;
  esac
}

queue=$(mktemp -d)
trap 'rm -rf "$queue"' EXIT
echo 0 > "$queue/next"
take() {  # the index of the next unit, under a lock shared by the workers
  flock "$queue/next" bash -c 'i=$(cat "$0"); echo $((i + 1)) > "$0"; echo "$i"' "$queue/next"
}
worker() {
  local i
  while i=$(take) && [ "$i" -lt "${#units[@]}" ]; do
    # shellcheck disable=SC2086  # a unit is "name [seed]"
    run_unit "$1" ${units[$i]} || echo "${units[$i]}" >> "$queue/failed"
  done
}

[ -d "$ARCHIVE" ] && $PY -m mcsweep.launch.archive unpack "$MCSWEEP_RUNS" "$ARCHIVE"
if [ -z "${DRY_RUN:-}" ]; then
  pack() { $PY -m mcsweep.launch.archive pack "$MCSWEEP_RUNS" "$ARCHIVE"; }
  (while sleep 300; do pack; done) & packer=$!
  trap 'kill "$packer" 2>/dev/null; pack; rm -rf "$queue"' EXIT
fi

worker 1 & first=$!
worker 2 & second=$!
wait "$first" "$second"
if [ -s "$queue/failed" ]; then
  echo "units that failed (re-run the script to retry them; their runs' cards say why):" >&2
  sed 's/^/  /' "$queue/failed" >&2
  exit 1
fi
[ -n "${DRY_RUN:-}" ] && exit 0
$PY -m mcsweep.analysis report "$MCSWEEP_RUNS" --out "$REPORT" --notes "$NOTES" \
  --title "mcsweep in the micro world (generated problems, 1.7M-parameter policy, CPU)"
