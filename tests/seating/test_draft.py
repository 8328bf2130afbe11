"""Every move's cost change, computed from the counts, equals the recomputed difference."""

from __future__ import annotations

import random

import pytest

from plugin.seating import Problem, cost
from plugin.seating.baseline import initial_rounds
from plugin.seating.draft import OUT, Draft

CASES = [
    Problem.build(players=30, tables=3, games=9, keep_apart=[(0, 1), (2, 3), (0, 2)]),
    Problem.build(players=25, tables=2, games=8, keep_apart=[(4, 5)]),  # sit-outs
    Problem.build(players=40, tables=4, games=3),  # a last round of two tables
]


@pytest.mark.parametrize("problem", CASES, ids=lambda p: f"{p.players}-{p.tables}-{p.games}")
def test_moves_change_the_cost_by_their_delta(problem: Problem) -> None:
    rng = random.Random(7)
    draft = Draft(problem, initial_rounds(problem, rng))
    before = cost(problem, draft.seating())
    checked = {"swap": 0, "tables": 0, "exchange": 0}
    for _ in range(300):
        r = rng.randrange(len(draft.rounds))
        tables = draft.rounds[r]
        kind = rng.choice(["swap", "tables", "exchange"])
        if kind == "swap":
            a = rng.choice(rng.choice(tables))
            b = rng.choice(rng.choice(tables))
            if a == b:
                continue
            meetings, seats, table = draft.swap_delta(r, a, b)
            draft.swap(r, a, b)
        elif kind == "tables":
            if len(tables) < 2:
                continue
            t, u = rng.sample(range(len(tables)), 2)
            meetings, seats, table = 0.0, 0.0, draft.swap_tables_delta(r, t, u)
            draft.swap_tables(r, t, u)
        else:
            r2 = rng.randrange(len(draft.rounds))
            a = rng.choice(rng.choice(tables))
            b = rng.choice(rng.choice(draft.rounds[r2]))
            if r2 == r or draft.table_of[r2][a] != OUT or draft.table_of[r][b] != OUT:
                continue
            ta, tb = draft.table_of[r][a], draft.table_of[r2][b]
            sa, sb = draft.seat_of[r][a], draft.seat_of[r2][b]
            meetings = draft.exchange_meetings_delta(r, a, r2, b)
            table = draft.table_move_delta(a, ta, tb) + draft.table_move_delta(b, tb, ta)
            seats = draft.seat_move_delta(a, sa, sb) + draft.seat_move_delta(b, sb, sa)
            draft.exchange(r, a, r2, b)
        after = cost(problem, draft.seating())
        assert after.meetings - before.meetings == pytest.approx(meetings, abs=1e-6)
        assert after.seats - before.seats == pytest.approx(seats, abs=1e-6)
        assert after.tables - before.tables == pytest.approx(table, abs=1e-6)
        assert Draft(problem, [[list(t) for t in ts] for ts in draft.rounds]).met == draft.met
        checked[kind] += 1
        before = after
    assert checked["swap"] and checked["tables"]
    if problem.players > problem.tables * 10:
        assert checked["exchange"]
