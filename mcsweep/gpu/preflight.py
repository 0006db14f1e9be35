"""`python -m mcsweep.gpu preflight`: can this node run the GPU path? Checked before a job asks for GPUs.

- The NVIDIA driver is new enough for the CUDA runtime that torch was built with (NVIDIA's
  minor-version compatibility minimum per CUDA major; torch 2.13.0 from PyPI ships CUDA 13.0).
- torch is a CUDA build, sees the GPUs, and has kernels for their compute capability.
- The installed transformers/TRL/accelerate/torch (and, for vLLM rollouts, vllm/deepspeed/aiohttp)
  satisfy mcsweep's pins, and vLLM's own pins on torch and transformers.
Every check prints a line; the command exits 1 when any fails, naming what to change.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

# NVIDIA's minimum Linux driver for CUDA minor-version compatibility, per CUDA major (CUDA release
# notes, "CUDA Toolkit and Minimum Required Driver Version"): any CUDA 13.x runtime runs on >= 580.
MIN_DRIVER = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}
SHARED = ("torch", "transformers", "trl", "accelerate")
GPU_EXTRA = ("vllm", "deepspeed", "aiohttp")
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def nvidia_driver() -> str | None:
    """The kernel driver's version, from nvidia-smi or /proc; None without an NVIDIA driver."""
    if shutil.which("nvidia-smi"):
        proc = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.split()[0]
    proc_file = Path("/proc/driver/nvidia/version")
    if proc_file.is_file():
        found = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9.]+)", proc_file.read_text())
        return found.group(1) if found else None
    return None


def check_driver(driver: str | None, cuda: str | None) -> Check:
    """The driver against the minimum for torch's CUDA runtime major version."""
    if cuda is None:
        return Check("driver", False, "torch is a CPU build (torch.version.cuda is None): install the CUDA build")
    if driver is None:
        return Check("driver", False, f"no NVIDIA driver found (no nvidia-smi, no /proc/driver/nvidia); CUDA {cuda}")
    major = int(cuda.split(".")[0])
    minimum = MIN_DRIVER.get(major)
    if minimum is None:
        return Check("driver", False, f"CUDA {cuda}: no known minimum driver; check NVIDIA's release notes")
    ok = Version(driver) >= Version(minimum)
    verdict = "" if ok else "; upgrade the driver or use a torch built for an older CUDA"
    return Check("driver", ok, f"{driver} for torch's CUDA {cuda} (needs >= {minimum}){verdict}")


def check_arch(capability: tuple[int, int], arch_list: list[str], name: str) -> Check:
    """torch has SASS for the GPU (sm_XY), or PTX of an older or equal compute_XY to JIT from."""
    major, minor = capability
    cap = major * 10 + minor
    sass = f"sm_{cap}" in arch_list
    ptx = any(int(a[8:]) <= cap for a in arch_list if a.startswith("compute_") and a[8:].isdigit())
    detail = f"{name}, compute capability {major}.{minor}; torch built for {' '.join(arch_list) or 'nothing'}"
    return Check("gpu arch", sass or ptx, detail)


def pinned_requirements(pyproject: Path = PYPROJECT) -> dict[str, Requirement]:
    """mcsweep's pins for the shared libraries and the [gpu] extra, from the checkout's pyproject."""
    project = tomllib.loads(pyproject.read_text())["project"]
    lines = [*project["dependencies"], *project["optional-dependencies"]["gpu"]]
    reqs = {Requirement(line).name.lower(): Requirement(line) for line in lines}
    return {name: reqs[name] for name in (*SHARED, *GPU_EXTRA) if name in reqs}


def installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_versions(
    pins: dict[str, Requirement], version_of: Callable[[str], str | None], with_vllm: bool
) -> list[Check]:
    """Each pinned package installed at a version its pin allows (local tags like +cu130 ignored)."""
    checks = []
    for name, req in pins.items():
        if name in GPU_EXTRA and not with_vllm:
            continue
        found = version_of(name)
        if found is None:
            checks.append(Check(name, False, f"not installed; mcsweep pins {req} (pip install -e '.[gpu]')"))
            continue
        try:
            ok = req.specifier.contains(Version(found).public, prereleases=True)
        except InvalidVersion:
            ok = False
        checks.append(Check(name, ok, f"{found} (mcsweep pins {req.specifier or 'any'})"))
    return checks


def check_vllm_pins(requires: list[str], version_of: Callable[[str], str | None]) -> list[Check]:
    """vLLM's own pins on torch and transformers (its wheel is built against one torch)."""
    checks = []
    for line in requires:
        req = Requirement(line)
        if req.name.lower() in ("torch", "transformers") and req.marker is None:
            found = version_of(req.name)
            ok = found is not None and req.specifier.contains(Version(found).public, prereleases=True)
            checks.append(Check(f"vllm needs {req.name}", ok, f"{req.specifier}; installed {found}"))
    return checks


def run_checks(with_vllm: bool = True) -> list[Check]:
    import torch

    checks = [check_driver(nvidia_driver(), torch.version.cuda)]
    if torch.version.cuda is not None:
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        checks.append(Check("cuda", count > 0, f"torch sees {count} GPU(s) (CUDA_VISIBLE_DEVICES, driver, container?)"))
        arch_list = torch.cuda.get_arch_list() if count else []
        checks += [
            check_arch(torch.cuda.get_device_capability(i), arch_list, torch.cuda.get_device_name(i))
            for i in range(count)
        ]
    checks += check_versions(pinned_requirements(), installed, with_vllm)
    if with_vllm and installed("vllm"):
        checks += check_vllm_pins(importlib.metadata.requires("vllm") or [], installed)
    return checks


def preflight(with_vllm: bool = True) -> int:
    """Print every check; 0 when all pass, 1 otherwise."""
    checks = run_checks(with_vllm)
    for check in checks:
        print(check.line())
    failed = [c.name for c in checks if not c.ok]
    print(f"preflight: {'FAILED: ' + ', '.join(failed) if failed else 'all checks passed'}")
    return 1 if failed else 0
