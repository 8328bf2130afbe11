"""What is to be seated (players, tables per round, games per player, keep-apart pairs) and
the seating itself, with the checks that refuse impossible sizes and invalid seatings.

A seating is rounds → tables → seats: `seating[r][t][s]` is the player (0 .. P-1) at seat
s + 1 of table t + 1 in round r + 1. Rounds hold `tables` tables, the last one may hold fewer
(mafiaratings' `SeatingDef::generateInitialSeating`: P·G/10 games in all); when P > 10·T
some players sit a round out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SEATS = 10  # players at a table (seed: a game of sport mafia has ten players)

Table = tuple[int, ...]
Round = tuple[Table, ...]
Seating = tuple[Round, ...]


class SeatingError(ValueError):
    """Bad input for the seating: the message names what is wrong."""


class SeatingImpossible(SeatingError):
    """These sizes or keep-apart pairs cannot be seated at all."""


class InvalidSeating(SeatingError):
    """A seating that breaks a rule (a player twice in a round, a table not of ten, ...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """P players, T tables per round, G games per player, pairs that must never meet."""

    players: int
    tables: int
    games: int
    keep_apart: frozenset[tuple[int, int]] = frozenset()

    def __post_init__(self) -> None:
        check_sizes(self.players, self.tables, self.games)
        for a, b in self.keep_apart:
            if not (0 <= a < b < self.players):
                raise SeatingError(
                    f"keep-apart pair ({a}, {b}): players are numbered 0..{self.players - 1} "
                    "and a pair is written (smaller, larger)"
                )

    @classmethod
    def build(
        cls,
        *,
        players: int,
        tables: int,
        games: int | None = None,
        rounds: int | None = None,
        keep_apart: Iterable[tuple[int, int]] = (),
    ) -> Problem:
        """A problem from games per player or from a number of full rounds (exactly one)."""
        if (games is None) == (rounds is None):
            raise SeatingError("give either games per player or a number of rounds, not both")
        if rounds is not None:
            if rounds < 1 or tables < 1 or players < 1:
                raise SeatingImpossible(f"{rounds} rounds of {tables} tables: nothing to seat")
            seats = rounds * tables * SEATS
            if seats % players:
                raise SeatingImpossible(
                    f"{rounds} rounds × {tables} tables × {SEATS} seats = {seats} seats do not "
                    f"share equally among {players} players"
                )
            games = seats // players
        assert games is not None
        pairs = set()
        for a, b in keep_apart:
            if a == b:
                raise SeatingError(f"keep-apart pair ({a}, {b}) names one player twice")
            pairs.add((min(a, b), max(a, b)))
        return cls(players=players, tables=tables, games=games, keep_apart=frozenset(pairs))

    @property
    def round_tables(self) -> tuple[int, ...]:
        """Tables in each round: T each, the last round the remainder."""
        total = self.players * self.games // SEATS
        full, rest = divmod(total, self.tables)
        return (self.tables,) * full + ((rest,) if rest else ())

    @property
    def meetings_expected(self) -> float:
        """E = 9G/(P-1): how often each pair would meet if meetings were shared evenly."""
        return (SEATS - 1) * self.games / (self.players - 1)

    def partners(self) -> tuple[frozenset[int], ...]:
        """Each player's keep-apart partners."""
        found: list[set[int]] = [set() for _ in range(self.players)]
        for a, b in self.keep_apart:
            found[a].add(b)
            found[b].add(a)
        return tuple(frozenset(p) for p in found)


def check_sizes(players: int, tables: int, games: int) -> None:
    """Refuse sizes that cannot be seated with a clear message (SeatingImpossible)."""
    if players < SEATS:
        raise SeatingImpossible(f"{players} players: a table needs {SEATS}")
    if tables < 1:
        raise SeatingImpossible(f"{tables} tables per round: at least one is needed")
    if games < 1:
        raise SeatingImpossible(f"{games} games per player: at least one is needed")
    if tables * SEATS > players:
        raise SeatingImpossible(
            f"{tables} tables need {tables * SEATS} players per round but there are only "
            f"{players}: at most {players // SEATS} tables"
        )
    if players * games % SEATS:
        raise SeatingImpossible(
            f"{players} players × {games} games = {players * games} seats, not a multiple of "
            f"{SEATS}: not every player can play the same number of games"
        )


def freeze(rounds: Sequence[Sequence[Sequence[int]]]) -> Seating:
    """A seating as nested tuples."""
    return tuple(tuple(tuple(table) for table in tables) for tables in rounds)


def check_seating(problem: Problem, seating: Seating) -> None:
    """Raise InvalidSeating unless every rule holds: the rounds have the problem's tables,
    each table ten distinct players, nobody twice in a round, every player G games, and
    no keep-apart pair at one table."""
    if tuple(len(r) for r in seating) != problem.round_tables:
        raise InvalidSeating(
            f"tables per round {[len(r) for r in seating]}, expected {list(problem.round_tables)}"
        )
    games = [0] * problem.players
    partners = problem.partners()
    for r, tables in enumerate(seating, 1):
        seen: set[int] = set()
        for t, table in enumerate(tables, 1):
            if len(table) != SEATS:
                raise InvalidSeating(f"round {r} table {t} has {len(table)} players, not {SEATS}")
            for player in table:
                if not 0 <= player < problem.players:
                    raise InvalidSeating(f"round {r} table {t}: no player {player}")
                if player in seen:
                    raise InvalidSeating(f"round {r}: player {player} sits twice")
                seen.add(player)
                games[player] += 1
            members = set(table)
            for player in table:
                clash = partners[player] & members
                if clash:
                    raise InvalidSeating(
                        f"round {r} table {t}: keep-apart players {player} and {min(clash)} meet"
                    )
    wrong = [p for p, g in enumerate(games) if g != problem.games]
    if wrong:
        raise InvalidSeating(
            f"player {wrong[0]} plays {games[wrong[0]]} games, not {problem.games}"
        )
