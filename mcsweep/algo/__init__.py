"""Algorithm knobs: truncation masking, temperature control, KL/clip, batch and context."""
