"""How much of a new speaker's first word his listeners lose, against the real LiveKit server
(issue 30): a speaker who starts talking the moment his countdown runs, and a listener that
reads from what it hears which moment of his speech reached it first.

The speaker talks a rising tone (a chirp): CHIRP_START Hz at the moment he starts, rising by
CHIRP_RATE Hz a second, so the pitch of the first 20 ms a listener hears says how far into
his speech that was (within about 10 ms). That is what was lost, whatever the network's
delay: a delay shifts when he is heard, not which part of him.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from plugin.rooms.livekit.tokens import Credentials

from .livekit_player import Player

RATE = 48_000
FRAME = 960  # 20 ms
CHIRP_START = 200.0  # Hz when he starts talking
CHIRP_RATE = 1000.0  # Hz per second: 10 ms of speech is 10 Hz
CHIRP_END = 3000.0  # the pitch it stays at after 2.8 s
AMPLITUDE = 8000
AUDIBLE = 1000.0  # RMS of a 10 ms frame that counts as heard (the chirp's is ~5,600)


def chirp(start_sample: int, count: int) -> np.ndarray:
    """Samples `start_sample`..+count of the speech, as int16."""
    t = (start_sample + np.arange(count)) / RATE
    # phase of a linear chirp, held at CHIRP_END once reached
    t_end = (CHIRP_END - CHIRP_START) / CHIRP_RATE
    rising = np.minimum(t, t_end)
    phase = 2 * np.pi * (CHIRP_START * rising + CHIRP_RATE * rising**2 / 2)
    phase += 2 * np.pi * CHIRP_END * np.maximum(t - t_end, 0)
    return (np.sin(phase) * AMPLITUDE).astype(np.int16)


def speech_moment(samples: np.ndarray) -> float:
    """Seconds into the speech at the start of `samples` (about 20 ms of heard chirp)."""
    window = samples.astype(np.float64) * np.hanning(samples.size)
    size = 1 << 16  # zero-padded: 0.7 Hz bins
    spectrum = np.abs(np.fft.rfft(window, size))
    low = int(CHIRP_START * 0.8 * size / RATE)
    peak = low + int(np.argmax(spectrum[low:]))
    frequency = peak * RATE / size
    middle = (frequency - CHIRP_START) / CHIRP_RATE  # the pitch at the window's middle
    return max(middle - samples.size / RATE / 2, 0.0)


class CuedSpeaker(Player):
    """A seated participant whose microphone hears a quiet room until `talk()`, then talks the
    chirp: captured in real time (a 40 ms source queue, as a browser's capture), and only
    while he may publish (a microphone nobody hears costs nothing)."""

    def __init__(self, creds: Credentials, room: str, seat: int) -> None:
        super().__init__(creds, room, seat)
        self.source = rtc.AudioSource(RATE, 1, queue_size_ms=40)
        self.talking_since: float | None = None  # perf_counter when talk() was called
        self._sample = 0

    def talk(self) -> None:
        self.talking_since = time.perf_counter()
        self._sample = 0

    def hush(self) -> None:
        self.talking_since = None

    async def _feed(self) -> None:
        # A room's quiet, as a microphone hears it (not digital silence, which the codec
        # would send as DTX and fade in from), far under AUDIBLE.
        noise = np.random.default_rng(self.seat)
        while True:
            if not self.may_publish():
                await asyncio.sleep(0.02)
                continue
            if self.talking_since is None:
                pcm = noise.normal(0, 30, FRAME).astype(np.int16)
            else:
                pcm = chirp(self._sample, FRAME)
                self._sample += FRAME
            frame = rtc.AudioFrame(pcm.tobytes(), RATE, 1, FRAME)
            await self.source.capture_frame(frame)


class ChirpListener:
    """Hears everybody; after `expect(identity)` keeps that identity's audio from its first
    audible frame, and `lost(identity)` says how far into his speech that frame was."""

    def __init__(self) -> None:
        self.room = rtc.Room()
        self._heard: dict[str, list[np.ndarray]] = {}
        self._waiting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.room.on("track_subscribed", self._subscribed)

    def expect(self, identity: str) -> None:
        self._heard.pop(identity, None)
        self._waiting.add(identity)

    def lost(self, identity: str) -> float | None:
        """Seconds of his speech the listener never heard, once 40 ms of it arrived."""
        frames = self._heard.get(identity, [])
        samples = np.concatenate(frames) if frames else np.zeros(0, np.int16)
        if samples.size < 2 * FRAME:
            return None
        return speech_moment(samples[:FRAME])

    def _subscribed(self, track: rtc.Track, _pub: object, participant: rtc.Participant) -> None:
        if track.kind == rtc.TrackKind.KIND_AUDIO:
            task = asyncio.create_task(self._listen(track, participant.identity))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _listen(self, track: rtc.Track, identity: str) -> None:
        async for event in rtc.AudioStream(track, sample_rate=RATE, num_channels=1):
            if identity not in self._waiting:
                continue
            samples = np.frombuffer(bytes(event.frame.data), dtype=np.int16)
            heard = self._heard.get(identity)
            if heard is None:
                rms = float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))
                if not samples.size or rms <= AUDIBLE:
                    continue
                heard = self._heard[identity] = []
            heard.append(samples.copy())
            if sum(part.size for part in heard) >= 4 * FRAME:
                self._waiting.discard(identity)

    async def leave(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.room.disconnect()


async def lost_per_turn(
    creds: Credentials, db: Path, turns: int, *, seats: int = 10, room: str = "first-word"
) -> list[float]:
    """A table of `seats` in `room` (the server's assembly in this process: its bot, the real
    server at `creds`), every seat a CuedSpeaker, one listener: for `turns` speeches the host
    moves on, the new speaker talks the moment his countdown runs (as his page shows it),
    and the listener says how much of his speech it missed. Seconds, one per turn."""
    from plugin.host.inputs import HOST, Manual, Next, Start
    from plugin.host.settings import TableSettings
    from plugin.rooms.livekit.tokens import player_token

    from . import serve
    from .livekit_server import one_table_hosting

    async def step(table: Any, given: Any) -> None:
        verdict = await asyncio.wait_for(table.submit(HOST, given), 30)
        assert verdict.ok, (given, verdict)

    def running(table: Any, timer: int | None) -> bool:
        """His countdown runs, as a page sees it (a new timer, neither paused nor held)."""
        snap = table.snapshot()
        return snap.timer_id not in (None, timer) and not (snap.paused or snap.timer_held)

    lost: list[float] = []
    hosting = one_table_hosting(creds, db, room=room, table="firstword")
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(serve(hosting.app))
        roles = {"8": "don", "9": "mafia", "10": "mafia", "7": "sheriff"}
        settings = TableSettings.from_record(
            {"preset": "online", "language": "en", "seats": seats, "roles": roles}
        )
        table = await hosting.app.state.server.registry.create(settings, "firstword")
        speakers = {}
        for seat in range(1, seats + 1):
            speakers[seat] = CuedSpeaker(creds, room, seat)
            await speakers[seat].join()
            stack.push_async_callback(speakers[seat].leave)
        listener = ChirpListener()
        await listener.room.connect(creds.url, player_token(creds, room, 99))  # a spectator
        stack.push_async_callback(listener.leave)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while len(table.present) < seats and loop.time() < deadline:
            await asyncio.sleep(0.05)
        await step(table, Manual(on=True))  # the host moves every phase on
        await step(table, Start())
        while len(lost) < turns:
            timer = table.snapshot().timer_id
            await step(table, Next())
            if table.state.phase.value != "speech" or len(table.state.speakers) != 1:
                continue
            (seat,) = table.state.speakers
            identity = speakers[seat].room.local_participant.identity
            listener.expect(identity)
            until = loop.time() + 5
            while not running(table, timer) and loop.time() < until:
                await asyncio.sleep(0.002)
            speakers[seat].talk()  # the moment his page shows his countdown running
            until = loop.time() + 5
            while (missed := listener.lost(identity)) is None and loop.time() < until:
                await asyncio.sleep(0.01)
            speakers[seat].hush()
            if missed is None:
                raise AssertionError(f"seat {seat} was never heard in his speech")
            lost.append(missed)
            await asyncio.sleep(0.2)
    return lost
