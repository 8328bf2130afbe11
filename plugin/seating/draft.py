"""A seating being improved: the rounds as mutable lists with the counts the cost is made of
(meetings per pair, games per seat, games per table), kept up to date by every move, and
each move's exact cost change computed from those counts in a few operations.

Moves: `swap` (two players of one round trade table and seat), `swap_seats` (two players of
one table trade seat numbers), `swap_tables` (two tables of a round trade numbers),
`exchange` (when some sit a round out: a plays b's game in one round, b plays a's in
another, so both keep G games).
"""

from __future__ import annotations

from .cost import (
    KEEP_APART_FACTOR,
    PAIR_FACTOR,
    SEAT_WEIGHTS,
    SINGLE_FACTOR,
    TABLES_COUNTED_FROM,
    player_seat_cost,
)
from .problem import SEATS, Problem, Seating, freeze

OUT = -1  # a player's table in a round he sits out
KEEP = KEEP_APART_FACTOR**2


class Draft:
    """A mutable seating with its counts (see the module's docstring)."""

    def __init__(self, problem: Problem, rounds: list[list[list[int]]]) -> None:
        self.problem = problem
        self.rounds = rounds
        self.partners = problem.partners()
        self.expected = problem.meetings_expected
        players = problem.players
        self.met = [[0] * players for _ in range(players)]
        self.seat_games = [[0] * SEATS for _ in range(players)]
        self.table_games = [[0] * problem.tables for _ in range(players)]
        self.table_of = [[OUT] * players for _ in rounds]
        self.seat_of = [[OUT] * players for _ in rounds]
        self.tables_count = problem.tables >= TABLES_COUNTED_FROM
        for r, tables in enumerate(rounds):
            for t, table in enumerate(tables):
                for s, p in enumerate(table):
                    self.table_of[r][p] = t
                    self.seat_of[r][p] = s
                    self.seat_games[p][s] += 1
                    self.table_games[p][t] += 1
                    row = self.met[p]
                    for q in table:
                        if q != p:
                            row[q] += 1

    @classmethod
    def of(cls, problem: Problem, seating: Seating) -> Draft:
        return cls(problem, [[list(table) for table in tables] for tables in seating])

    def seating(self) -> Seating:
        return freeze(self.rounds)

    # -- meetings -------------------------------------------------------------------------

    def swap_meetings_delta(self, r: int, a: int, b: int) -> float:
        """The meetings cost change if a and b (different tables of round r) trade places.

        Nine of a's pairs lose a meeting and nine gain one, as for b: with f(m) = (m − E)²,
        the sum of f(m±1) − f(m) is 36 + 2·(a's meetings at b's table − at his own + the
        same for b); E cancels. Keep-apart pairs are then corrected to their own weight."""
        met, tables = self.met, self.rounds[r]
        mine, theirs = tables[self.table_of[r][a]], tables[self.table_of[r][b]]
        ma, mb = met[a], met[b]
        delta: float = 36 + 2 * (
            sum(map(ma.__getitem__, theirs))
            - sum(map(ma.__getitem__, mine))
            + sum(map(mb.__getitem__, mine))
            - sum(map(mb.__getitem__, theirs))
            - 2 * ma[b]
        )
        if self.partners[a] or self.partners[b]:
            delta += self._keep_correction(r, a, b) + self._keep_correction(r, b, a)
        return float(delta)

    def _keep_correction(self, r: int, a: int, b: int) -> float:
        """What a's keep-apart pairs change beyond the plain formula when a takes b's table."""
        fix = 0.0
        row, where = self.met[a], self.table_of[r]
        mine, theirs = where[a], where[b]
        for q in self.partners[a]:
            if q == b:
                continue
            m = row[q]
            if where[q] == mine:  # the pair loses a meeting
                fix += KEEP * (1 - 2 * m) - (1 - 2 * (m - self.expected))
            elif where[q] == theirs:  # the pair gains one
                fix += KEEP * (1 + 2 * m) - (1 + 2 * (m - self.expected))
        return fix

    def swap_breaks_keep_apart(self, r: int, a: int, b: int) -> bool:
        """Would a at b's table, or b at a's, sit with a keep-apart partner?"""
        where = self.table_of[r]
        return any(where[q] == where[b] for q in self.partners[a] if q != b) or any(
            where[q] == where[a] for q in self.partners[b] if q != a
        )

    # -- seats and tables -----------------------------------------------------------------

    def seat_move_delta(self, player: int, old: int, new: int) -> float:
        """The seats cost change if one of player's games moves from seat old to seat new."""
        if old == new:
            return 0.0
        counts, games = self.seat_games[player], self.problem.games
        single, pair, half = games / SEATS, games / (SEATS // 2), games / 2
        delta = SINGLE_FACTOR * (
            SEAT_WEIGHTS[old] * (1 - 2 * (counts[old] - single))
            + SEAT_WEIGHTS[new] * (1 + 2 * (counts[new] - single))
        )
        po, pn = old // 2, new // 2
        if po != pn:
            so = counts[2 * po] + counts[2 * po + 1]
            sn = counts[2 * pn] + counts[2 * pn + 1]
            delta += PAIR_FACTOR * ((1 - 2 * (so - pair)) + (1 + 2 * (sn - pair)))
        if (old < 5) != (new < 5):
            ho = sum(counts[:5]) if old < 5 else sum(counts[5:])
            hn = games - ho
            delta += (1 - 2 * (ho - half)) + (1 + 2 * (hn - half))
        return delta

    def table_move_delta(self, player: int, old: int, new: int) -> float:
        """The tables cost change if one of player's games moves from table old to new."""
        if old == new or not self.tables_count:
            return 0.0
        counts = self.table_games[player]
        expected = self.problem.games / self.problem.tables
        return (1 - 2 * (counts[old] - expected)) + (1 + 2 * (counts[new] - expected))

    def swap_delta(self, r: int, a: int, b: int) -> tuple[float, float, float]:
        """(meetings, seats, tables) change if a and b of round r trade table and seat."""
        ta, tb = self.table_of[r][a], self.table_of[r][b]
        sa, sb = self.seat_of[r][a], self.seat_of[r][b]
        meetings = self.swap_meetings_delta(r, a, b) if ta != tb else 0.0
        seats = self.seat_move_delta(a, sa, sb) + self.seat_move_delta(b, sb, sa)
        tables = self.table_move_delta(a, ta, tb) + self.table_move_delta(b, tb, ta)
        return meetings, seats, tables

    def seat_cost_with(self, player: int, old: int, new: int) -> float:
        """player's seats cost if his game at seat old were at seat new instead."""
        counts = list(self.seat_games[player])
        counts[old] -= 1
        counts[new] += 1
        return player_seat_cost(counts, self.problem.games)

    # -- applying moves -------------------------------------------------------------------

    def swap(self, r: int, a: int, b: int) -> None:
        """a and b (both playing round r) trade table and seat."""
        ta, tb = self.table_of[r][a], self.table_of[r][b]
        sa, sb = self.seat_of[r][a], self.seat_of[r][b]
        tables = self.rounds[r]
        if ta != tb:
            met = self.met
            for x in tables[ta]:
                if x != a:
                    met[a][x] -= 1
                    met[x][a] -= 1
                    met[b][x] += 1
                    met[x][b] += 1
            for y in tables[tb]:
                if y != b:
                    met[b][y] -= 1
                    met[y][b] -= 1
                    met[a][y] += 1
                    met[y][a] += 1
        tables[ta][sa], tables[tb][sb] = b, a
        self._move(a, sa, sb, ta, tb)
        self._move(b, sb, sa, tb, ta)
        self.table_of[r][a], self.table_of[r][b] = tb, ta
        self.seat_of[r][a], self.seat_of[r][b] = sb, sa

    def _move(self, player: int, old_seat: int, new_seat: int, old: int, new: int) -> None:
        self.seat_games[player][old_seat] -= 1
        self.seat_games[player][new_seat] += 1
        self.table_games[player][old] -= 1
        self.table_games[player][new] += 1

    def swap_tables(self, r: int, t: int, u: int) -> None:
        """Tables t and u of round r trade numbers (players and seats stay together)."""
        tables = self.rounds[r]
        for p in tables[t]:
            self.table_games[p][t] -= 1
            self.table_games[p][u] += 1
            self.table_of[r][p] = u
        for p in tables[u]:
            self.table_games[p][u] -= 1
            self.table_games[p][t] += 1
            self.table_of[r][p] = t
        tables[t], tables[u] = tables[u], tables[t]

    def swap_tables_delta(self, r: int, t: int, u: int) -> float:
        """The tables cost change of `swap_tables`."""
        tables = self.rounds[r]
        return sum(self.table_move_delta(p, t, u) for p in tables[t]) + sum(
            self.table_move_delta(p, u, t) for p in tables[u]
        )

    def seat_table(self, r: int, t: int, order: list[int]) -> None:
        """Give table t of round r a new seat order (the same ten players)."""
        table = self.rounds[r][t]
        for s, p in enumerate(table):
            self.seat_games[p][s] -= 1
        for s, p in enumerate(order):
            self.seat_games[p][s] += 1
            self.seat_of[r][p] = s
        table[:] = order

    def exchange_meetings_delta(self, r1: int, a: int, r2: int, b: int) -> float:
        """Meetings cost change if b takes a's place in round r1 (b sits it out) and a takes
        b's place in round r2 (a sits it out)."""
        x = [p for p in self.rounds[r1][self.table_of[r1][a]] if p != a]
        y = [p for p in self.rounds[r2][self.table_of[r2][b]] if p != b]
        change: dict[tuple[int, int], int] = {}
        for p in x:
            change[(a, p)] = change.get((a, p), 0) - 1
            change[(b, p)] = change.get((b, p), 0) + 1
        for p in y:
            change[(a, p)] = change.get((a, p), 0) + 1
            change[(b, p)] = change.get((b, p), 0) - 1
        delta = 0.0
        e = self.expected
        for (p, q), d in change.items():
            if d:
                m = self.met[p][q]
                if q in self.partners[p]:
                    delta += KEEP * ((m + d) ** 2 - m**2)
                else:
                    delta += (m + d - e) ** 2 - (m - e) ** 2
        return delta

    def exchange_breaks_keep_apart(self, r1: int, a: int, r2: int, b: int) -> bool:
        w1, w2 = self.table_of[r1], self.table_of[r2]
        return any(w1[q] == w1[a] for q in self.partners[b]) or any(
            w2[q] == w2[b] for q in self.partners[a]
        )

    def exchange(self, r1: int, a: int, r2: int, b: int) -> None:
        """Apply the move of `exchange_meetings_delta`."""
        self._replace(r1, a, b)
        self._replace(r2, b, a)

    def _replace(self, r: int, old: int, new: int) -> None:
        t, s = self.table_of[r][old], self.seat_of[r][old]
        table = self.rounds[r][t]
        met = self.met
        for x in table:
            if x != old:
                met[old][x] -= 1
                met[x][old] -= 1
                met[new][x] += 1
                met[x][new] += 1
        table[s] = new
        self.seat_games[old][s] -= 1
        self.seat_games[new][s] += 1
        self.table_games[old][t] -= 1
        self.table_games[new][t] += 1
        self.table_of[r][new], self.seat_of[r][new] = t, s
        self.table_of[r][old] = self.seat_of[r][old] = OUT

    def renumber_tables(self, r: int, new_number: list[int]) -> None:
        """Table t of round r becomes table new_number[t] (a permutation)."""
        tables = self.rounds[r]
        moved: list[list[int]] = [[] for _ in tables]
        for t, table in enumerate(tables):
            u = new_number[t]
            for p in table:
                self.table_games[p][t] -= 1
                self.table_games[p][u] += 1
                self.table_of[r][p] = u
            moved[u] = table
        tables[:] = moved

    def keep_apart_meetings(self) -> int:
        """Times keep-apart players sit together in the draft."""
        return sum(self.met[a][b] for a, b in self.problem.keep_apart)
