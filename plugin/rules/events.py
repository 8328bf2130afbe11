"""Engine events: everything that can happen at a table, as small frozen values.

The host turns widget, console, room and clock input into these; the event log stores
them with `to_record` and replays them with `from_record`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .errors import InvalidAction
from .records import quick_init


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class StartGame:
    """The host starts the game: night zero begins."""


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TimerExpired:
    """The clock says timer `timer` (from a StartTimer effect) has run out."""

    timer: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Nominate:
    by: int
    target: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PassSpeech:
    """The current speaker (or the host for him) ends the speech early."""

    seat: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CastVote:
    """A ballot in the current round; `candidate` None is an explicit abstention."""

    voter: int
    candidate: int | None


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CastLift:
    """A ballot on the lift question ("who is for all of them leaving?")."""

    voter: int
    leave: bool


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class HostChoice:
    """The live host answers the open dialog, or starts the revote after the speeches.
    choice: speeches | revote | end | close | start_revote."""

    choice: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SetManual:
    """The live host takes the decisions (on) or hands them back to the bot (off)."""

    on: bool


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerLeft:
    """The player leaves the game (voluntarily, or removed by the host)."""

    seat: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Foul:
    seat: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Disqualify:
    """Removed at once without a last word, like a fourth foul."""

    seat: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Shoot:
    """A black player's private pick of the night's target."""

    by: int
    target: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DonCheck:
    target: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SheriffCheck:
    target: int


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BestMove:
    by: int
    seats: tuple[int, ...]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class EndGame:
    """The host ends the game; winner None means no result (abandoned)."""

    winner: str | None = None


Event = (
    StartGame
    | TimerExpired
    | Nominate
    | PassSpeech
    | CastVote
    | CastLift
    | HostChoice
    | SetManual
    | PlayerLeft
    | Foul
    | Disqualify
    | Shoot
    | DonCheck
    | SheriffCheck
    | BestMove
    | EndGame
)

EVENT_TYPES: dict[str, type[Any]] = {
    "start_game": StartGame,
    "timer_expired": TimerExpired,
    "nominate": Nominate,
    "pass": PassSpeech,
    "vote": CastVote,
    "lift": CastLift,
    "host": HostChoice,
    "manual": SetManual,
    "leave": PlayerLeft,
    "foul": Foul,
    "disqualify": Disqualify,
    "shoot": Shoot,
    "don_check": DonCheck,
    "sheriff_check": SheriffCheck,
    "best_move": BestMove,
    "end_game": EndGame,
}
_NAMES = {cls: name for name, cls in EVENT_TYPES.items()}


def to_record(event: Event) -> dict[str, Any]:
    """A JSON-able dict for the event log: {"type": name, ...fields}."""
    record: dict[str, Any] = {"type": _NAMES[type(event)]}
    for field in fields(event):
        value = getattr(event, field.name)
        record[field.name] = list(value) if isinstance(value, tuple) else value
    return record


def _check(name: str, value: Any, annotation: str) -> Any:
    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if annotation == "int" and is_int(value):
        return value
    if annotation == "int | None" and (value is None or is_int(value)):
        return value
    if annotation == "bool" and isinstance(value, bool):
        return value
    if annotation == "str" and isinstance(value, str):
        return value
    if annotation == "str | None" and (value is None or isinstance(value, str)):
        return value
    is_seq = isinstance(value, list | tuple)
    if annotation == "tuple[int, ...]" and is_seq and all(is_int(x) for x in value):
        return tuple(value)
    raise InvalidAction("bad_field", f"field {name!r} must be {annotation}, got {value!r}")


def from_record(record: Any) -> Event:
    """Build an event from a dict; InvalidAction names what is wrong."""
    if not isinstance(record, dict):
        raise InvalidAction("bad_event", f"an event must be an object, got {record!r}")
    kind = record.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidAction("bad_event", f"unknown event type {kind!r}")
    values: dict[str, Any] = {}
    for field in fields(cls):
        if field.name not in record:
            if field.default is not None or field.type != "str | None":
                raise InvalidAction("bad_field", f"{kind}: missing field {field.name!r}")
            continue
        values[field.name] = _check(field.name, record[field.name], str(field.type))
    extra = set(record) - {"type"} - {f.name for f in fields(cls)}
    if extra:
        raise InvalidAction("bad_field", f"{kind}: unknown fields {sorted(extra)}")
    event: Event = cls(**values)
    return event
