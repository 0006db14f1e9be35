"""The labelled accuracy corpus (``labelled.jsonl``) and the script that builds it (``build.py``)."""
