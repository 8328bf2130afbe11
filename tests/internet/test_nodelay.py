"""Every connection the server accepts sends at once (TCP_NODELAY), whatever its family.

asyncio turns Nagle's algorithm off only for sockets made with proto IPPROTO_TCP; the
server's listening socket had proto 0, so every accepted connection kept Nagle on, and an
ack written just after a state waited for the client's delayed ACK (40 ms on Linux: a vote's
round trip of 45 ms on an idle server instead of 4, bench/load.py). This looks at the
accepted socket itself, in this process, as the kernel has it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat

import pytest

from plugin.server.http import listening


async def _app(scope, receive, send):  # type: ignore[no-untyped-def]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def _accepted(server_address: tuple[str, int], peer: tuple[str, int]) -> socket.socket:
    """The server's end of the connection from `peer`, found among this process's fds."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            candidate = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            ends = (candidate.getsockname()[:2], candidate.getpeername()[:2])
            if ends == (server_address, peer):
                return candidate
        except OSError:
            pass
        candidate.close()
    raise AssertionError(f"no accepted socket for {peer}")


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
async def test_accepted_connections_have_nagle_off(host: str) -> None:
    if host == "::1" and not socket.has_ipv6:
        pytest.skip("no IPv6 loopback here")
    async with listening(_app, host=host, lifespan="off") as where:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, where.port), 10)
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"HTTP/1.1 204")
            peer = writer.get_extra_info("sockname")[:2]
            accepted = _accepted((host, where.port), peer)
            try:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
            finally:
                accepted.close()
        finally:
            writer.close()
