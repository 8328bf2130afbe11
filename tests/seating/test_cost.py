"""The cost against seatings computed by hand (mafiaratings' definitions, issue 34)."""

from __future__ import annotations

import pytest

from plugin.seating import Budget, Problem, baseline, cost, optimise
from plugin.seating.cost import meetings_lower_bound, meetings_tables_lower_bound

ONE_TABLE = (((0, 1, 2, 3, 4, 5, 6, 7, 8, 9),),)


def test_one_game_of_ten() -> None:
    # E = 9·1/9 = 1 and every pair met once: no meetings cost. Each player has one game at
    # seat s: singles 4·(Σw·0.01 + w_s·0.8) = 0.64 + 3.2·w_s; pairs 2·(4·0.04 + 0.64) = 1.6;
    # halves 0.25 + 0.25 = 0.5. Σ over seats with Σw = 16: 10·2.74 + 3.2·16 = 78.6.
    c = cost(Problem(players=10, tables=1, games=1), ONE_TABLE)
    assert c.meetings == pytest.approx(0)
    assert c.seats == pytest.approx(78.6)
    assert c.tables == 0
    assert c.total == pytest.approx(78.6)


def test_two_tables_once_each() -> None:
    # 20 players, one game each: 90 pairs met once, 100 never; E = 9/19.
    seating = ((tuple(range(10)), tuple(range(10, 20))),)
    c = cost(Problem(players=20, tables=2, games=1), seating)
    assert c.meetings == pytest.approx(90 * (10 / 19) ** 2 + 100 * (9 / 19) ** 2)
    assert c.tables == 0  # one or two tables: every table is alike


def test_a_keep_apart_pair_that_met_weighs_a_hundred() -> None:
    c = cost(Problem(players=10, tables=1, games=1, keep_apart=frozenset({(0, 1)})), ONE_TABLE)
    assert c.meetings == pytest.approx(100)  # (10·1)², the other 44 pairs met exactly E = 1
    assert c.keep_apart_meetings == 1


def test_tables_from_three() -> None:
    # 30 players, 3 tables, one game: each player (1 − 1/3)² + 2·(1/3)² = 2/3.
    seating = ((tuple(range(10)), tuple(range(10, 20)), tuple(range(20, 30))),)
    assert cost(Problem(players=30, tables=3, games=1), seating).tables == pytest.approx(20)


def test_a_latin_square_of_seats_is_perfect() -> None:
    # Ten rounds of one table, seat s of round r is player (r + s) mod 10: every player has
    # every seat once, and every pair met ten times (E = 10).
    seating = tuple(((tuple((r + s) % 10 for s in range(10))),) for r in range(10))
    c = cost(Problem(players=10, tables=1, games=10), seating)
    assert (c.meetings, c.seats, c.tables) == (0, 0, 0)


def test_always_the_same_seat() -> None:
    # Two games, each player at the same seat both times: singles 4·(Σw·0.04 + w_s·(1.6²−0.2²))
    # = 2.56 + 12.8·w_s; pairs 2·(4·0.16 + 1.6²) = 6.4; halves 1 + 1 = 2.
    seating = (ONE_TABLE[0], ONE_TABLE[0])
    c = cost(Problem(players=10, tables=1, games=2), seating)
    assert c.seats == pytest.approx(10 * (2.56 + 6.4 + 2) + 12.8 * 16)


@pytest.mark.parametrize(("players", "tables", "games"), [(20, 2, 10), (30, 3, 9), (40, 4, 3)])
def test_no_seating_goes_below_the_meetings_bound(players: int, tables: int, games: int) -> None:
    problem = Problem(players=players, tables=tables, games=games)
    bound = meetings_lower_bound(problem)
    assert bound is not None
    for seed in range(3):
        assert cost(problem, baseline(problem, seed=seed)).meetings >= bound - 1e-6
    ours = optimise(problem, seed=0, budget=Budget(moves=100_000))
    assert cost(problem, ours).meetings >= bound - 1e-6
    both = meetings_tables_lower_bound(problem)
    assert both is not None and both >= bound - 1e-6
    for seating in (ours, baseline(problem, seed=0)):
        c = cost(problem, seating)
        assert c.meetings + c.tables >= both - 1e-6


def test_the_bound_is_reached_with_two_tables() -> None:
    # 20 players, 2 tables, 10 rounds: a Hadamard-like seating reaches the bound, and so
    # does the optimiser (236.84 = 250 − 50·2·(5 − E) + 190·(5 − E)², E = 90/19).
    problem = Problem(players=20, tables=2, games=10)
    bound = meetings_lower_bound(problem)
    assert bound == pytest.approx(250 - 100 * (5 - 90 / 19) + 190 * (5 - 90 / 19) ** 2)
    ours = optimise(problem, seed=0, budget=Budget(moves=300_000))
    assert cost(problem, ours).meetings == pytest.approx(bound)


def test_no_bound_when_some_sit_out() -> None:
    assert meetings_lower_bound(Problem(players=25, tables=2, games=8)) is None
    assert meetings_tables_lower_bound(Problem(players=25, tables=2, games=8)) is None


def test_the_floor_of_meetings_and_tables_by_hand() -> None:
    # 30 players, 3 tables, 9 rounds: per pair of rounds Σ(N + I)² − 3 ≥ 3·(16 + 16 + 9) − 3
    # = 120; Σ m² ≥ (2700 − 2430)/2 + 36·120 − ..., see meetings_tables_lower_bound.
    e = 81 / 29
    expected = 135 + 36 * 120 - 2 * e * 1215 + 435 * e * e + 270 - 810
    problem = Problem(players=30, tables=3, games=9)
    assert meetings_tables_lower_bound(problem) == pytest.approx(expected)


def test_the_floor_allows_for_keep_apart_pairs() -> None:
    # a keep-apart pair kept apart costs 0 instead of E²: the floor is lower by that much
    plain = Problem(players=20, tables=2, games=10)
    kept = Problem(players=20, tables=2, games=10, keep_apart=frozenset({(0, 1), (2, 3)}))
    bound, with_pairs = meetings_lower_bound(plain), meetings_lower_bound(kept)
    assert bound is not None and with_pairs is not None
    assert with_pairs == pytest.approx(bound - 2 * (90 / 19) ** 2)
    ours = optimise(kept, seed=0, budget=Budget(moves=100_000))
    assert cost(kept, ours).meetings >= with_pairs - 1e-6
