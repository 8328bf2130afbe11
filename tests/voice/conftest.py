"""Fixtures for the voice: real espeak-ng (skipped, naming the Debian package, if absent),
real RHVoice where installed (the default engine then), the `autohost` command as a club
member runs it, and voice packs of real WAV files."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path

import av
import numpy as np
import pytest
from aiortc.mediastreams import MediaStreamError

from plugin import paths
from testing import eventually
from voice import audio
from voice.announcer import Announcer
from voice.engines import choose
from voice.phrases import ANNOUNCEMENTS, SAMPLE_PARAMS, Catalogue
from voice.synth import EspeakMissing, Synthesizer, require_espeak

LANGUAGES = ("ru", "uk", "en")
TABLE = range(1, 11)


def sample(key: str) -> dict[str, object]:
    return {name: SAMPLE_PARAMS[name] for name in ANNOUNCEMENTS[key]}


@pytest.fixture(scope="session")
def espeak() -> None:
    try:
        require_espeak()
    except EspeakMissing as exc:
        pytest.skip(str(exc))


def spoken(lang: str) -> Catalogue:
    """The catalogue as an Announcer says it by default: with the default engine's voice."""
    return choose(Catalogue.load(lang))


@pytest.fixture(scope="session")
def prerendered(espeak: None, tmp_path_factory: pytest.TempPathFactory) -> Synthesizer:
    """One synthesizer, its cache filled for a 10-seat table in every language, with the
    default engine (what an Announcer uses)."""
    synth = Synthesizer(tmp_path_factory.mktemp("voice-cache"))
    for lang in LANGUAGES:
        synth.prerender(spoken(lang), TABLE)
    return synth


@pytest.fixture
def fresh(espeak: None, tmp_path: Path) -> Synthesizer:
    """A synthesizer with an empty cache of its own."""
    return Synthesizer(tmp_path / "voice")


# Wait for a condition the frame clock brings about (looked at every 5 ms, a quarter of a
# frame); fail if it never holds.
until = partial(eventually, seconds=10.0, interval=0.005)


def voiced(frame: np.ndarray, level: int = 200) -> bool:
    return bool(np.abs(frame.astype(np.int32)).max() > level)


class Recorder:
    """Reads a track() into {frame index: samples}, like a real consumer would."""

    def __init__(self, announcer: Announcer) -> None:
        self.track = announcer.track()
        self.frames: dict[int, np.ndarray] = {}
        self.raw: list[av.AudioFrame] = []

    async def run(self) -> None:
        while True:
            try:
                frame = await self.track.recv()
            except MediaStreamError:
                return
            self.raw.append(frame)
            self.frames[frame.pts // audio.FRAME_SAMPLES] = frame.to_ndarray().reshape(-1)

    def span(self, start: int, count: int) -> np.ndarray:
        return np.concatenate([self.frames[i] for i in range(start, start + count)])


AUTOHOST = paths.ROOT / ".venv" / "bin" / "autohost"


def autohost(
    *args: str,
    cache: Path,
    env: Mapping[str, str | None] | None = None,
    prefix: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run `autohost ARGS` with its cache in `cache` (and `env` on top of ours: None removes
    a variable), under `prefix` (e.g. testing.bound_by_permissions())."""
    merged = {**os.environ, "AUTOHOST_CACHE": str(cache), **(env or {})}
    # The installed entry point when the project is installed (scripts/test does that),
    # else the same `plugin.cli:main` through the interpreter.
    command = [str(AUTOHOST)] if AUTOHOST.exists() else [sys.executable, "-m", "plugin.cli"]
    return subprocess.run(
        [*prefix, *command, *args],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
        env={name: value for name, value in merged.items() if value is not None},
        timeout=120,
        check=False,
    )


# -- voice packs of generated WAV files ---------------------------------------------------


def tone(hz: float, seconds: float, rate: int = 48_000, level: int = 12_000) -> np.ndarray:
    """A sine tone as int16, starting and ending at zero."""
    t = np.arange(round(seconds * rate)) / rate
    return np.round(level * np.sin(2 * np.pi * hz * t)).astype(np.int16)


def write_wav(
    path: Path,
    samples: np.ndarray,
    rate: int,
    *,
    channels: int = 1,
    bits: int = 16,
    format_code: int = 1,
) -> Path:
    """A RIFF/WAVE file of `samples` (int16 mono; duplicated for stereo), written by hand
    so a test can make every kind a recorder produces, the unusable ones too."""
    pcm = np.repeat(samples.astype(np.int16), channels)
    if bits == 16:
        data = pcm.astype("<i2").tobytes()
    elif bits == 24:  # the int16 value in the top two bytes, a low byte of zero
        wide = pcm.astype(np.int32) << 8
        data = b"".join(int(v).to_bytes(3, "little", signed=True) for v in wide)
    else:
        data = (pcm.astype(np.float32) / 32768).tobytes() if bits == 32 else pcm.tobytes()[::2]
    width = bits // 8
    fmt = struct.pack("<HHIIHH", format_code, channels, rate, rate * channels * width,
                      channels * width, bits)  # fmt: skip
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def pitch(key: str) -> float:
    """Each fragment's test recording has a pitch of its own (200..1700 Hz)."""
    return 200 + (sum(key.encode()) * 7) % 1500


def recording(key: str, rate: int = 48_000) -> np.ndarray:
    """The test's "recording" of a fragment: 0.3 s of its tone between 50 ms silences."""
    silence = np.zeros(rate // 20, np.int16)
    return np.concatenate([silence, tone(pitch(key), 0.3, rate), silence])


def make_pack(folder: Path, lang: str, keys: Iterable[str], rate: int = 48_000) -> Path:
    """A voice pack in `folder` with a mono 16-bit recording of each of `keys`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.toml").write_text(f'lang = "{lang}"\ntitle = "test pack"\n')
    for key in keys:
        write_wav(folder / f"{key}.wav", recording(key, rate), rate)
    return folder


def trimmed(samples: np.ndarray) -> np.ndarray:
    """What a 48 kHz mono recording becomes: its voiced part and 8 ms either side."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > audio.SILENCE_LEVEL)
    edge = audio.SAMPLE_RATE * audio.EDGE_MS // 1000
    return samples[loud[0] - edge : loud[-1] + 1 + edge]


def said_by_default_voice(
    lang: str, key: str, params: dict[str, object], cache: Path
) -> np.ndarray:
    """One announcement as the table's default voice says it (48 kHz PCM), rendered cold."""
    return Synthesizer(cache).phrase(spoken(lang), key, params)
