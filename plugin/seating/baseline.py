"""mafiaratings' greedy-and-swap seating, rewritten from its description in szotin/mafiaratings
as the baseline our optimiser is measured against (bench/seating.py).

1. `include/seating.php` `SeatingDef::generateInitialSeating`: for each round, the players
   with the most games still to play (random among equals, `_gisGenerateRoundPlayerLists`);
   at the tables, the keep-apart groups first, each member at a different table of the
   least filled ones, then everybody else, each at the least filled table
   (`_gisAssignPlayersToTables`); five attempts, the first that keeps the pairs apart.
2. `seating_optimization.php` `_players_task`: first-improvement descent over every swap of
   two players at different tables of a round, scanning round by round; a scan that found
   something starts another; stops when a whole scan finds nothing.
3. `_numbers_task`: seat numbers shuffled at every table, then every swap of two seats of
   one table, restarting from the first round after each improvement, until none is left.
4. `_tables_task`: tables shuffled within each round, then every swap of two tables of a
   round, the same way (only counted from three tables).

Differences, all in the baseline's favour or neutral: one run of each step (mafiaratings
repeats them for hours and keeps the best it stored); a step does not stop early at its
"perfect" score (going on only lowers the cost); `_tables_task` is taken as written in
intent (swap, keep if better, else swap back; the file evaluates before swapping); every
step compares the costs of `plugin.seating.cost` (the issue's E = 9G/(P−1)).
"""

from __future__ import annotations

import random

from .draft import Draft
from .problem import SEATS, Problem, Seating, SeatingImpossible, check_sizes

ATTEMPTS = 5  # generateInitialSeating's retries
EPS = -1e-9  # a change below this is an improvement (float sums of squares)


def baseline(problem: Problem, *, seed: int = 0) -> Seating:
    """mafiaratings' seating for `problem` (deterministic for a seed)."""
    check_sizes(problem.players, problem.tables, problem.games)
    rng = random.Random(seed)
    draft = Draft(problem, initial_rounds(problem, rng))
    improve_players(draft)
    improve_numbers(draft, rng)
    improve_tables(draft, rng)
    return draft.seating()


def initial_rounds(problem: Problem, rng: random.Random) -> list[list[list[int]]]:
    """generateInitialSeating: greedy rounds, the first of five attempts that keeps every
    keep-apart pair apart (else the first attempt)."""
    first: list[list[list[int]]] | None = None
    partners = problem.partners()
    for _ in range(ATTEMPTS):
        rounds = [
            assign_tables(players, count, problem, rng)
            for players, count in zip(
                round_players(problem, rng), problem.round_tables, strict=True
            )
        ]
        if not any(partners[p] & set(t) for tables in rounds for t in tables for p in t):
            return rounds
        first = first or rounds
    assert first is not None
    return first


def round_players(problem: Problem, rng: random.Random) -> list[list[int]]:
    """_gisGenerateRoundPlayerLists: each round, those with the most games left first."""
    remaining = [problem.games] * problem.players
    chosen = []
    for count in problem.round_tables:
        candidates = list(range(problem.players))
        rng.shuffle(candidates)
        candidates.sort(key=lambda p: -remaining[p])  # stable, as PHP 8's usort
        active = candidates[: count * SEATS]
        for p in active:
            remaining[p] -= 1
        chosen.append(active)
    if any(remaining):
        raise SeatingImpossible(f"{problem}: the rounds cannot give every player G games")
    return chosen


def assign_tables(
    players: list[int], count: int, problem: Problem, rng: random.Random
) -> list[list[int]]:
    """_gisAssignPlayersToTables: keep-apart groups (here pairs) spread first, then the rest
    at the least filled tables."""
    tables: list[list[int]] = [[] for _ in range(count)]
    playing = set(players)
    assigned: set[int] = set()
    partners = problem.partners()

    def by_load() -> list[int]:
        order = list(range(count))
        rng.shuffle(order)
        order.sort(key=lambda t: (len(tables[t]) >= SEATS, len(tables[t])))
        return order

    for group in sorted(problem.keep_apart):
        members = [p for p in group if p in playing and p not in assigned]
        if not members:
            continue
        rng.shuffle(members)
        order = by_load()
        spread = min(len(members), count)
        for p, t in zip(members[:spread], order, strict=False):
            tables[t].append(p)
            assigned.add(p)
        for p in members[spread:]:  # more members than tables: fewest clashes
            open_tables = [t for t in by_load() if len(tables[t]) < SEATS]
            best = min(open_tables, key=lambda t: len(partners[p] & set(tables[t])))
            tables[best].append(p)
            assigned.add(p)
    free = [p for p in players if p not in assigned]
    rng.shuffle(free)
    for p in free:
        tables[next(t for t in by_load() if len(tables[t]) < SEATS)].append(p)
    return tables


def improve_players(draft: Draft) -> None:
    """_players_task: first-improvement swaps of players between tables, scan after scan."""
    if draft.problem.tables <= 1:
        return
    found = True
    while found:
        found = False
        for r, tables in enumerate(draft.rounds):
            for t1 in range(len(tables) - 1):
                for n1 in range(SEATS):
                    for t2 in range(t1 + 1, len(tables)):
                        for n2 in range(SEATS):
                            a, b = tables[t1][n1], tables[t2][n2]
                            if draft.swap_meetings_delta(r, a, b) < 0:
                                draft.swap(r, a, b)
                                found = True


def improve_numbers(draft: Draft, rng: random.Random) -> None:
    """_numbers_task: shuffle each table's seats, then swap two seats of a table while that
    helps, starting again from the first table after each improvement."""
    for r, tables in enumerate(draft.rounds):
        for t, table in enumerate(tables):
            order = list(table)
            rng.shuffle(order)
            draft.seat_table(r, t, order)
    while _first_seat_swap(draft):
        pass


def _first_seat_swap(draft: Draft) -> bool:
    """Make the first improving swap of two seats in scan order; False if there is none."""
    for r, tables in enumerate(draft.rounds):
        for table in tables:
            for n1 in range(SEATS - 1):
                for n2 in range(n1 + 1, SEATS):
                    a, b = table[n1], table[n2]
                    if draft.seat_move_delta(a, n1, n2) + draft.seat_move_delta(b, n2, n1) < EPS:
                        draft.swap(r, a, b)
                        return True
    return False


def improve_tables(draft: Draft, rng: random.Random) -> None:
    """_tables_task: shuffle the tables of each round, then swap two tables of a round while
    that helps, starting again from the first round after each improvement."""
    if not draft.tables_count:
        return
    for r, tables in enumerate(draft.rounds):
        for t in range(len(tables) - 1):  # Fisher-Yates, move by move
            draft.swap_tables(r, t, rng.randrange(t, len(tables)))
    while _first_table_swap(draft):
        pass


def _first_table_swap(draft: Draft) -> bool:
    """Make the first improving swap of two tables in scan order; False if there is none."""
    for r, tables in enumerate(draft.rounds):
        for t1 in range(len(tables) - 1):
            for t2 in range(t1 + 1, len(tables)):
                if draft.swap_tables_delta(r, t1, t2) < EPS:
                    draft.swap_tables(r, t1, t2)
                    return True
    return False
