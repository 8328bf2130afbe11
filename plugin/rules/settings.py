"""Rule variants as data: one typed settings object read from config/rules/<preset>.toml.

The engine reads only `Rules`; it never asks which preset it is running.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .errors import InvalidAction

RULES_DIR = Path(__file__).resolve().parents[2] / "config" / "rules"

# Settings whose value is one of a few words, and those words.
CHOICES: dict[str, tuple[str, ...]] = {
    "voting_mode": ("sequential", "simultaneous"),
    "revote_voters": ("all", "exclude_tied"),
    "repeat_tie": ("lift", "nobody", "revote"),
    "narrower_tie": ("lift", "nobody", "revote"),
    "lift_voters": ("all", "exclude_tied"),
    "lift_passes": ("more_for_than_against", "more_than_half_alive"),
    "single_candidate": ("withdrawn", "vote"),
    "single_candidate_day1": ("withdrawn", "vote"),
    "zero_votes": ("nobody", "tie"),
    "candidate_left_before_vote": ("cancel", "drop"),
    "removal_cancels_vote": ("nominee", "any"),
    "best_move_victim": ("first_killed", "first_night"),
    "third_foul": ("skip", "short", "none"),
    "tie_dialog_default": ("speeches", "revote"),
    "repeat_tie_dialog_default": ("end",),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """Every rule variant the engine knows. Defaults are the classic club rules (seed 000)."""

    name: str = "classic"
    # --- the day vote ---
    voting_mode: str = "sequential"
    read_candidates_times: int = 2
    intro_seconds: float = 3
    candidate_window_seconds: float = 2
    simultaneous_window_seconds: float = 15
    abstention_allowed: bool = True
    unvoted_go_to_last: bool = False
    self_vote_allowed: bool = False
    defense_seconds: float = 30
    last_word_seconds: float = 30
    tie_speeches: bool = True
    revote_pause_seconds: float = 0
    revote_voters: str = "exclude_tied"
    repeat_tie: str = "lift"
    narrower_tie: str = "lift"
    lift_window_seconds: float = 3
    lift_voters: str = "exclude_tied"
    lift_passes: str = "more_for_than_against"
    single_candidate: str = "withdrawn"
    single_candidate_day1: str = "withdrawn"
    zero_votes: str = "nobody"
    candidate_left_before_vote: str = "cancel"
    removal_cancels_vote: str = "nominee"  # "any": a removal by fouls cancels the closest vote
    tie_dialog_options: tuple[str, ...] = ()
    tie_dialog_default: str = "speeches"
    repeat_tie_dialog_options: tuple[str, ...] = ()
    repeat_tie_dialog_default: str = "end"
    # --- the whole game ---
    speech_seconds: float = 60
    warn_at_seconds: float = 10
    morning_last_word_seconds: float = 60
    black_meeting_seconds: float = 60
    don_meeting_seconds: float = 15
    sheriff_meeting_seconds: float = 15
    free_seating_seconds: float = 10
    night_action_seconds: float = 10
    third_foul: str = "skip"
    third_foul_short_seconds: float = 30
    third_foul_short_when_alive_at_most: int = 0
    removal_fouls: int = 4
    best_move: bool = True
    # Who may name three black seats: "first_killed", the first player killed at night in the
    # game (GAME.md), or "first_night", only a victim of night 1 (mafiaratings 8.17).
    best_move_victim: str = "first_killed"
    # 8.17: no best move if at least this many players left the game on day 1 (0: never).
    best_move_void_after_day1_leavers: int = 0
    draw_quiet_rounds: int = 3
    final_minute_seconds: float = 0


def _coerce(name: str, value: Any, kind: str) -> Any:
    """`value` as the setting's declared type (`kind`, the dataclass annotation)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int" and number and isinstance(value, int) and value >= 0:
        return value
    if kind == "float" and number and value >= 0:
        return float(value)
    if kind == "str" and isinstance(value, str):
        allowed = CHOICES.get(name)
        if allowed is None or value in allowed:
            return value
        raise InvalidAction("bad_setting", f"setting {name!r} must be one of {allowed}")
    if kind == "tuple[str, ...]" and isinstance(value, list | tuple):
        strings = [x for x in value if isinstance(x, str)]
        if len(strings) == len(value):
            return tuple(strings)
    raise InvalidAction("bad_setting", f"setting {name!r} must be {kind}, not {value!r}")


def with_overrides(rules: Rules, overrides: dict[str, Any]) -> Rules:
    """A copy of `rules` with `overrides` applied; an unknown or wrong-typed key is refused."""
    known = {f.name: f for f in fields(Rules)}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in known or key == "name":
            raise InvalidAction("bad_setting", f"unknown setting {key!r}")
        changes[key] = _coerce(key, value, str(known[key].type))
    return replace(rules, **changes)


def preset_names() -> list[str]:
    return sorted(path.stem for path in RULES_DIR.glob("*.toml"))


def load_preset(name: str, overrides: dict[str, Any] | None = None) -> Rules:
    """Read config/rules/<name>.toml (sections are only for reading; keys are flat)."""
    path = RULES_DIR / f"{name}.toml"
    if not name.isidentifier() or not path.is_file():
        raise InvalidAction("bad_preset", f"unknown rules preset {name!r} ({preset_names()})")
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    flat: dict[str, Any] = {}
    for key, value in document.items():
        if isinstance(value, dict):
            flat.update(value)
        else:
            flat[key] = value
    rules = with_overrides(Rules(), flat)
    rules = replace(rules, name=name)
    return with_overrides(rules, overrides or {})
