"""The announcer as aiortc media tracks: PCM frames, or Opus packets encoded once for all.

`PcmTrack.recv()` gives `av.AudioFrame`s (s16, mono, 48 kHz, pts in samples). `OpusTrack`
gives `av.Packet`s: aiortc's RTCRtpSender sends a packet it gets from recv() without
encoding it again (rtcrtpsender.py `_next_encoded_frame` -> `OpusEncoder.pack`, which
reads `packet.pts` in `packet.time_base` and converts it to the 48 kHz RTP clock). So the
table's voice is encoded once per 20 ms by `SharedOpusEncoder` and the same packet object
goes to every listener (FIELD-NOTES: 20 peers at 37% of a core this way).
"""

from __future__ import annotations

import fractions
from collections.abc import Callable
from typing import Any

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from .audio import FRAME_SAMPLES, SAMPLE_RATE
from .listeners import Closed, Listener

TIME_BASE = fractions.Fraction(1, SAMPLE_RATE)
OPUS_BITRATE = 32_000  # speech, mono


class PcmTrack(MediaStreamTrack):
    """An audio track of the announcer's 20 ms frames as av.AudioFrame."""

    kind = "audio"

    def __init__(self, listener: Listener[np.ndarray], detach: Callable[[], None]) -> None:
        super().__init__()
        self._listener = listener
        self._detach = detach

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        try:
            index, pcm = await self._listener.get()
        except Closed:
            self.stop()
            raise MediaStreamError from None
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = index * FRAME_SAMPLES  # the announcer's clock, in samples
        frame.time_base = TIME_BASE
        return frame

    def stop(self) -> None:
        super().stop()
        self._detach()


class OpusTrack(MediaStreamTrack):
    """An audio track of shared, already encoded Opus packets (one listener's view)."""

    kind = "audio"

    def __init__(self, listener: Listener[av.Packet[Any]], detach: Callable[[], None]) -> None:
        super().__init__()
        self._listener = listener
        self._detach = detach

    async def recv(self) -> av.Packet[Any]:
        if self.readyState != "live":
            raise MediaStreamError
        try:
            _, packet = await self._listener.get()
        except Closed:
            self.stop()
            raise MediaStreamError from None
        return packet

    def stop(self) -> None:
        super().stop()
        self._detach()


class SharedOpusEncoder:
    """libopus through PyAV: one 20 ms PCM frame in, one packet out, pts on our clock."""

    def __init__(self, bitrate: int = OPUS_BITRATE) -> None:
        self._codec = av.CodecContext.create("libopus", "w")
        self._codec.sample_rate = SAMPLE_RATE
        self._codec.layout = "mono"
        self._codec.format = "s16"
        self._codec.bit_rate = bitrate
        self._codec.time_base = TIME_BASE
        self._codec.options = {"application": "voip"}
        self.frames_encoded = 0

    def encode(self, index: int, pcm: np.ndarray) -> list[av.Packet[Any]]:
        """Encode frame `index`; each packet's pts is set to that frame's start sample.

        libopus reports pts shifted by its lookahead (-312 on the first packet); aiortc only
        needs pts to advance by 960 per 20 ms packet, so the frame's own position is used.
        """
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = index * FRAME_SAMPLES
        frame.time_base = TIME_BASE
        packets = list(self._codec.encode(frame))
        self.frames_encoded += 1
        for packet in packets:
            packet.pts = index * FRAME_SAMPLES
            packet.time_base = TIME_BASE
        return packets
