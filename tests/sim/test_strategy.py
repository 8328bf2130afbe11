"""The simulated players' strategy, from views alone: legal, once per decision, seeded."""

from __future__ import annotations

import dataclasses
from typing import Any

from plugin.host import game as table_game
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.views import build_view
from plugin.rules import apply, load_preset, new_game, views
from plugin.rules import events as ev
from plugin.rules.state import Phase
from plugin.sim import Strategy


def _view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "phase": "voting",
        "day": 1,
        "night": None,
        "alive": list(range(1, 11)),
        "speaker": None,
        "speakers": [],
        "timer": {"id": 9, "seconds": 15, "purpose": "vote"},
        "nominations": [[1, 3], [2, 7]],
        "over": False,
        "vote": {
            "eliminated": [],
            "round": {
                "number": 1,
                "kind": "vote",
                "open": True,
                "candidates": [3, 7],
                "voters": list(range(1, 11)),
                "waiting": list(range(1, 11)),
                "tally": {"3": 0, "7": 0},
                "tied": [],
                "calling": None,
            },
        },
        "me": {"seat": 3, "role": "civilian", "can_vote": True, "action": None, "checks": []},
    }
    view.update(changes)
    return view


def test_a_candidate_votes_once_and_never_for_himself():
    strategy = Strategy(3, seed=1)
    moves = strategy.moves(_view())
    assert [(m.type, m.fields) for m in moves] == [("vote", {"candidate": 7})]
    assert strategy.moves(_view()) == []  # the same round again: decided already


def test_no_vote_without_the_right_to_vote_or_once_voted():
    me = {"seat": 4, "role": "civilian", "can_vote": False, "action": None, "checks": []}
    assert Strategy(4, seed=1).moves(_view(me=me)) == []
    voted = _view(me={**me, "can_vote": True})
    voted["vote"]["round"]["waiting"] = [1, 2, 3]  # 4 has voted
    assert Strategy(4, seed=1).moves(voted) == []


def test_the_same_seed_makes_the_same_choices():
    me = {"seat": 5, "can_vote": True}
    picks = {Strategy(5, seed=s).moves(_view(me=me))[0].fields["candidate"] for s in range(40)}
    assert picks == {3, 7}  # random among the candidates...
    first = [Strategy(5, seed=11).moves(_view(me={"seat": 5, "can_vote": True})) for _ in range(3)]
    assert first[0] == first[1] == first[2]  # ...and deterministic for a seed


def test_sequential_voting_waits_for_its_candidate_to_be_called():
    strategy = Strategy(1, seed=2)
    view = _view(me={"seat": 1, "can_vote": True})
    view["vote"]["round"]["calling"] = 3
    moves = strategy.moves(view)
    if not moves:  # it chose 7: it votes when 7 is called
        view["vote"]["round"]["calling"] = 7
        moves = strategy.moves(view)
    assert [m.type for m in moves] == ["vote"]
    assert moves[0].fields["candidate"] == view["vote"]["round"]["calling"]


def test_in_its_speech_it_speaks_may_nominate_and_passes_last():
    view = _view(phase="speech", speaker=3, vote=None, nominations=[[1, 5]],
                 speaking={"speaker": 3, "seats": [3]})  # fmt: skip
    view["me"]["may_nominate"] = True
    kinds = [[m.type for m in Strategy(3, seed=s).moves(view)] for s in range(20)]
    assert all(k[0] == "say" and k[-1] == "pass" for k in kinds)
    assert any("nominate" in k for k in kinds) and any("nominate" not in k for k in kinds)
    for seed in range(20):
        for move in Strategy(3, seed=seed).moves(view):
            if move.type == "nominate":
                assert move.fields["target"] not in (3, 5)  # not himself, not nominated


def test_the_mafia_shoots_a_red_player_and_checks_come_from_the_view():
    rules = load_preset("online")
    state = new_game(rules, players=10, roles={1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"})
    state, _ = apply(state, ev.StartGame())
    seen = build_view_for(state, 2)
    assert Strategy(2, seed=1).moves(seen) == []  # night zero: nothing to do
    shoot = _view(phase="shot", vote=None, night=1)
    shoot["me"] = {"seat": 2, "role": "mafia", "black_team": [1, 2, 3], "action": "shoot"}
    for seed in range(20):
        [move] = Strategy(2, seed=seed).moves(shoot)
        assert move.type == "shoot" and move.fields["target"] not in (1, 2, 3)
    check = _view(phase="sheriff_check", vote=None, night=1)
    check["me"] = {"seat": 4, "role": "sheriff", "action": "sheriff_check"}
    [move] = Strategy(4, seed=3).moves(check)
    assert move.type == "sheriff_check" and move.fields["target"] != 4


def build_view_for(state: Any, seat: int) -> dict[str, Any]:
    return views.seat_view(state, seat)


def test_nothing_when_the_game_is_over_or_the_view_is_someone_elses():
    assert Strategy(3, seed=1).moves(_view(over=True)) == []
    assert Strategy(4, seed=1).moves(_view()) == []  # a view of seat 3


def test_it_speaks_when_the_view_says_the_speech_is_its_own_whatever_the_phase_name():
    # The view's `speaking` decides (plugin/rules/sight.py), not a list of phases here.
    last_word = _view(phase="last_word", speaker=3, vote=None,
                      speaking={"speaker": 3, "seats": [3]})  # fmt: skip
    assert [m.type for m in Strategy(3, seed=1).moves(last_word)] == ["say", "pass"]
    not_his = _view(phase="speech", speaker=3, vote=None, speaking={"speaker": None, "seats": []})
    assert Strategy(3, seed=1).moves(not_his) == []


def test_in_a_real_view_its_speech_comes_from_speaking():
    settings = TableSettings.from_record({"preset": "online", "seats": 10})
    state = dataclasses.replace(table_game.new_game(settings), phase=Phase.DEFENSE, speaker=6,
                                speakers=frozenset({6}))  # fmt: skip
    snapshot = Snapshot(table_id="t", version=0, state=state, settings=settings, timer_id=None,
                        timer_remaining=None, paused=False, present=frozenset())  # fmt: skip
    moves = Strategy(6, seed=1).moves(build_view(snapshot, 6))
    assert [m.type for m in moves] == ["say", "pass"]
