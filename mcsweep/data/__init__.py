"""MicroCoder-Dataset pipeline (collect, process, filter, verify) and loaders for public code-RL sets."""

from mcsweep.data.schema import Problem, SchemaError, read_jsonl, read_parquet, write_jsonl, write_parquet

__all__ = ["Problem", "SchemaError", "read_jsonl", "read_parquet", "write_jsonl", "write_parquet"]
