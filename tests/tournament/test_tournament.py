"""Tournaments as records in the club's log (issue 34): a tournament, its seating, a swap and
its rounds survive reopening the log (SQLite and PostgreSQL) and equal a replay of the
records; every refusal writes nothing and changes nothing; the stored seating is the one
computed, valid and of the cost published."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.club import Club, ClubState
from plugin.eventlog import EventLog, open_log
from plugin.seating import Budget, cost, optimise
from plugin.seating.problem import freeze
from plugin.signing import Signer
from plugin.tournament import TournamentError, Tournaments, TournamentState, fold
from plugin.tournament.state import problem_of

SIGNER = Signer(b"0123456789abcdef0123")
MOVES = 20_000  # a small annealing budget: the tests check records, not the optimiser
NICKS = [f"Player{n}" for n in range(1, 19)]  # 18 from the roster, 2 guests: 20 players
FIELDS: dict[str, Any] = {
    "name": "Winter Cup",
    "players": [*NICKS, "guest:Anna", "guest:Olga"],
    "tables": 2,
    "games": 3,  # 20 × 3 / 10 = 6 games: 3 rounds of two tables
    "stages": [{"name": "final", "players": 10, "tables": 1, "games": 2}],
    "keep_apart": [["Player1", "Player2"]],
    "hide_extras_from": "final",
}


def tournaments_at(where: str | Path) -> Tournaments:
    log = open_log(where)
    assert isinstance(log, EventLog)
    return Tournaments(Club(log, SIGNER))


def with_roster(where: str | Path) -> Tournaments:
    tournaments = tournaments_at(where)
    for nick in NICKS:
        tournaments.club.change(lambda s, nick=nick: s.add_player({"nick": nick}), source="cli")
    return tournaments


def records(tournaments: Tournaments) -> list[dict[str, Any]]:
    return [entry.record for entry in tournaments.club.log.club_records(0)]


def views(state: TournamentState) -> dict[str, Any]:
    return {tid: t.view() for tid, t in state.tournaments.items()}


def test_a_tournament_survives_reopening_the_log(log_at: str | Path) -> None:
    tournaments = with_roster(log_at)
    created = tournaments.create(FIELDS, source="cli")
    assert created["players"][:2] == ["p1", "p2"] and created["players"][-1] == "guest:Olga"
    seated = tournaments.seat("t1", moves=MOVES, source="cli")
    stage = tournaments.state.get("t1").stages[0]
    assert stage.seating == seated["seating"] and len(stage.seating) == 3
    problem = problem_of(stage, stage.seated, tournaments.state.get("t1").keep_apart)
    published = cost(problem, freeze(stage.seating))
    assert stage.cost["total"] == pytest.approx(published.total)
    assert published.keep_apart_meetings == 0  # Player1 and Player2 never meet

    swap = tournaments.swap("t1", 0, 1, "p3", "guest:Anna", source="cli")
    after = tournaments.state.get("t1").stages[0]
    recomputed = cost(problem, freeze(after.seating))
    assert after.cost["total"] == pytest.approx(recomputed.total)
    assert recomputed.total - published.total == pytest.approx(swap["change"]["total"])
    start = tournaments.start_round("t1", 0, 0, source="cli")
    assert [t["seats"] for t in start["tables"]] == [
        [after.seated[i] for i in table] for table in after.seating[0]
    ]
    before = views(tournaments.state)
    tournaments.club.log.close()  # type: ignore[attr-defined]

    again = tournaments_at(log_at)
    again.refresh()
    assert views(again.state) == before  # a restart loses nothing
    assert views(fold(records(again))) == before  # and equals a replay of the records
    assert again.club.state.player("Player5").id == "p5"  # the club reads its log still
    again.club.log.close()  # type: ignore[attr-defined]


def refused(tournaments: Tournaments, code: str, call: Any) -> None:
    """`call` is refused with `code`, and neither the log nor the state changes."""
    written, before = len(records(tournaments)), views(tournaments.state)
    with pytest.raises(TournamentError) as caught:
        call()
    assert caught.value.code == code, caught.value.message
    assert caught.value.message
    tournaments.refresh()
    assert len(records(tournaments)) == written
    assert views(tournaments.state) == before


def test_every_refusal_writes_nothing(tmp_path: Path) -> None:
    t = with_roster(tmp_path / "log.db")
    src = "cli"
    for sizes, code in [
        ({"players": NICKS[:15], "tables": 2}, "impossible_sizes"),  # 15 players, 2 tables
        ({"players": [*NICKS[:15], "guest:X"], "games": 3}, "impossible_sizes"),  # 48 seats
        ({"players": ["Player1", "Nobody"]}, "no_player"),
        ({"players": ["Player1", "Player1", *NICKS[2:]]}, "bad_field"),
        ({"stages": [{"name": "final", "players": 30, "games": 2}]}, "impossible_sizes"),
        ({"stages": [{"name": "final", "players": 12, "games": 1}]}, "impossible_sizes"),
        ({"preset": "nonsense"}, "bad_preset"),
        ({"system": "nonsense"}, "unknown_system"),
        ({"keep_apart": [["Player1", "Player1"]]}, "bad_field"),
        ({"hide_extras_from": "semi-final"}, "no_stage"),
    ]:
        refused(t, code, lambda sizes=sizes: t.create({**FIELDS, **sizes}, source=src))
    t.create(FIELDS, source=src)
    refused(t, "not_seated", lambda: t.start_round("t1", 0, 0, source=src))
    t.seat("t1", moves=MOVES, source=src)
    refused(t, "no_round", lambda: t.start_round("t1", 0, 3, source=src))
    refused(t, "round_order", lambda: t.start_round("t1", 0, 1, source=src))
    refused(t, "no_player", lambda: t.swap("t1", 0, 0, "p1", "guest:Nobody", source=src))
    refused(t, "bad_swap", lambda: t.swap("t1", 0, 0, "p1", "p1", source=src))
    t.start_round("t1", 0, 0, source=src)
    refused(t, "round_started", lambda: t.start_round("t1", 0, 0, source=src))  # twice
    refused(t, "round_started", lambda: t.swap("t1", 0, 0, "p1", "p3", source=src))
    # Everybody plays every round: round 1 would seat players still at round 0's tables.
    refused(t, "player_busy", lambda: t.start_round("t1", 0, 1, source=src))
    final = NICKS[:10]
    ids = [t.club.state.player(n).id for n in final]
    # The final before the qualifying is finished: refused, to seat and to start.
    refused(t, "stage_not_finished", lambda: t.seat("t1", 1, players=ids, source=src))
    refused(t, "not_seated", lambda: t.start_round("t1", 1, 0, source=src))
    t.finish_round("t1", 0, 0, source=src)
    refused(t, "round_finished", lambda: t.finish_round("t1", 0, 0, source=src))
    for r in (1, 2):
        t.start_round("t1", 0, r, source=src)
        t.finish_round("t1", 0, r, source=src)
    refused(t, "bad_field", lambda: t.seat("t1", 1, players=ids[:9], source=src))
    refused(t, "stage_started", lambda: t.seat("t1", 0, moves=MOVES, source=src))
    t.seat("t1", 1, players=ids, moves=MOVES, source=src)
    assert t.start_round("t1", 1, 0, source=src)["tables"][0]["table"] == 1
    t.club.log.close()  # type: ignore[attr-defined]


# --- the fold: any sequence of questions, refused ones changing nothing, equals its replay


@functools.cache
def seated() -> tuple[ClubState, list[dict[str, Any]]]:
    """A roster and the records of a created, seated tournament (seated once, in memory)."""
    club = ClubState()
    for nick in NICKS:
        club.apply(club.add_player({"nick": nick}))
    state = TournamentState()
    written = [state.create(club, FIELDS)]
    state.apply(written[0])
    tournaments_in_memory = state.get("t1")
    stage = tournaments_in_memory.stages[0]
    problem = problem_of(stage, tournaments_in_memory.players, tournaments_in_memory.keep_apart)
    seating = optimise(problem, seed=1, budget=Budget(moves=MOVES))
    written.append(state.seat("t1", 0, None, seating, cost(problem, seating)))
    return club, written


OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["swap", "start", "finish"]),
        st.integers(0, 1),  # the stage
        st.integers(-1, 3),  # the round
        st.sampled_from(["p1", "p2", "p7", "p18", "guest:Anna", "nobody"]),
        st.sampled_from(["p1", "p3", "p9", "guest:Olga"]),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(OPERATIONS)
def test_the_fold_equals_the_state_asked(operations: list[tuple[str, int, int, str, str]]) -> None:
    _, written = seated()
    written = copy.deepcopy(written)
    state = fold(written)
    for kind, stage, round_, a, b in operations:
        before = views(state)
        try:
            if kind == "swap":
                record = state.swap("t1", stage, round_, a, b)
            elif kind == "start":
                record = state.start_round("t1", stage, round_)
            else:
                record = state.finish_round("t1", stage, round_)
        except TournamentError:
            assert views(state) == before  # a refusal changes nothing
            continue
        state.apply(copy.deepcopy(record))
        written.append(record)
        t = state.get("t1").stages[0]
        problem = problem_of(t, t.seated, state.get("t1").keep_apart)
        assert t.cost["total"] == pytest.approx(cost(problem, freeze(t.seating)).total)
        busy = [s.seated[p] for s in state.get("t1").stages for r in s.started - s.finished
                for table in s.seating[r] for p in table]  # fmt: skip
        assert len(busy) == len(set(busy))  # nobody at two tables at once
    assert views(fold(written)) == views(state)  # restart (replay) equals the state asked
