"""Speech synthesis: RHVoice (voice.rhvoice) or espeak-ng (through pyttsx3's binding),
resampled to 48 kHz, cached on disk and in memory.

Neither engine is thread-safe and each is initialised once per process, so ONE worker
thread (module-wide, shared by every Synthesizer) owns both; callers block on a future or
await it. A phrase is rendered chunk by chunk (voice.phrases), each chunk cached under a
hash of (text, engine, voice, rate, engine version, sample rate), so `prerender` can make
every chunk of a table's announcements ready before the game starts. Which engine and
voice a table uses: voice.engines.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes.util
import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from plugin import paths

from . import audio, rhvoice
from .phrases import Catalogue, VoiceSpec

log = logging.getLogger(__name__)

# Bump when trimming or resampling changes, so old cache files are not reused.
PIPELINE_VERSION = 1
DEBIAN_PACKAGE = "espeak-ng"
PRERENDER_BATCH = 8  # chunks per worker job while prerendering (about 0.2 s of work)
RENDER_TIMEOUT = 30.0  # seconds; a stuck espeak call must not hang a caller forever


class EspeakMissing(RuntimeError):
    """espeak-ng (the Debian package) is not installed."""


class SynthesisError(RuntimeError):
    """espeak-ng could not render a text (e.g. an unknown voice)."""


def engine_version(engine: str = "espeak") -> str:
    """The engine's version plus our pipeline version (part of the cache key)."""
    if engine == "rhvoice":
        rh = rhvoice_engine()
        if isinstance(rh, Exception):
            raise rh
        return f"RHVoice {rh.version}; text {rhvoice.TEXT_VERSION}; pipeline {PIPELINE_VERSION}"
    return _espeak_version()


@functools.cache
def _espeak_version() -> str:
    require_espeak()
    out = subprocess.run(
        ["espeak-ng", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=10,
        env={**os.environ, "PULSE_SERVER": NO_SOUND_SERVER},  # it opens a sound device too
    ).stdout
    espeak = out.split(":", 1)[-1].split("Data at")[0].strip() or "unknown"
    pyttsx3 = importlib.metadata.version("pyttsx3")
    return f"espeak-ng {espeak}; pyttsx3 {pyttsx3}; pipeline {PIPELINE_VERSION}"


def require_espeak() -> None:
    """Raise EspeakMissing, naming the Debian package, unless espeak-ng is installed."""
    missing = espeak_missing()
    if missing is not None:
        raise missing


def espeak_missing() -> EspeakMissing | None:
    """Why espeak-ng cannot be used here, or None."""
    if shutil.which("espeak-ng") is None or ctypes.util.find_library("espeak-ng") is None:
        return EspeakMissing(
            f"espeak-ng is not installed: install the Debian package {DEBIAN_PACKAGE!r} "
            f"(sudo apt-get install -y {DEBIAN_PACKAGE})"
        )
    return None


def rhvoice_engine() -> rhvoice.Engine | rhvoice.RHVoiceMissing:
    """The worker's RHVoice engine, loaded once on the worker; or why it cannot load."""
    worker = _the_worker()
    if worker.rhvoice is None:
        if threading.get_ident() == worker.thread:
            worker.rhvoice = worker.load_rhvoice()
        else:
            with _rhvoice_lock:  # one engine per process, even when two threads ask at once
                if worker.rhvoice is None:
                    job = worker.executor.submit(worker.load_rhvoice)
                    worker.rhvoice = job.result(RENDER_TIMEOUT)
    return worker.rhvoice


class _Worker:
    """The one thread that owns both engines: RHVoice through voice.rhvoice, and espeak-ng
    through pyttsx3's binding of libespeak-ng.

    We drive pyttsx3's `_espeak` binding in espeak's synchronous mode rather than
    `pyttsx3.init().save_to_file()`: that driver (pyttsx3 2.99) runs espeak asynchronously,
    ends its loop on a queued endLoop about 10 ms after starting, and appends a callback's
    samples only after writing the WAV. Measured here: about 1 render in 150 came out empty
    (even after waiting for its "finished-utterance" notice) and lengths varied between runs
    of the same text. Synchronous mode returns when the audio is complete, writes no file,
    prints nothing, and is deterministic.
    """

    def __init__(self) -> None:
        self.thread = 0  # the worker thread's ident, once it runs
        self.executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="voice", initializer=self._started
        )
        self.rhvoice: rhvoice.Engine | rhvoice.RHVoiceMissing | None = None
        self._espeak: Any = None
        self._rate = 0
        self._buffers: list[bytes] = []

    def _started(self) -> None:
        self.thread = threading.get_ident()

    def load_rhvoice(self) -> rhvoice.Engine | rhvoice.RHVoiceMissing:
        """Worker thread: load RHVoice, or say why it cannot be."""
        try:
            return rhvoice.Engine()
        except rhvoice.RHVoiceMissing as exc:
            return exc

    def synthesize(self, text: str, voice: VoiceSpec) -> np.ndarray:
        """Runs on the worker thread only: text -> trimmed 48 kHz mono int16 PCM."""
        if voice.engine == "rhvoice":
            if self.rhvoice is None:
                self.rhvoice = self.load_rhvoice()
            if isinstance(self.rhvoice, Exception):
                raise self.rhvoice
            try:
                pcm, rate = self.rhvoice.render(text, voice.name, voice.rate)
            except rhvoice.RHVoiceError as exc:
                raise SynthesisError(str(exc)) from None
            return audio.trim(audio.resample(pcm, rate))
        if voice.engine != "espeak":
            raise SynthesisError(f"unknown voice engine {voice.engine!r}")
        espeak = self._start()
        if espeak.SetVoiceByName(voice.name.encode()) != espeak.EE_OK:
            raise SynthesisError(f"espeak-ng has no voice {voice.name!r} (see espeak-ng --voices)")
        espeak.SetParameter(espeak.RATE, voice.rate, 0)
        self._buffers = []
        status = espeak.Synth(text, flags=espeak.CHARS_UTF8 | espeak.ENDPAUSE)
        if status != espeak.EE_OK:
            raise SynthesisError(f"espeak-ng failed on {text!r} (status {status})")
        pcm = np.frombuffer(b"".join(self._buffers), dtype="<i2")
        self._buffers = []
        return audio.trim(audio.resample(pcm, self._rate))

    def _collect(self, wav: Any, numsamples: int, events: Any) -> int:
        # espeak's callback: a buffer of samples (possibly none) per call; 0 = continue.
        if numsamples > 0:
            self._buffers.append(ctypes.string_at(wav, numsamples * ctypes.sizeof(ctypes.c_short)))
        return 0

    def _start(self) -> Any:
        if self._espeak is None:
            require_espeak()
            from pyttsx3.drivers import _espeak as espeak  # type: ignore[import-untyped]

            with _no_sound_server():
                rate = espeak.Initialize(espeak.AUDIO_OUTPUT_SYNCHRONOUS, 200)
            if rate <= 0:
                raise SynthesisError("could not initialise espeak-ng")
            espeak.SetSynthCallback(self._collect)
            self._espeak, self._rate = espeak, rate
        return self._espeak


