"""A signed game's points per seat under a scoring system (mafiaratings' add_player_score for
the groups main, extra, legacy (best move) and penalty). Ci, the first-night compensation,
depends on the player's whole period and is added by `plugin.scoring.standings`.

Exact arithmetic (fractions): the standings are sums over many games, and a sum must not
depend on the order the games were added or taken away in."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .record import RED, TEAMS, Game, Seat, Sheet
from .system import ScoringSystem, exact

ZERO = Fraction(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatScore:
    """One seat's result in one game: the points of each group and the facts the standings
    count (win, a win as sheriff or don, a first-night death as red, Ci eligibility)."""

    seat: int
    player: str
    role: str
    won: bool
    main: Fraction
    extra: Fraction
    best_move: Fraction
    penalty: Fraction
    first_night_death: bool  # red, shot on night 1 (K of Ci counts these)
    ci_eligible: bool  # ... and his team lost (matter 260: killed first night + lose)
    best_move_correct: int | None  # how many black seats his best move named (if his)
    fouls: int

    @property
    def points(self) -> Fraction:
        """The game's points without Ci."""
        return self.main + self.extra + self.best_move + self.penalty


def _won(seat: Seat, winner: str | None) -> bool:
    return winner in TEAMS and seat.role in TEAMS[winner]


def _lost(seat: Seat, winner: str | None) -> bool:
    return winner in TEAMS and not _won(seat, winner)


def score_seat(system: ScoringSystem, game: Game, sheet: Sheet, seat: Seat) -> SeatScore:
    won = _won(seat, game.winner)
    main = exact(system.win) if won else ZERO
    # extra: the judge's bonus() plus the auto-bonus unless the judge removed it (matter 24)
    bonuses = sheet.extra.get(seat.seat, ())
    extra = sum((b.points for b in bonuses), ZERO) if bonuses else ZERO
    if seat.seat not in sheet.auto_bonus_removed:
        extra = extra + exact(system.auto_bonus) if bonuses else exact(system.auto_bonus)
    # legacy: a red first-killed player who named three (0.7) or two (0.5) black seats
    correct = None
    best = ZERO
    if game.best_move_by == seat.seat:
        correct = game.best_move_correct
        if sheet.best_move_correct is not None:
            correct = sheet.best_move_correct
        if seat.role in system.best_move_roles:
            best = {3: exact(system.best_move_three), 2: exact(system.best_move_two)}.get(
                correct or 0, ZERO
            )
    # penalty: removed by four fouls, disqualified or conceded (-0.5), else the whole team
    # disqualified (-0.7); never both (the expression's `?:`)
    penalty = ZERO
    if seat.out in system.removed_by:
        penalty = exact(system.removed)
    elif sheet.team_disqualified is not None and seat.role in TEAMS[sheet.team_disqualified]:
        penalty = exact(system.team_disqualified)
    first_night_death = seat.role in RED and seat.killed_first_night
    return SeatScore(
        seat=seat.seat,
        player=seat.player,
        role=seat.role,
        won=won,
        main=main,
        extra=extra,
        best_move=best,
        penalty=penalty,
        first_night_death=first_night_death,
        ci_eligible=first_night_death and _lost(seat, game.winner),
        best_move_correct=correct,
        fouls=seat.fouls,
    )


def score_game(system: ScoringSystem, game: Game, sheet: Sheet) -> tuple[SeatScore, ...]:
    """Every seat's score (the sheet must have been checked: `record.check_sheet`)."""
    return tuple(score_seat(system, game, sheet, seat) for seat in game.seats)


def php_round(value: Fraction) -> int:
    """PHP's round(): halves away from zero (Python's round() goes to the even neighbour)."""
    whole, rest = divmod(abs(value), 1)
    result = int(whole) + (1 if rest >= Fraction(1, 2) else 0)
    return result if value >= 0 else -result


def ci_value(system: ScoringSystem, first_night_deaths: int, games: int) -> Fraction:
    """Ci of one eligible game: min(C, C*K/round(share*N)), at least 0; 0 where the
    denominator rounds to 0 (see config/scoring/fiim.toml, [ci])."""
    c = exact(system.ci_c)
    denominator = php_round(exact(system.ci_share) * games)
    if denominator == 0:
        return ZERO
    return max(min(c * first_night_deaths / denominator, c), ZERO)
