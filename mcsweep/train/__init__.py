"""GRPO training through TRL, with evaluation and the run store."""
