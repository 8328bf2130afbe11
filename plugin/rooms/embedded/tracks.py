"""The track each listener's RTCRtpSender reads: already-encoded packets from the mixer.

The mixer pushes one packet per 20 ms tick; the sender awaits recv(). The queue is short
(QUEUE_FRAMES) and drops its oldest packet when full, so a stalled sender never makes the
room buffer audio, and gated audio can never sit here for long after a turn change.
"""

from __future__ import annotations

import asyncio
from typing import Any

import av
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

QUEUE_FRAMES = 3


class PacketTrack(MediaStreamTrack):
    """An audio track whose recv() returns av.Packets (sent by aiortc without re-encoding)."""

    kind = "audio"

    def __init__(self) -> None:
        super().__init__()
        self._queue: asyncio.Queue[av.Packet[Any] | None] = asyncio.Queue(maxsize=QUEUE_FRAMES)
        self.dropped = 0

    def push(self, packet: av.Packet[Any]) -> None:
        """Queue one packet for sending; drop the oldest if the sender is behind."""
        if self.readyState != "live":
            return
        if self._queue.full():
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(packet)

    async def recv(self) -> av.Packet[Any]:
        if self.readyState != "live":
            raise MediaStreamError
        packet = await self._queue.get()
        if packet is None:
            raise MediaStreamError
        return packet

    def stop(self) -> None:
        if self.readyState == "live":
            super().stop()
            # Wake a sender blocked in recv(): it sees None and ends.
            if self._queue.full():
                self._queue.get_nowait()
            self._queue.put_nowait(None)
