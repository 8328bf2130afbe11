"""Every seating produced is valid, the optimiser is deterministic for a seed, and it does
at least as well as mafiaratings' algorithm on small cases."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.seating import (
    Budget,
    Problem,
    SeatingImpossible,
    baseline,
    check_seating,
    cost,
    optimise,
)

SMALL_BUDGET = Budget(moves=60_000)


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    players = draw(st.integers(10, 35))
    tables = draw(st.integers(1, players // 10))
    step = 10 // math.gcd(players, 10)  # games making P·G a multiple of 10
    games = step * draw(st.integers(1, max(1, 6 // step)))
    pairs = draw(st.lists(st.tuples(st.integers(0, players - 1), st.integers(0, players - 1))))
    keep = [(a, b) for a, b in pairs[:3] if a != b] if tables > 1 else []
    return Problem.build(players=players, tables=tables, games=games, keep_apart=keep)


@settings(max_examples=25, deadline=None)
@given(problems(), st.integers(0, 3))
def test_every_seating_is_valid(problem: Problem, seed: int) -> None:
    theirs = baseline(problem, seed=seed)  # it may fail a keep-apart pair; all else holds
    check_seating(Problem(players=problem.players, tables=problem.tables, games=problem.games),
                  theirs)  # fmt: skip
    if cost(problem, theirs).keep_apart_meetings == 0:
        check_seating(problem, theirs)
    try:
        ours = optimise(problem, seed=seed, budget=Budget(moves=3000))
    except SeatingImpossible as error:  # only a keep-apart pair it could not keep may be
        assert problem.keep_apart and "keep apart" in str(error)
        return
    check_seating(problem, ours)


def test_the_same_seed_gives_the_same_seating() -> None:
    problem = Problem.build(players=25, tables=2, games=8, keep_apart=[(0, 1)])
    first = optimise(problem, seed=5, budget=Budget(moves=20_000))
    assert optimise(problem, seed=5, budget=Budget(moves=20_000)) == first
    assert baseline(problem, seed=5) == baseline(problem, seed=5)


@pytest.mark.parametrize(
    ("players", "tables", "games", "keep"),
    [
        (10, 1, 10, ()),
        (20, 2, 5, ()),
        (20, 2, 10, ()),
        (30, 3, 4, ()),
        (25, 2, 8, ()),
        (30, 3, 9, ((0, 1), (2, 3))),
    ],
)
def test_ours_beats_or_equals_the_baseline(
    players: int, tables: int, games: int, keep: tuple[tuple[int, int], ...]
) -> None:
    problem = Problem.build(players=players, tables=tables, games=games, keep_apart=keep)
    for seed in (1, 2):
        ours = optimise(problem, seed=seed, budget=SMALL_BUDGET)
        check_seating(problem, ours)
        theirs = baseline(problem, seed=seed)
        assert cost(problem, ours).total <= cost(problem, theirs).total + 1e-6


def test_a_clock_stops_the_annealing_at_the_deadline() -> None:
    # a fake clock that moves one second per look: the deadline of 5 s comes after 5 looks,
    # long before the billion moves; the seating is still whole
    looks: list[float] = []

    def clock() -> float:
        looks.append(float(len(looks)))
        return looks[-1]

    problem = Problem.build(players=40, tables=4, games=10)
    seating = optimise(problem, seed=1, budget=Budget(moves=10**9, seconds=5, clock=clock))
    check_seating(problem, seating)
    assert 5 <= len(looks) <= 8
