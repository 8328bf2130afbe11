"""The announcer: 20 ms frames in real time, phrases in order, urgent ones cutting in."""

from __future__ import annotations

import asyncio
import fractions
import logging
from collections.abc import AsyncIterator

import numpy as np
import pytest
from aiortc.mediastreams import MediaStreamError

from voice import audio
from voice.announcer import Announcer, Lateness
from voice.phrases import ANNOUNCEMENT_KEYS, PhraseError
from voice.synth import Synthesizer

from .conftest import Recorder, sample, spoken, until, voiced


@pytest.fixture
async def announcer(prerendered: Synthesizer) -> AsyncIterator[Announcer]:
    voice = Announcer("ru", synthesizer=prerendered)
    yield voice
    await voice.stop()


@pytest.fixture
async def recorder(announcer: Announcer) -> AsyncIterator[Recorder]:
    recorder = Recorder(announcer)
    task = asyncio.create_task(recorder.run())
    yield recorder
    task.cancel()


def expected(synth: Synthesizer, lang: str, key: str, params: dict[str, object]) -> np.ndarray:
    """The phrase as the announcer should play it: whole 20 ms frames, the last padded."""
    pcm = synth.phrase(spoken(lang), key, params)
    return np.concatenate(audio.frames(pcm))


async def test_frames_are_20ms_of_48khz_mono_s16(announcer: Announcer, recorder: Recorder) -> None:
    await announcer.announce("night", {})
    await until(lambda: len(recorder.raw) >= 30)
    frames = recorder.raw[:30]
    for frame in frames:
        assert (frame.samples, frame.sample_rate) == (960, 48_000)
        assert (frame.format.name, frame.layout.name) == ("s16", "mono")
        assert frame.time_base == fractions.Fraction(1, 48_000)
    assert [f.pts for f in frames] == [frames[0].pts + 960 * i for i in range(30)]
    assert any(voiced(f.to_ndarray()) for f in frames)


async def test_silence_when_idle(announcer: Announcer, recorder: Recorder) -> None:
    await until(lambda: len(recorder.frames) >= 10)
    assert not any(voiced(f) for f in recorder.frames.values())
    assert announcer.idle


async def test_pcm_frames_are_960_int16_samples(announcer: Announcer) -> None:
    await announcer.announce("speech.ten_seconds", {})
    frames = []
    async for frame in announcer.pcm_frames():
        frames.append(frame)
        if len(frames) == 40:
            break
    assert all(f.shape == (960,) and f.dtype == np.int16 for f in frames)
    assert any(voiced(f) for f in frames)
    assert not frames[0].flags.writeable  # shared with every listener: read-only


