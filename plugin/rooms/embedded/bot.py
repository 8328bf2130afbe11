"""The bot's voice as the mixer sees it: at most one 20 ms frame per tick, never waiting.

A source is either an async iterator of int16 numpy frames (960 samples, 48 kHz mono:
voice.announcer.Announcer.pcm_frames()) or an aiortc audio MediaStreamTrack
(Announcer.track()). A reader task pulls from it into a short queue; the mixer takes one
frame per tick or silence. A source that yields faster than real time is paced by the
queue filling up (the reader waits), one that yields in real time adds no delay.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from plugin.tasks import cancel_and_wait

from .frames import FRAME_SAMPLES, MonoConverter

BotAudio = AsyncIterator[np.ndarray] | MediaStreamTrack

QUEUE_FRAMES = 3  # 60 ms: a paced source in this loop has little jitter; a full queue is latency


async def _track_frames(track: MediaStreamTrack) -> AsyncIterator[np.ndarray]:
    converter = MonoConverter()
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            return
        if isinstance(frame, av.AudioFrame):
            yield converter.convert(frame)


class BotVoice:
    """Reads a bot audio source into 960-sample frames for the mixer."""

    def __init__(self, source: BotAudio) -> None:
        self._frames: AsyncIterator[np.ndarray] = (
            _track_frames(source) if isinstance(source, MediaStreamTrack) else source
        )
        self._queue: asyncio.Queue[np.ndarray] = asyncio.Queue(maxsize=QUEUE_FRAMES)
        self._pending = np.zeros(0, dtype=np.int16)
        self._task: asyncio.Task[None] | None = None
        self.frames_read = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._read(), name="embedded-room-bot")

    async def stop(self) -> None:
        await cancel_and_wait([self._task])
        self._task = None
        aclose = getattr(self._frames, "aclose", None)
        if aclose is not None:  # let the source's generator run its finally blocks now
            with contextlib.suppress(RuntimeError):
                await aclose()

    def drain(self) -> None:
        """Drop what was read while nobody listened (the mixer rested): it is old news."""
        while not self._queue.empty():
            self._queue.get_nowait()

    def next_frame(self) -> np.ndarray | None:
        """The next 20 ms of the bot's voice, or None when it has nothing ready."""
        try:
            return self._queue.get_nowait()
        except asyncio.QueueEmpty:
            return None

    async def _read(self) -> None:
        async for chunk in self._frames:
            samples = np.asarray(chunk, dtype=np.int16).reshape(-1)
            self.frames_read += 1
            if len(samples) == FRAME_SAMPLES and len(self._pending) == 0:
                await self._queue.put(samples)
                continue
            # Any other length is re-cut into 960-sample frames.
            self._pending = np.concatenate([self._pending, samples])
            while len(self._pending) >= FRAME_SAMPLES:
                frame, self._pending = (
                    self._pending[:FRAME_SAMPLES],
                    self._pending[FRAME_SAMPLES:],
                )
                await self._queue.put(frame)
