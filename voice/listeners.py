"""One consumer's view of the announcer's frame clock: a short buffer that never blocks it.

The clock pushes each 20 ms frame (or Opus packet) to every listener and moves on. A
listener that does not keep up loses its oldest items (counted in `dropped`) instead of
stalling the clock or the other listeners, and the bound keeps its delay short.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

Item = TypeVar("Item")

BUFFER_FRAMES = 8  # 160 ms: absorbs a consumer's scheduling jitter, bounds its delay


class Closed(Exception):
    """The announcer stopped: no more items will come."""


class Listener(Generic[Item]):
    """A bounded, drop-oldest buffer between the frame clock and one consumer."""

    def __init__(self, size: int = BUFFER_FRAMES) -> None:
        self._items: deque[tuple[int, Item]] = deque(maxlen=size)
        self._ready = asyncio.Event()
        self._closed = False
        self.dropped = 0

    def push(self, index: int, item: Item) -> None:
        """Called by the clock: never waits."""
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
        self._items.append((index, item))
        self._ready.set()

    async def get(self) -> tuple[int, Item]:
        """The next (frame index, item); raises Closed once the announcer has stopped."""
        while not self._items:
            if self._closed:
                raise Closed
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()

    def close(self) -> None:
        self._closed = True
        self._ready.set()

    @property
    def closed(self) -> bool:
        return self._closed
