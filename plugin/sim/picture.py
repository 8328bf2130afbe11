"""A simulated player's camera (issue 17, "the demo shows video"): its seat number drifting
over a colour of its own, 160×120 at 10 fps, so the demo shows what the video tiles do.

Cheap by construction: the background and the number's mask are drawn once; a frame is
a copy of the background with the mask pasted where the drift has taken it, made once per
tick however many peers receive it (`SeatPicture.frame`), each peer's track wrapping it in
its own av.VideoFrame (`PeerPicture`). The digits are a 5×7 bitmap font scaled up: no font
files, no imaging library.
"""

from __future__ import annotations

import asyncio
import colorsys
import math
import time
from collections.abc import Callable
from fractions import Fraction

import av
import numpy as np
from aiortc.mediastreams import MediaStreamTrack

WIDTH, HEIGHT, FPS = 160, 120, 10
CLOCK_RATE = 90_000  # RTP's video clock
SCALE = 6  # a digit is 30×42 pixels
MARGIN = 12

_FONT = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11110", "00001", "00001", "01110", "00001", "00001", "11110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
}


def number_mask(number: int) -> np.ndarray:
    """A boolean mask of `number` in the bitmap font, SCALE times larger, 1 column apart."""
    glyphs = [np.array([[c == "1" for c in row] for row in _FONT[d]]) for d in str(number)]
    gap = np.zeros((7, 1), dtype=bool)
    parts: list[np.ndarray] = []
    for i, glyph in enumerate(glyphs):
        parts += [gap, glyph] if i else [glyph]
    mask: np.ndarray = np.kron(np.hstack(parts), np.ones((SCALE, SCALE), dtype=bool)) > 0
    return mask


def background(seat: int) -> np.ndarray:
    """The seat's colour (hues spread around the wheel), darker at the bottom."""
    red, green, blue = colorsys.hsv_to_rgb((seat * 0.137) % 1.0, 0.55, 0.85)
    shade = np.linspace(1.0, 0.55, HEIGHT)[:, None, None]
    colour = np.array([red, green, blue])[None, None, :] * 255.0
    image: np.ndarray = (np.ones((HEIGHT, WIDTH, 1)) * colour * shade).astype(np.uint8)
    return image


class SeatPicture:
    """The frames of one seat's camera: one per 1/FPS s, the same for every peer."""

    def __init__(self, seat: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.seat = seat
        self._clock = clock
        self._start = clock()
        self._background = background(seat)
        self._mask = number_mask(seat)
        self._index = -1
        self._frame = self._background
        self.frames_made = 0  # frames drawn so far (tests, the CPU figure)

    def draw(self, index: int) -> np.ndarray:
        """Frame `index`: the number at its place on a slow Lissajous drift."""
        t = index / FPS
        height, width = self._mask.shape
        # Within a margin: a tile crops its video a little to fill its box.
        x = MARGIN + int((WIDTH - width - 2 * MARGIN) * (0.5 + 0.5 * math.sin(t * 0.9)))
        y = MARGIN + int((HEIGHT - height - 2 * MARGIN) * (0.5 + 0.5 * math.sin(t * 1.3 + 1)))
        image = self._background.copy()
        image[y : y + height, x : x + width][self._mask] = 255
        self.frames_made += 1
        return image

    async def frame(self, after: int) -> tuple[int, np.ndarray]:
        """The first frame after index `after`, at its moment (drawn once per tick)."""
        now_index = int((self._clock() - self._start) * FPS)
        index = max(after + 1, now_index)
        wait = self._start + index / FPS - self._clock()
        if wait > 0:
            await asyncio.sleep(wait)
        if index != self._index:
            self._index, self._frame = index, self.draw(index)
        return index, self._frame


class PeerPicture(MediaStreamTrack):
    """What one peer receives of a SeatPicture: its frames while `allowed()` (the night
    rule for that peer), none otherwise, so nothing is encoded or sent at night."""

    kind = "video"

    def __init__(self, picture: SeatPicture, allowed: Callable[[], bool]) -> None:
        super().__init__()
        self._picture = picture
        self._allowed = allowed
        self._last = -1

    async def recv(self) -> av.VideoFrame:
        while True:
            index, image = await self._picture.frame(self._last)
            self._last = index
            if self._allowed():
                break
        frame = av.VideoFrame.from_ndarray(image, format="rgb24")
        frame.pts = index * (CLOCK_RATE // FPS)
        frame.time_base = Fraction(1, CLOCK_RATE)
        return frame
