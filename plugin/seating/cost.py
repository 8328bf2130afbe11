"""A seating's quality: the sum of squared deviations from the ideal for meetings, seats and
tables, lower is better, one function for every algorithm (issue 34).

The definitions are mafiaratings' (szotin/mafiaratings `include/seating.php`, class
`SeatingDef`: `calculatePlayersScore`, `calculateNumbersScore`, `calculateTablesScore`),
with two deliberate differences: a score is never reset to 0 when every deviation is under
one (their "perfect" shortcut, a stopping rule, not a measure), and E is 9G/(P-1) for every
pair as the issue states (they lower it for players who have keep-apart partners).

- meetings: Σ over pairs (m_ij − E)², E = 9G/(P−1); a keep-apart pair weighs (10·m_ij)².
- seats: per player, Σ_s 4·w_s·(n_s − G/10)² with w = 4, 3, 1 … 1, 2 for seats 1, 2 … 10;
  plus Σ over seat pairs 1–2 … 9–10 of 2·(n − G/5)²; plus the halves 1–5, 6–10, (n − G/2)².
- tables: Σ over players and tables (c − G/T)², for three tables or more (with one or two
  tables every table is alike; mafiaratings counts nothing there either).
"""

from __future__ import annotations

from dataclasses import dataclass

from .problem import SEATS, Problem, Seating

SEAT_WEIGHTS = (4, 3, 1, 1, 1, 1, 1, 1, 1, 2)  # seats 1, 2 and 10 matter most
SINGLE_FACTOR = 4  # mafiaratings' "importance multiplier" of single seats
PAIR_FACTOR = 2  # ... of the pairs of seats 1-2, 3-4, ... 9-10
KEEP_APART_FACTOR = 10  # a keep-apart pair's deviation is multiplied before squaring
TABLES_COUNTED_FROM = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    """The parts of a seating's cost and their sum (`total`)."""

    meetings: float
    seats: float
    tables: float
    keep_apart_meetings: int  # times keep-apart players sat together (0 in a valid seating)

    @property
    def total(self) -> float:
        return self.meetings + self.seats + self.tables

    def __sub__(self, other: Cost) -> Cost:
        return Cost(
            meetings=self.meetings - other.meetings,
            seats=self.seats - other.seats,
            tables=self.tables - other.tables,
            keep_apart_meetings=self.keep_apart_meetings - other.keep_apart_meetings,
        )


def meeting_matrix(problem: Problem, seating: Seating) -> list[list[int]]:
    """m[i][j]: games players i and j played at one table."""
    count = [[0] * problem.players for _ in range(problem.players)]
    for tables in seating:
        for table in tables:
            for a in table:
                row = count[a]
                for b in table:
                    row[b] += 1
    for a in range(problem.players):
        count[a][a] = 0
    return count


def seat_counts(problem: Problem, seating: Seating) -> list[list[int]]:
    """n[p][s]: games player p played at seat s + 1."""
    count = [[0] * SEATS for _ in range(problem.players)]
    for tables in seating:
        for table in tables:
            for seat, player in enumerate(table):
                count[player][seat] += 1
    return count


def table_counts(problem: Problem, seating: Seating) -> list[list[int]]:
    """c[p][t]: games player p played at table t + 1."""
    count = [[0] * problem.tables for _ in range(problem.players)]
    for tables in seating:
        for t, table in enumerate(tables):
            for player in table:
                count[player][t] += 1
    return count


def pair_cost(problem: Problem, meetings: int, keep_apart: bool) -> float:
    """One pair's share of the meetings cost."""
    if keep_apart:
        return float((KEEP_APART_FACTOR * meetings) ** 2)
    return (meetings - problem.meetings_expected) ** 2


