"""What scoring reads of a finished game: each seat's player, role, result and how he left
(from the game's protocol, `plugin.protocol`), and the judge's parts of the sheet (extra
points with their comments, a removed auto-bonus, a corrected best move, a disqualified team).

Pure data and checks: a sheet that breaks the system's rules is refused with ScoringError
and nothing is built."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .system import ROLES, ScoringError, ScoringSystem, exact

RED = frozenset({"civilian", "sheriff"})
TEAMS = {"city": RED, "mafia": frozenset({"mafia", "don"})}
MAX_COMMENT = 500


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """One seat of a finished game as scoring needs it."""

    seat: int
    player: str  # the club's player id, or "guest:<name>" for a guest
    role: str
    out: str | None = None  # vote | killed | fouls | disqualified | left | None (stayed)
    night: int | None = None  # the night he was killed, when out == "killed"
    fouls: int = 0

    @property
    def red(self) -> bool:
        return self.role in RED

    @property
    def killed_first_night(self) -> bool:
        """Shot on the first shooting night (night 1; night zero has no shot)."""
        return self.out == "killed" and self.night == 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Game:
    """A finished game: its seats, the winner (city | mafia | draw | None: no result) and the
    engine's best move (who named how many black seats)."""

    seats: tuple[Seat, ...]
    winner: str | None
    best_move_by: int | None = None
    best_move_correct: int | None = None

    def seat(self, number: int) -> Seat:
        return self.seats[number - 1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Bonus:
    points: Fraction
    comment: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Sheet:
    """The judge's parts: per seat extra points (each with a comment), auto-bonuses removed
    (with why), a corrected best move (how many named seats count, with why), a team
    disqualified as a whole (with why)."""

    extra: Mapping[int, tuple[Bonus, ...]] = field(default_factory=dict)
    auto_bonus_removed: Mapping[int, str] = field(default_factory=dict)
    best_move_correct: int | None = None
    best_move_reason: str = ""
    team_disqualified: str | None = None
    team_reason: str = ""


def game_from_protocol(protocol: Mapping[str, Any], players: Mapping[int, str]) -> Game:
    """The scoring view of a game protocol (`plugin.protocol.export`); `players` maps a seat
    to the club's player id. ScoringError when the game has no roles or is not over."""
    if not protocol.get("over"):
        raise ScoringError("not_over", "a game is scored once it is over")
    seats = []
    for entry in protocol.get("players", []):
        number = int(entry["seat"])
        role = entry.get("role")
        if role not in ROLES:
            raise ScoringError("no_roles", f"seat {number} has no role: the game was not dealt")
        out = entry.get("out") or {}
        seats.append(
            Seat(
                seat=number,
                player=players.get(number) or f"guest:{entry.get('name') or number}",
                role=role,
                out=out.get("how"),
                night=out.get("night"),
                fouls=int(entry.get("fouls", 0)),
            )
        )
    best = protocol.get("best_move") or {}
    return Game(
        seats=tuple(seats),
        winner=protocol.get("winner"),
        best_move_by=best.get("by"),
        best_move_correct=best.get("correct"),
    )


def _comment(text: Any, what: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ScoringError("comment_required", f"{what} needs a comment saying why")
    if len(text) > MAX_COMMENT:
        raise ScoringError("comment_too_long", f"{what}: a comment of at most {MAX_COMMENT}")
    return text.strip()


def points_value(value: Any, system: ScoringSystem, what: str) -> Fraction:
    """Judge's points as an exact fraction, within the system's range and step."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ScoringError("bad_points", f"{what}: points must be a number")
    try:
        points = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise ScoringError("bad_points", f"{what}: {value!r} is not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ScoringError("bad_points", f"{what}: points must be finite")
    low, high = exact(system.judge_min), exact(system.judge_max)
    if not low <= points <= high:
        raise ScoringError(
            "points_out_of_range",
            f"{what}: {value} is outside {system.judge_min}..{system.judge_max}",
        )
    if (points / exact(system.judge_step)).denominator != 1:
        raise ScoringError("bad_points", f"{what}: points go in steps of {system.judge_step}")
    return points


def check_sheet(sheet: Sheet, game: Game, system: ScoringSystem) -> None:
    """Refuse a sheet this system or this game does not allow (nothing is changed)."""
    players = len(game.seats)
    named = set(sheet.extra) | set(sheet.auto_bonus_removed)
    for seat in sorted(named):
        if not isinstance(seat, int) or not 1 <= seat <= players:
            raise ScoringError("bad_seat", f"seat {seat!r} is not at this table (1..{players})")
    low, high = exact(system.judge_min), exact(system.judge_max)
    for seat, bonuses in sheet.extra.items():
        for bonus in bonuses:
            _comment(bonus.comment, f"seat {seat}'s extra points")
        total = sum((b.points for b in bonuses), Fraction(0))
        if not low <= total <= high:
            raise ScoringError(
                "points_out_of_range",
                f"seat {seat}: extra points add up to {float(total)}, outside "
                f"{system.judge_min}..{system.judge_max}",
            )
    for seat, reason in sheet.auto_bonus_removed.items():
        _comment(reason, f"removing seat {seat}'s auto-bonus")
    if sheet.best_move_correct is not None:
        if game.best_move_by is None:
            raise ScoringError("no_best_move", "nobody made a best move in this game")
        if sheet.best_move_correct not in (0, 1, 2, 3):
            raise ScoringError("bad_best_move", "a best move names 0 to 3 black seats")
        _comment(sheet.best_move_reason, "correcting the best move")
    if sheet.team_disqualified is not None:
        if sheet.team_disqualified not in TEAMS:
            raise ScoringError("bad_team", f"team must be one of {sorted(TEAMS)}")
        _comment(sheet.team_reason, "disqualifying a team")


def sheet_from_json(document: Any, game: Game, system: ScoringSystem) -> Sheet:
    """A judge's sheet from its JSON form, checked; ScoringError names the first problem.

    {"extra": {"3": [{"points": 0.3, "comment": "..."}]}, "auto_bonus_removed": {"5": "why"},
     "best_move": {"correct": 2, "reason": "..."}, "team_disqualified": {"team": "mafia",
     "reason": "..."}}"""
    if not isinstance(document, dict):
        raise ScoringError("bad_sheet", "a sheet is a JSON object")
    unknown = set(document) - {"extra", "auto_bonus_removed", "best_move", "team_disqualified"}
    if unknown:
        raise ScoringError("bad_sheet", f"unknown sheet fields {sorted(unknown)}")

    def seat_key(key: Any) -> int:
        if not isinstance(key, str) or not key.isdigit() or len(key) > 2:
            raise ScoringError("bad_seat", f"{key!r} is not a seat number")
        return int(key)

    extra: dict[int, tuple[Bonus, ...]] = {}
    raw_extra = document.get("extra", {})
    if not isinstance(raw_extra, dict):
        raise ScoringError("bad_sheet", "extra must be an object of seat -> list")
    for key, items in raw_extra.items():
        seat = seat_key(key)
        if not isinstance(items, list) or len(items) > 10:
            raise ScoringError("bad_sheet", f"seat {seat}: extra is a list of at most 10")
        bonuses = []
        for item in items:
            if not isinstance(item, dict) or set(item) - {"points", "comment"}:
                raise ScoringError("bad_sheet", f"seat {seat}: each is {{points, comment}}")
            points = points_value(item.get("points"), system, f"seat {seat}'s extra points")
            bonuses.append(
                Bonus(
                    points=points,
                    comment=_comment(item.get("comment"), f"seat {seat}'s extra points"),
                )
            )
        extra[seat] = tuple(bonuses)
    removed_raw = document.get("auto_bonus_removed", {})
    if not isinstance(removed_raw, dict):
        raise ScoringError("bad_sheet", "auto_bonus_removed must be an object of seat -> why")
    removed = {seat_key(k): v for k, v in removed_raw.items()}
    best = document.get("best_move")
    team = document.get("team_disqualified")
    if best is not None and (not isinstance(best, dict) or set(best) - {"correct", "reason"}):
        raise ScoringError("bad_sheet", "best_move is {correct, reason}")
    if team is not None and (not isinstance(team, dict) or set(team) - {"team", "reason"}):
        raise ScoringError("bad_sheet", "team_disqualified is {team, reason}")
    correct = None if best is None else best.get("correct")
    if correct is not None and (isinstance(correct, bool) or not isinstance(correct, int)):
        raise ScoringError("bad_best_move", "best_move.correct is a whole number 0..3")
    sheet = Sheet(
        extra=extra,
        auto_bonus_removed=removed,
        best_move_correct=correct,
        best_move_reason="" if best is None else str(best.get("reason") or ""),
        team_disqualified=None if team is None else team.get("team"),
        team_reason="" if team is None else str(team.get("reason") or ""),
    )
    check_sheet(sheet, game, system)
    return sheet
