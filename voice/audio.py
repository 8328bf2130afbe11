"""PCM helpers: the one audio format the voice produces, and how a phrase is assembled.

Everything downstream (tracks, LiveKit, WAV files) takes 48 kHz mono signed 16-bit PCM in
20 ms frames of 960 samples: Opus's native rate and WebRTC's usual packet length.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import av
import numpy as np

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms at 48 kHz
FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE

# espeak-ng leaves silence around each utterance; trimmed to this level, then the
# pauses below are put back so chunks of one phrase sound like one sentence.
SILENCE_LEVEL = 200  # |sample| at or under this is silence (about -44 dBFS)
EDGE_MS = 8  # kept around the voiced part so consonant onsets are not clipped
PAUSE_MS = {"sentence": 300, "clause": 150, "word": 30}
TAIL_MS = 250  # after a phrase, so queued announcements do not run together

SILENT_FRAME = np.zeros(FRAME_SAMPLES, dtype=np.int16)
SILENT_FRAME.flags.writeable = False


def resample(pcm: np.ndarray, rate: int) -> np.ndarray:
    """Mono int16 PCM at `rate` -> 48 kHz mono int16, with libswresample (PyAV)."""
    if rate == SAMPLE_RATE or len(pcm) == 0:
        return np.asarray(pcm, dtype=np.int16).copy()
    frame = av.AudioFrame.from_ndarray(
        np.ascontiguousarray(pcm, dtype=np.int16).reshape(1, -1), format="s16", layout="mono"
    )
    frame.sample_rate = rate
    resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    out = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    out += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(out).astype(np.int16) if out else np.zeros(0, np.int16)


def trim(pcm: np.ndarray) -> np.ndarray:
    """The voiced part of `pcm` with EDGE_MS either side (all of it if none is voiced)."""
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SILENCE_LEVEL)
    if len(loud) == 0:
        return pcm
    edge = SAMPLE_RATE * EDGE_MS // 1000
    return pcm[max(0, loud[0] - edge) : loud[-1] + 1 + edge]


def pause_after(chunk: str) -> int:
    """Samples of silence after a chunk, by how it ends (sentence, clause, word)."""
    end = chunk.rstrip()[-1:]
    kind = "sentence" if end in ".!?…" else "clause" if end in ",;:—–-" else "word"
    return SAMPLE_RATE * PAUSE_MS[kind] // 1000


def assemble(chunks: Sequence[str], pcms: Sequence[np.ndarray]) -> np.ndarray:
    """One phrase from its rendered chunks: pauses between, a tail after; read-only."""
    parts: list[np.ndarray] = []
    for i, (chunk, pcm) in enumerate(zip(chunks, pcms, strict=True)):
        parts.append(pcm)
        if i < len(chunks) - 1:
            parts.append(np.zeros(pause_after(chunk), np.int16))
    parts.append(np.zeros(SAMPLE_RATE * TAIL_MS // 1000, np.int16))
    out = np.concatenate(parts)
    out.flags.writeable = False
    return out


class Spliced:
    """One phrase as `assemble` would make it, without copying it: its chunks' PCM (kept
    read-only in the caches) and the silences between them, read a frame at a time. A
    table's announcer starts a phrase at every step of the game; assembling each one copied
    seconds of audio on the event loop that every table and socket of the server shares."""

    __slots__ = ("_parts", "_starts", "length")

    def __init__(self, chunks: Sequence[str], pcms: Sequence[np.ndarray]) -> None:
        # Each part: (first sample, PCM or None for that many samples of silence, length).
        self._parts: list[tuple[int, np.ndarray | None, int]] = []
        at = 0
        for i, (chunk, pcm) in enumerate(zip(chunks, pcms, strict=True)):
            self._parts.append((at, pcm, len(pcm)))
            at += len(pcm)
            if i < len(chunks) - 1:
                pause = pause_after(chunk)
                self._parts.append((at, None, pause))
                at += pause
        tail = SAMPLE_RATE * TAIL_MS // 1000
        self._parts.append((at, None, tail))
        self.length = at + tail
        self._starts = [start for start, _, _ in self._parts]

    def __len__(self) -> int:
        return self.length

    def frame(self, position: int) -> np.ndarray:
        """The FRAME_SAMPLES samples from `position` on (silence past the end), read-only."""
        index = max(0, bisect_right(self._starts, position) - 1)
        start, pcm, length = self._parts[index]
        if position + FRAME_SAMPLES <= start + length:  # within one part: no copy
            if pcm is None:
                return SILENT_FRAME
            if not pcm.flags.writeable:
                return pcm[position - start : position - start + FRAME_SAMPLES]
        out = np.zeros(FRAME_SAMPLES, np.int16)
        first, end = position, min(position + FRAME_SAMPLES, self.length)
        while position < end:
            start, pcm, length = self._parts[index]
            stop = min(end, start + length)
            if pcm is not None and stop > position:
                out[position - first : stop - first] = pcm[position - start : stop - start]
            position, index = max(position, stop), index + 1
        out.flags.writeable = False
        return out


def frames(pcm: np.ndarray) -> list[np.ndarray]:
    """`pcm` cut into 20 ms frames; the last one padded with silence."""
    count = -(-len(pcm) // FRAME_SAMPLES)
    padded = np.zeros(count * FRAME_SAMPLES, np.int16)
    padded[: len(pcm)] = pcm
    return list(padded.reshape(count, FRAME_SAMPLES))


def rms(pcm: np.ndarray) -> float:
    """Root mean square level of int16 PCM (0 for nothing)."""
    return float(np.sqrt(np.mean(pcm.astype(np.float64) ** 2))) if len(pcm) else 0.0
