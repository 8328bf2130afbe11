"""The voice script: every fragment the catalogue can ask for, each with one reading."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.host.settings import MAX_SEATS
from voice.pack import file_name
from voice.phrases import ANNOUNCEMENT_KEYS, ANNOUNCEMENTS, PARAM_KINDS, SCRIPT_SEATS, Catalogue

from .conftest import LANGUAGES

SCRIPTS = {lang: Catalogue.load(lang).script(SCRIPT_SEATS) for lang in LANGUAGES}
seat = st.integers(1, MAX_SEATS)
VALUES = {
    "seat": seat,
    "target": seat,
    "seats": st.lists(seat, min_size=1, max_size=MAX_SEATS, unique=True),
    "count": st.integers(0, 4),  # fouls: the most a player can have before leaving
}


@st.composite
def announcements(draw: st.DrawFn) -> tuple[str, str, dict[str, object]]:
    lang = draw(st.sampled_from(LANGUAGES))
    key = draw(st.sampled_from(ANNOUNCEMENT_KEYS))
    return lang, key, {name: draw(VALUES[PARAM_KINDS[name]]) for name in ANNOUNCEMENTS[key]}


@settings(max_examples=400, deadline=None)
@given(announcements())
def test_every_fragment_an_announcement_needs_is_in_the_script(
    case: tuple[str, str, dict[str, object]],
) -> None:
    lang, key, params = case
    readings = {line.key: line.reading for line in SCRIPTS[lang]}
    for fragment in Catalogue.load(lang).fragments(key, params):
        assert fragment.key in readings, (lang, key, params, fragment)
        assert readings[fragment.key] == fragment.reading


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_chunk_a_table_prerenders_is_in_the_script(lang: str) -> None:
    keys = {line.key for line in SCRIPTS[lang]}
    fragments = Catalogue.load(lang).chunk_fragments(SCRIPT_SEATS)
    assert {f.key for f in fragments} == keys  # nothing more, nothing less


def test_the_script_covers_the_largest_table() -> None:
    assert max(SCRIPT_SEATS) == MAX_SEATS


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_fragment_has_its_own_file_name(lang: str) -> None:
    names = [file_name(line.key) for line in SCRIPTS[lang]]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)*\.wav", name) for name in names)


def test_the_script_has_each_phrase_and_each_number_in_each_form_used() -> None:
    keys = {line.key for line in SCRIPTS["uk"]}
    assert {"night", "vote.call.1", "nomination.1", "nomination.2"} <= keys
    for n in SCRIPT_SEATS:  # uk says seats in the nominative, accusative, genitive, dative
        assert {f"seat.{form}.{n}" for form in ("nom", "acc", "gen", "dat")} <= keys
        assert {f"seats.nom.{n}", f"number.{n}", f"and.{n}"} <= keys
    assert {f"number.{n}" for n in range(5)} <= keys  # the foul counts
    assert not any(k.startswith("seat.ins.") for k in keys)  # a form nobody uses


def test_a_script_line_says_what_to_read_and_shows_it_in_a_phrase() -> None:
    lines = {line.key: line for line in SCRIPTS["uk"]}
    assert lines["seat.acc.7"].reading == "гравця номер сім"
    assert lines["seat.acc.7"].used_in == ("morning.killed", "nomination")
    assert "гравця номер сім" in lines["seat.acc.7"].example
    assert lines["vote.call.1"].reading == "Хто за те, щоб нашу гру покинув"
    assert lines["and.8"].reading == "і вісім"
    assert lines["seats.nom.2"].reading == "гравці номер два"  # no list comma to read


def test_a_name_is_never_a_fragment() -> None:
    fragments = Catalogue.load("ru").fragments("speech", {"seat": "Анна"})
    assert [f.reading for f in fragments if f.key is None] == ["Анна"]
    assert all(f.key is not None for f in fragments if "Анна" not in f.text)
