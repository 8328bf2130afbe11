"""The monotonic clock a table's timers run on (the port is plugin.host.ports.Clock).

`RealClock` is the event loop's clock; tests use `testing.FakeClock`, which moves
only when told to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .ports import Handle


class RealClock:
    """The running event loop's clock (monotonic, unaffected by wall-clock changes)."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        return asyncio.get_running_loop().call_later(max(0.0, delay), callback)
