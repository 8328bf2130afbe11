"""Rule variants as data: one typed settings object read from config/rules/<preset>.toml.

The engine reads only `Rules`; it never asks which preset it is running. Every setting has
a type and a range (`SECONDS`, `COUNTS`, the enums of modes.py, `OPTION_LISTS`), and every
path that makes a `Rules` — a preset file, a scenario's `settings`, `autohost table new
--set`, POST /api/tables, the overrides stored in a table's event log — goes through
`with_overrides`, so one check refuses NaN, Infinity, a 400-digit number, a list where a
number is wanted or an unknown word, with a message naming the setting and what is allowed.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from .errors import InvalidAction
from .modes import (
    BestMoveVictim,
    CandidateLeft,
    Choice,
    LiftPasses,
    RemovalCancels,
    SingleCandidate,
    ThirdFoul,
    TieAgain,
    Voters,
    VotingMode,
    ZeroVotes,
)

RULES_DIR = Path(__file__).resolve().parents[2] / "config" / "rules"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """Every rule variant the engine knows. Defaults are the classic club rules (seed 000)."""

    name: str = "classic"
    # --- the day vote ---
    voting_mode: VotingMode = VotingMode.SEQUENTIAL
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
    revote_voters: Voters = Voters.EXCLUDE_TIED
    repeat_tie: TieAgain = TieAgain.LIFT
    narrower_tie: TieAgain = TieAgain.LIFT
    # mafiaratings 7.20: a revote that ties again between every player still in the game
    # ends with nobody leaving (the table is not asked whether all of them leave).
    all_tied_nobody_leaves: bool = False
    lift_window_seconds: float = 3
    lift_voters: Voters = Voters.EXCLUDE_TIED
    lift_passes: LiftPasses = LiftPasses.MORE_FOR_THAN_AGAINST
    single_candidate: SingleCandidate = SingleCandidate.WITHDRAWN
    single_candidate_day1: SingleCandidate = SingleCandidate.WITHDRAWN
    zero_votes: ZeroVotes = ZeroVotes.NOBODY
    candidate_left_before_vote: CandidateLeft = CandidateLeft.CANCEL
    removal_cancels_vote: RemovalCancels = RemovalCancels.NOMINEE
    # A live host (manual mode) starts the revote himself after the defense speeches.
    host_starts_revote: bool = True
    tie_dialog_options: tuple[Choice, ...] = ()
    tie_dialog_default: Choice = Choice.SPEECHES
    repeat_tie_dialog_options: tuple[Choice, ...] = ()
    repeat_tie_dialog_default: Choice = Choice.END
    # --- the whole game ---
    speech_seconds: float = 60
    warn_at_seconds: float = 10
    morning_last_word_seconds: float = 60
    black_meeting_seconds: float = 60
    don_meeting_seconds: float = 15
    sheriff_meeting_seconds: float = 15
    free_seating_seconds: float = 10
    night_action_seconds: float = 10
    # mafiaratings 8.7: a black player who «shoots more than once» makes the mafia miss, even
    # at the same seat. Off, GAME.md: every shot he sent counts (the same seat twice kills).
    repeated_shot_misses: bool = False
    third_foul: ThirdFoul = ThirdFoul.SKIP
    third_foul_short_seconds: float = 30
    third_foul_short_when_alive_at_most: int = 0
    removal_fouls: int = 4
    best_move: bool = True
    # Who may name three black seats: the first player killed at night in the game
    # (GAME.md), or only a victim of night 1 (mafiaratings 8.17).
    best_move_victim: BestMoveVictim = BestMoveVictim.FIRST_KILLED
    # 8.17: no best move if at least this many players left the game on day 1 (0: never).
    best_move_void_after_day1_leavers: int = 0
    draw_quiet_rounds: int = 3
    final_minute_seconds: float = 0


# ---- what each setting may be ----------------------------------------------------------

# Every float setting is a length of time in seconds: an hour at most.
SECONDS = (0, 3600)

# Every integer setting is a small count, with its own bounds.
COUNTS: dict[str, tuple[int, int]] = {
    "read_candidates_times": (0, 3),  # seed 000: «дважды»
    "third_foul_short_when_alive_at_most": (0, 12),
    "removal_fouls": (1, 10),  # mafiaratings 9.9: four
    "best_move_void_after_day1_leavers": (0, 12),
    "draw_quiet_rounds": (0, 10),  # mafiaratings 1.5: three
}

# Settings that are a list of the live host's options: the words the dialog may offer.
OPTION_LISTS: dict[str, tuple[Choice, ...]] = {
    "tie_dialog_options": (Choice.SPEECHES, Choice.REVOTE, Choice.LIFT, Choice.END),
    "repeat_tie_dialog_options": (Choice.END, Choice.LIFT, Choice.REVOTE, Choice.SPEECHES),
}

# A dialog's default must be one it may take (closing the window chooses it).
DEFAULT_CHOICES: dict[str, tuple[Choice, ...]] = {
    "tie_dialog_default": (Choice.SPEECHES, Choice.REVOTE),
    "repeat_tie_dialog_default": (Choice.END,),
}

_HINTS = get_type_hints(Rules)
# The type each setting holds: bool, int, float, a StrEnum, or tuple (the option lists).
_KINDS: dict[str, Any] = {
    f.name: get_origin(_HINTS[f.name]) or _HINTS[f.name] for f in fields(Rules) if f.name != "name"
}

for _name, _type in _KINDS.items():  # every setting is covered by a rule above
    assert _type is not int or _name in COUNTS, f"setting {_name} has no bounds"
    assert _type is not tuple or _name in OPTION_LISTS, f"setting {_name} has no options"
    assert _type in (bool, int, float, tuple) or issubclass(_type, StrEnum), _name


def _show(value: Any) -> str:
    """A short, one-line picture of a refused value (a 400-digit number is not echoed)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "a number too large"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    if isinstance(value, bool | int | float) or value is None:
        return repr(value)
    return f"a {type(value).__name__}"


