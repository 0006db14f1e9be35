"""What the training processes share beyond TRL's own sync: per-rank rows gathered for rank 0's
run store, and a checksum that shows data-parallel replicas hold the same weights."""

from __future__ import annotations


def gather_rows(accelerator, rows: list[dict]) -> list[dict]:
    """Every process's rows, tagged with its rank, in rank order (a collective: all ranks call it)."""
    tagged = [{**row, "rank": accelerator.process_index} for row in rows]
    if accelerator.num_processes == 1:
        return tagged
    from accelerate.utils import gather_object

    return gather_object(tagged)


def weight_checksum(model) -> float:
    """A position-weighted sum of every weight: equal replicas give equal sums, bitwise."""
    return float(sum((i + 1) * p.detach().double().sum() for i, p in enumerate(model.parameters())))
