"""`train.cpu_bf16_update`: bf16 matrix products, fp32 attention, padding still masked, and log-probs
and gradients close to fp32 (tiny policy, real TRL trainer)."""

from __future__ import annotations

import pytest
import torch
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from mcsweep.train import precision
from mcsweep.train.run import load_policy
from tests.train.test_shared_prompt import T, _batch, _grads, _trl_forward
from tests.train.test_trainer_seams import _rollout, _trainer


def _policy(tiny_run):
    cfg, _ = tiny_run()
    model, _ = load_policy(cfg)
    add_fused_lm_head(model, temperature=T, outputs=("log_probs", "entropy"))
    return model


def test_fp32_attention_masks_padding_exactly_as_sdpa(tiny_run):
    """Outside autocast the registered attention is SDPA itself, padding mask included (an attention
    without a mask builder would attend to the left padding and change these log-probs)."""
    model = _policy(tiny_run)
    ids, mask, keep = _batch(model.config.vocab_size)
    ref = _trl_forward(model, ids, mask, keep)[0]
    precision.use_fp32_attention(model)
    assert model.config._attn_implementation == precision.FP32_ATTENTION
    torch.testing.assert_close(_trl_forward(model, ids, mask, keep)[0], ref, atol=0, rtol=0)


def test_autocast_runs_linears_in_bf16_and_attention_in_fp32(tiny_run, monkeypatch):
    model = _policy(tiny_run)
    precision.use_fp32_attention(model)
    seen: dict[str, torch.dtype] = {}

    def hook(module, inputs, output) -> None:
        seen.setdefault("linear", output.dtype)

    model.model.layers[0].mlp.up_proj.register_forward_hook(hook)
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def spy(q, *args, **kwargs):
        seen.setdefault("attention", q.dtype)
        return sdpa(q, *args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spy)
    ids, mask, keep = _batch(model.config.vocab_size)
    with precision.update_autocast(True):
        _trl_forward(model, ids, mask, keep)
    assert seen == {"linear": torch.bfloat16, "attention": torch.float32}


def test_bf16_log_probs_and_gradients_stay_close_to_fp32(tiny_run):
    """The numerics the switch trades: per-token log-probs within 0.05 nats, each parameter's gradient
    pointing the same way (cosine > 0.99) as in fp32."""
    model = _policy(tiny_run)
    precision.use_fp32_attention(model)
    ids, mask, keep = _batch(model.config.vocab_size)
    completion = mask[:, -keep:]
    ref = _trl_forward(model, ids, mask, keep)[0]
    ref_grads = _grads(model, ref, completion)
    with precision.update_autocast(True):
        got = _trl_forward(model, ids, mask, keep)[0]
    assert got.dtype == torch.float32
    assert ((got - ref).abs() * completion).max() < 0.05
    for g, r in zip(_grads(model, got, completion), ref_grads, strict=True):
        assert torch.nn.functional.cosine_similarity(g.flatten(), r.flatten(), dim=0) > 0.99


def test_trainer_seam_autocasts_both_forward_paths(tiny_run, tmp_path):
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    out = _rollout(trainer)
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    keep = out["completion_ids"].size(1)
    ref = GRPOTrainer._get_per_token_logps_and_entropies(trainer, trainer.model, ids, mask, keep)[0]
    precision.use_fp32_attention(trainer.model)
    trainer.cpu_bf16_update = True
    for shared in (True, False):
        trainer.shared_prompt = shared
        got = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, keep)[0]
        assert not torch.equal(got, ref)  # bf16 products ran
        assert ((got - ref).abs() * out["completion_mask"]).max() < 0.05


def test_only_sdpa_models_switch(tiny_run):
    model = _policy(tiny_run)
    model.set_attn_implementation("eager")
    with pytest.raises(ValueError, match="sdpa"):
        precision.use_fp32_attention(model)


@pytest.mark.parametrize(
    ("flags", "native"),
    [("fpu avx2 fma", False), ("fpu avx512f avx512_bf16", True), ("fpu amx_bf16 amx_tile", True)],
)
def test_a_cpu_without_bf16_units_is_named_before_the_run_slows(tmp_path, caplog, flags, native):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: X\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
    assert precision.native_bf16(str(cpuinfo)) is native
    with caplog.at_level("WARNING", logger="mcsweep.train.precision"):
        assert precision.warn_if_emulated(str(cpuinfo)) is not native
    assert ("no bf16 matrix units" in caplog.text) is not native


def test_unknown_cpu_flags_are_not_a_warning(tmp_path):
    assert precision.native_bf16(str(tmp_path / "missing")) is None
    (tmp_path / "noflags").write_text("processor\t: 0\n")
    assert precision.native_bf16(str(tmp_path / "noflags")) is None
    assert not precision.warn_if_emulated(str(tmp_path / "noflags"))
