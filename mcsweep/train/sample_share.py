"""Test samples shared between runs that would draw the same ones.

Every arm of a seed starts from the same weights and evaluates them at step 0 with the same
sampling settings, so each would draw the same samples: in a campaign that is one generation per
seed and temperature, not one per run. The first run to draw a batch's samples stores them under
`<runs_root>/.eval_samples/`, keyed by everything the draw depends on (the weights themselves, the
problems' prompts, the sampling settings, torch's thread count and version); the others read them
back and grade them again, so a verdict still comes from the run's own judge. A stored file is
written whole (a temporary file renamed), so runs side by side never read half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch

from mcsweep.train.chat_format import PLAIN
from mcsweep.train.evaluation import EvalSettings, Sample

FORMAT = 1  # bump when what a stored file holds, or what its key covers, changes


def weights_digest(model) -> str:
    """SHA-256 over every parameter and buffer (name, dtype, shape and bytes)."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        t = tensor.detach().cpu().contiguous()
        digest.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        digest.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return digest.hexdigest()


class SampleShare:
    """The shared samples of one model's weights (hashed once, when the share is opened)."""

    def __init__(self, root: Path, model) -> None:
        self.root = Path(root)
        self.weights = weights_digest(model)

    def key(self, problems: Sequence[dict], s: EvalSettings) -> str:
        prompts = [(p["id"], p.get("question", ""), p.get("starter_code", "")) for p in problems]
        fields = {
            "format": FORMAT,
            "weights": self.weights,
            "prompts": hashlib.sha256(json.dumps(prompts).encode()).hexdigest(),
            "samples": s.samples,
            "temperature": s.temperature,
            "max_length": max(s.lengths),
            "prompts_per_batch": s.prompts_per_batch,
            "seed": s.seed,
            "sampler": s.sampler,
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
        }
        if s.chat != PLAIN:  # keys of runs whose prompts take no chat-template kwargs stay as they were
            fields["chat"] = [list(map(repr, s.chat.kwargs)), s.chat.reasoning_open]
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:32]

    def get(self, problems: Sequence[dict], s: EvalSettings) -> list[Sample] | None:
        path = self.root / f"{self.key(problems, s)}.json"
        if not path.exists():
            return None
        stored = json.loads(path.read_text())
        return [Sample(problems[p], index, ids) for p, index, ids in stored]

    def put(self, problems: Sequence[dict], s: EvalSettings, samples: Sequence[Sample]) -> None:
        position = {id(p): n for n, p in enumerate(problems)}
        stored = [[position[id(smp.problem)], smp.index, smp.ids] for smp in samples]
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(stored, f)
        os.replace(tmp, self.root / f"{self.key(problems, s)}.json")
