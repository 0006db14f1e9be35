"""mcsweep: run and analyse MicroCoder-style GRPO experiments on code models."""

__version__ = "0.1.0"
