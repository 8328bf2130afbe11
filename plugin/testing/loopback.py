"""Free ports on 127.0.0.1, for servers a test or a benchmark starts."""

from __future__ import annotations

import socket


def free_port(kind: socket.SocketKind = socket.SOCK_STREAM) -> int:
    """A port on 127.0.0.1 that nothing is bound to right now (TCP, or UDP with SOCK_DGRAM).

    Another process can take it before the caller binds it: a server that fails with
    "address in use" is started again on a new port (see plugin.testing.livekit)."""
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
