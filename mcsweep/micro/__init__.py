"""The micro world: a CPU-sized stand-in for code RL (problems, tokenizer, policy)."""
