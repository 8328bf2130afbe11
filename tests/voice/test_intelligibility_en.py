"""English is understood: the default RHVoice voice's tie announcement with two seats comes
back from the recogniser with both seats; the normalisation reads "#7" and digits."""

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
    check_tie_is_understood(hearer, "en", [3, 7], tmp_path)


def test_the_normalisation_puts_digits_case_and_punctuation_in_one_form() -> None:
    said = "A tie. The candidates speak again: players three and seven."
    heard = "a tie, the candidates speak again... Players 3 and 7!"
    assert normalise(said, "en") == normalise(heard, "en")
    assert cer(said, heard, "en") == 0.0
    assert heard_seats(heard, [3, 7], "en") == [3, 7]
    assert heard_seats("players thirty and seven", [3, 7], "en") == [7]
    assert normalise("Player #7", "en") == "player number seven"
    with pytest.raises(ValueError, match="no normalisation"):
        normalise("x", "de")