async def test_queued_phrases_come_out_in_order_whole(
    announcer: Announcer, recorder: Recorder, prerendered: Synthesizer
) -> None:
    said = [("vote.start", {}), ("vote.call", {"seat": 7}), ("night.sleep", {})]
    for key, params in said:
        await announcer.announce(key, params)
    # They take as long as they last (RHVoice speaks them in about 11 s), then 10 s more.
    lasting = sum(len(expected(prerendered, "ru", k, p)) for k, p in said) / audio.SAMPLE_RATE
    await until(lambda: announcer.idle and len(announcer.spoken) == 3, seconds=10 + lasting)
    first = dict(announcer.spoken)
    last = first["night.sleep"] + len(expected(prerendered, "ru", "night.sleep", {})) // 960
    await until(lambda: max(recorder.frames) >= last)
    assert [key for key, _ in announcer.spoken] == [key for key, _ in said]
    at = first["vote.start"]
    for key, params in said:
        want = expected(prerendered, "ru", key, params)
        assert first[key] == at  # each starts where the previous ended
        assert np.array_equal(recorder.span(at, len(want) // 960), want), key
        at += len(want) // 960


async def test_skip_queued_finishes_the_current_phrase_and_drops_the_rest(
    announcer: Announcer, recorder: Recorder, prerendered: Synthesizer
) -> None:
    for key, params in [("night", {}), ("vote.call", {"seat": 7}), ("night.sleep", {})]:
        await announcer.announce(key, params)
    await until(lambda: bool(announcer.spoken))
    await announcer.skip_queued()
    await announcer.announce("morning", {})  # what comes after the skip is said
    await until(lambda: announcer.idle)
    assert [key for key, _ in announcer.spoken] == ["night", "morning"]
    start = dict(announcer.spoken)
    length = len(expected(prerendered, "ru", "night", {})) // 960
    assert start["morning"] == start["night"] + length  # "night" was said to its end
    await until(lambda: max(recorder.frames) >= start["night"] + length)
    want = expected(prerendered, "ru", "night", {})
    assert np.array_equal(recorder.span(start["night"], length), want)


async def test_phrase_starts_on_the_next_frame(announcer: Announcer, recorder: Recorder) -> None:
    await until(lambda: len(recorder.frames) >= 3)
    before = announcer.frames_out
    await announcer.announce("morning", {})
    await until(lambda: bool(announcer.spoken))
    assert announcer.spoken[0] == ("morning", before)


async def test_an_uncached_phrase_keeps_its_place(fresh: Synthesizer) -> None:
    announcer = Announcer("en", synthesizer=fresh)
    catalogue = announcer.catalogue
    fresh.render(catalogue.chunks("night", {}), catalogue.voice)  # cached; the next is not
    try:
        await announcer.announce("win.city", {})
        await announcer.announce("night", {})
        await until(lambda: len(announcer.spoken) == 2)
        assert [key for key, _ in announcer.spoken] == ["win.city", "night"]
        assert fresh.synth_calls == 1 + len(catalogue.chunks("win.city", {}))
    finally:
        await announcer.stop()


async def test_urgent_phrase_cuts_the_current_one_and_goes_first(
    announcer: Announcer, recorder: Recorder, prerendered: Synthesizer
) -> None:
    long = ("lift.question", {"seats": [2, 5, 8]})
    await announcer.announce(*long)
    await announcer.announce("night", {})  # queued behind it
    await until(
        lambda: len(announcer.spoken) == 1 and announcer.frames_out > announcer.spoken[0][1] + 10
    )
    await announcer.announce("game.paused", {}, urgent=True)
    await until(lambda: len(announcer.spoken) == 3)
    started = dict(announcer.spoken)
    assert [key for key, _ in announcer.spoken] == ["lift.question", "game.paused", "night"]
    cut_at = started["game.paused"]
    long_frames = len(expected(prerendered, "ru", *long)) // 960
    assert cut_at < started["lift.question"] + long_frames  # cut short
    urgent = expected(prerendered, "ru", "game.paused", {})
    await until(lambda: max(recorder.frames) >= cut_at + len(urgent) // 960)
    assert np.array_equal(recorder.span(cut_at, len(urgent) // 960), urgent)
    assert started["night"] == cut_at + len(urgent) // 960


async def test_cut_callbacks_are_told(announcer: Announcer) -> None:
    cuts: list[int] = []
    announcer.on_cut(lambda: cuts.append(announcer.frames_out))
    await announcer.announce("vote.start", {})
    await until(lambda: bool(announcer.spoken))
    await announcer.announce("speech.ten_seconds", {}, urgent=True)
    await until(lambda: len(announcer.spoken) == 2)
    assert len(cuts) == 1


async def test_voice_off_says_nothing_but_still_checks(prerendered: Synthesizer) -> None:
    announcer = Announcer("uk", enabled=False, synthesizer=prerendered)
    recorder = Recorder(announcer)
    task = asyncio.create_task(recorder.run())
    try:
        await announcer.announce("night", {})
        await until(lambda: len(recorder.frames) >= 15)
        assert announcer.idle and not announcer.spoken
        assert not any(voiced(f) for f in recorder.frames.values())
        with pytest.raises(PhraseError):
            await announcer.announce("night.nope", {})
    finally:
        await announcer.stop()
        task.cancel()


async def test_bad_input_is_refused_and_queues_nothing(announcer: Announcer) -> None:
    with pytest.raises(PhraseError, match="needs param 'seat'"):
        await announcer.announce("vote.call", {})
    with pytest.raises(PhraseError, match="unknown phrase key"):
        await announcer.announce("vote.nobodyy", {})
    assert announcer.idle


async def test_a_slow_consumer_does_not_stall_the_others(announcer: Announcer) -> None:
    stalled = announcer.track()  # never read
    fast = Recorder(announcer)
    task = asyncio.create_task(fast.run())
    try:
        await announcer.announce("vote.start", {})
        await until(lambda: len(fast.frames) >= 40)
        indices = sorted(fast.frames)
        assert indices == list(range(indices[0], indices[0] + len(indices)))  # no gaps
        frame = await stalled.recv()  # only the latest few are kept for it
        assert frame.pts // 960 >= announcer.frames_out - 9
    finally:
        task.cancel()


async def test_stop_ends_every_output(prerendered: Synthesizer) -> None:
    announcer = Announcer("en", synthesizer=prerendered)
    track = announcer.track()
    opus = announcer.opus_track()
    frames = announcer.pcm_frames()
    await frames.__anext__()
    await track.recv()
    await announcer.stop()
    with pytest.raises(MediaStreamError):
        while True:
            await track.recv()
    with pytest.raises(MediaStreamError):
        while True:
            await opus.recv()
    with pytest.raises(StopAsyncIteration):
        while True:
            await frames.__anext__()
    await announcer.announce("night", {})  # after stop: accepted, ignored
    assert announcer.idle


async def test_after_prerender_no_announcement_waits_for_synthesis(
    announcer: Announcer,
) -> None:
    for key in ANNOUNCEMENT_KEYS:
        await announcer.announce(key, sample(key))
    assert announcer.queued >= len(ANNOUNCEMENT_KEYS) - 1  # one may have started already
    assert announcer.pending == 0


async def test_hush_stops_talking_and_drops_the_queue(
    announcer: Announcer, recorder: Recorder
) -> None:
    await announcer.announce("vote.start", {})
    await announcer.announce("night", {})
    await until(lambda: bool(announcer.spoken))
    await announcer.hush()
    await until(lambda: announcer.idle)
    hushed_at = announcer.frames_out
    await until(lambda: max(recorder.frames) >= hushed_at + 10)
    assert [key for key, _ in announcer.spoken] == ["vote.start"]
    assert not any(voiced(recorder.frames[i]) for i in range(hushed_at, hushed_at + 10))


async def test_given_seats_it_prerenders_when_the_table_starts(fresh: Synthesizer) -> None:
    announcer = Announcer("en", synthesizer=fresh, seats=range(1, 5))
    try:
        await announcer.start()
        await until(announcer.prerendered.is_set, seconds=60)
        rendered = fresh.synth_calls
        assert rendered == len(announcer.catalogue.chunk_texts(range(1, 5)))
        await announcer.announce("nomination", {"seat": 4, "target": 1})
        await announcer.announce("tie.revote", {"seats": [3, 1, 4]})
        assert announcer.pending == 0
        assert fresh.synth_calls == rendered
    finally:
        await announcer.stop()


async def test_an_announcement_during_prerender_does_not_wait_for_all_of_it(
    fresh: Synthesizer,
) -> None:
    announcer = Announcer("ru", synthesizer=fresh, seats=range(1, 11))
    try:
        await announcer.start()
        await announcer.announce("night", {})
        await until(lambda: bool(announcer.spoken), seconds=60)
        assert not announcer.prerendered.is_set()  # spoken while the table was still rendering
    finally:
        await announcer.stop()


async def test_the_clock_rests_after_idle_frames_of_silence(prerendered: Synthesizer) -> None:
    """A LiveKit bot sends no silence: its announcer's clock rests half a second after a
    phrase instead of 5 s (50 Python ticks a second at every table that just spoke)."""
    voice = Announcer("ru", synthesizer=prerendered, idle_frames=25)
    try:
        await voice.announce("speech.ten_seconds", {})
        frames = voice.pcm_frames()
        count, heard, said = 0, False, 0
        async with asyncio.timeout(20):
            async for frame in frames:
                count += 1
                heard = heard or voiced(frame)
                if not said and voice.idle:
                    said = count  # the phrase is over
                if voice._clock is None:
                    break
        assert heard and said
        assert 24 <= count - said <= 27  # half a second of silence, then it rests
    finally:
        await voice.stop()


def test_clocks_that_fall_behind_together_make_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """A stalled loop stalls every table's clock at once: one line for all of them, then
    at most one every `every` seconds, with how many and how far."""
    lateness = Lateness(every=10.0)
    with caplog.at_level(logging.WARNING, logger="voice.announcer"):
        for table in range(50):  # one stall, 50 speaking tables
            lateness.report(200.0 + table, now=100.0)
        assert lateness.lines == 1
        for second in range(1, 10):  # more stalls within the 10 s: counted, not logged
            lateness.report(300.0, now=100.0 + second)
        assert lateness.lines == 1
        lateness.report(250.0, now=110.0)
    assert lateness.lines == 2
    lines = [r.getMessage() for r in caplog.records if r.name == "voice.announcer"]
    assert lines == [
        "announcer clock fell 200 ms behind; resyncing",
        "announcer clocks fell behind 59 times in 10 s, up to 300 ms; resyncing",
    ]
