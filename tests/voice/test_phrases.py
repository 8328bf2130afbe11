"""The phrase catalogues: every engine key in every language, seats spoken with grammar."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from plugin import paths
from plugin.rules import apply, legal_actions, load_preset, new_game
from plugin.rules.effects import Announce
from plugin.rules.events import StartGame, TimerExpired
from voice.phrases import (
    ANNOUNCEMENT_KEYS,
    ANNOUNCEMENTS,
    Catalogue,
    CatalogueError,
    PhraseError,
    languages,
)

from .conftest import LANGUAGES, TABLE, sample


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_voices_every_key(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    assert catalogue.problems() == []
    for key in ANNOUNCEMENT_KEYS:
        assert catalogue.text(key, sample(key)).strip()


def test_the_three_languages_ship() -> None:
    assert set(LANGUAGES) <= set(languages())


@pytest.mark.parametrize(
    ("lang", "key", "params", "expected"),
    [
        ("ru", "vote.call", {"seat": 7}, "Кто за то, чтобы нашу игру покинул игрок номер семь?"),
        ("uk", "vote.call", {"seat": 7}, "Хто за те, щоб нашу гру покинув гравець номер сім?"),
        ("en", "vote.call", {"seat": 7}, "Who votes for player seven to leave our game?"),
        (
            "ru",
            "tie.revote",
            {"seats": [2, 5]},
            "Переголосование. Кандидаты: игроки номер два и пять.",
        ),
        (
            "uk",
            "tie.revote",
            {"seats": [2, 5]},
            "Переголосування. Кандидати: гравці номер два і п'ять.",
        ),
        ("en", "tie.revote", {"seats": [2, 5]}, "Revote. The candidates are players two and five."),
        (
            "ru",
            "vote.candidates",
            {"seats": [2, 5, 8, 10]},
            "На голосование выставлены кандидатуры: игроки номер два, пять, восемь и десять.",
        ),
        (
            "ru",
            "nomination",
            {"seat": 3, "target": 7},
            "Игрок номер три выставляет игрока номер семь. Принято.",
        ),
        (
            "uk",
            "nomination",
            {"seat": 3, "target": 7},
            "Гравець номер три висуває гравця номер сім. Прийнято.",
        ),
        ("ru", "speech", {"seat": 1}, "Слово предоставляется игроку номер один."),
        ("uk", "morning.killed", {"seat": 4}, "Цієї ночі вбито гравця номер чотири."),
        (
            "ru",
            "foul",
            {"seat": 6, "count": 3},
            "Игроку номер шесть замечание. Всего замечаний: три.",
        ),
        ("ru", "foul.removed", {"seat": 9}, "С игрока номер девять снято замечание."),
        # one seat in a list is spoken in the singular
        ("en", "tie.speeches", {"seats": [4]}, "A tie. The candidates speak again: player four."),
    ],
)
def test_seats_are_spoken_with_the_language_grammar(
    lang: str, key: str, params: dict[str, object], expected: str
) -> None:
    assert Catalogue.load(lang).text(key, params) == expected


def test_seed_lines_are_used() -> None:
    # seed 004 (Ukrainian tie rules) and seed 000 (the Russian host's voting lines)
    uk, ru = Catalogue.load("uk"), Catalogue.load("ru")
    assert uk.text("tie.speeches", {"seats": [2, 5]}).startswith("Нічия. Кандидати говорять ще раз")
    assert uk.text("tie.again") == "Знову нічия. Сьогодні ніхто не вибуває."
    assert uk.text("vote.nobody") == "Місто нікого не обрало."
    assert ru.text("vote.start") == "Дневное обсуждение завершено. Город приступает к голосованию."
    assert ru.text("vote.call", {"seat": 4}).startswith("Кто за то, чтобы нашу игру покинул игрок")
    assert "Кто «ЗА» то, чтобы все голосуемые покинули игру?" in ru.text(
        "lift.question", {"seats": [2, 5]}
    )


def test_unknown_key_is_refused_by_name() -> None:
    with pytest.raises(PhraseError, match=r"'vote\.calll'"):
        Catalogue.load("ru").text("vote.calll", {"seat": 1})


def test_missing_param_is_refused_by_name() -> None:
    with pytest.raises(PhraseError, match="needs param 'target'"):
        Catalogue.load("en").text("nomination", {"seat": 1})


@pytest.mark.parametrize(
    ("key", "params"),
    [
        ("vote.call", {"seat": 0}),
        ("vote.call", {"seat": True}),
        ("vote.call", {"seat": 2.5}),
        ("tie.revote", {"seats": []}),
        ("tie.revote", {"seats": [2, "x"]}),
        ("tie.revote", {"seats": 3}),
        ("foul", {"seat": 2, "count": -1}),
    ],
)
def test_malformed_params_are_refused(key: str, params: dict[str, object]) -> None:
    with pytest.raises(PhraseError, match="must be"):
        Catalogue.load("ru").text(key, params)


def test_a_name_is_said_as_written() -> None:
    assert Catalogue.load("en").text("speech", {"seat": "Anna"}) == "Anna, the floor is yours."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chunks_joined_are_the_text(lang: str) -> None:
    catalogue = Catalogue.load(lang)
    for key in ANNOUNCEMENT_KEYS:
        params = sample(key)
        assert " ".join(catalogue.chunks(key, params)) == catalogue.text(key, params)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_prerendered_chunks_cover_every_announcement_at_the_table(lang: str) -> None:
    """What `prerender` renders is every chunk any announcement can need at the table."""
    catalogue = Catalogue.load(lang)
    ready = catalogue.chunk_texts(TABLE)
    rng = random.Random(5)
    for key in ANNOUNCEMENT_KEYS:
        for _ in range(40):
            params = {
                "seat": rng.choice(TABLE),
                "target": rng.choice(TABLE),
                "count": rng.randint(0, 4),
                "seats": rng.sample(list(TABLE), rng.randint(1, 5)),
            }
            params = {name: params[name] for name in ANNOUNCEMENTS[key]}
            assert set(catalogue.chunks(key, params)) <= ready, (key, params)


def _engine_announcements(preset: str, seed: int) -> list[Announce]:
    """Play a game with random legal actions; every Announce the engine made."""
    rng = random.Random(seed)
    state = new_game(load_preset(preset), players=10, seed=seed)
    state, effects = apply(state, StartGame())
    said = [e for e in effects if isinstance(e, Announce)]
    for _ in range(3000):
        if state.over:
            break
        actions = legal_actions(state)
        others = [a for a in actions if not isinstance(a, TimerExpired)]
        timers = [a for a in actions if isinstance(a, TimerExpired)]
        pick = rng.choice(others) if others and (not timers or rng.random() < 0.4) else None
        action = pick or (timers[0] if timers else None)
        if action is None:
            break
        state, effects = apply(state, action)
        said += [e for e in effects if isinstance(e, Announce)]
    return said


@pytest.mark.parametrize("preset", ["classic", "online", "fiim"])
def test_every_announcement_the_engine_makes_renders(preset: str) -> None:
    catalogues = [Catalogue.load(lang) for lang in LANGUAGES]
    said = [a for seed in range(6) for a in _engine_announcements(preset, seed)]
    assert said
    for announcement in said:
        assert announcement.key in ANNOUNCEMENTS, announcement
        for catalogue in catalogues:
            assert catalogue.text(announcement.key, announcement.params)


def test_every_key_the_engine_source_names_is_known() -> None:
    """`say("key", param=...)` in the engine: the key and its params are in the contract."""
    source = "\n".join(p.read_text() for p in (paths.ROOT / "plugin" / "rules").glob("*.py"))
    calls = re.findall(r'say\(\s*"([a-z_.]+)"((?:\s*,\s*\w+=)?[^)]*)\)', source)
    assert calls
    for key, rest in calls:
        assert key in ANNOUNCEMENTS, key
        assert set(re.findall(r"(\w+)=", rest)) <= set(ANNOUNCEMENTS[key]), key


# -- a catalogue with gaps ---------------------------------------------------------------


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    for lang in LANGUAGES:
        shutil.copy(paths.PHRASES_DIR / f"{lang}.toml", tmp_path / f"{lang}.toml")
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_problems_list_every_gap(copied: Path) -> None:
    path = copied / "ru.toml"
    _edit(path, '"night.shot" = "Просыпается мафия. Мафия стреляет."\n', "")
    _edit(path, '"morning" =', '"mornin" =')
    _edit(path, "Этой ночью убит {seat}.", "Этой ночью убит {seet}.")
    _edit(path, "Слово предоставляется {seat:dat}.", "Слово предоставляется {seat:ins}.")
    problems = Catalogue.load("ru", copied).problems()
    assert any("missing key 'night.shot'" in p for p in problems)
    assert any("missing key 'morning'" in p for p in problems)
    assert any("unknown key 'mornin'" in p for p in problems)
    assert any("{seet}" in p for p in problems)
    assert any("'ins'" in p and "'speech'" in p for p in problems)
    assert len(problems) == 5


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('voice = "zle/ru"', "", "'voice'"),
        ('and = "и"', "", "'and'"),
        ('nom = "игрок номер {n}"', 'nom = "игрок номер"', "one {n}"),
        ("[phrases]", "[phrases", "ru.toml"),
        ("rate = 165", "rate = 9000", "'rate'"),
    ],
)
def test_malformed_catalogue_is_refused(copied: Path, old: str, new: str, message: str) -> None:
    _edit(copied / "ru.toml", old, new)
    with pytest.raises(CatalogueError, match=re.escape(message)):
        Catalogue.load("ru", copied)


def test_missing_language_names_what_exists(copied: Path) -> None:
    with pytest.raises(CatalogueError, match=r"'de'.*have: en, ru, uk"):
        Catalogue.load("de", copied)
    with pytest.raises(CatalogueError, match="bad language code"):
        Catalogue.load("../ru", copied)
