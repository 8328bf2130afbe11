"""Which engine and voice say a language: RHVoice where installed, else espeak-ng.

Each catalogue names its default voice per engine (config/phrases/<lang>.toml: `voice` for
espeak-ng, `[rhvoice] voice` for RHVoice). A server configuration may set the engine and a
voice per language (`configure`), a table may ask for its own (`choose`). "auto" is
RHVoice when its library loads, else espeak-ng, said once in the log. Only RHVoice voices
whose licences let a club use them freely are accepted (FREE_VOICES, docs/voice.md).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .phrases import Catalogue, VoiceSpec

log = logging.getLogger(__name__)

RHVOICE, ESPEAK, AUTO = "rhvoice", "espeak", "auto"
ENGINES = (RHVOICE, ESPEAK)
ENGINE_CHOICES = (AUTO, *ENGINES)

# RHVoice voices a club may use freely, with their licences (Debian's copyright file and
# the voices' own readmes). Never the ND/NC voices: marianna, volodymyr (CC-BY-ND),
# tatiana, evgeniy-*, and the other RHVoice Lab voices (CC-BY-NC-ND).
FREE_VOICES: Mapping[str, tuple[str, str]] = {
    "natalia": ("uk", "LGPL-2.1"),
    "anatol": ("uk", "LGPL-2.1"),
    "aleksandr-hq": ("ru", "CC-BY-SA-4.0"),
    "irina": ("ru", "GPL-2.0+"),
    "elena": ("ru", "GPL-3.0"),
    "slt": ("en", "LGPL-2.1+ (CMU ARCTIC recordings)"),
    "clb": ("en", "LGPL-2.1+ (CMU ARCTIC recordings)"),
    "bdl": ("en", "LGPL-2.1+ (CMU ARCTIC recordings)"),
}
ESPEAK_LICENCE = "GPL-3.0+"


class VoiceChoiceError(ValueError):
    """An unknown engine, or a voice that is not installed or not freely usable."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The server's choice: an engine (or "auto") and an RHVoice voice per language."""

    engine: str = AUTO
    voices: Mapping[str, str] | None = None


_settings = Settings()
_fallback_said = threading.Event()


def configure(engine: str = AUTO, voices: Mapping[str, str] | None = None) -> None:
    """Set the server-wide engine and RHVoice voice per language (server configuration);
    VoiceChoiceError, changing nothing, if either is not allowed."""
    global _settings
    check_engine(engine)
    for lang, name in (voices or {}).items():
        check_rhvoice_voice(name, lang)
    _settings = Settings(engine, dict(voices or {}))


def check_engine(engine: str) -> str:
    """`engine` if it is one of ENGINE_CHOICES; VoiceChoiceError otherwise."""
    if engine not in ENGINE_CHOICES:
        choices = ", ".join(ENGINE_CHOICES)
        raise VoiceChoiceError(f"unknown voice engine {engine!r} (one of {choices})")
    return engine


def rhvoice_available() -> bool:
    """Whether RHVoice loads here (asked once, on the synthesis worker)."""
    from .synth import rhvoice_engine

    return not isinstance(rhvoice_engine(), Exception)


def default_engine() -> str:
    """RHVoice where installed, else espeak-ng (logged once per process)."""
    if rhvoice_available():
        return RHVOICE
    if not _fallback_said.is_set():
        _fallback_said.set()
        from .synth import rhvoice_engine

        why = rhvoice_engine()
        log.warning("voice: RHVoice is not available (%s); speaking with espeak-ng", why)
    return ESPEAK


def resolve_engine(engine: str | None = None) -> str:
    """The engine to use: `engine`, else the server's, with "auto" made concrete."""
    chosen = check_engine(engine or _settings.engine)
    return default_engine() if chosen == AUTO else chosen


def choose(catalogue: Catalogue, engine: str | None = None, voice: str | None = None) -> Catalogue:
    """`catalogue` said with the engine asked for (else the server's) and, with RHVoice, the
    RHVoice `voice` asked for (else the server's, else the catalogue's). espeak-ng always
    speaks the catalogue's voice. VoiceChoiceError for an unknown engine or voice,
    RHVoiceMissing when RHVoice is asked for and cannot load."""
    concrete = resolve_engine(engine)
    name = None
    if concrete == RHVOICE:
        name = voice or (_settings.voices or {}).get(catalogue.lang)
    base = catalogue.engine_voices.get(concrete)
    if base is None:
        raise VoiceChoiceError(f"{catalogue.path} names no {concrete} voice for {catalogue.lang!r}")
    spec = (
        base
        if name is None or name == base.name
        else VoiceSpec(name=name, rate=base.rate, engine=concrete)
    )
    if concrete == RHVOICE:
        check_rhvoice_voice(spec.name, catalogue.lang)
        from .synth import rhvoice_engine

        rh = rhvoice_engine()
        if isinstance(rh, Exception):
            raise rh
        if not rh.has(spec.name):
            raise VoiceChoiceError(f"RHVoice voice {spec.name!r} is not installed here")
    return catalogue.with_voice(spec)


def check_rhvoice_voice(name: str, lang: str | None = None) -> None:
    """VoiceChoiceError unless `name` is a freely usable RHVoice voice (of `lang`)."""
    if name not in FREE_VOICES:
        raise VoiceChoiceError(
            f"RHVoice voice {name!r} is not one a club may use freely "
            f"(allowed: {', '.join(FREE_VOICES)}; docs/voice.md)"
        )
    if lang is not None and FREE_VOICES[name][0] != lang:
        speaks = FREE_VOICES[name][0]
        raise VoiceChoiceError(f"RHVoice voice {name!r} speaks {speaks!r}, not {lang!r}")


def listing(catalogues: list[Catalogue]) -> list[dict[str, Any]]:
    """Every installed engine with the voice it uses per language; the default marked."""
    from .synth import espeak_missing, rhvoice_engine

    default = resolve_engine()
    rows: list[dict[str, Any]] = []
    rh = rhvoice_engine()
    for engine in ENGINES:
        if engine == RHVOICE and isinstance(rh, Exception):
            continue
        if engine == ESPEAK and espeak_missing() is not None:
            continue
        for catalogue in catalogues:
            try:
                spec = choose(catalogue, engine).voice
            except VoiceChoiceError:
                continue
            licence = FREE_VOICES[spec.name][1] if engine == RHVOICE else ESPEAK_LICENCE
            rows.append(
                {
                    "engine": engine,
                    "lang": catalogue.lang,
                    "voice": spec.name,
                    "default": engine == default,
                    "licence": licence,
                }
            )
    return rows
