# The README's two commands: `make run` (set up + main job) and `make test` (set up + tests).
PY := .venv/bin/python

.PHONY: setup run test lint
setup:
	bash scripts/setup.sh

run: setup
	$(PY) -m mcsweep

test: setup
	$(PY) -m pytest -q --durations=20

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