def player_seat_cost(counts: list[int], games: int) -> float:
    """One player's share of the seats cost, from his games at each seat."""
    single, pair, half = games / SEATS, games / (SEATS // 2), games / 2
    cost = 0.0
    for seat in range(SEATS):
        cost += SINGLE_FACTOR * SEAT_WEIGHTS[seat] * (counts[seat] - single) ** 2
    for seat in range(0, SEATS, 2):
        cost += PAIR_FACTOR * (counts[seat] + counts[seat + 1] - pair) ** 2
    cost += (sum(counts[:5]) - half) ** 2 + (sum(counts[5:]) - half) ** 2
    return cost


def player_table_cost(counts: list[int], problem: Problem) -> float:
    """One player's share of the tables cost, from his games at each table."""
    if problem.tables < TABLES_COUNTED_FROM:
        return 0.0
    expected = problem.games / problem.tables
    return sum((c - expected) ** 2 for c in counts)


def cost(problem: Problem, seating: Seating) -> Cost:
    """The cost of a seating (the published quality; lower is better)."""
    met = meeting_matrix(problem, seating)
    keep = problem.keep_apart
    meetings = 0.0
    together = 0
    for a in range(problem.players):
        row = met[a]
        for b in range(a + 1, problem.players):
            apart = (a, b) in keep
            meetings += pair_cost(problem, row[b], apart)
            if apart:
                together += row[b]
    seats = sum(player_seat_cost(c, problem.games) for c in seat_counts(problem, seating))
    tables = sum(player_table_cost(c, problem) for c in table_counts(problem, seating))
    return Cost(meetings=meetings, seats=seats, tables=tables, keep_apart_meetings=together)


def meetings_lower_bound(problem: Problem) -> float | None:
    """A floor no seating's meetings cost goes below, when everybody plays every round
    (P = 10·T); None otherwise.

    With X the players × (round, table) incidence matrix, m = XXᵀ off the diagonal, and
    ‖XXᵀ‖² = ‖XᵀX‖²: a round's own block is 10² per table, and two rounds' block (how many
    of table t of one sit at table u of the other) has margins of ten, so its squares sum
    to at least that of the most even integer matrix. Σm is fixed, so Σ(m − E)² follows."""
    rounds = problem.round_tables
    if problem.players != problem.tables * SEATS or any(t != problem.tables for t in rounds):
        return None
    size, count = problem.tables, len(rounds)
    low, high = divmod(SEATS, size)  # a row: `high` cells of low + 1, the rest low
    even = size * (high * (low + 1) ** 2 + (size - high) * low**2)
    own = size * SEATS**2
    squares = (count * own + count * (count - 1) * even - problem.players * count**2) / 2
    met = count * size * SEATS * (SEATS - 1) / 2  # Σ m over pairs
    pairs = problem.players * (problem.players - 1) / 2
    e = problem.meetings_expected
    # a keep-apart pair that never meets costs 0, not E² (and one that meets, more than (m−E)²)
    return squares - 2 * e * met + pairs * e * e - len(problem.keep_apart) * e * e


def meetings_tables_lower_bound(problem: Problem) -> float | None:
    """A floor for meetings + tables together, when everybody plays every round; None
    otherwise. Two rounds' block N adds ΣN² to the meetings and 2·trace(N) to the tables
    (players at the same table number in both), and ΣN² + 2·tr N = Σ(N + I)² − T is least
    for the most even matrix with margins eleven."""
    meetings = meetings_lower_bound(problem)
    if meetings is None or problem.tables < TABLES_COUNTED_FROM:
        return meetings
    size, count, players = problem.tables, len(problem.round_tables), problem.players
    low, high = divmod(SEATS + 1, size)
    even = size * (high * (low + 1) ** 2 + (size - high) * low**2) - size  # Σ(N + I)² − T
    low, high = divmod(SEATS, size)
    plain = size * (high * (low + 1) ** 2 + (size - high) * low**2)  # ΣN², in `meetings`
    pairs = count * (count - 1) / 2
    tables = players * count - players * problem.games**2 / size  # Σc² − P·G²/T, c = G
    return meetings + pairs * (even - plain) + tables
