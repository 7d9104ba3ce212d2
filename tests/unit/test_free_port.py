"""``free_port`` in ``tests/helpers.py``: the port a test names before its server starts stays
its own (the probe it replaced handed the port back, a race on three xdist workers)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from tests.helpers import free_port


def test_a_free_port_is_kept_from_other_binds_and_taken_by_our_servers() -> None:
    port = free_port()
    with socket.socket() as other, pytest.raises(OSError):  # another worker's probe or server
        other.bind(("127.0.0.1", port))
    handed_out: list[socket.socket] = []
    try:  # the kernel's choice of port 0 passes it by
        for _ in range(300):
            sock = socket.socket()
            handed_out.append(sock)
            sock.bind(("127.0.0.1", 0))
            assert sock.getsockname()[1] != port
    finally:
        for sock in handed_out:
            sock.close()
    with socket.socket() as caller, pytest.raises(ConnectionRefusedError):
        caller.connect(("127.0.0.1", port))  # nothing listens there

    async def serve() -> int:  # as aiohttp's TCPSite binds (asyncio's default SO_REUSEADDR)
        server = await asyncio.start_server(lambda _r, _w: None, "127.0.0.1", port)
        async with server:
            return int(server.sockets[0].getsockname()[1])

    assert asyncio.run(serve()) == port
