"""The room's audio unit: one 20 ms frame, 48 kHz mono int16 (960 samples).

Opus in WebRTC runs at 48 kHz and browsers send 20 ms packets, so one mixer tick is one
frame in and one packet out for every peer, with no resampling on the usual path.
"""

from __future__ import annotations

import fractions

import av
import numpy as np

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms at 48 kHz
FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE
TIME_BASE = fractions.Fraction(1, SAMPLE_RATE)

SILENCE = np.zeros(FRAME_SAMPLES, dtype=np.int16)
SILENCE.setflags(write=False)


class MonoConverter:
    """Turns decoded AudioFrames of any layout/rate into 48 kHz mono int16 samples.

    aiortc's Opus decoder gives s16 stereo at 48 kHz; the fast path takes the left
    channel (browsers upmix a mono microphone to both channels) without resampling.
    Anything else goes through one lazily created av.AudioResampler.
    """

    def __init__(self) -> None:
        self._resampler: av.AudioResampler | None = None

    def convert(self, frame: av.AudioFrame) -> np.ndarray:
        if frame.format.name == "s16" and frame.sample_rate == SAMPLE_RATE:
            samples = frame.to_ndarray().reshape(-1)
            channels = len(frame.layout.channels)
            return samples[::channels] if channels > 1 else samples
        if self._resampler is None:
            self._resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        parts = [f.to_ndarray().reshape(-1) for f in self._resampler.resample(frame)]
        return np.concatenate(parts) if parts else SILENCE[:0]


def to_audio_frame(samples: np.ndarray, pts: int) -> av.AudioFrame:
    """A mono s16 AudioFrame at 48 kHz holding `samples`, stamped `pts` (in 1/48000 s)."""
    frame = av.AudioFrame.from_ndarray(
        np.ascontiguousarray(samples, dtype=np.int16).reshape(1, -1), format="s16", layout="mono"
    )
    frame.sample_rate = SAMPLE_RATE
    frame.pts = pts
    frame.time_base = TIME_BASE
    return frame


def tone(frequency: float, start_sample: int, amplitude: int = 8000) -> np.ndarray:
    """One frame of a sine tone, continuous across frames when start_sample advances by 960."""
    n = np.arange(start_sample, start_sample + FRAME_SAMPLES)
    return (amplitude * np.sin(2 * np.pi * frequency * n / SAMPLE_RATE)).astype(np.int16)


def tone_level(samples: np.ndarray, frequency: float) -> float:
    """RMS of the sine at `frequency` in `samples` (0..23170 for int16), Hann-windowed.

    Used to tell voices apart in tests and benches: each test source sings its own pitch.
    The Hann window keeps a loud tone 100 Hz away from leaking into the measure (under
    0.2% over 80 ms), where a plain projection would leak a few percent.
    """
    if len(samples) < 2:
        return 0.0
    x = samples.astype(np.float64) * np.hanning(len(samples))
    n = np.arange(len(x))
    w = 2 * np.pi * frequency / SAMPLE_RATE
    re = float(np.dot(x, np.cos(w * n)))
    im = float(np.dot(x, np.sin(w * n)))
    # A sine of amplitude A projects to A/2 * sum(window) = A*N/4; report A/sqrt(2).
    return float(np.hypot(re, im) * 4 / len(x) / np.sqrt(2))
