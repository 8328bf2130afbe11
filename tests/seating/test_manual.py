"""The organiser's swap: its cost change is the recomputed difference; refusals change nothing."""

from __future__ import annotations

import random

import pytest

from plugin.seating import (
    Budget,
    InvalidSeating,
    Problem,
    SeatingError,
    check_seating,
    cost,
    optimise,
    swap_players,
)

PROBLEM = Problem.build(players=25, tables=2, games=8, keep_apart=[(0, 1), (2, 3)])
SEATING = optimise(PROBLEM, seed=3, budget=Budget(moves=20_000))


def test_the_cost_change_is_the_recomputed_difference() -> None:
    rng = random.Random(1)
    before = cost(PROBLEM, SEATING)
    swapped = 0
    for _ in range(200):
        r = rng.randrange(len(SEATING))
        playing = [p for table in SEATING[r] for p in table]
        a, b = rng.sample(playing, 2)
        try:
            after_seating, change = swap_players(PROBLEM, SEATING, round_index=r, a=a, b=b)
        except InvalidSeating:
            continue  # keep-apart partners would meet
        check_seating(PROBLEM, after_seating)
        after = cost(PROBLEM, after_seating)
        assert change.meetings == pytest.approx(after.meetings - before.meetings, abs=1e-6)
        assert change.seats == pytest.approx(after.seats - before.seats, abs=1e-6)
        assert change.tables == pytest.approx(after.tables - before.tables, abs=1e-6)
        assert change.total == pytest.approx(after.total - before.total, abs=1e-6)
        table_a = next(t for t, table in enumerate(SEATING[r]) if a in table)
        seat_a = SEATING[r][table_a].index(a)
        assert after_seating[r][table_a][seat_a] == b  # b sits where a sat
        swapped += 1
    assert swapped > 100


def test_a_player_who_sits_the_round_out_cannot_be_swapped_in() -> None:
    r = next(r for r, tables in enumerate(SEATING) if sum(len(t) for t in tables) < 25)
    playing = {p for table in SEATING[r] for p in table}
    out = next(p for p in range(25) if p not in playing)
    with pytest.raises(SeatingError, match=f"player {out} sits round {r} out"):
        swap_players(PROBLEM, SEATING, round_index=r, a=min(playing), b=out)


def test_keep_apart_partners_are_not_seated_together_by_hand() -> None:
    for r, tables in enumerate(SEATING):
        where = {p: t for t, table in enumerate(tables) for p in table}
        if 0 in where and 1 in where:
            other = next(p for p in tables[where[1]] if p != 1)
            with pytest.raises(InvalidSeating, match="keep-apart"):
                swap_players(PROBLEM, SEATING, round_index=r, a=0, b=other)
            return
    pytest.fail("0 and 1 never play the same round")


@pytest.mark.parametrize(
    ("round_index", "a", "b", "words"),
    [(99, 0, 1, "no round 99"), (0, 4, 4, "himself"), (0, 4, 30, "no player 30")],
)
def test_bad_swaps_are_refused(round_index: int, a: int, b: int, words: str) -> None:
    with pytest.raises(SeatingError, match=words):
        swap_players(PROBLEM, SEATING, round_index=round_index, a=a, b=b)
