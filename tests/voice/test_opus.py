"""The shared Opus encoding: one encode per 20 ms for any number of listeners, and aiortc
sends those packets as they are over a real WebRTC connection on loopback."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import numpy as np
import pytest
from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.codecs import opus
from aiortc.jitterbuffer import JitterFrame
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from plugin.rooms.embedded import loopback_ice
from voice import audio
from voice.announcer import Announcer
from voice.synth import Synthesizer

from .conftest import until

HEARD = 500.0  # RMS of decoded speech (espeak measures 2000-3000)


@pytest.fixture
async def announcer(prerendered: Synthesizer) -> AsyncIterator[Announcer]:
    voice = Announcer("en", synthesizer=prerendered)
    yield voice
    await voice.stop()


async def test_each_frame_is_encoded_once_for_all_listeners(announcer: Announcer) -> None:
    tracks = [announcer.opus_track() for _ in range(5)]
    await announcer.announce("vote.start", {})
    received: list[list[object]] = [[] for _ in tracks]

    async def read(i: int) -> None:
        while len(received[i]) < 50:
            received[i].append(await tracks[i].recv())

    await asyncio.gather(*(read(i) for i in range(len(tracks))))
    # the very same packet object for a given frame, whoever receives it
    by_pts = [{packet.pts: packet for packet in r} for r in received]
    common = set.intersection(*(set(d) for d in by_pts))
    assert len(common) >= 30
    for pts in common:
        assert all(d[pts] is by_pts[0][pts] for d in by_pts[1:])
    # one encode per clock tick, not one per listener
    assert announcer.opus_frames_encoded <= announcer.frames_out
    assert announcer.opus_frames_encoded >= 50
    assert all(pts % 960 == 0 for pts in common)  # each packet is stamped with its frame


async def test_packets_decode_to_the_speech(announcer: Announcer) -> None:
    track = announcer.opus_track()
    await announcer.announce("night", {})
    await until(lambda: bool(announcer.spoken))
    decoder = opus.OpusDecoder()  # what an aiortc receiver uses
    decoded: list[np.ndarray] = []
    for _ in range(60):
        packet = await track.recv()
        (frame,) = decoder.decode(JitterFrame(data=bytes(packet), timestamp=packet.pts))
        assert (frame.samples, frame.sample_rate) == (960, 48_000)
        decoded.append(frame.to_ndarray().reshape(-1))
    assert audio.rms(np.concatenate(decoded)) > HEARD


def test_aiortc_packs_our_packet_without_encoding(announcer: Announcer) -> None:
    """RTCRtpSender hands a recv()'d av.Packet to OpusEncoder.pack: pts is the RTP time."""
    from voice.tracks import SharedOpusEncoder

    encoder = SharedOpusEncoder()
    for index in (7, 8):
        (packet,) = encoder.encode(index, audio.SILENT_FRAME)
        payloads, timestamp = opus.OpusEncoder().pack(packet)
        assert payloads == [bytes(packet)]
        assert timestamp == index * 960


class _Reader:
    def __init__(self) -> None:
        self.samples: list[np.ndarray] = []
        self.tasks: list[asyncio.Task[None]] = []

    def on_track(self, track: MediaStreamTrack) -> None:
        self.tasks.append(asyncio.ensure_future(self._read(track)))

    async def _read(self, track: MediaStreamTrack) -> None:
        with contextlib.suppress(MediaStreamError):
            while True:
                frame = await track.recv()
                self.samples.append(frame.to_ndarray().reshape(-1))


async def test_real_webrtc_listener_hears_the_voice_without_reencoding(
    announcer: Announcer, monkeypatch: pytest.MonkeyPatch
) -> None:
    encodes, packs = [0], [0]
    original_encode, original_pack = opus.OpusEncoder.encode, opus.OpusEncoder.pack

    def counting_encode(self: opus.OpusEncoder, *args: object, **kw: object) -> object:
        encodes[0] += 1
        return original_encode(self, *args, **kw)  # type: ignore[arg-type]

    def counting_pack(self: opus.OpusEncoder, packet: object) -> object:
        packs[0] += 1
        return original_pack(self, packet)  # type: ignore[arg-type]

    monkeypatch.setattr(opus.OpusEncoder, "encode", counting_encode)
    monkeypatch.setattr(opus.OpusEncoder, "pack", counting_pack)
    with loopback_ice():
        sender = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        receiver = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        reader = _Reader()
        receiver.on("track", reader.on_track)
        try:
            sender.addTrack(announcer.opus_track())
            await sender.setLocalDescription(await sender.createOffer())
            await receiver.setRemoteDescription(sender.localDescription)
            await receiver.setLocalDescription(await receiver.createAnswer())
            await sender.setRemoteDescription(receiver.localDescription)
            await until(lambda: len(reader.samples) > 10)
            quiet = audio.rms(np.concatenate(reader.samples))
            heard_from = len(reader.samples)
            await announcer.announce("vote.call", {"seat": 7})
            await until(lambda: len(reader.samples) > heard_from + 100)
            loud = audio.rms(np.concatenate(reader.samples[heard_from:]))
        finally:
            for task in reader.tasks:
                task.cancel()
            await sender.close()
            await receiver.close()
    assert quiet < 50 < HEARD < loud
    assert packs[0] > 100 and encodes[0] == 0
