"""launcher.processes > 1: each submitit task finds its rank, and the `accelerate` group becomes the
variables `accelerate launch` would export; a data-parallel step over 2 real gloo processes averages
the ranks' gradients."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml
from hydra import compose, initialize_config_dir

from mcsweep.config.validate import validate_config
from mcsweep.launch.processes import accelerate_env, setup_processes

CONF = Path(__file__).resolve().parents[2] / "conf"
LR = 0.1


def group(name: str) -> dict:
    return yaml.safe_load((CONF / "accelerate" / f"{name}.yaml").read_text())


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cpu", {"ACCELERATE_MIXED_PRECISION": "no"}),
        ("ddp", {"ACCELERATE_MIXED_PRECISION": "bf16"}),
        ("zero2", {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "2"}),
        ("zero3", {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO3_INIT": "true"}),
        ("fsdp", {"ACCELERATE_USE_FSDP": "true", "FSDP_VERSION": "2"}),
    ],
)
def test_each_accelerate_option_exports_what_accelerate_launch_does(name, expected):
    env = accelerate_env(group(name), world=2)
    assert expected.items() <= env.items()
    assert not {"RANK", "WORLD_SIZE", "MASTER_ADDR"} & set(env), "ranks come from the job, not the file"
    if name in ("cpu", "ddp"):
        assert "ACCELERATE_USE_DEEPSPEED" not in env and "ACCELERATE_USE_FSDP" not in env


def test_the_group_lands_in_launcher_accelerate_and_paper_scale_takes_8_processes_under_zero3():
    with initialize_config_dir(str(CONF), version_base="1.3"):
        two = ["launcher=submitit_local", "launcher.processes=2"]
        micro = compose("config", overrides=two, return_hydra_config=True)
        paper = compose("config", overrides=["scale=paper"], return_hydra_config=True)
        checked = validate_config(compose("config", overrides=two))
    assert micro.launcher.accelerate.distributed_type == "MULTI_CPU"
    assert micro.hydra.launcher.tasks_per_node == 2
    assert checked.launcher.processes == 2 and checked.launcher.accelerate["use_cpu"] is True
    assert paper.launcher.processes == 8 and paper.launcher.accelerate.deepspeed_config.zero_stage == 3
    assert paper.hydra.launcher.tasks_per_node == 8 and paper.hydra.launcher.gpus_per_node == 8


def test_asking_for_processes_that_the_job_does_not_run_fails_with_the_key_named():
    with pytest.raises(RuntimeError, match=r"launcher.processes=2 but this job runs 1 task"):
        setup_processes(2, group("cpu"), env={})


def test_a_process_from_accelerate_launch_or_torchrun_is_left_alone():
    env = {"WORLD_SIZE": "4", "RANK": "3"}
    assert setup_processes(1, group("zero3"), env=env) == 4
    assert env == {"WORLD_SIZE": "4", "RANK": "3"}


def ddp_step(settings: dict) -> dict:
    """One SGD step of a linear model, each rank on its own data, through the Accelerator TRL uses."""
    env: dict[str, str] = {}
    setup_processes(2, settings, env=env)
    import os

    os.environ.update(env)
    from accelerate import Accelerator

    acc = Accelerator(cpu=True)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    model, opt = acc.prepare(model, opt)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(100 + acc.process_index))
    acc.backward(model(x).pow(2).mean())
    opt.step()
    inner = acc.unwrap_model(model)
    return {"rank": acc.process_index, "world": acc.num_processes, "env": env, "x": x, "state": inner.state_dict()}


@pytest.mark.timeout(300)
def test_two_gloo_processes_from_submitit_tasks_average_their_gradients(tmp_path):
    import sys

    import cloudpickle
    import submitit

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tasks cannot import a test module
    executor = submitit.LocalExecutor(folder=tmp_path)
    executor.update_parameters(tasks_per_node=2, timeout_min=5)
    results = executor.submit(ddp_step, group("cpu")).results()
    assert sorted(r["rank"] for r in results) == [0, 1] and {r["world"] for r in results} == {2}
    assert {r["env"]["ACCELERATE_MIXED_PRECISION"] for r in results} == {"no"}

    torch.manual_seed(0)
    reference = torch.nn.Linear(3, 1)
    grads = []
    for r in results:  # each rank's own gradient at the shared starting weights
        reference.zero_grad()
        reference(r["x"]).pow(2).mean().backward()
        grads.append({n: p.grad.clone() for n, p in reference.named_parameters()})
    expected = {n: p.detach() - LR * (grads[0][n] + grads[1][n]) / 2 for n, p in reference.named_parameters()}
    for r in results:
        for name, value in expected.items():
            torch.testing.assert_close(r["state"][name], value)
    assert not torch.allclose(grads[0]["weight"], grads[1]["weight"]), "the ranks must see different data"


@pytest.mark.parametrize("name", ["zero2", "zero3", "fsdp"])
def test_sharding_on_cpus_is_refused_rather_than_run_as_plain_data_parallel(name, monkeypatch):
    from mcsweep.launch import processes

    monkeypatch.setattr(processes, "job_world_size", lambda: 2)  # as inside a 2-task job
    with pytest.raises(RuntimeError, match=f"accelerate: {group(name)['distributed_type']} needs GPUs"):
        setup_processes(2, group(name), env={})
