"""LiveKit players for the benches, in their own process (their CPU is not the server's):
each joins its room with the token given, subscribes to what it hears (the bot, the
speaker), and publishes a tone on its microphone whenever the server allows it (our player
tokens allow nothing at join; the engine's grant opens it), like the widget does.
Reads one JSON object {"url", "tokens": [...]} on stdin, prints "ready" once every player
is in, then runs until stdin closes.

Usage: python bench/_livekit_players.py < players.json
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

import numpy as np
from livekit import rtc

MIC = rtc.TrackSource.SOURCE_MICROPHONE
TONE = (np.sin(2 * np.pi * 440 * np.arange(960) / 48_000) * 6000).astype(np.int16).tobytes()


class BenchPlayer:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.room = rtc.Room()
        self.source = rtc.AudioSource(48_000, 1)
        self.heard = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.room.on("participant_permissions_changed", self._permissions)
        self.room.on("track_subscribed", self._subscribed)

    async def join(self) -> None:
        await self.room.connect(self.url, self.token, rtc.RoomOptions(auto_subscribe=True))
        self._spawn(self._feed())

    def _spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _permissions(self, participant, permissions) -> None:
        if participant.identity == self.room.local_participant.identity:
            self._spawn(self._publish() if permissions.can_publish else self._unpublish())

    async def _publish(self) -> None:
        track = rtc.LocalAudioTrack.create_audio_track("mic", self.source)
        with contextlib.suppress(Exception):
            await self.room.local_participant.publish_track(
                track, rtc.TrackPublishOptions(source=MIC)
            )

    async def _unpublish(self) -> None:
        for sid in list(self.room.local_participant.track_publications):
            with contextlib.suppress(Exception):
                await self.room.local_participant.unpublish_track(sid)

    def _subscribed(self, track, *_: object) -> None:
        if track.kind == rtc.TrackKind.KIND_AUDIO:
            self._spawn(self._drain(track))

    async def _drain(self, track: rtc.Track) -> None:
        stream = rtc.AudioStream(track, sample_rate=48_000, num_channels=1)
        async for _ in stream:
            self.heard += 1

    async def _feed(self) -> None:
        frame = rtc.AudioFrame(TONE, 48_000, 1, 960)
        loop = asyncio.get_running_loop()
        start, n = loop.time(), 0
        while True:
            if self.room.local_participant.track_publications:
                await self.source.capture_frame(frame)
            n += 1
            await asyncio.sleep(max(0.0, start + n * 0.02 - loop.time()))

    async def leave(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.room.disconnect()


async def main() -> None:
    spec = json.loads(sys.stdin.readline())
    players = [BenchPlayer(spec["url"], token) for token in spec["tokens"]]
    for player in players:
        await player.join()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    await reader.read()  # until stdin closes
    print(json.dumps({"heard": sum(p.heard for p in players)}), flush=True)
    for player in players:
        await player.leave()


if __name__ == "__main__":
    asyncio.run(main())
