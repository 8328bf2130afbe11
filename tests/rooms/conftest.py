"""Fixtures for the embedded room: a started room on loopback ICE, and clients that join it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient, ToneTrack, tone_frames

BOT_HZ = 440.0
HEARD = 1000.0  # RMS at a tone's pitch: a sent tone of amplitude 8000 arrives at 4000-5700
SILENT = 100.0  # ... and a tone that is not forwarded measures under 1


def pitch(seat: int | str) -> float:
    """Each seat's test microphone sings its own pitch, so a listener can tell who it hears."""
    return 600.0 + 100.0 * seat if isinstance(seat, int) else 2500.0


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait for a condition (audio takes a few frames to arrive); fail if it never holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached before the timeout")
        await asyncio.sleep(0.02)


def hears(client: RoomClient, frequency: float, window: float = 0.3) -> bool:
    return client.level(frequency, since=time.monotonic() - window) > HEARD


@pytest.fixture
async def room() -> AsyncIterator[EmbeddedRoom]:
    with loopback_ice():
        room = EmbeddedRoom(seats=10, bot_audio=tone_frames(BOT_HZ))
        await room.start()
        try:
            yield room
        finally:
            await room.stop()


Join = Callable[..., Awaitable[RoomClient]]


@pytest.fixture
async def join(room: EmbeddedRoom) -> AsyncIterator[Join]:
    """join(seat, sing=True): a client for `seat`, singing pitch(seat) unless sing=False."""
    clients: list[RoomClient] = []

    async def join(seat: int | str, sing: bool = True) -> RoomClient:
        client = RoomClient(ToneTrack(pitch(seat)) if sing else None)
        clients.append(client)
        await client.connect(lambda sdp, kind: room.accept(seat, sdp, kind))
        return client

    yield join
    for client in clients:
        await client.close()
