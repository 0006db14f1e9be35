"""Config schemas (dataclasses) and their validation."""
