"""Impossible sizes are refused with a clear error; invalid seatings are caught."""

from __future__ import annotations

import pytest

from plugin.seating import (
    Budget,
    InvalidSeating,
    Problem,
    Seating,
    SeatingError,
    SeatingImpossible,
    check_seating,
    optimise,
)


@pytest.mark.parametrize(
    ("players", "tables", "games", "words"),
    [
        (9, 1, 10, "a table needs 10"),
        (25, 3, 10, "at most 2 tables"),
        (15, 1, 3, "not a multiple of 10"),
        (20, 0, 10, "at least one"),
        (20, 2, 0, "at least one"),
    ],
)
def test_impossible_sizes_are_refused(players: int, tables: int, games: int, words: str) -> None:
    with pytest.raises(SeatingImpossible, match=words):
        Problem.build(players=players, tables=tables, games=games)


def test_rounds_give_the_games_per_player() -> None:
    problem = Problem.build(players=25, tables=2, rounds=10)
    assert problem.games == 8
    assert problem.round_tables == (2,) * 10
    with pytest.raises(SeatingImpossible, match="do not share equally"):
        Problem.build(players=30, tables=2, rounds=1)  # 20 seats among 30 players
    with pytest.raises(SeatingError, match="not both"):
        Problem.build(players=20, tables=2, games=10, rounds=10)


def test_the_last_round_may_have_fewer_tables() -> None:
    assert Problem.build(players=30, tables=2, games=5).round_tables == (2,) * 7 + (1,)


def test_bad_keep_apart_pairs_are_refused() -> None:
    with pytest.raises(SeatingError, match=r"0\.\.19"):
        Problem.build(players=20, tables=2, games=10, keep_apart=[(3, 20)])
    with pytest.raises(SeatingError, match="twice"):
        Problem.build(players=20, tables=2, games=10, keep_apart=[(3, 3)])
    assert Problem.build(players=20, tables=2, games=1, keep_apart=[(5, 2)]).keep_apart == {(2, 5)}


def test_keep_apart_that_cannot_be_kept_is_refused() -> None:
    # one table, everybody plays every game: the pair must meet
    problem = Problem.build(players=10, tables=1, games=3, keep_apart=[(0, 1)])
    with pytest.raises(SeatingImpossible, match=r"\(0, 1\)"):
        optimise(problem, budget=Budget(moves=2000))
    # three players pairwise apart on two tables where all play
    problem = Problem.build(players=20, tables=2, games=2, keep_apart=[(0, 1), (0, 2), (1, 2)])
    with pytest.raises(SeatingImpossible):
        optimise(problem, budget=Budget(moves=2000))


SMALL = Problem.build(players=20, tables=2, games=2, keep_apart=[(0, 1)])
GOOD = (((0, *range(2, 11)), (1, *range(11, 20))), ((1, *range(2, 11)), (0, *range(11, 20))))


def test_a_valid_seating_passes() -> None:
    check_seating(SMALL, GOOD)


@pytest.mark.parametrize(
    ("seating", "words"),
    [
        (GOOD[:1], "tables per round"),
        ((GOOD[0], ((1, *range(2, 10)), (0, *range(11, 20)))), "9 players"),
        ((GOOD[0], ((1, *range(2, 10), 11), (0, *range(11, 20)))), "sits twice"),
        ((GOOD[0], ((1, *range(2, 11)), (0, *range(11, 19), 20))), "no player 20"),
        ((GOOD[0], ((0, 1, *range(2, 10)), (10, *range(11, 20)))), "keep-apart players 0 and 1"),
    ],
)
def test_invalid_seatings_are_caught(seating: Seating, words: str) -> None:
    with pytest.raises(InvalidSeating, match=words):
        check_seating(SMALL, seating)


def test_unequal_games_are_caught() -> None:
    problem = Problem.build(players=30, tables=1, games=1)
    with pytest.raises(InvalidSeating, match="plays 2 games, not 1"):
        check_seating(problem, ((tuple(range(10)),), (tuple(range(10)),), (tuple(range(20, 30)),)))
