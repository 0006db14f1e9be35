"""Small readers shared by every part of mcsweep (one JSONL reader instead of one per module)."""
