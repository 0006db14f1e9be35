#!/usr/bin/env bash
# Create .venv and install mcsweep (CPU) with its dev tools. Torch goes first, pinned, so that pip
# never pulls a CUDA build for the CPU install. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
.venv/bin/pip install -q "torch==2.13.0"
.venv/bin/pip install -q -e ".[dev]"
