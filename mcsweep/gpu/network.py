"""This node's address as the vLLM server sees it, for weight syncs in TRL's server mode.

TRL's client tells the server to join a NCCL group at vLLM's `get_ip()`, which reads
`$VLLM_HOST_IP` or else takes the source address of a route to 8.8.8.8: compute nodes often have
no default route, so the trainer exports the source address of its route to the server instead.
"""

from __future__ import annotations

import socket


def source_ip(peer: str, port: int = 8000) -> str:
    """The local address this host sends from to reach `peer` (a UDP connect sends no packet)."""
    try:
        family, _, _, _, address = socket.getaddrinfo(peer, port, type=socket.SOCK_DGRAM)[0]
    except socket.gaierror as err:
        raise ValueError(f"vLLM host {peer!r} does not resolve: {err.strerror}") from None
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(address)
        except OSError as err:
            raise ValueError(f"no route from this node to the vLLM host {peer!r}: {err.strerror}") from None
        return sock.getsockname()[0]
