"""RHVoice in process: our own ctypes binding to Debian's libRHVoice.so.5 (LGPL).

The library is loaded once and its engine kept (loading every voice takes a few ms, a
first phrase per voice a few hundred); a phrase comes back as raw 16-bit PCM through the
`play_speech` callback (RHVoice's WAV writer leaves a bad length header). The structures
below are RHVoice 1.8's C API (`RHVoice.h`, `RHVoice_common.h`): the callbacks start with
`set_sample_rate` and end with `done`, a voice's info ends with its country, the synthesis
parameters end with `flags`. Not thread-safe: voice.synth calls it from its one worker.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

LIBRARY = "libRHVoice.so.5"
# Where the library is looked up: a path or a soname. Tests point it at nothing to see
# the espeak-ng fallback.
LIBRARY_ENV = "AUTOHOST_RHVOICE_LIBRARY"
DEBIAN_PACKAGES = (
    "librhvoice5", "rhvoice", "rhvoice-russian", "rhvoice-ukrainian", "rhvoice-english",
)  # fmt: skip

_SET_SAMPLE_RATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
_PLAY_SPEECH = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_uint, ctypes.c_void_p
)
_PROCESS_MARK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_BOUNDARY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p)
_PLAY_AUDIO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_DONE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# Bump when `prepared` changes what a voice is given: part of the synthesis cache key.
TEXT_VERSION = 2
# RHVoice's Ukrainian voices and the apostrophe of "дев'ять", "п'ять" (num2words writes
# ASCII): with it, natalia and anatol say the word in two pieces and a listener (the
# recogniser of bench/intelligibility.py) hears "давять", "де в'ять", "пиять"; the letter
# apostrophe U+02BC fares no better in a phrase's chunks. Without it both voices say a
# nine and a five that were heard as 9 and 5 in every seat phrase tried (docs/voice.md).
_APOSTROPHES = {"uk": str.maketrans({"'": "", "\u2019": "", "\u02bc": ""})}

_MESSAGE_TEXT = 0
_PUNCTUATION_DEFAULT = 0
_CAPITALS_DEFAULT = 0


class _Callbacks(ctypes.Structure):
    _fields_ = [
        ("set_sample_rate", _SET_SAMPLE_RATE),
        ("play_speech", _PLAY_SPEECH),
        ("process_mark", _PROCESS_MARK),
        ("word_starts", _BOUNDARY),
        ("word_ends", _BOUNDARY),
        ("sentence_starts", _BOUNDARY),
        ("sentence_ends", _BOUNDARY),
        ("play_audio", _PLAY_AUDIO),
        ("done", _DONE),
    ]


class _InitParams(ctypes.Structure):
    _fields_ = [
        ("data_path", ctypes.c_char_p),
        ("config_path", ctypes.c_char_p),
        ("resource_paths", ctypes.POINTER(ctypes.c_char_p)),
        ("callbacks", _Callbacks),
        ("options", ctypes.c_uint),
    ]


class _VoiceInfo(ctypes.Structure):
    _fields_ = [
        ("language", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("gender", ctypes.c_int),
        ("country", ctypes.c_char_p),
    ]


class _SynthParams(ctypes.Structure):
    _fields_ = [
        ("voice_profile", ctypes.c_char_p),
        ("absolute_rate", ctypes.c_double),
        ("absolute_pitch", ctypes.c_double),
        ("absolute_volume", ctypes.c_double),
        ("relative_rate", ctypes.c_double),
        ("relative_pitch", ctypes.c_double),
        ("relative_volume", ctypes.c_double),
        ("punctuation_mode", ctypes.c_int),
        ("punctuation_list", ctypes.c_char_p),
        ("capitals_mode", ctypes.c_int),
        ("flags", ctypes.c_int),
    ]


class RHVoiceMissing(RuntimeError):
    """libRHVoice.so.5 (Debian's librhvoice5) cannot be loaded, or has no voices."""


class RHVoiceError(RuntimeError):
    """RHVoice could not render a text (unknown voice, failed synthesis)."""


@dataclass(frozen=True, slots=True)
class InstalledVoice:
    """A voice the engine found: its name as RHVoice spells it, and its language code."""

    name: str
    lang: str


def prepared(text: str, lang: str) -> str:
    """`text` as a voice of `lang` reads it best (see _APOSTROPHES)."""
    table = _APOSTROPHES.get(lang)
    return text.translate(table) if table else text


def library_path() -> str:
    """The library to load: $AUTOHOST_RHVOICE_LIBRARY, else the soname."""
    return os.environ.get(LIBRARY_ENV) or LIBRARY


class Engine:
    """One loaded RHVoice engine. `render` returns mono int16 PCM and its sample rate."""

    def __init__(self) -> None:
        try:
            lib = ctypes.CDLL(library_path())
        except OSError as exc:
            raise RHVoiceMissing(
                f"RHVoice is not installed ({exc}): install Debian's non-free packages "
                f"{' '.join(DEBIAN_PACKAGES)}"
            ) from None
        lib.RHVoice_get_version.restype = ctypes.c_char_p
        lib.RHVoice_new_tts_engine.argtypes = [ctypes.POINTER(_InitParams)]
        lib.RHVoice_new_tts_engine.restype = ctypes.c_void_p
        lib.RHVoice_get_number_of_voices.argtypes = [ctypes.c_void_p]
        lib.RHVoice_get_number_of_voices.restype = ctypes.c_uint
        lib.RHVoice_get_voices.argtypes = [ctypes.c_void_p]
        lib.RHVoice_get_voices.restype = ctypes.POINTER(_VoiceInfo)
        lib.RHVoice_new_message.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int,
            ctypes.POINTER(_SynthParams), ctypes.c_void_p,
        ]  # fmt: skip
        lib.RHVoice_new_message.restype = ctypes.c_void_p
        lib.RHVoice_speak.argtypes = [ctypes.c_void_p]
        lib.RHVoice_speak.restype = ctypes.c_int
        lib.RHVoice_delete_message.argtypes = [ctypes.c_void_p]
        lib.RHVoice_delete_message.restype = None
        self._lib: Any = lib
        self.version = (lib.RHVoice_get_version() or b"unknown").decode()
        self._buffers: list[bytes] = []
        self._rate = 0
        # Kept referenced: the library calls them for as long as the engine lives.
        self._callbacks = _Callbacks(
            set_sample_rate=_SET_SAMPLE_RATE(self._on_sample_rate),
            play_speech=_PLAY_SPEECH(self._on_speech),
        )
        self._params = _InitParams(None, None, None, self._callbacks, 0)
        self._engine = lib.RHVoice_new_tts_engine(ctypes.byref(self._params))
        if not self._engine:
            raise RHVoiceMissing("RHVoice could not start (its data in /usr/share/RHVoice?)")
        count = lib.RHVoice_get_number_of_voices(self._engine)
        infos = lib.RHVoice_get_voices(self._engine)
        self.voices = tuple(
            InstalledVoice(infos[i].name.decode().lower(), infos[i].language.decode())
            for i in range(count)
        )
        if not self.voices:
            raise RHVoiceMissing(f"RHVoice has no voices: install {' '.join(DEBIAN_PACKAGES[2:])}")

    def has(self, name: str) -> bool:
        """Whether a voice of this name (any case) is installed."""
        return any(v.name == name.lower() for v in self.voices)

    def render(self, text: str, voice: str, rate: int = 100) -> tuple[np.ndarray, int]:
        """`text` said by `voice` at `rate` % of its normal speed: (int16 PCM, sample rate).

        An unknown voice is refused here: RHVoice would silently use another one."""
        found = [v for v in self.voices if v.name == voice.lower()]
        if not found:
            have = ", ".join(v.name for v in self.voices)
            raise RHVoiceError(f"RHVoice has no voice {voice!r} (installed: {have})")
        text = prepared(text, found[0].lang)
        params = _SynthParams(
            voice_profile=voice.encode(),
            relative_rate=rate / 100,
            relative_pitch=1.0,
            relative_volume=1.0,
            punctuation_mode=_PUNCTUATION_DEFAULT,
            capitals_mode=_CAPITALS_DEFAULT,
        )
        data = text.encode()
        self._buffers, self._rate = [], 0
        message = self._lib.RHVoice_new_message(
            self._engine, data, len(data), _MESSAGE_TEXT, ctypes.byref(params), None
        )
        if not message:
            raise RHVoiceError(f"RHVoice refused the text {text!r}")
        try:
            ok = self._lib.RHVoice_speak(message)
        finally:
            self._lib.RHVoice_delete_message(message)
        pcm = np.frombuffer(b"".join(self._buffers), dtype="<i2").astype(np.int16)
        self._buffers = []
        if not ok or self._rate <= 0 or len(pcm) == 0:
            raise RHVoiceError(f"RHVoice failed on {text!r} with voice {voice!r}")
        return pcm, self._rate

    def _on_sample_rate(self, rate: int, user_data: Any) -> int:
        self._rate = rate
        return 1  # go on

    def _on_speech(self, samples: Any, count: int, user_data: Any) -> int:
        if count:
            self._buffers.append(ctypes.string_at(samples, count * ctypes.sizeof(ctypes.c_short)))
        return 1
