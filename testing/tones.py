"""Test audio shaped like the voice's output: 20 ms frames of 960 int16 samples at 48 kHz, as
bytes (what the LiveKit bot plays), not paced in real time (each frame only yields to the
event loop)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import numpy as np

SAMPLE_RATE = 48_000
FRAME = 960


async def tone_frames(
    frequency: float = 440.0, frames: int | None = None, amplitude: int = 8000
) -> AsyncIterator[bytes]:
    """A sine tone, `frames` frames long (None: forever)."""
    n = 0
    offsets = np.arange(FRAME)
    while frames is None or n < frames:
        wave = np.sin(2 * np.pi * frequency * (offsets + n * FRAME) / SAMPLE_RATE) * amplitude
        yield wave.astype(np.int16).tobytes()
        n += 1
        await asyncio.sleep(0)
