"""A clock for tests (the port is plugin.host.ports.Clock): `FakeClock.advance(seconds)`
fires every due callback in time order (ties in scheduling order), so a test decides
exactly when a timer runs out.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from plugin.host.ports import Handle


@dataclass(slots=True)
class _Entry:
    when: float
    order: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True

    def __lt__(self, other: _Entry) -> bool:
        return (self.when, self.order) < (other.when, other.order)


class FakeClock:
    """A clock that moves only when told to; callbacks run synchronously inside advance()."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._queue: list[_Entry] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        entry = _Entry(self._now + max(0.0, delay), next(self._order), callback)
        heapq.heappush(self._queue, entry)
        return entry

    def advance(self, seconds: float) -> None:
        """Move time forward, running each callback at its own moment (now() is its `when`)."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds})")
        target = self._now + seconds
        while self._queue and self._queue[0].when <= target:
            entry = heapq.heappop(self._queue)
            if entry.cancelled:
                continue
            self._now = entry.when
            entry.callback()
        self._now = target

    @property
    def pending(self) -> int:
        """How many callbacks are still scheduled (cancelled ones excluded)."""
        return sum(1 for entry in self._queue if not entry.cancelled)
