"""The transition table (machine.ACCEPTS), the guards behind both `apply` and
`legal_actions`, the end of the game as one value, and old event logs replaying.

tests/rules/data/replay_before_issue_18.json holds 24 whole games recorded by the engine
before the transition table, the enums and the split (commit cab0d37): their event-log
records and the views of their final states. They must replay to the same views.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from plugin.rules import (
    IllegalAction,
    apply,
    legal_actions,
    load_preset,
    new_game,
    new_vote,
    views,
)
from plugin.rules import events as ev
from plugin.rules.effects import VoteFinished
from plugin.rules.legal import always_legal
from plugin.rules.machine import ACCEPTS, ANY_TIME, HANDLERS, PHASE_EVENTS
from plugin.rules.modes import Termination, Winner
from plugin.rules.state import Outcome, Phase
from plugin.sim.simulate import play

from .driver import Driver

GOLDEN = Path(__file__).parent / "data" / "replay_before_issue_18.json"

# One well-formed sample of every event kind (seats and timers that exist at a 10-table).
SAMPLES: dict[type[Any], ev.Event] = {
    ev.StartGame: ev.StartGame(),
    ev.TimerExpired: ev.TimerExpired(timer=1),
    ev.Nominate: ev.Nominate(by=1, target=2),
    ev.PassSpeech: ev.PassSpeech(seat=1),
    ev.CastVote: ev.CastVote(voter=1, candidate=2),
    ev.CastLift: ev.CastLift(voter=1, leave=True),
    ev.HostChoice: ev.HostChoice(choice="speeches"),
    ev.SetManual: ev.SetManual(on=True),
    ev.PlayerLeft: ev.PlayerLeft(seat=1),
    ev.Foul: ev.Foul(seat=1),
    ev.Disqualify: ev.Disqualify(seat=1),
    ev.Shoot: ev.Shoot(by=2, target=1),
    ev.DonCheck: ev.DonCheck(target=1),
    ev.SheriffCheck: ev.SheriffCheck(target=1),
    ev.BestMove: ev.BestMove(by=1, seats=(2, 3, 4)),
    ev.EndGame: ev.EndGame(winner=None),
}


def test_the_table_covers_every_phase_and_event() -> None:
    assert set(PHASE_EVENTS) == set(Phase) == set(ACCEPTS)
    assert set(SAMPLES) == set(HANDLERS) == set(ev.EVENT_TYPES.values())
    for phase, accepted in ACCEPTS.items():
        running = phase not in (Phase.LOBBY, Phase.OVER)
        assert (accepted >= ANY_TIME) is running, phase


def states_in_every_phase() -> dict[Phase, Any]:
    """A state in each phase, reached by playing games (classic, online, manual)."""
    found: dict[Phase, Any] = {}
    for preset, manual in [("classic", False), ("online", True), ("online", False)]:
        for seed in range(40):
            state = new_game(load_preset(preset), players=10, seed=seed, manual=manual)
            found.setdefault(state.phase, state)
            for event in play(preset, seed, manual=manual, keep_log=True).log or ():
                state, _ = apply(state, event)
                found.setdefault(state.phase, state)
    found[Phase.BEFORE_VOTE] = new_vote(load_preset("classic"), players=10, nominations=[3])
    d = Driver.game("fiim", settings={"final_minute_seconds": 5})
    for seat in (2, 5, 8):
        d.send(ev.Foul(seat=seat))
        d.send(ev.Foul(seat=seat))
        d.send(ev.Foul(seat=seat))
        d.send(ev.Foul(seat=seat))
    found.setdefault(d.state.phase, d.state)
    return found


STATES = states_in_every_phase()


def test_the_games_reach_every_phase() -> None:
    assert set(STATES) == set(Phase)


@pytest.mark.parametrize("phase", list(Phase), ids=lambda p: p.value)
def test_a_missing_entry_is_the_refusal_and_names_event_and_phase(phase: Phase) -> None:
    state = STATES[phase]
    before = json.dumps(views.host_view(state), sort_keys=True)
    refused_kinds = [kind for kind in SAMPLES if kind not in ACCEPTS[phase]]
    assert refused_kinds  # every phase refuses something
    for kind in refused_kinds:
        event = SAMPLES[kind]
        with pytest.raises(IllegalAction) as refused:
            apply(state, event)
        assert refused.value.reason == "not_now"
        name = ev.to_record(event)["type"]
        assert refused.value.message.startswith(f"{name} in phase {phase.value}")
    assert json.dumps(views.host_view(state), sort_keys=True) == before  # nothing changed


@pytest.mark.parametrize("phase", list(Phase), ids=lambda p: p.value)
def test_every_legal_action_is_accepted_and_in_the_table(phase: Phase) -> None:
    state = STATES[phase]
    for event in [*legal_actions(state), *always_legal(state)]:
        assert type(event) in ACCEPTS[phase], (phase, event)
        apply(state, event)  # raises if the guard and the handler disagreed


def test_a_refused_ballot_is_not_listed_and_a_listed_one_is_taken() -> None:
    """The guard behind `legal_actions` is the one `apply` uses: for every ballot of every
    seat, listed == accepted."""
    d = Driver.vote("classic", nominations=[3, 7])
    d.until_round()
    d.votes((1, 3))
    listed = set(legal_actions(d.state))
    for voter in range(1, 11):
        for candidate in (None, *range(1, 11)):
            event = ev.CastVote(voter=voter, candidate=candidate)
            try:
                apply(d.state, event)
                accepted = True
            except IllegalAction:
                accepted = False
            assert (event in listed) is accepted, event


def test_the_end_of_the_game_is_one_value() -> None:
    d = Driver.game()
    assert d.state.outcome is None and d.state.winner is None and not d.state.over
    for seat in (2, 5, 8):  # the black team is removed by fouls: the city wins
        for _ in range(4):
            d.send(ev.Foul(seat=seat))
    assert d.state.outcome == Outcome(termination=Termination.NO_BLACK_LEFT, winner=Winner.CITY)
    assert d.state.winner == "city" and d.state.over and d.state.phase is Phase.OVER
    assert views.public_view(d.state)["outcome"] == {
        "termination": "no_black_left",
        "winner": "city",
    }
    ended = Driver.game()
    ended.send(ev.EndGame(winner=None))
    assert ended.state.outcome == Outcome(termination=Termination.HOST, winner=None)
    assert ended.state.over and ended.state.winner is None


def test_the_final_minute_keeps_the_decided_outcome() -> None:
    d = Driver.game("fiim", settings={"final_minute_seconds": 5})
    for seat in (2, 5, 8):
        for _ in range(4):
            d.send(ev.Foul(seat=seat))
    assert d.state.phase is Phase.FINAL_MINUTE and not d.state.over
    assert d.state.outcome is not None and d.state.winner == "city"
    d.tick()
    assert d.state.over and d.state.winner == "city"


def _replayed(game: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    state = new_game(
        load_preset(game["preset"]), players=10, seed=game["seed"], manual=game["manual"]
    )
    votes: list[dict[str, Any]] = []
    for record in game["records"]:
        state, effects = apply(state, ev.from_record(record))
        votes += [e.result for e in effects if isinstance(e, VoteFinished)]
    return state, votes


GAMES = json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g['preset']}-{g['seed']}")
def test_old_event_logs_replay_to_the_same_views(game: dict[str, Any]) -> None:
    state, votes = _replayed(game)
    assert state.over
    # JSON round trip: the enums must serialise as exactly the old words.
    public = json.loads(json.dumps(views.public_view(state)))
    host = json.loads(json.dumps(views.host_view(state)))
    seat = json.loads(json.dumps(views.seat_view(state, 2)))
    for old, new in ((game["public"], public), (game["host"], host), (game["seat"], seat)):
        assert {key: new[key] for key in old} == old  # fields are only added, never changed
    assert json.loads(json.dumps(votes)) == game["votes"]


def test_the_golden_games_are_varied() -> None:
    winners = {g["public"]["winner"] for g in GAMES}
    assert {"city", "mafia"} <= winners and any(g["manual"] for g in GAMES)
    assert sum(len(g["records"]) for g in GAMES) > 1000
