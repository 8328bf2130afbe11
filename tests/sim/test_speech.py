"""The simulated player's microphone: its line is real espeak-ng speech, said once, then
silence, paced in real time."""

from __future__ import annotations

import numpy as np

from plugin.rooms.embedded.frames import FRAME_SAMPLES, SAMPLE_RATE
from plugin.sim import SpeechTrack, render_line, speech_line


def test_the_line_names_the_seat_in_the_tables_language():
    assert speech_line("en", 4) == "Player 4. I am a peaceful citizen. I pass."
    assert speech_line("uk", 4).startswith("Гравець 4.")
    assert speech_line("ru", 4).startswith("Игрок 4.")
    assert speech_line("xx", 4) == speech_line("en", 4)


async def test_the_line_is_synthesised_speech_at_48_khz():
    pcm = await render_line("uk", 7)
    assert pcm.dtype == np.int16
    assert SAMPLE_RATE * 0.8 < len(pcm) < SAMPLE_RATE * 10  # a short sentence
    assert np.abs(pcm.astype(np.int32)).max() > 3000  # voiced, not silence


async def test_the_track_says_the_line_once_then_is_silent():
    track = SpeechTrack()
    first = await track.recv()
    assert not first.to_ndarray().any()  # silent until told to speak
    line = (np.sin(np.arange(FRAME_SAMPLES * 3) / 5) * 8000).astype(np.int16)
    track.say(line)
    assert track.speaking
    said = [(await track.recv()).to_ndarray().reshape(-1) for _ in range(4)]
    assert all(len(frame) == FRAME_SAMPLES for frame in said)
    assert np.array_equal(np.concatenate(said[:3]), line)
    assert not said[3].any() and not track.speaking
    pts = [(await track.recv()).pts for _ in range(2)]
    assert pts[1] - pts[0] == FRAME_SAMPLES
    track.stop()
