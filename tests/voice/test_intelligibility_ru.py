"""Russian is understood: the default RHVoice voice's tie announcement with two seats comes
back from the recogniser with both seats; the normalisation reads "№5", "ё" and digits."""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.hearing import cer, heard_seats, normalise
from testing.recogniser import Recogniser

from .hearing_cases import check_tie_is_understood

pytestmark = pytest.mark.slow


def test_the_tie_with_two_seats_is_understood(
    espeak: None, default_voice_rhvoice: None, hearer: Recogniser, tmp_path: Path
) -> None:
    check_tie_is_understood(hearer, "ru", [5, 8], tmp_path)


def test_the_normalisation_puts_digits_signs_and_yo_in_one_form() -> None:
    said = "Автокатастрофа. Кандидаты говорят ещё раз: игроки номер пять и восемь."
    heard = "Автокатастрофа, кандидаты говорят еще раз, игроки №5 и 8."
    assert normalise(said, "ru") == normalise(heard, "ru")
    assert cer(said, heard, "ru") == 0.0
    assert heard_seats(heard, [5, 8], "ru") == [5, 8]
    assert heard_seats("игроки номер пятнадцать и восемь", [5, 8], "ru") == [8]
    assert normalise("Игрок 12", "ru") == "игрок двенадцать"
