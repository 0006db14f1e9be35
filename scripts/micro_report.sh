#!/usr/bin/env bash
# Regenerate reports/micro/ from scratch: every axis sweep in the micro world at the report's run
# length (conf/experiment/micro_report.yaml), the temperature-robustness evaluations of the
# temperature sweep's checkpoints, then the report. Two chains of sweeps run side by side, one run
# per core. Re-running skips finished runs (found by their run id) and resumes interrupted ones.
#   scripts/micro_report.sh            # runs in runs/micro/ (or $MCSWEEP_RUNS), report in reports/micro/
set -euo pipefail
cd "$(dirname "$0")/.."
export MCSWEEP_RUNS="${MCSWEEP_RUNS:-runs/micro}"
PY=.venv/bin/python

chain() {
  for sweep in "$@"; do
    $PY -m mcsweep +sweep="$sweep" experiment=micro_report hydra.launcher.n_jobs=1 -m
  done
}

# The data axis's third arm: the hard set the dataset pipeline builds (issue #7), same run length.
pipeline_arm() {
  $PY -m mcsweep.data build --config conf/data_pipeline/micro_hard.yaml
  $PY -m mcsweep data=micro_pipeline sweep_name=data experiment=micro_report launcher.torch_threads=1
}

chain temperature temperature_schedules evaluator data kl_clip batch & first=$!
sleep 2  # distinct Hydra multirun folders (they are named by the second)
(chain seeds context masking table1 && pipeline_arm) & second=$!
wait "$first"
wait "$second"
# Temperature robustness (T1, fig 7_2): first and last checkpoint, 4 temperatures, 2 samples a problem.
evals=()
for run in "$MCSWEEP_RUNS"/temperature/*/; do
  $PY -m mcsweep.train.temperature_eval "$run" --steps 0 40 --temperatures 0.6 1.2 1.8 2.4 --samples 2 &
  evals+=($!)
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do sleep 5; done
done
for pid in "${evals[@]}"; do wait "$pid"; done
$PY -m mcsweep.analysis report "$MCSWEEP_RUNS" --out reports/micro/ --notes reports/micro/notes.md \
  --title "mcsweep in the micro world (generated problems, 1.7M-parameter policy, CPU)"
