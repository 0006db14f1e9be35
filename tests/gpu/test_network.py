"""The trainer's VLLM_HOST_IP: its own address on the route to the vLLM server."""

from __future__ import annotations

import pytest

from mcsweep.gpu.__main__ import main
from mcsweep.gpu.network import source_ip


def test_route_to_this_host() -> None:
    assert source_ip("127.0.0.1") == "127.0.0.1"


def test_unresolvable_host_names_itself() -> None:
    with pytest.raises(ValueError, match=r"vLLM host 'no-such-node\.invalid' does not resolve"):
        source_ip("no-such-node.invalid")
    with pytest.raises(SystemExit, match=r"host-ip: vLLM host 'no-such-node\.invalid'"):
        main(["host-ip", "no-such-node.invalid"])


def test_cli_prints_the_address(capsys) -> None:
    assert main(["host-ip", "127.0.0.1"]) == 0
    assert capsys.readouterr().out.strip() == "127.0.0.1"
