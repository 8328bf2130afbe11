"""ICE of this process's aiortc peers: which host addresses they offer, the STUN/TURN servers
they use, and the UDP ports their host candidates bind.

Loopback-only ICE: make aioice offer 127.0.0.1 as its one host candidate.

aioice's `get_host_addresses` deliberately leaves 127.0.0.1 out (FIELD-NOTES), so two
peers on one machine with no network, or a test that must stay on loopback, never find a
candidate pair. aiortc calls `aioice.ice.get_host_addresses` by module attribute when it
gathers candidates, so replacing that one attribute is enough; it is process-wide (every
RTCPeerConnection in this process, client or server, gathers on loopback only) and
undone by `restore_host_ice()`. Chromium needs `--allow-loopback-in-peer-connection` to
offer its own loopback candidate.

Both switches below replace private parts of aioice: pyproject.toml pins aioice to the
series they were checked against, and tests/test_patched_internals.py fails, naming the
part, when an aioice release changes one.
"""

from __future__ import annotations

import asyncio
import errno
import random
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import aioice.ice
from aiortc import RTCIceServer

_ORIGINAL = aioice.ice.get_host_addresses


def _loopback_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """Stand-in for aioice.ice.get_host_addresses: 127.0.0.1 only (no IPv6 loopback)."""
    return ["127.0.0.1"] if use_ipv4 else []


def use_loopback_ice() -> None:
    """From now on, every ICE agent in this process gathers only 127.0.0.1. Idempotent."""
    aioice.ice.get_host_addresses = _loopback_addresses


def restore_host_ice() -> None:
    """Give aioice back its own host address discovery."""
    aioice.ice.get_host_addresses = _ORIGINAL


def loopback_ice_active() -> bool:
    return aioice.ice.get_host_addresses is _loopback_addresses


@contextmanager
def loopback_ice() -> Iterator[None]:
    """Loopback-only ICE for the duration of a `with` block (tests, benches)."""
    was_active = loopback_ice_active()
    use_loopback_ice()
    try:
        yield
    finally:
        if not was_active:
            restore_host_ice()


def _host_and_loopback_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    found = list(_ORIGINAL(use_ipv4=use_ipv4, use_ipv6=use_ipv6))
    return found + (["127.0.0.1"] if use_ipv4 and "127.0.0.1" not in found else [])


def use_host_and_loopback_ice() -> None:
    """Gather the machine's addresses AND 127.0.0.1: a browser on another machine reaches
    the LAN address, simulated players in this process reach loopback (a server's default).
    """
    aioice.ice.get_host_addresses = _host_and_loopback_addresses


# -- STUN/TURN servers and the UDP port range of this process's peers ----------------------


def rtc_ice_servers(entries: Iterable[Mapping[str, Any]]) -> list[RTCIceServer]:
    """aiortc's RTCIceServer list from WebRTC-style entries ({"urls", "username",
    "credential"}). aiortc uses the first STUN URL and the first TURN URL whose transport
    it supports (turn: udp or tcp, turns: tcp), and ignores the rest."""
    return [
        RTCIceServer(
            urls=list(entry["urls"]),
            username=entry.get("username"),
            credential=entry.get("credential"),
        )
        for entry in entries
    ]


class _PortRangeLoop:
    """The running event loop, except that a UDP socket asked for on port 0 is bound to a
    free port of [low, high] instead (an ICE host candidate's socket)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, low: int, high: int) -> None:
        self._loop, self._low, self._high = loop, low, high

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loop, name)

    async def create_datagram_endpoint(
        self, factory: Any, local_addr: tuple[str, int] | None = None, **kwargs: Any
    ) -> Any:
        if local_addr is None or local_addr[1] != 0:
            return await self._loop.create_datagram_endpoint(
                factory, local_addr=local_addr, **kwargs
            )
        count = self._high - self._low + 1
        first = random.randrange(count)  # spread peers over the range, do not crowd its start
        for step in range(count):
            port = self._low + (first + step) % count
            try:
                return await self._loop.create_datagram_endpoint(
                    factory, local_addr=(local_addr[0], port), **kwargs
                )
            except OSError as error:
                if error.errno != errno.EADDRINUSE:
                    raise
        raise OSError(errno.EADDRINUSE, f"no free UDP port in {self._low}-{self._high}")


class _AsyncioWithPortRange:
    """What aioice.ice sees as `asyncio`: the real module, but its running loop binds host
    candidates inside the port range."""

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    def get_running_loop(self) -> _PortRangeLoop:
        return _PortRangeLoop(asyncio.get_running_loop(), self.low, self.high)


def use_udp_port_range(low: int, high: int) -> None:
    """From now on every ICE host candidate of this process (hence every server-side peer)
    binds a UDP port in [low, high], so a firewall opens that range and nothing more.

    aioice has no port-range option: it binds its host sockets with
    `asyncio.get_running_loop().create_datagram_endpoint(local_addr=(address, 0))` in
    `Connection.get_component_candidates` (aioice 0.10-0.13), so the `asyncio` its ice
    module sees is replaced by one whose loop picks the port. A TURN allocation's local
    socket (an outgoing connection to the TURN server) is not in the range; that needs no
    open inbound port. Process-wide, like the loopback switch above; undone by
    `restore_udp_ports()`.
    """
    if not 1 <= low <= high <= 65535:
        raise ValueError(f"not a UDP port range: {low}-{high}")
    setattr(aioice.ice, "asyncio", _AsyncioWithPortRange(low, high))  # noqa: B010


def restore_udp_ports() -> None:
    """Any free port again (the kernel's choice)."""
    setattr(aioice.ice, "asyncio", asyncio)  # noqa: B010
