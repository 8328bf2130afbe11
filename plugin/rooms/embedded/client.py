"""RoomClient: an aiortc peer that joins an EmbeddedRoom the way a browser page does.

Used by simulated players (autohost demo), by the tests and by the benches. It sends one
audio track (a tone, a phrase, or nothing) and always drains what it receives (aiortc's
receive queue is unbounded), optionally keeping the last seconds of it for inspection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import av
import httpx
import numpy as np
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from plugin.tasks import cancel_and_wait

from .frames import FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE, MonoConverter, to_audio_frame
from .frames import tone as tone_frame
from .frames import tone_level as _tone_level

LEVEL_FRAMES = 4  # 80 ms blocks: 12.5 Hz resolution, test pitches are 100 Hz apart

# (offer sdp, offer type) -> the room's answer
Answerer = Callable[[str, str], Awaitable[RTCSessionDescription]]


class ToneTrack(MediaStreamTrack):
    """A microphone that sings one pitch, in real time (one 20 ms frame per 20 ms)."""

    kind = "audio"

    def __init__(self, frequency: float, amplitude: int = 8000) -> None:
        super().__init__()
        self.frequency = frequency
        self.amplitude = amplitude
        self._sample = 0
        self._start: float | None = None

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        wait = self._start + self._sample / SAMPLE_RATE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        frame = to_audio_frame(
            tone_frame(self.frequency, self._sample, self.amplitude), self._sample
        )
        self._sample += FRAME_SAMPLES
        return frame


async def tone_frames(frequency: float, amplitude: int = 8000):  # type: ignore[no-untyped-def]
    """An endless async iterator of 20 ms tone frames, paced in real time (a test bot voice)."""
    start = time.monotonic()
    sample = 0
    while True:
        wait = start + sample / SAMPLE_RATE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        yield tone_frame(frequency, sample, amplitude)
        sample += FRAME_SAMPLES


def http_answerer(url: str, token: str, client: httpx.AsyncClient | None = None) -> Answerer:
    """An Answerer that posts the offer to the room's signalling route (`POST .../offer`)."""

    async def answer(sdp: str, kind: str) -> RTCSessionDescription:
        async with contextlib.AsyncExitStack() as stack:
            http = client
            if http is None:
                http = await stack.enter_async_context(httpx.AsyncClient())
            response = await http.post(
                url,
                json={"sdp": sdp, "type": kind},
                headers={"Authorization": f"Bearer {token}"},
            )
            response.raise_for_status()
            body: dict[str, Any] = response.json()
            return RTCSessionDescription(sdp=body["sdp"], type=body["type"])

    return answer


class RoomClient:
    """One peer: sends `source` (or nothing), receives the room's mix.

    `listen_only`: offer receive-only audio, as a spectator's page does.
    `keep_seconds` > 0 keeps that much received audio as (arrival monotonic time,
    960-ish samples) pairs for `level()`.
    """

    def __init__(
        self,
        source: MediaStreamTrack | None = None,
        *,
        keep_seconds: float = 10,
        listen_only: bool = False,
    ) -> None:
        self.source = source
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.frames_received = 0
        self._kept: deque[tuple[float, np.ndarray]] = deque(
            maxlen=max(0, int(keep_seconds / FRAME_SECONDS))
        )
        self._keep = keep_seconds > 0
        self._readers: list[asyncio.Task[None]] = []
        self._connected = asyncio.Event()
        self._lost = asyncio.Event()
        self.pc.on("track", self._on_track)
        self.pc.on("connectionstatechange", self._on_state)
        # listen_only: a spectator's offer, receive-only (the room refuses one that sends).
        direction = "recvonly" if listen_only else "sendrecv"
        self._transceiver = self.pc.addTransceiver(source or "audio", direction=direction)

    async def connect(self, answer: Answerer, timeout: float = 10) -> None:
        """Offer, get the room's answer, and wait until the connection is up."""
        await self.pc.setLocalDescription(await self.pc.createOffer())
        offer = self.pc.localDescription
        await self.pc.setRemoteDescription(await answer(offer.sdp, offer.type))
        await asyncio.wait_for(self._connected.wait(), timeout)

    def set_sending(self, on: bool) -> None:
        """Stop or resume sending the microphone (the page does this to save CPU)."""
        self._transceiver.sender.replaceTrack(self.source if on else None)

    def level(self, frequency: float, since: float = 0.0, until: float = float("inf")) -> float:
        """How loud `frequency` was at its loudest in what arrived between two monotonic
        times, measured over blocks of LEVEL_FRAMES frames (so a gap in the stream, or a
        concealed packet, does not hide a voice that is there)."""
        chunks = [s for t, s in list(self._kept) if since <= t <= until]
        blocks = [
            np.concatenate(chunks[i : i + LEVEL_FRAMES])
            for i in range(0, len(chunks), LEVEL_FRAMES)
        ]
        return max((_tone_level(block, frequency) for block in blocks), default=0.0)

    def loudness(self, since: float = 0.0) -> float:
        """RMS of everything that arrived since a monotonic time (any voice, any pitch)."""
        chunks = [s for t, s in list(self._kept) if since <= t]
        if not chunks:
            return 0.0
        samples = np.concatenate(chunks).astype(np.float64)
        return float(np.sqrt(np.mean(samples * samples)))

    def last_heard(self, frequency: float, threshold: float) -> float | None:
        """Arrival time of the last frame in which `frequency` is louder than threshold."""
        for arrived, samples in reversed(list(self._kept)):
            if _tone_level(samples, frequency) > threshold:
                return float(arrived)
        return None

    def _on_track(self, track: MediaStreamTrack) -> None:
        self._readers.append(asyncio.create_task(self._read(track), name="room-client-read"))

    async def lost(self) -> None:
        """Wait until the connection has failed or closed (ICE consent lost, the room gone)."""
        await self._lost.wait()

    def _on_state(self) -> None:
        if self.pc.connectionState == "connected":
            self._connected.set()
        elif self.pc.connectionState in ("failed", "closed"):
            self._lost.set()

    async def _read(self, track: MediaStreamTrack) -> None:
        converter = MonoConverter()
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            self.frames_received += 1
            if self._keep and isinstance(frame, av.AudioFrame):
                self._kept.append((time.monotonic(), converter.convert(frame)))

    async def close(self) -> None:
        await cancel_and_wait(self._readers)
        await self.pc.close()
        if self.source is not None:
            self.source.stop()
