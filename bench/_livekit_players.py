"""LiveKit players for the benches, in their own process (their CPU is not the server's):
each joins its room with the token given, subscribes to what it hears (the bot, the
speaker), and publishes a tone on its microphone whenever the server allows it (our player
tokens allow nothing at join; the engine's grant opens it), like the widget does.
Reads one JSON object {"url", "tokens": [...]} on stdin, prints "ready" once every player
is in, then runs until stdin closes.

With "players" instead of "tokens" (bench/livekit_tables.py --game), each entry is
{"token", "media": bool, "seed", "speech", "think", "fast"}: the player also plays, as the
widget does: it says hello to the bot by RPC, reads its views from the bot's data messages
and sends what plugin.sim.Strategy decides from them as RPC commands (a speech passed
after "speech" seconds, after 1 s on day 1 if its seat is at most "fast"). Only a "media"
player joins with audio (hears the room, publishes when allowed).

Usage: python bench/_livekit_players.py < players.json
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

import numpy as np
from livekit import rtc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from plugin.rooms.livekit.ffi import narrow_events
from plugin.rooms.livekit.rpc import COMMAND_METHOD, HELLO_METHOD
from plugin.rooms.livekit.seats import is_bot_identity
from plugin.sim.strategy import Strategy
from testing.livekit_overlay import Parts, call_bot

MIC = rtc.TrackSource.SOURCE_MICROPHONE
TONE = (np.sin(2 * np.pi * 440 * np.arange(960) / 48_000) * 6000).astype(np.int16).tobytes()


class BenchPlayer:
    def __init__(self, url: str, token: str, *, media: bool = True) -> None:
        self.url, self.token, self.media = url, token, media
        self.room = rtc.Room()
        self.source = rtc.AudioSource(48_000, 1)
        self.heard = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.room.on("participant_permissions_changed", self._permissions)
        self.room.on("track_subscribed", self._subscribed)

    async def join(self) -> None:
        options = rtc.RoomOptions(auto_subscribe=self.media)
        await self.room.connect(self.url, self.token, options)
        narrow_events(self.room)
        if self.media:
            self._spawn(self._feed())

    def _spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _permissions(self, participant, permissions) -> None:
        if self.media and participant.identity == self.room.local_participant.identity:
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
        # 100 ms frames: ten FFI events a second per track heard, not a hundred
        stream = rtc.AudioStream(track, sample_rate=48_000, num_channels=1, frame_size_ms=100)
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


class GamePlayer(BenchPlayer):
    """A seat that plays: the overlay's RPC and data messages, moves from Strategy."""

    def __init__(self, url: str, entry: dict) -> None:
        super().__init__(url, entry["token"], media=entry["media"])
        self.entry = entry
        self.strategy: Strategy | None = None
        self.sent = self.refused = self.failed = self.views = 0
        self._parts = Parts()
        self._ids = 0
        self.room.on("data_received", self._received)

    async def join(self) -> None:
        await super().join()
        answer = json.loads(await self._call(HELLO_METHOD, ""))
        seat = answer.get("seat")
        assert isinstance(seat, int), answer
        self.strategy = Strategy(
            seat, self.entry["seed"], speech_seconds=self.entry["speech"],
            think_seconds=self.entry["think"],
        )  # fmt: skip

    async def _call(self, method: str, payload: str) -> str:
        return await call_bot(self.room, method, payload, timeout=5.0)

    def _received(self, packet: rtc.DataPacket) -> None:
        if packet.participant is None or not is_bot_identity(packet.participant.identity):
            return
        data = self._parts.add(packet)
        if data is None:
            return
        view = json.loads(data)
        if view.get("type") != "state" or self.strategy is None:
            return
        self.views += 1
        seat = self.strategy.seat
        fast = view.get("day") == 1 and seat <= self.entry["fast"]
        self.strategy.speech_seconds = 1.0 if fast else self.entry["speech"]
        for move in self.strategy.moves(view):
            if move.type != "say":  # a media player speaks whenever he is let
                self._spawn(self._move(move.type, move.fields, move.delay))

    async def _move(self, kind: str, fields: dict, delay: float) -> None:
        await asyncio.sleep(delay)
        self._ids += 1
        message = {"v": 1, "id": f"g{self._ids}", "type": kind, **fields}
        self.sent += 1
        try:
            answer = json.loads(await self._call(COMMAND_METHOD, json.dumps(message)))
        except rtc.RpcError:
            self.failed += 1
            return
        self.refused += answer.get("type") != "ack"  # the game moved on meanwhile


async def main() -> None:
    spec = json.loads(sys.stdin.readline())
    if "players" in spec:
        players: list[BenchPlayer] = [GamePlayer(spec["url"], e) for e in spec["players"]]
    else:
        players = [BenchPlayer(spec["url"], token) for token in spec["tokens"]]
    for batch in range(0, len(players), 10):  # ten at a time: the joins overlap
        await asyncio.gather(*(p.join() for p in players[batch : batch + 10]))
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    reading = asyncio.ensure_future(reader.read())  # until stdin closes
    while not reading.done():
        await asyncio.wait([reading], timeout=30)
        played = [p for p in players if isinstance(p, GamePlayer)]
        if played:
            print(
                f"players: {sum(p.sent for p in played)} moves sent, "
                f"{sum(p.refused for p in played)} refused, {sum(p.failed for p in played)} "
                f"failed; {sum(p.views for p in played)} views",
                file=sys.stderr, flush=True,
            )  # fmt: skip
    played = [p for p in players if isinstance(p, GamePlayer)]
    summary = {"heard": sum(p.heard for p in players)}
    for key in ("sent", "refused", "failed"):
        summary[key] = sum(getattr(p, key) for p in played)
    print(json.dumps(summary), flush=True)
    with contextlib.suppress(TimeoutError):  # all at once: a hundred leaves take a while
        await asyncio.wait_for(asyncio.gather(*(p.leave() for p in players)), 20)


if __name__ == "__main__":
    asyncio.run(main())
