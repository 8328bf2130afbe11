"""A phrase read a frame at a time from its chunks (voice.audio.Spliced) is, sample for
sample, the phrase `assemble` builds: the same pauses after each kind of chunk, the same
tail, the last frame padded with silence, every frame read-only."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voice import audio

ENDINGS = st.sampled_from(["", ".", ",", "!", " —", "?", ";", "…"])
LENGTHS = st.integers(min_value=0, max_value=3 * audio.FRAME_SAMPLES + 7)


@settings(max_examples=60, deadline=None)
@given(
    chunks=st.lists(st.tuples(ENDINGS, LENGTHS), min_size=1, max_size=6), seed=st.integers(0, 99)
)
def test_spliced_frames_are_the_assembled_phrases_frames(
    chunks: list[tuple[str, int]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    texts = [f"word{i}{ending}" for i, (ending, _) in enumerate(chunks)]
    pcms = [rng.integers(-30_000, 30_000, size=n, dtype=np.int16) for _, n in chunks]
    for pcm in pcms:  # the caches keep theirs read-only (frames are then views of them)
        pcm.flags.writeable = seed % 2 == 1
    whole = audio.assemble(texts, pcms)
    spliced = audio.Spliced(texts, pcms)
    assert len(spliced) == len(whole)
    expected = audio.frames(whole)
    read = [spliced.frame(at) for at in range(0, len(spliced), audio.FRAME_SAMPLES)]
    assert len(read) == len(expected)
    for index, (got, want) in enumerate(zip(read, expected, strict=True)):
        assert np.array_equal(got, want), index
        assert got.dtype == np.int16 and len(got) == audio.FRAME_SAMPLES
        assert not got.flags.writeable
    assert not spliced.frame(len(spliced)).any()  # past the end: silence


def test_frames_that_straddle_a_chunks_end_and_the_next_ones_start() -> None:
    one = np.full(1000, 7, np.int16)
    two = np.full(500, -3, np.int16)
    spliced = audio.Spliced(["Раз,", "два."], [one, two])
    pause = audio.pause_after("Раз,")
    end_of_one = spliced.frame(900)
    assert (end_of_one[:100] == 7).all() and not end_of_one[100:].any()
    start_of_two = spliced.frame(1000 + pause - 400)
    assert not start_of_two[:400].any() and (start_of_two[400:900] == -3).all()
    assert not start_of_two[900:].any()  # then the tail's silence
