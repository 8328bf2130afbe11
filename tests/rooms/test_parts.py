"""The room's small parts on their own: loopback ICE, the bot voice reader, the Opus stream."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from fractions import Fraction

import aioice.ice
import av
import numpy as np
import pytest

from plugin.rooms.embedded import loopback_ice
from plugin.rooms.embedded.bot import BotVoice
from plugin.rooms.embedded.client import ToneTrack
from plugin.rooms.embedded.frames import FRAME_SAMPLES, MonoConverter, tone, tone_level
from plugin.rooms.embedded.opus import OpusStream


def test_loopback_ice_offers_only_127_0_0_1_and_is_undone():
    with loopback_ice():
        assert aioice.ice.get_host_addresses(use_ipv4=True, use_ipv6=True) == ["127.0.0.1"]
        assert aioice.ice.get_host_addresses(use_ipv4=False, use_ipv6=True) == []
    assert "127.0.0.1" not in aioice.ice.get_host_addresses(use_ipv4=True, use_ipv6=False)


async def _chunks(sizes: list[int]) -> AsyncIterator[np.ndarray]:
    start = 0
    for size in sizes:
        yield np.arange(start, start + size, dtype=np.int16)
        start += size


async def test_bot_voice_recuts_any_chunk_size_into_frames():
    bot = BotVoice(_chunks([500, 1000, 900, 960, 1]))
    bot.start()
    await asyncio.sleep(0.05)
    frames = [bot.next_frame() for _ in range(4)]
    await bot.stop()
    assert frames[3] is None, "3361 samples make three whole frames"
    assert all(len(frame) == FRAME_SAMPLES for frame in frames[:3])
    assert np.array_equal(np.concatenate(frames[:3]), np.arange(3 * FRAME_SAMPLES))


async def test_a_bot_voice_whose_source_broke_stops_and_logs_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The stop goes through plugin.tasks: the source's failure is logged, not raised at
    the room that stops (which has peers to close next)."""

    async def breaks() -> AsyncIterator[np.ndarray]:
        yield np.zeros(FRAME_SAMPLES, dtype=np.int16)
        raise OSError("the synthesiser died")

    bot = BotVoice(breaks())
    bot.start()
    await asyncio.sleep(0.05)
    with caplog.at_level(logging.ERROR, logger="autohost.tasks"):
        await bot.stop()
    assert bot.next_frame() is not None  # what it had read is still there
    assert [r.getMessage() for r in caplog.records] == [
        "embedded-room-bot failed: OSError('the synthesiser died')"
    ]


async def test_bot_voice_reads_an_aiortc_track():
    track = ToneTrack(440)
    bot = BotVoice(track)
    bot.start()
    await asyncio.sleep(0.15)
    frame = bot.next_frame()
    await bot.stop()
    track.stop()
    assert frame is not None and tone_level(frame, 440) > 4000


def test_mono_converter_resamples_other_rates():
    samples = tone(440, 0)[:441].reshape(1, -1)
    frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
    frame.sample_rate = 22050
    converted = MonoConverter().convert(frame)
    assert converted.dtype == np.int16 and 0 < len(converted) <= 960


@pytest.mark.parametrize("pts", [0, 960 * 1000])
def test_opus_stream_stamps_packets_with_the_mixer_clock(pts: int):
    stream = OpusStream()
    packets = stream.encode(tone(440, 0), pts)
    assert len(packets) == 1
    assert packets[0].pts == pts
    assert packets[0].time_base == Fraction(1, 48000)
    assert bytes(packets[0])
