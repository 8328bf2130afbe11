"""Presence: joins reported at once, a leave only after the reconnect grace period."""

from __future__ import annotations

import asyncio

from plugin.rooms.livekit.presence import Presence


async def recorded(grace: float) -> tuple[Presence, list[tuple[int, bool]]]:
    presence = Presence(grace=grace)
    seen: list[tuple[int, bool]] = []

    async def record(seat: int, joined: bool) -> None:
        seen.append((seat, joined))

    presence.subscribe(record)
    return presence, seen


async def test_a_leave_is_reported_after_the_grace_period():
    presence, seen = await recorded(grace=0.05)
    await presence.joined(3)
    await presence.joined(3)  # seen twice (webhook and room event): reported once
    await presence.left(3)
    assert seen == [(3, True)]
    await asyncio.sleep(0.2)
    assert seen == [(3, True), (3, False)]
    await presence.stop()


async def test_a_rejoin_within_the_grace_period_cancels_the_leave():
    presence, seen = await recorded(grace=0.1)
    await presence.joined(5)
    await presence.left(5)
    await presence.joined(5)
    await asyncio.sleep(0.3)
    assert seen == [(5, True)]
    assert presence.present == {5}
    await presence.stop()


async def test_a_leave_of_an_absent_seat_is_ignored():
    presence, seen = await recorded(grace=0.0)
    await presence.left(8)
    await asyncio.sleep(0.05)
    assert seen == []
    await presence.stop()
