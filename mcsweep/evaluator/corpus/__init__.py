"""The labelled accuracy corpus, ``labelled.jsonl`` (package data), built from ``evaluator_corpus/`` in the repo."""
