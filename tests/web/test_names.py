"""Players' names (issue 31, plugin/web/names.py): what the outside check got accepted is
refused or normalised, and names that look alike are one name."""

from __future__ import annotations

import pytest

from plugin.web.lobby import Lobby, LobbyError, check_name
from plugin.web.names import MAX_MARKS, BadName, normalised, skeleton

DEVICE = "d" * 64


@pytest.mark.parametrize(
    "raw",
    [
        "An\u200dna", "An\u200cna", "A\u034fnna",  # joiners, the grapheme joiner
        "\u3164", "Anna\u3164", "\u2800", "An\u2800na",  # Hangul filler, braille blank
        "a" + "\u0301" * 40, "e\u0301\u0302\u0303",  # marks piled on one letter
        "\u202eanna", "an\u2066na", "an\u200bna", "an\u00adna", "an\ufe0fna",  # bidi, ZW, ...
        "\U000e0041nna", "...", "!!", "\u0301\u0301",  # tags; no letter at all
    ],
)  # fmt: skip
def test_an_invisible_or_piled_up_name_is_refused(raw: str) -> None:
    with pytest.raises(BadName):
        normalised(raw)
    with pytest.raises(LobbyError) as refused:
        check_name(raw)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("  Anna  ", "Anna"), ("Ａｎｎａ", "Anna"), ("Anna   Ivanova", "Anna Ivanova"),
        ("Việt", "Việt"), ("Олена", "Олена"), ("Андрій", "Андрій"), ("O'Neil", "O'Neil"),
        ("𝐀𝐧𝐧𝐚", "Anna"),
    ],
)  # fmt: skip
def test_an_honest_name_is_kept_normalised(raw: str, shown: str) -> None:
    assert check_name(raw) == shown
    assert MAX_MARKS >= 2  # a Vietnamese letter carries two


@pytest.mark.parametrize(
    ("a", "b"),
    [("Anna", "Аnnа"), ("Anna", "ANNA"), ("Olena", "Оlеnа"), ("Ivan", "Іvаn"), ("Paul", "Раul"),
     ("l1ly", "Illy"), ("Oleg", "0leg")],
)  # fmt: skip
def test_names_that_look_alike_have_one_skeleton(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)


@pytest.mark.parametrize(("a", "b"), [("Anna", "Anne"), ("Олена", "Олеся"), ("Ivan", "Iван")])
def test_different_names_keep_different_skeletons(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b)


def test_the_lobby_refuses_a_look_alike_of_a_waiting_or_seated_name() -> None:
    lobby = Lobby(10)
    lobby.apply(lobby.join("Anna", DEVICE))
    with pytest.raises(LobbyError) as refused:
        lobby.join("Аnnа", "e" * 64)  # Cyrillic а
    assert refused.value.code == "name_taken"
    with pytest.raises(LobbyError) as taken:  # a seat's own name, given with the table
        lobby.join("Маrkо", "f" * 64, others=["Marko"])
    assert taken.value.code == "name_taken"
    assert lobby.join("Boris", "f" * 64, others=["Marko"])["type"] == "lobby.join"
