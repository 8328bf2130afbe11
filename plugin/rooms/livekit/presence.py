"""Seats joining and leaving, with a reconnect grace period.

A leave is reported only when the seat has not come back within `grace` seconds: a
network blip (LiveKit reconnects in a few seconds) must not take a player out of the
game. A join during the grace period cancels the pending leave and is not reported.
"""

from __future__ import annotations

import asyncio
import logging

from plugin.host.ports import PresenceCallback

log = logging.getLogger(__name__)


class Presence:
    """Seats present in the room; calls the callbacks on real joins and leaves."""

    def __init__(self, *, grace: float = 10.0) -> None:
        self.grace = grace
        self.present: set[int] = set()
        self._callbacks: list[PresenceCallback] = []
        self._pending: dict[int, asyncio.Task[None]] = {}

    def subscribe(self, callback: PresenceCallback) -> None:
        self._callbacks.append(callback)

    async def joined(self, seat: int) -> None:
        pending = self._pending.pop(seat, None)
        if pending is not None:
            pending.cancel()  # came back within the grace period: a reconnect
            return
        if seat in self.present:
            return  # the same join seen twice (webhook and room event)
        self.present.add(seat)
        await self._report(seat, True)

    async def left(self, seat: int) -> None:
        if seat not in self.present or seat in self._pending:
            return
        self._pending[seat] = asyncio.create_task(self._leave_later(seat))

    async def _leave_later(self, seat: int) -> None:
        await asyncio.sleep(self.grace)
        self._pending.pop(seat, None)
        self.present.discard(seat)
        await self._report(seat, False)

    async def _report(self, seat: int, joined: bool) -> None:
        for callback in self._callbacks:
            try:
                await callback(seat, joined)
            except Exception:  # a faulty listener must not stop the room
                log.exception("presence callback failed for seat %s", seat)

    async def stop(self) -> None:
        pending = list(self._pending.values())
        self._pending.clear()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
