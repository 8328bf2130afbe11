"""Events to log records and back; settings overrides; presets."""

from __future__ import annotations

import pytest

from plugin.rules import InvalidAction, load_preset, preset_names, with_overrides
from plugin.rules import events as ev

SAMPLES = [
    ev.StartGame(),
    ev.TimerExpired(timer=4),
    ev.Nominate(by=1, target=2),
    ev.CastVote(voter=3, candidate=None),
    ev.CastLift(voter=3, leave=True),
    ev.HostChoice(choice="speeches"),
    ev.SetManual(on=True),
    ev.BestMove(by=9, seats=(1, 2, 3)),
    ev.EndGame(winner=None),
    ev.EndGame(winner="city"),
]


@pytest.mark.parametrize("event", SAMPLES)
def test_record_round_trip(event: ev.Event) -> None:
    assert ev.from_record(ev.to_record(event)) == event


@pytest.mark.parametrize(
    "record",
    [
        None,
        [],
        {"type": "nope"},
        {"type": "vote", "voter": "3", "candidate": 1},
        {"type": "vote", "voter": True, "candidate": 1},
        {"type": "vote", "voter": 3},
        {"type": "vote", "voter": 3, "candidate": 1, "extra": 1},
        {"type": "best_move", "by": 1, "seats": [1, "x", 3]},
    ],
)
def test_bad_records_are_refused(record: object) -> None:
    with pytest.raises(InvalidAction):
        ev.from_record(record)


def test_presets_load_and_differ_only_as_data() -> None:
    assert set(preset_names()) >= {"classic", "online", "fiim"}
    classic, online = load_preset("classic"), load_preset("online")
    assert classic.voting_mode == "sequential" and online.voting_mode == "simultaneous"
    assert online.tie_dialog_options == ("speeches", "revote")


@pytest.mark.parametrize(
    "overrides",
    [{"nope": 1}, {"defense_seconds": "long"}, {"voting_mode": "shouting"}, {"best_move": 1}],
)
def test_bad_overrides_are_refused(overrides: dict) -> None:
    with pytest.raises(InvalidAction):
        with_overrides(load_preset("classic"), overrides)


def test_unknown_preset() -> None:
    with pytest.raises(InvalidAction):
        load_preset("../etc/passwd")


def test_fractional_seconds_override_a_whole_number_bug() -> None:
    """Bug: the type was taken from the current value (3 in the TOML), not the declared
    field type, so 0.5 seconds was refused."""
    rules = load_preset("online", {"intro_seconds": 0.5, "defense_seconds": 20})
    assert rules.intro_seconds == 0.5 and rules.defense_seconds == 20.0
    with pytest.raises(InvalidAction):
        load_preset("online", {"removal_fouls": 3.5})
