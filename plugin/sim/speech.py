"""A simulated player's microphone: silence, except a short synthesised line during its
own speech, so whoever listens hears the microphone switching from seat to seat.

The line is rendered once per bot with the voice package's synthesis (espeak-ng, 48 kHz
mono int16, cached on disk), in the table's language.
"""

from __future__ import annotations

import asyncio
import time

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from plugin.rooms.embedded.frames import FRAME_SAMPLES, SAMPLE_RATE, to_audio_frame

LINES = {
    "en": "Player {seat}. I am a peaceful citizen. I pass.",
    "uk": "Гравець {seat}. Я мирний житель. Пас.",
    "ru": "Игрок {seat}. Я мирный житель. Пас.",
}
MAX_LAG_SAMPLES = 5 * FRAME_SAMPLES  # behind by more (nobody pulled frames): resync, no burst


def speech_line(lang: str, seat: int) -> str:
    """What the bot in `seat` says in its speech."""
    return LINES.get(lang, LINES["en"]).format(seat=seat)


async def render_line(lang: str, seat: int) -> np.ndarray:
    """The bot's line as 48 kHz mono int16 PCM (espeak-ng through voice.synth)."""
    from voice.phrases import Catalogue
    from voice.synth import default_synthesizer

    voice = Catalogue.load(lang if lang in LINES else "en").voice
    [pcm] = await default_synthesizer().render_async([speech_line(lang, seat)], voice)
    return np.asarray(pcm, dtype=np.int16).reshape(-1)


class SpeechTrack(MediaStreamTrack):
    """An aiortc audio track paced in real time: the queued line, then silence."""

    kind = "audio"

    def __init__(self) -> None:
        super().__init__()
        self._pending = np.zeros(0, dtype=np.int16)
        self._sample = 0
        self._start: float | None = None
        self.lines_said = 0

    def say(self, pcm: np.ndarray) -> None:
        """Speak `pcm` from the next frame on (replacing what was still to be said)."""
        self._pending = np.asarray(pcm, dtype=np.int16).reshape(-1)
        self.lines_said += 1

    @property
    def speaking(self) -> bool:
        return len(self._pending) > 0

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        now = time.monotonic()
        if self._start is None or now - (self._start + self._sample / SAMPLE_RATE) > (
            MAX_LAG_SAMPLES / SAMPLE_RATE
        ):
            self._start = now - self._sample / SAMPLE_RATE
        wait = self._start + self._sample / SAMPLE_RATE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        chunk = self._pending[:FRAME_SAMPLES]
        self._pending = self._pending[FRAME_SAMPLES:]
        if len(chunk) < FRAME_SAMPLES:
            chunk = np.concatenate([chunk, np.zeros(FRAME_SAMPLES - len(chunk), dtype=np.int16)])
        frame = to_audio_frame(chunk, self._sample)
        self._sample += FRAME_SAMPLES
        return frame
