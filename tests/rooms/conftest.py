"""Fixtures for the embedded room: a started room on loopback ICE, and clients that join it."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial

import pytest

from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient, ToneTrack, tone_frames
from testing import eventually

BOT_HZ = 440.0
# RMS at a tone's pitch, loudest 80 ms block (RoomClient.level): a forwarded tone of
# amplitude 8000 arrives at 4000-5700; one that is not forwarded measures 0-300 (Opus
# coding noise of the other voices, measured under heavy load).
HEARD = 2000.0
SILENT = 600.0


def pitch(seat: int | str) -> float:
    """Each seat's test microphone sings its own pitch, so a listener can tell who it hears."""
    return 600.0 + 100.0 * seat if isinstance(seat, int) else 2500.0


# Wait for a condition (audio takes a few frames to arrive); fail if it never holds.
until = partial(eventually, seconds=20.0)


async def frames_later(client: RoomClient, frames: int = 2) -> float:
    """Wait until `frames` more frames have arrived; the monotonic time then.

    After the first frame of a new mix, the next one may still carry a few ms of the old
    mix (libopus looks 6.5 ms ahead), hence two frames.
    """
    target = client.frames_received + frames
    await until(lambda: client.frames_received >= target)
    return time.monotonic()


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
