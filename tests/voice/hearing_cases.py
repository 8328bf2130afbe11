"""What every language's intelligibility test checks (tests/voice/test_intelligibility_*.py):
the default voice's tie announcement with two seats, heard by the offline recogniser."""

from __future__ import annotations

from pathlib import Path

from testing.hearing import heard_seats, score
from testing.recogniser import Recogniser
from voice import audio
from voice.phrases import Catalogue

from .conftest import said_by_default_voice, spoken

# The promise: the phrase comes through nearly word for word (a character in ten may be
# misheard: word boundaries, a soft sign) and both seats come through exactly.
PHRASE_CER = 0.10


def check_tie_is_understood(hearer: Recogniser, lang: str, seats: list[int], cache: Path) -> None:
    params: dict[str, object] = {"seats": seats}
    assert spoken(lang).voice.engine == "rhvoice", "RHVoice is the default where installed"
    pcm = said_by_default_voice(lang, "tie.speeches", params, cache)
    heard = hearer.transcribe(pcm, audio.SAMPLE_RATE, lang)
    text = Catalogue.load(lang).text("tie.speeches", params)
    judged = score(text, heard, lang)
    assert heard_seats(heard, seats, lang) == seats, f"said {text!r}, heard {heard!r}"
    assert judged.cer <= PHRASE_CER, f"said {text!r}, heard {heard!r} ({judged.cer:.0%})"
