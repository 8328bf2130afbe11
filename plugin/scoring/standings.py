"""Standings of a period: every signed game's seat scores summed per player, Ci added from
the player's whole period, ranked by the system's tie-breaks (mafiaratings' event_scores and
compare_scores).

A game can be put (signed, or corrected: its old scores are taken away first) and removed;
the sums are exact, so any order of puts and removals that ends with the same games gives
the same standings as a recomputation from scratch."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache

from .points import SeatScore, ci_value
from .system import ROLES, ScoringSystem

SPECIAL_ROLES = frozenset({"sheriff", "don"})


# Sums are kept in whole millionths of a point (Python integers: exact, and many times faster
# to add than fractions; bench/standings.py). Every number a system or a judge gives is a
# decimal of at most six places (a judge's points are multiples of the system's step), so a
# seat's points are whole millionths; anything else is refused rather than rounded.
UNIT = 10**6


@lru_cache(maxsize=4096)  # a season's seats hold a few dozen distinct values
def units(value: Fraction) -> int:
    whole, rest = divmod(value.numerator * UNIT, value.denominator)
    if rest:
        raise ValueError(f"{value} is not a whole number of millionths of a point")
    return whole


@dataclass(slots=True)
class RoleTotals:
    games: int = 0
    wins: int = 0
    first_killed: int = 0
    best_moves: int = 0
    best_move_correct: int = 0
    fouls: int = 0
    points_units: int = 0

    @property
    def points(self) -> Fraction:
        return Fraction(self.points_units, UNIT)


@dataclass(slots=True)
class Totals:
    """A player's sums over the period (the per-role ones for his page)."""

    games: int = 0
    wins: int = 0
    special_role_wins: int = 0
    first_night_deaths: int = 0
    ci_games: int = 0
    main_units: int = 0
    extra_units: int = 0
    best_move_units: int = 0
    penalty_units: int = 0
    roles: dict[str, RoleTotals] = field(default_factory=lambda: {r: RoleTotals() for r in ROLES})

    @property
    def main(self) -> Fraction:
        return Fraction(self.main_units, UNIT)

    @property
    def extra(self) -> Fraction:
        return Fraction(self.extra_units, UNIT)

    @property
    def best_move(self) -> Fraction:
        return Fraction(self.best_move_units, UNIT)

    @property
    def penalty(self) -> Fraction:
        return Fraction(self.penalty_units, UNIT)

    def add(self, score: SeatScore, sign: int) -> None:
        main, extra = units(score.main), units(score.extra)
        best, penalty = units(score.best_move), units(score.penalty)
        self.games += sign
        self.wins += sign * score.won
        self.special_role_wins += sign * (score.won and score.role in SPECIAL_ROLES)
        self.first_night_deaths += sign * score.first_night_death
        self.ci_games += sign * score.ci_eligible
        self.main_units += sign * main
        self.extra_units += sign * extra
        self.best_move_units += sign * best
        self.penalty_units += sign * penalty
        role = self.roles[score.role]
        role.games += sign
        role.wins += sign * score.won
        role.first_killed += sign * score.first_night_death
        if score.best_move_correct is not None:
            role.best_moves += sign
            role.best_move_correct += sign * score.best_move_correct
        role.fouls += sign * score.fouls
        role.points_units += sign * (main + extra + best + penalty)


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One line of the standings."""

    rank: int
    player: str
    games: int
    wins: int
    special_role_wins: int
    first_night_deaths: int
    main: Fraction
    extra: Fraction
    best_move: Fraction
    penalty: Fraction
    ci: Fraction
    total: Fraction

    @property
    def extra_penalty_best_move(self) -> Fraction:
        return self.extra + self.penalty + self.best_move

    def tie_break(self, name: str) -> Fraction | int:
        value: Fraction | int = getattr(self, name)
        return value

    def record(self) -> dict[str, object]:
        """The row as JSON-ready numbers (points rounded to hundredths for display)."""
        return {
            "rank": self.rank,
            "player": self.player,
            "games": self.games,
            "wins": self.wins,
            "special_role_wins": self.special_role_wins,
            "first_night_deaths": self.first_night_deaths,
            **{
                key: round(float(getattr(self, key)), 2)
                for key in ("main", "extra", "best_move", "penalty", "ci", "total")
            },
        }


class Standings:
    """The live standings of one period under one scoring system."""

    def __init__(self, system: ScoringSystem) -> None:
        self.system = system
        self._games: dict[str, tuple[SeatScore, ...]] = {}
        self._totals: dict[str, Totals] = {}

    def put(self, game_id: str, scores: Iterable[SeatScore]) -> None:
        """Sign a game, or replace its scores after a correction."""
        self.remove(game_id)
        kept = tuple(scores)
        self._games[game_id] = kept
        for score in kept:
            totals = self._totals.get(score.player)
            if totals is None:
                totals = self._totals[score.player] = Totals()
            totals.add(score, +1)

    def remove(self, game_id: str) -> None:
        """Take a game out (its scores subtracted); nothing if it is not in."""
        for score in self._games.pop(game_id, ()):
            totals = self._totals[score.player]
            totals.add(score, -1)
            if totals.games == 0:
                del self._totals[score.player]

    def __contains__(self, game_id: str) -> bool:
        return game_id in self._games

    def copy(self) -> Standings:
        """Standings of their own, equal to these now (a view with a few games scored
        otherwise costs the players, not the games: issue 34's hidden extras)."""
        other = Standings(self.system)
        other._games = dict(self._games)
        other._totals = {player: _copied(totals) for player, totals in self._totals.items()}
        return other

    @property
    def games(self) -> int:
        return len(self._games)

    def totals(self, player: str) -> Totals | None:
        return self._totals.get(player)

    def _row(self, player: str, totals: Totals) -> Row:
        ci = totals.ci_games * ci_value(self.system, totals.first_night_deaths, totals.games)
        return Row(
            rank=0,
            player=player,
            games=totals.games,
            wins=totals.wins,
            special_role_wins=totals.special_role_wins,
            first_night_deaths=totals.first_night_deaths,
            main=totals.main,
            extra=totals.extra,
            best_move=totals.best_move,
            penalty=totals.penalty,
            ci=ci,
            total=totals.main + totals.extra + totals.best_move + totals.penalty + ci,
        )

    def rows(self) -> list[Row]:
        """Every player with a game, ranked: higher first on each tie-break in turn; players
        equal on all of them share a rank (listed by player id)."""
        rows = [self._row(player, totals) for player, totals in self._totals.items()]
        breaks = self.system.tie_breaks

        def key(row: Row) -> tuple[object, ...]:
            return tuple(-row.tie_break(name) for name in breaks)

        rows.sort(key=lambda row: (key(row), row.player))
        ranked: list[Row] = []
        for index, row in enumerate(rows):
            same = ranked and key(ranked[-1]) == key(row)
            rank = ranked[-1].rank if same else index + 1
            ranked.append(_with_rank(row, rank))
        return ranked


def _copied(totals: Totals) -> Totals:
    fields = {name: getattr(totals, name) for name in Totals.__slots__ if name != "roles"}
    roles = {role: replace(sums) for role, sums in totals.roles.items()}
    return Totals(**fields, roles=roles)


def _with_rank(row: Row, rank: int) -> Row:
    fields = {name: getattr(row, name) for name in Row.__slots__ if name != "rank"}
    return Row(rank=rank, **fields)
