"""Engine effects: what the host must do after an accepted event.

The engine never does I/O; it returns these and the host carries them out through the
room backend, the voice and the widget hub.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .records import quick_init


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Announce:
    """Say phrase `key` aloud (config/phrases/<lang>.toml) with its parameters
    (seat: int, seats: list[int], target: int, count: int, day: int, winner: str)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SetSpeakers:
    """Exactly these seats may speak now (the live host always may, besides)."""

    seats: frozenset[int]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class StartTimer:
    """Start timer `timer` for `seconds`; when it runs out, feed TimerExpired(timer=...).
    At most one timer runs per table: a new one replaces the old. `warn_at`: announce
    'speech.ten_seconds' when that many seconds are left (0: no warning)."""

    timer: int
    seconds: float
    purpose: str
    warn_at: float = 0


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class StopTimer:
    """No timer runs now (the engine waits for a person: the live host or the players)."""


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OpenDialog:
    """Ask the live host (manual mode). kind: tie | repeat_tie."""

    kind: str
    candidates: tuple[int, ...]
    options: tuple[str, ...]
    default: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CloseDialog:
    pass


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayersOut:
    """These seats leave the game now. reason: vote | killed | fouls | disqualified | left."""

    seats: tuple[int, ...]
    reason: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateResult:
    """A result only `seat` may see (a don's or sheriff's check)."""

    seat: int
    kind: str
    target: int
    result: bool


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class VoteFinished:
    """The day's vote procedure is over; `result` is the conformance result object."""

    result: dict[str, Any]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver:
    """winner: city | mafia | draw | None (ended by the host with no result)."""

    winner: str | None


Effect = (
    Announce
    | SetSpeakers
    | StartTimer
    | StopTimer
    | OpenDialog
    | CloseDialog
    | PlayersOut
    | PrivateResult
    | VoteFinished
    | GameOver
)
