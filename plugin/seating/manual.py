"""The organiser's swap of two players in a round not yet started: they trade table and
seat, and the organiser sees what it costs (issue 34: "sees the cost change")."""

from __future__ import annotations

from .cost import Cost
from .draft import OUT, Draft
from .problem import InvalidSeating, Problem, Seating, SeatingError, check_seating


def swap_players(
    problem: Problem, seating: Seating, *, round_index: int, a: int, b: int
) -> tuple[Seating, Cost]:
    """The seating with players a and b trading places in round `round_index` (from 0), and
    the cost change (new minus old; negative is better). Refused with SeatingError when
    either does not play that round (both must keep G games) or when keep-apart partners
    would meet; the seating given is never changed (it is immutable)."""
    check_seating(problem, seating)
    if not 0 <= round_index < len(seating):
        raise SeatingError(f"no round {round_index}: rounds are 0..{len(seating) - 1}")
    if a == b:
        raise SeatingError(f"player {a} cannot swap with himself")
    draft = Draft.of(problem, seating)
    for player in (a, b):
        if not 0 <= player < problem.players:
            raise SeatingError(f"no player {player}: players are 0..{problem.players - 1}")
        if draft.table_of[round_index][player] == OUT:
            raise SeatingError(
                f"player {player} sits round {round_index} out: a swap would change his "
                "number of games"
            )
    if draft.swap_breaks_keep_apart(round_index, a, b):
        raise InvalidSeating(
            f"swapping {a} and {b} in round {round_index} seats keep-apart partners together"
        )
    meetings, seats, tables = draft.swap_delta(round_index, a, b)
    draft.swap(round_index, a, b)
    change = Cost(meetings=meetings, seats=seats, tables=tables, keep_apart_meetings=0)
    return draft.seating(), change
