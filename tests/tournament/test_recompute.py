"""The live tournament standings equal a recomputation from the records (issue 34: "the
final standings equal a recomputation from the protocols"): any sequence of tables linked,
sheets signed and corrected (players moved, judges' points changed) and extras revealed,
folded record by record as the server folds the club's log, gives every stage's, the
overall and the public standings that `standings.recompute` builds from the final sheets
alone; and the rounds finished by their sheets are the same."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.club import ClubError, ClubState
from plugin.scoring import Standings
from plugin.seating import Budget, cost, optimise
from plugin.tournament import TournamentState, played
from plugin.tournament.standings import Live, recompute
from plugin.tournament.state import problem_of

DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")


@cache
def opening() -> tuple[dict[str, Any], ...]:
    """The records of a club of 20 and its tournament (2 tables, 2 games each; a final of
    10 hiding its extras), its first round started."""
    club, state = ClubState(), TournamentState()
    records: list[dict[str, Any]] = []

    def take(record: dict[str, Any]) -> None:
        records.append(record)
        club.apply(record)
        state.apply(record)

    for n in range(1, 21):
        take(club.add_player({"nick": f"P{n}"}))
    fields = {"name": "Cup", "players": [f"P{n}" for n in range(1, 21)], "tables": 2,
              "games": 2, "hide_extras_from": "qualifying"}  # fmt: skip
    take(state.create(club, fields))
    stage = state.get("t1").stages[0]
    problem = problem_of(stage, state.get("t1").players, [])
    seating = optimise(problem, seed=1, budget=Budget(moves=20_000))
    take(state.seat("t1", 0, None, seating, cost(problem, seating)))
    take(state.start_round("t1", 0, 0))
    return tuple(records)


SHEETS = st.builds(
    lambda seat, k, removed: {
        "extra": {str(seat): [{"points": round(k * 0.05, 2), "comment": "why"}]} if k else {},
        "auto_bonus_removed": {str(removed): "worst"} if removed else {},
    },
    st.integers(1, 10), st.integers(-10, 10), st.sampled_from([None, 2, 9]),
)  # fmt: skip
# (kind, slot: round*2 + table - 1, winner, first-killed seat, sheet, guest seat)
OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["link", "sign", "sign", "link", "reveal", "start"]),
              st.integers(0, 3),
              st.sampled_from(["city", "mafia"]), st.sampled_from([None, 3, 8]), SHEETS,
              st.sampled_from([None, 4])),
    min_size=4, max_size=24,
)  # fmt: skip


def game_of(
    players: list[str], winner: str, killed: int | None, guest: int | None
) -> dict[str, Any]:
    seats = []
    for n, player in enumerate(players, 1):
        out, night = ("killed", 1) if killed == n else (None, None)
        who = "guest:someone" if guest == n else player  # came without his link
        seats.append({"seat": n, "player": who, "role": DEAL[n - 1], "out": out,
                      "night": night, "fouls": 0})  # fmt: skip
    return {"winner": winner, "best_move": None, "seats": seats}


def rows_of(standings: Standings) -> list[tuple[Any, ...]]:
    return [(r.rank, r.player, r.total, r.extra, r.ci, r.games, r.wins) for r in standings.rows()]


def everything(state: TournamentState, tables: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {t.id: (sorted(t.stages[0].finished), t.revealed)
                           for t in state.tournaments.values()}  # fmt: skip
    for tid, t in tables.items():
        out[tid + ":stages"] = [rows_of(s) for s in t.stages]
        out[tid + ":public"] = [rows_of(s) for s in t.public_stages]
        out[tid + ":overall"] = (rows_of(t.overall), rows_of(t.public_overall))
    return out


@settings(max_examples=120, deadline=None)
@given(operations=OPERATIONS)
def test_live_standings_equal_a_recompute(operations: list[Any]) -> None:
    club, state, live = ClubState(), TournamentState(), Live()
    records = list(opening())
    for record in records:
        club.apply(record)
        state.apply(record)
        live.fold(record, state)
    stage = state.get("t1").stages[0]
    for kind, slot, winner, killed, sheet, guest in operations:
        round_, table_no = divmod(slot, 2)
        game_id = f"g{slot}"
        try:
            if kind == "link":
                record = played.link_table(state, "t1", 0, round_, table_no + 1, game_id)
            elif kind == "reveal":
                record = played.reveal(state, "t1")
            elif kind == "start":  # the second round, once the first is finished
                record = state.start_round("t1", 0, 1)
            else:
                players = [stage.seated[i] for i in stage.seating[round_][table_no]]
                game = game_of(players, winner, killed, guest)
                if game_id in club.signed:
                    record = club.correct(game_id, sheet, game, "a fix", "admin")
                else:
                    record = club.sign(game_id, "2026", "fiim", game, sheet, "judge:p1")
        except ClubError:
            continue  # refused: nothing written
        records.append(record)
        club.apply(record)
        state.apply(record)
        live.fold(record, state)
    again, tables = recompute(records)
    assert everything(state, live.tables) == everything(again, tables)
    for r in (0, 1):  # a round is finished exactly when its two tables are linked and signed
        placed = {t: played.placement(state, t) for t in state.get("t1").tables}
        linked = [t for t, where in placed.items() if where is not None and where[2] == r]
        done = len(linked) == 2 and all(t in club.signed for t in linked)
        assert (r in stage.finished) == done
