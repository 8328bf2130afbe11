"""Loopback-only ICE: make aioice offer 127.0.0.1 as its one host candidate.

aioice's `get_host_addresses` deliberately leaves 127.0.0.1 out (FIELD-NOTES), so two
peers on one machine with no network, or a test that must stay on loopback, never find a
candidate pair. aiortc calls `aioice.ice.get_host_addresses` by module attribute when it
gathers candidates, so replacing that one attribute is enough; it is process-wide (every
RTCPeerConnection in this process, client or server, gathers on loopback only) and
undone by `restore_host_ice()`. Chromium needs `--allow-loopback-in-peer-connection` to
offer its own loopback candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import aioice.ice

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
