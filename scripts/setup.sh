#!/usr/bin/env bash
# Create .venv and install mcsweep (CPU) with its dev tools. Torch goes first, pinned and alone (from
# TORCH_INDEX where given), so that the rest resolves against it. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
# TORCH_INDEX: where the CPU build lives. Unset, pip asks its configured index: on this project's
# CI machine that serves the CPU build; PyPI's own Linux wheel of torch 2.13.0 is the CUDA build.
.venv/bin/pip install -q ${TORCH_INDEX:+--index-url "$TORCH_INDEX"} "torch==2.13.0"
.venv/bin/pip install -q -e ".[dev]"
