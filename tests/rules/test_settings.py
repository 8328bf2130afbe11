"""Every rule setting has a type and a range; every way of making `Rules` checks them.

The refusal names the setting and what is allowed; nothing else is raised (a 400-digit
number is compared, never turned into a float; NaN and Infinity fail the range).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from plugin.rules import InvalidAction, Rules, load_preset, preset_names, with_overrides
from plugin.rules import settings as rule_settings
from plugin.rules.modes import Choice, VotingMode
from plugin.rules.settings import COUNTS, OPTION_LISTS, SECONDS, check_setting
from plugin.scenario import ScenarioError, parse

HUGE = int("9" * 400)
NOT_NUMBERS: list[Any] = [
    float("nan"),
    float("inf"),
    float("-inf"),
    HUGE,
    -HUGE,
    [1],
    {},
    "3",
    None,
    True,
]


def _names() -> list[str]:
    return [name for name in Rules.__dataclass_fields__ if name != "name"]


SECONDS_SETTINGS = [n for n in _names() if isinstance(check_setting(n, getattr(Rules(), n)), float)]


@pytest.mark.parametrize("name", SECONDS_SETTINGS)
@pytest.mark.parametrize("value", [*NOT_NUMBERS, -1, 3600.5, 10**6])
def test_seconds_out_of_range_or_of_a_wrong_type_are_refused(name: str, value: Any) -> None:
    with pytest.raises(InvalidAction) as refused:
        with_overrides(Rules(), {name: value})
    assert name in refused.value.message and "0..3600" in refused.value.message


@pytest.mark.parametrize("name", SECONDS_SETTINGS)
def test_seconds_within_range_are_taken_as_floats(name: str) -> None:
    for value in (0, 0.5, 3600):
        rules = with_overrides(Rules(), {name: value})
        assert getattr(rules, name) == value and isinstance(getattr(rules, name), float)


@pytest.mark.parametrize(("name", "bounds"), sorted(COUNTS.items()))
def test_counts_have_small_bounds(name: str, bounds: tuple[int, int]) -> None:
    low, high = bounds
    assert getattr(with_overrides(Rules(), {name: low}), name) == low
    assert getattr(with_overrides(Rules(), {name: high}), name) == high
    for value in (low - 1, high + 1, 2.0, *NOT_NUMBERS):
        with pytest.raises(InvalidAction) as refused:
            with_overrides(Rules(), {name: value})
        assert name in refused.value.message and f"{low}..{high}" in refused.value.message


def test_a_huge_read_candidates_times_is_refused_at_once() -> None:
    """Bug: 10**9 readings stalled the process for seconds per table; now it is refused."""
    started = time.perf_counter()
    for value in (10**9, HUGE):
        with pytest.raises(InvalidAction, match="read_candidates_times"):
            load_preset("classic", {"read_candidates_times": value})
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("voting_mode", "shouting", "sequential | simultaneous"),
        ("voting_mode", ["sequential"], "sequential | simultaneous"),
        ("third_foul", "SKIP", "skip | short | none"),
        ("tie_dialog_default", "end", "speeches | revote"),
        ("tie_dialog_options", ["speeches", "dance"], "speeches | revote | lift | end"),
        ("tie_dialog_options", ["speeches", "speeches"], "different options"),
        ("tie_dialog_options", "speeches", "a list"),
        ("tie_dialog_options", ["close"], "speeches | revote"),
        ("repeat_tie_dialog_options", [1], "end | lift"),
        ("best_move", 1, "true or false"),
        ("best_move", "yes", "true or false"),
    ],
)
def test_options_come_from_a_closed_list(name: str, value: Any, words: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        with_overrides(Rules(), {name: value})
    assert name in refused.value.message and words in refused.value.message


def test_a_dialog_default_must_be_offered() -> None:
    with pytest.raises(InvalidAction, match="tie_dialog_default"):
        load_preset("online", {"tie_dialog_options": ["speeches"], "tie_dialog_default": "revote"})
    rules = load_preset(
        "online", {"tie_dialog_options": ["revote"], "tie_dialog_default": "revote"}
    )
    assert rules.tie_dialog_options == (Choice.REVOTE,)


def test_unknown_settings_and_non_objects_are_refused() -> None:
    for overrides in ({"nope": 1}, {"name": "fiim"}, [("defense_seconds", 1)], "x"):
        with pytest.raises(InvalidAction, match="setting"):
            with_overrides(Rules(), overrides)


def test_modes_are_enums_that_are_still_their_words() -> None:
    rules = load_preset("online")
    assert rules.voting_mode is VotingMode.SIMULTANEOUS and rules.voting_mode == "simultaneous"
    assert json.dumps([rules.voting_mode, *rules.tie_dialog_options]) == (
        '["simultaneous", "speeches", "revote"]'
    )


def test_every_setting_is_bounded() -> None:
    """No setting slips through without a range (settings.py checks this on import too)."""
    for name in _names():
        value = check_setting(name, getattr(Rules(), name))
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            assert name in COUNTS
        elif isinstance(value, float):
            assert SECONDS == (0, 3600)
        elif isinstance(value, tuple):
            assert name in OPTION_LISTS


@pytest.mark.parametrize("name", ["classic", "online", "fiim"])
def test_presets_are_within_their_bounds(name: str) -> None:
    rules = load_preset(name)
    for field in _names():
        assert check_setting(field, getattr(rules, field)) == getattr(rules, field)


@pytest.mark.parametrize(
    "line",
    [
        "defense_seconds = nan",
        "defense_seconds = inf",
        f"defense_seconds = {'9' * 400}",
        "defense_seconds = [1]",
        'tie_dialog_options = ["dance"]',
        "read_candidates_times = 1000000",
    ],
)
def test_a_preset_file_is_checked_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    (tmp_path / "broken.toml").write_text(f"[vote]\n{line}\n", encoding="utf-8")
    monkeypatch.setattr(rule_settings, "RULES_DIR", tmp_path)
    assert preset_names() == ["broken"]
    with pytest.raises(InvalidAction) as refused:
        load_preset("broken")
    assert "preset 'broken'" in refused.value.message and line.split()[0] in refused.value.message


@pytest.mark.parametrize(
    "settings",
    [
        {"defense_seconds": HUGE},
        {"defense_seconds": [30]},
        {"read_candidates_times": 10**9},
        {"tie_dialog_default": "dance"},
        {"speech_seconds": math.inf},
    ],
)
def test_a_scenario_file_is_checked_the_same_way(settings: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError) as refused:
        parse({"rules": "online", "players": 10, "settings": settings})
    assert next(iter(settings)) in refused.value.message
