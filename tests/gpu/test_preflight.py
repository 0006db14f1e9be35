"""`python -m mcsweep.gpu preflight`: its "no GPU" path on this CPU machine, and its rules on the
versions a GPU node reports (driver, compute capability, installed packages)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from mcsweep.gpu.preflight import (
    MIN_DRIVER,
    check_arch,
    check_driver,
    check_versions,
    check_vllm_pins,
    nvidia_driver,
    pinned_requirements,
)

ROOT = Path(__file__).resolve().parents[2]
TORCH_2_13_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]
# vllm-0.31.0's METADATA, the lines preflight reads.
VLLM_0_31 = ["transformers<5.18.0,>=5.10.4", "torch==2.13.0", 'zentorch==2.13.0.1; extra == "zen"']


@pytest.mark.skipif(torch.version.cuda is not None, reason="a CUDA build of torch is installed")
def test_cpu_machine_fails_naming_the_cpu_build() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcsweep.gpu", "preflight", "--hf-only"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 1
    assert "FAIL driver: torch is a CPU build" in proc.stdout
    assert "ok   transformers: 5.17" in proc.stdout and "vllm" not in proc.stdout
    assert proc.stdout.strip().endswith("preflight: FAILED: driver")


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="an NVIDIA driver is installed")
def test_no_driver_is_none() -> None:
    assert nvidia_driver() is None
    assert "no NVIDIA driver found" in check_driver(None, "13.0").detail


@pytest.mark.parametrize(
    ("driver", "cuda", "ok"),
    [
        ("580.65.06", "13.0", True),
        ("590.44.01", "13.0", True),
        ("575.57.08", "13.0", False),  # a CUDA 12.9 driver cannot run torch 2.13.0's CUDA 13.0
        ("550.54.14", "12.4", True),
        ("470.256.02", "12.8", False),
    ],
)
def test_driver_against_torch_cuda(driver: str, cuda: str, ok: bool) -> None:
    check = check_driver(driver, cuda)
    assert check.ok is ok
    assert MIN_DRIVER[int(cuda.split(".")[0])] in check.detail


def test_unknown_cuda_major_fails() -> None:
    assert not check_driver("999.1", "14.0").ok


@pytest.mark.parametrize(
    ("capability", "archs", "ok"),
    [
        ((9, 0), TORCH_2_13_ARCHS, True),  # H100/H200
        ((7, 0), TORCH_2_13_ARCHS, False),  # V100: CUDA 13 builds dropped Volta
        ((12, 1), ["sm_90", "compute_90"], True),  # JIT from PTX
        ((8, 9), ["sm_80", "sm_90"], False),
    ],
)
def test_arch(capability: tuple[int, int], archs: list[str], ok: bool) -> None:
    assert check_arch(capability, archs, "GPU").ok is ok


def test_versions_against_the_checkout_pins() -> None:
    pins = pinned_requirements()
    versions = {"torch": "2.13.0+cu130", "transformers": "5.24.0", "trl": "1.16.0", "accelerate": "1.15.0"}
    checks = {c.name: c for c in check_versions(pins, versions.get, with_vllm=True)}
    assert checks["torch"].ok and checks["trl"].ok and checks["accelerate"].ok
    assert not checks["transformers"].ok  # the CPU install's old 5.24, which vLLM 0.31 refuses
    assert not checks["vllm"].ok and "not installed" in checks["vllm"].detail
    assert {c.name for c in check_versions(pins, versions.get, with_vllm=False)} == set(versions)


def test_vllm_pins() -> None:
    checks = check_vllm_pins(VLLM_0_31, {"torch": "2.11.0+cu130", "transformers": "5.17.0"}.get)
    assert [(c.name, c.ok) for c in checks] == [("vllm needs transformers", True), ("vllm needs torch", False)]
