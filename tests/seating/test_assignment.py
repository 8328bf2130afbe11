"""The Hungarian method finds the cheapest assignment (against every permutation)."""

from __future__ import annotations

import itertools
import random

import pytest

from plugin.seating.assignment import cheapest_assignment


@pytest.mark.parametrize("size", [1, 2, 3, 5, 6])
def test_cheapest_assignment_is_the_cheapest(size: int) -> None:
    rng = random.Random(size)
    for _ in range(30):
        costs = [[rng.choice([0.0, 1.5, rng.random() * 10]) for _ in range(size)] for _ in
                 range(size)]  # fmt: skip
        column = cheapest_assignment(costs)
        assert sorted(column) == list(range(size))
        best = min(
            sum(costs[i][p[i]] for i in range(size)) for p in itertools.permutations(range(size))
        )
        assert sum(costs[i][column[i]] for i in range(size)) == pytest.approx(best)
