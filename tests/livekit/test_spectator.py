"""A spectator's LiveKit token against the real LiveKit server (issue 17): he hears the
bot, nobody in the room sees him, and the server accepts neither a track nor data from him."""

from __future__ import annotations

import asyncio
import contextlib

import numpy as np
import pytest
from livekit import api, rtc

from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.tokens import (
    Credentials,
    bot_token,
    new_spectator_identity,
    player_token,
    spectator_token,
)
from testing.livekit_server import API_KEY, API_SECRET
from testing.tones import tone_frames

pytestmark = [pytest.mark.livekit]


@pytest.fixture
def creds(livekit_server):
    return Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)


async def test_a_spectator_hears_is_hidden_and_can_publish_nothing(creds) -> None:
    room_name = "spectated-1"
    bot = LiveKitBot(creds.url, bot_token(creds, room_name))
    await bot.start()
    player, spectator = rtc.Room(), rtc.Room()
    heard: list[int] = []
    enough = asyncio.Event()
    received: list[bytes] = []
    tasks: list[asyncio.Task[None]] = []

    async def listen(track: rtc.Track) -> None:
        stream = rtc.AudioStream(track, sample_rate=48000, num_channels=1)
        async for event in stream:
            heard.append(int(np.abs(np.frombuffer(event.frame.data, np.int16)).max()))
            if sum(level > 1000 for level in heard) >= 25:
                enough.set()
                break
        await stream.aclose()

    spectator.on(
        "track_subscribed", lambda track, *_: tasks.append(asyncio.create_task(listen(track)))
    )
    player.on("data_received", lambda packet: received.append(bytes(packet.data)))
    identity = new_spectator_identity()
    await player.connect(creds.url, player_token(creds, room_name, 1))
    await spectator.connect(creds.url, spectator_token(creds, room_name, identity))
    playing = asyncio.create_task(bot.play(tone_frames(440.0)))
    try:
        await asyncio.wait_for(enough.wait(), 20)  # he hears the table
        await asyncio.sleep(0.5)
        assert identity not in player.remote_participants  # hidden from the room

        source = rtc.AudioSource(48000, 1)
        track = rtc.LocalAudioTrack.create_audio_track("mic", source)
        options = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE)
        with contextlib.suppress(Exception):  # refused by the server, or timed out
            await asyncio.wait_for(spectator.local_participant.publish_track(track, options), 12)
        with contextlib.suppress(Exception):
            await spectator.local_participant.publish_data(b"a spectator's message")
        await asyncio.sleep(1.0)
        assert received == []
        async with api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi:
            listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room_name))
        (him,) = [p for p in listed.participants if p.identity == identity]
        assert list(him.tracks) == [] and him.permission.hidden
        assert not him.permission.can_publish and not him.permission.can_publish_data
    finally:
        playing.cancel()
        await asyncio.gather(playing, *tasks, return_exceptions=True)
        await spectator.disconnect()
        await player.disconnect()
        await bot.stop()