def _refuse(name: str, wanted: str, value: Any) -> InvalidAction:
    return InvalidAction("bad_setting", f"setting {name!r} must be {wanted}, not {_show(value)}")


def check_setting(name: str, value: Any) -> Any:
    """`value` as setting `name` holds it, or InvalidAction naming the setting and what is
    allowed."""
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise InvalidAction("bad_setting", f"unknown setting {_show(name)}")
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise _refuse(name, "true or false", value)
    if kind is int:
        low, high = COUNTS[name]
        if number and isinstance(value, int) and low <= value <= high:
            return value
        raise _refuse(name, f"a whole number {low}..{high}", value)
    if kind is float:
        low, high = SECONDS
        # NaN fails both comparisons; a huge int is compared exactly, never made a float.
        if number and low <= value <= high:
            return float(value)
        raise _refuse(name, f"a number of seconds {low}..{high}", value)
    if kind is tuple:
        allowed = OPTION_LISTS[name]
        words = " | ".join(allowed)
        if not isinstance(value, list | tuple) or len(value) > len(allowed):
            raise _refuse(name, f"a list of different options from {words}", value)
        options = []
        for item in value:
            if not isinstance(item, str) or item not in allowed or item in options:
                raise _refuse(name, f"a list of different options from {words}", item)
            options.append(Choice(item))
        return tuple(options)
    allowed_words: tuple[str, ...] = tuple(DEFAULT_CHOICES.get(name, tuple(kind)))
    if isinstance(value, str) and value in allowed_words:
        return kind(value)
    raise _refuse(name, f"one of {' | '.join(allowed_words)}", value)


def with_overrides(rules: Rules, overrides: Any) -> Rules:
    """A copy of `rules` with `overrides` applied; an unknown, wrong-typed or out-of-range
    setting is refused (InvalidAction), and so is a dialog default it does not offer."""
    if not isinstance(overrides, dict):
        raise InvalidAction("bad_setting", f"settings must be an object, not {_show(overrides)}")
    changes = {str(key): check_setting(key, value) for key, value in overrides.items()}
    new = replace(rules, **changes)
    for options, default in (
        ("tie_dialog_options", "tie_dialog_default"),
        ("repeat_tie_dialog_options", "repeat_tie_dialog_default"),
    ):
        offered = getattr(new, options)
        if offered and getattr(new, default) not in offered:
            raise InvalidAction(
                "bad_setting",
                f"setting {default!r} must be one of its {options} "
                f"({' | '.join(offered)}), not {str(getattr(new, default))!r}",
            )
    return new


def preset_names() -> list[str]:
    return sorted(path.stem for path in RULES_DIR.glob("*.toml"))


def load_preset(name: str, overrides: dict[str, Any] | None = None) -> Rules:
    """Read config/rules/<name>.toml (sections are only for reading; keys are flat)."""
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise InvalidAction("bad_preset", f"unknown rules preset {_show(name)} ({preset_names()})")
    path = RULES_DIR / f"{name}.toml"
    if not path.is_file():
        raise InvalidAction("bad_preset", f"unknown rules preset {name!r} ({preset_names()})")
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    flat: dict[str, Any] = {}
    for key, value in document.items():
        if isinstance(value, dict):
            flat.update(value)
        else:
            flat[key] = value
    try:
        rules = with_overrides(Rules(), flat)
    except InvalidAction as error:
        raise InvalidAction(error.reason, f"preset {name!r}: {error.message}") from None
    rules = replace(rules, name=name)
    return with_overrides(rules, overrides or {})