# libespeak-ng 1.51 (Debian 12) opens a sound device in espeak_Initialize even for
# synchronous output, which never plays: pcaudiolib tries PulseAudio, and libpulse makes
# ~/.config/pulse (under the unit's read-only checkout: "Failed to create secure directory",
# issue 32) and looks for a server. An empty server list makes it give up before that: no
# directory, no socket, no DNS lookup (PULSE_SERVER=none looks up a host "none"), no message.
NO_SOUND_SERVER = ""


@contextlib.contextmanager
def _no_sound_server() -> Iterator[None]:
    """PULSE_SERVER pointed nowhere while espeak-ng initialises, then put back."""
    before = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = NO_SOUND_SERVER
    try:
        yield
    finally:
        if before is None:
            del os.environ["PULSE_SERVER"]
        else:
            os.environ["PULSE_SERVER"] = before


_worker_lock = threading.Lock()
_rhvoice_lock = threading.Lock()
_worker: _Worker | None = None


def _the_worker() -> _Worker:
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = _Worker()
        return _worker


class Synthesizer:
    """Text -> 48 kHz PCM through the espeak worker, with a disk cache and a memory cache.

    `synth_calls` counts real syntheses and `disk_hits` chunks read back from disk (tests
    and benchmarks use them to see the caches work).
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else paths.CACHE_DIR / "voice"
        self._memory: dict[str, np.ndarray] = {}
        self.synth_calls = 0
        self.disk_hits = 0

    # -- chunks ------------------------------------------------------------------------

    def cached(self, text: str, voice: VoiceSpec) -> np.ndarray | None:
        """The chunk's PCM if it is in memory (never touches disk or espeak)."""
        return self._memory.get(self._key(text, voice))

    def render(self, texts: Sequence[str], voice: VoiceSpec) -> list[np.ndarray]:
        """PCM for each text, synthesising what no cache has. Blocks; any thread but the
        worker's."""
        missing = [t for t in dict.fromkeys(texts) if self.cached(t, voice) is None]
        if missing:
            future: Future[None] = _the_worker().executor.submit(self._fill, missing, voice)
            future.result(timeout=RENDER_TIMEOUT)
        return [self._memory[self._key(t, voice)] for t in texts]

    async def render_async(self, texts: Sequence[str], voice: VoiceSpec) -> list[np.ndarray]:
        """`render` for the event loop: waits on the worker without blocking the loop."""
        missing = [t for t in dict.fromkeys(texts) if self.cached(t, voice) is None]
        if missing:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(_the_worker().executor, self._fill, missing, voice)
        return [self._memory[self._key(t, voice)] for t in texts]

    def clear_memory(self) -> None:
        """Forget the memory cache (the disk cache stays); for benchmarks and tests."""
        self._memory.clear()

    # -- phrases -----------------------------------------------------------------------

    def phrase(self, catalogue: Catalogue, key: str, params: Mapping[str, Any]) -> np.ndarray:
        """One announcement as 48 kHz mono int16 PCM (blocking)."""
        chunks = catalogue.chunks(key, params)
        return audio.assemble(chunks, self.render(chunks, catalogue.voice))

    def prerender(self, catalogue: Catalogue, seats: Iterable[int]) -> int:
        """Render every chunk a table with these seats can need; returns how many."""
        texts = sorted(catalogue.chunk_texts(seats))
        for at in range(0, len(texts), PRERENDER_BATCH):  # each batch within RENDER_TIMEOUT
            self.render(texts[at : at + PRERENDER_BATCH], catalogue.voice)
        return len(texts)

    async def prerender_async(self, catalogue: Catalogue, seats: Iterable[int]) -> int:
        """`prerender` for the event loop, in small batches so that an announcement made
        meanwhile waits for one batch on the worker, not for the whole table."""
        return await self.render_batches_async(
            sorted(catalogue.chunk_texts(seats)), catalogue.voice
        )

    async def render_batches_async(self, texts: Sequence[str], voice: VoiceSpec) -> int:
        """Cache every text, PRERENDER_BATCH at a time on the worker; returns how many."""
        for at in range(0, len(texts), PRERENDER_BATCH):
            await self.render_async(texts[at : at + PRERENDER_BATCH], voice)
        return len(texts)

    # -- internals ---------------------------------------------------------------------

    def _key(self, text: str, voice: VoiceSpec) -> str:
        material = json.dumps(
            [
                text,
                voice.engine,
                voice.name,
                voice.rate,
                engine_version(voice.engine),
                audio.SAMPLE_RATE,
            ],
            ensure_ascii=False,
        )
        return hashlib.sha256(material.encode()).hexdigest()[:40]

    def _fill(self, texts: Sequence[str], voice: VoiceSpec) -> None:
        """Worker thread: load each text from disk, or synthesise and store it."""
        for text in texts:
            key = self._key(text, voice)
            path = self.cache_dir / f"{key}.pcm"
            pcm = read_pcm(path)
            if pcm is None:
                pcm = _the_worker().synthesize(text, voice)
                self.synth_calls += 1
                write_pcm(path, pcm)
            else:
                self.disk_hits += 1
            pcm.flags.writeable = False
            self._memory[key] = pcm


def read_pcm(path: Path) -> np.ndarray | None:
    """A cached chunk (raw 48 kHz int16), or None if absent or empty."""
    try:
        pcm = np.fromfile(path, dtype="<i2").astype(np.int16)
    except (FileNotFoundError, ValueError):
        return None
    return pcm if len(pcm) else None  # an empty file is a failed write, not silence


def write_pcm(path: Path, pcm: np.ndarray) -> None:
    """Store a chunk in the disk cache atomically; a read-only cache only costs speed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        pcm.astype("<i2").tofile(tmp)
        os.replace(tmp, path)  # atomic: a reader never sees half a file
    except OSError as exc:
        log.warning("voice cache not written (%s): %s", path, exc)


@functools.cache
def default_synthesizer() -> Synthesizer:
    """The process-wide synthesizer on plugin.paths.CACHE_DIR / "voice"."""
    return Synthesizer()


def prerender(lang: str, seats: Iterable[int], *, synthesizer: Synthesizer | None = None) -> int:
    """Render every fixed phrase and seat variant for a table in `lang` ahead of the game."""
    from .engines import choose

    synth = synthesizer or default_synthesizer()
    return synth.prerender(choose(Catalogue.load(lang)), seats)
