"""The host's voice: phrase catalogues, synthesis (RHVoice, else espeak-ng), a table's tracks.

    from voice import Announcer
    announcer = Announcer("uk")                 # one per table; enabled=False: silent
    await announcer.prerender(range(1, 11))     # every phrase chunk for 10 seats, ahead
    await announcer.announce("vote.call", {"seat": 7})
    announcer.pcm_frames() / .track() / .opus_track()   # 20 ms, 48 kHz mono

    Announcer("uk", pack="club-anna")           # a club's recordings, synthesis for the rest
    Announcer("uk", engine="rhvoice", voice="anatol")   # voice.engines: engine and voice

Modules: phrases (catalogues, placeholders, fragments, ANNOUNCEMENT_KEYS), engines (which
engine and voice, the espeak-ng fallback), rhvoice (our binding of libRHVoice), synth (the
synthesis worker, caches, prerender), pack (voice packs: WAV recordings per fragment),
speech (pack or synthesis per fragment), audio (PCM format, phrase assembly), announcer
(the frame clock and queue), listeners (per-consumer buffers), tracks (aiortc tracks,
shared Opus), cli.
Names are imported lazily so `autohost phrases` does not load aiortc.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Announcer": "voice.announcer",
    "ANNOUNCEMENT_KEYS": "voice.phrases",
    "Catalogue": "voice.phrases",
    "CatalogueError": "voice.phrases",
    "PhraseError": "voice.phrases",
    "Fragment": "voice.phrases",
    "VoicePack": "voice.pack",
    "PackError": "voice.pack",
    "RecordingError": "voice.pack",
    "Synthesizer": "voice.synth",
    "EspeakMissing": "voice.synth",
    "RHVoiceMissing": "voice.rhvoice",
    "VoiceChoiceError": "voice.engines",
    "SynthesisError": "voice.synth",
    "prerender": "voice.synth",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'voice' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
