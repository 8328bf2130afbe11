"""One browser (or simulated player) connected to the room: its RTCPeerConnection, the
microphone samples waiting for the next mixer tick, and its forwarding counters."""

from __future__ import annotations

import asyncio
import queue
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import av
import numpy as np
from aiortc import RTCPeerConnection, RTCRtpReceiver
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from plugin.tasks import cancel_and_wait

from .frames import FRAME_SAMPLES, MonoConverter
from .opus import OpusStream
from .tracks import PacketTrack

Seat = int | str  # a seat number, or "host" for the live host

# At most this much microphone audio waits for the mixer (80 ms): enough for network
# jitter between the sender's clock and the mixer's, small enough that a late burst is
# dropped rather than played late.
MAX_BUFFERED_SAMPLES = 4 * FRAME_SAMPLES


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatStats:
    """Forwarding counters of one seat's microphone, as of the call to room.stats()."""

    seat: Seat
    connected: bool
    frames_received: int  # encoded frames that arrived from the peer (gated or not)
    frames_decoded: int  # of those, decoded (a gated seat's are not: CPU)
    frames_forwarded: int  # 20 ms mixer ticks that mixed this seat into what others hear
    last_forwarded: float | None  # time.monotonic() of the last such tick


class Peer:
    """A peer's media state. The room's mixer tick is the only reader of its samples."""

    def __init__(self, seat: Seat, pc: RTCPeerConnection, allowed: Callable[[], bool]) -> None:
        self.seat = seat
        self.pc = pc
        self.outbound = PacketTrack()
        self.own_mix: OpusStream | None = None  # set while this seat is an allowed speaker
        self.connected = False
        self.frames_received = 0
        self.frames_decoded = 0
        self.frames_forwarded = 0
        self.last_forwarded: float | None = None
        self._allowed = allowed
        self._converter = MonoConverter()
        self._chunks: deque[np.ndarray] = deque()
        self._buffered = 0
        self._readers: list[asyncio.Task[None]] = []
        self._counts_at_decoder = False

    def gate_decoder(self, receiver: RTCRtpReceiver) -> None:
        """Skip decoding this peer's microphone while the seat may not speak (CPU).

        aiortc hands every reassembled Opus frame to a decoder thread through a
        queue.Queue (RTCRtpReceiver.__decoder_queue, aiortc 1.16); wrapping that queue's
        put() drops a gated seat's frames before the thread hop and the decode, while
        the receiver's RTP statistics (RTCP loss reports, which drive the browser's Opus
        FEC) still see every packet. None (the receiver stopping) always passes.
        """
        decoder_queue: queue.Queue[Any] | None = getattr(
            receiver, "_RTCRtpReceiver__decoder_queue", None
        )
        if decoder_queue is None:
            return  # another aiortc: frames are then dropped after decoding, in _read
        put = decoder_queue.put

        def gated_put(item: Any, *args: Any, **kwargs: Any) -> None:
            if item is None:
                put(item, *args, **kwargs)
                return
            self.frames_received += 1
            if self._allowed():
                put(item, *args, **kwargs)

        decoder_queue.put = gated_put  # type: ignore[method-assign]
        self._counts_at_decoder = True

    def read(self, track: MediaStreamTrack) -> None:
        """Start draining an incoming track (always: aiortc queues decoded frames unboundedly)."""
        self._readers.append(
            asyncio.create_task(self._read(track), name=f"embedded-room-read-{self.seat}")
        )

    async def _read(self, track: MediaStreamTrack) -> None:
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            self.frames_decoded += 1
            if not self._counts_at_decoder:
                self.frames_received += 1
            if not isinstance(frame, av.AudioFrame) or not self._allowed():
                continue  # closed microphone: dropped at the door, never buffered
            samples = self._converter.convert(frame)
            self._chunks.append(samples)
            self._buffered += len(samples)
            while self._buffered - len(self._chunks[0]) >= MAX_BUFFERED_SAMPLES:
                self._buffered -= len(self._chunks.popleft())

    def take(self) -> np.ndarray | None:
        """The next 20 ms of this seat's microphone, or None if less than that is waiting."""
        if self._buffered < FRAME_SAMPLES:
            return None
        first = self._chunks[0]
        if len(first) == FRAME_SAMPLES:
            self._chunks.popleft()
            self._buffered -= FRAME_SAMPLES
            return first
        parts: list[np.ndarray] = []
        needed = FRAME_SAMPLES
        while needed:
            chunk = self._chunks.popleft()
            if len(chunk) > needed:
                self._chunks.appendleft(chunk[needed:])
                chunk = chunk[:needed]
            parts.append(chunk)
            needed -= len(chunk)
        self._buffered -= FRAME_SAMPLES
        return np.concatenate(parts)

    def discard(self) -> None:
        """Forget buffered microphone audio (the seat's gate is closed at this tick)."""
        if self._buffered:
            self._chunks.clear()
            self._buffered = 0

    def stats(self) -> SeatStats:
        return SeatStats(
            seat=self.seat,
            connected=self.connected,
            frames_received=self.frames_received,
            frames_decoded=self.frames_decoded,
            frames_forwarded=self.frames_forwarded,
            last_forwarded=self.last_forwarded,
        )

    async def close(self) -> None:
        """Stop reading, stop sending, close the connection; awaits every task it started."""
        await cancel_and_wait(self._readers)
        self._readers.clear()
        self.outbound.stop()
        await self.pc.close()
