"""Tournament seating (issue 34): which players sit at which table, at which seat, in each
round, so that pairs meet evenly, seats 1, 2 and 10 and the halves of the table are shared
evenly, tables are shared fairly and keep-apart players never meet. Pure: no I/O, no clock;
randomness only from a seed given as data.

- `problem`: Problem (sizes, keep-apart pairs), check_seating, the errors
- `cost`: cost (the published quality: squared deviations from the ideal), Cost,
  meetings_lower_bound, meetings_tables_lower_bound (proven floors when everybody plays
  every round)
- `optimizer`: optimise (ours: simulated annealing, then exact seat and table numbering)
- `baseline`: baseline (mafiaratings' greedy-and-swap, for comparison)
- `manual`: swap_players (the organiser's swap of two players, with its cost change)
"""

from .baseline import baseline
from .cost import Cost, cost, meetings_lower_bound, meetings_tables_lower_bound
from .manual import swap_players
from .optimizer import Budget, optimise
from .problem import (
    SEATS,
    InvalidSeating,
    Problem,
    Seating,
    SeatingError,
    SeatingImpossible,
    check_seating,
)

__all__ = [
    "SEATS",
    "Budget",
    "Cost",
    "InvalidSeating",
    "Problem",
    "Seating",
    "SeatingError",
    "SeatingImpossible",
    "baseline",
    "check_seating",
    "cost",
    "meetings_lower_bound",
    "meetings_tables_lower_bound",
    "optimise",
    "swap_players",
]
