"""The real announcer (espeak-ng) as the room's bot voice, as frames and as a track."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient
from voice.announcer import Announcer
from voice.synth import Synthesizer

from .conftest import until

pytestmark = pytest.mark.slow


@pytest.fixture
async def announcer(tmp_path: Path) -> AsyncIterator[Announcer]:
    announcer = Announcer("en", synthesizer=Synthesizer(tmp_path / "voice"))
    await announcer.start()
    yield announcer
    await announcer.stop()


@pytest.mark.parametrize("source", ["pcm_frames", "track"])
async def test_every_listener_hears_the_announcement(announcer: Announcer, source: str):
    bot = announcer.pcm_frames() if source == "pcm_frames" else announcer.track()
    with loopback_ice():
        room = EmbeddedRoom(seats=10, bot_audio=bot)
        await room.start()
        clients = [RoomClient(), RoomClient()]
        try:
            for seat, client in zip((2, 7), clients, strict=True):
                await client.connect(lambda sdp, kind, seat=seat: room.accept(seat, sdp, kind))
            await until(lambda: all(client.frames_received > 10 for client in clients))
            start = time.monotonic()
            assert all(client.loudness(since=start) < 10 for client in clients), "silence first"
            await announcer.announce("night", {})
            await until(lambda: all(client.loudness(since=start) > 300 for client in clients))
        finally:
            for client in clients:
                await client.close()
            await room.stop()
            if source == "track":
                bot.stop()  # type: ignore[union-attr]
