"""Servers on 127.0.0.1 that a test or a benchmark starts: a free port, and an ASGI app
served in this event loop."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any


def free_port(kind: socket.SocketKind = socket.SOCK_STREAM) -> int:
    """A port on 127.0.0.1 that nothing is bound to right now (TCP, or UDP with SOCK_DGRAM).

    Another process can take it before the caller binds it: a server that fails with
    "address in use" is started again on a new port (as testing.livekit_server does)."""
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Run an ASGI app on 127.0.0.1 (a free port) in this event loop, the way the server
    runs it (plugin.server.listening); yields the base URL, stops the server on exit."""
    # Imported here: the assembly imports every layer, and most tests need none of them.
    from plugin.server import listening

    async with listening(app, lifespan="auto") as where:
        yield where.url
