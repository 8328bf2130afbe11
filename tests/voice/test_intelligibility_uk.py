"""Ukrainian is understood: the default RHVoice voice's tie announcement with two seats,
transcribed by Whisper base (the `speech` extra), comes back with both seats; the
apostrophe the Ukrainian voices split a number at is left out for them; the one normalisation the
benchmark scores with (testing.hearing) puts digits, "№" and apostrophes in one form."""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.hearing import cer, heard_seats, normalise
from testing.recogniser import Recogniser
from voice.rhvoice import prepared
from voice.synth import engine_version

from .hearing_cases import check_tie_is_understood

pytestmark = pytest.mark.slow


def test_the_tie_with_two_seats_is_understood(
    espeak: None, default_voice_rhvoice: None, hearer: Recogniser, tmp_path: Path
) -> None:
    check_tie_is_understood(hearer, "uk", [4, 9], tmp_path)  # "дев'ять": the apostrophe


def test_ukrainian_voices_get_numbers_without_the_apostrophe() -> None:
    assert (
        prepared("гравці номер п'ять і дев’ять, сімʼя", "uk") == "гравці номер пять і девять, сімя"
    )
    assert prepared("it's", "en") == "it's"
    assert prepared("п'ять", "ru") == "п'ять"


def test_the_preparation_is_part_of_the_cache_key(default_voice_rhvoice: None) -> None:
    assert "text " in engine_version("rhvoice")


def test_the_normalisation_puts_digits_signs_and_apostrophes_in_one_form() -> None:
    said = "Нічия. Кандидати говорять ще раз: гравці номер чотири і дев'ять."
    heard = "нічия, кандидати говорять ще раз — гравці №4 і 9"
    assert normalise(said, "uk") == normalise(heard, "uk")
    assert normalise("Девʼять, ДЕВ’ЯТЬ!", "uk") == "девять девять"
    assert cer(said, heard, "uk") == 0.0
    assert heard_seats(heard, [4, 9], "uk") == [4, 9]
    assert heard_seats("гравці номер чотири і десять", [4, 9], "uk") == [4]
    assert cer(said, "гравці №4 і 10", "uk") > 0.5
