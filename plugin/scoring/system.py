"""A scoring system is data (`config/scoring/*.toml`): read and checked here into one typed
value; the arithmetic lives in `plugin.scoring.points`. Every number in a system file cites
its source in a comment there."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from plugin import paths

ROLES = ("civilian", "sheriff", "mafia", "don")
REMOVALS = ("fouls", "disqualified", "left")
TIE_BREAKS = (
    "total",
    "extra_penalty_best_move",
    "wins",
    "special_role_wins",
    "first_night_deaths",
)


class ScoringError(ValueError):
    """A scoring system file, a sheet or a game record is refused; `message` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoringSystem:
    id: str
    name: str
    version: int
    win: float
    judge_min: float
    judge_max: float
    judge_step: float
    auto_bonus: float
    best_move_three: float
    best_move_two: float
    best_move_roles: frozenset[str]
    removed: float
    removed_by: frozenset[str]
    team_disqualified: float
    ci_c: float
    ci_share: float
    tie_breaks: tuple[str, ...]


@cache
def exact(value: float) -> Fraction:
    """A system's decimal number as written in its file (0.7 is 7/10, not a binary float).
    Kept once per number: every seat of every game asks for the same few."""
    return Fraction(str(value))


def _number(table: dict[str, Any], key: str, where: str) -> float:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ScoringError("bad_system", f"{where}.{key} must be a finite number, got {value!r}")
    return float(value)


def _section(document: dict[str, Any], name: str) -> dict[str, Any]:
    section = document.get(name)
    if not isinstance(section, dict):
        raise ScoringError("bad_system", f"missing section [{name}]")
    return section


def _names(value: Any, allowed: tuple[str, ...], where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScoringError("bad_system", f"{where} must be a list of names")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ScoringError("bad_system", f"{where}: unknown {unknown}, expected some of {allowed}")
    return frozenset(value)


def parse_system(document: dict[str, Any]) -> ScoringSystem:
    """A system from its TOML document; ScoringError names the first problem."""
    main, extra = _section(document, "main"), _section(document, "extra")
    best, penalty = _section(document, "best_move"), _section(document, "penalty")
    ci, ranking = _section(document, "ci"), _section(document, "ranking")
    ident, name, version = document.get("id"), document.get("name"), document.get("version")
    if not isinstance(ident, str) or not ident.isidentifier():
        raise ScoringError("bad_system", f"id must be a short identifier, got {ident!r}")
    if not isinstance(name, str) or not name:
        raise ScoringError("bad_system", "name must be a non-empty string")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ScoringError("bad_system", f"version must be a whole number, got {version!r}")
    tie_breaks = ranking.get("tie_breaks")
    if (
        not isinstance(tie_breaks, list)
        or not tie_breaks
        or tie_breaks[0] != "total"
        or any(t not in TIE_BREAKS for t in tie_breaks)
        or len(set(tie_breaks)) != len(tie_breaks)
    ):
        raise ScoringError(
            "bad_system", f"ranking.tie_breaks: 'total' first, then some of {TIE_BREAKS[1:]}"
        )
    system = ScoringSystem(
        id=ident,
        name=name,
        version=version,
        win=_number(main, "win", "main"),
        judge_min=_number(extra, "judge_min", "extra"),
        judge_max=_number(extra, "judge_max", "extra"),
        judge_step=_number(extra, "judge_step", "extra"),
        auto_bonus=_number(extra, "auto_bonus", "extra"),
        best_move_three=_number(best, "three", "best_move"),
        best_move_two=_number(best, "two", "best_move"),
        best_move_roles=_names(best.get("roles"), ROLES, "best_move.roles"),
        removed=_number(penalty, "removed", "penalty"),
        removed_by=_names(penalty.get("removed_by"), REMOVALS, "penalty.removed_by"),
        team_disqualified=_number(penalty, "team_disqualified", "penalty"),
        ci_c=_number(ci, "c", "ci"),
        ci_share=_number(ci, "share", "ci"),
        tie_breaks=tuple(tie_breaks),
    )
    if not system.judge_min <= 0 <= system.judge_max or system.judge_step <= 0:
        raise ScoringError("bad_system", "extra: judge_min <= 0 <= judge_max and judge_step > 0")
    if system.ci_c < 0 or system.ci_share <= 0:
        raise ScoringError("bad_system", "ci: c >= 0 and share > 0")
    return system


def systems_dir() -> Path:
    return paths.CONFIG_DIR / "scoring"


def load_system(name: str, directory: Path | None = None) -> ScoringSystem:
    """The scoring system `name` (a file `config/scoring/<name>.toml`)."""
    folder = directory or systems_dir()
    if not name.isidentifier():
        raise ScoringError("unknown_system", f"no scoring system {name!r}")
    path = folder / f"{name}.toml"
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = sorted(p.stem for p in folder.glob("*.toml"))
        raise ScoringError(
            "unknown_system", f"no scoring system {name!r}; known: {known}"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ScoringError("bad_system", f"{path.name}: {error}") from None
    return parse_system(document)
