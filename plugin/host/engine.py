"""The host's only door to the rules engine (plugin/rules public API).

Imports are done on use so the host package loads even where the engine is partial; the
functions here add nothing to the rules, they only turn table settings into a new game and
log records into events.
"""

from __future__ import annotations

from typing import Any

from plugin.rules import events as _events
from plugin.rules.errors import IllegalAction, InvalidAction, RuleError

from .settings import TableSettings

__all__ = [
    "IllegalAction",
    "InvalidAction",
    "RuleError",
    "apply",
    "from_record",
    "is_event_record",
    "new_game",
    "to_record",
]


def new_game(settings: TableSettings) -> Any:
    """The lobby state of a table with these settings (InvalidAction for bad rule settings)."""
    from plugin.rules import load_preset
    from plugin.rules import new_game as engine_new_game

    rules = load_preset(settings.preset, settings.overrides)
    return engine_new_game(
        rules,
        players=settings.seats,
        roles=settings.roles,
        seed=settings.seed,
        manual=settings.manual,
    )


def apply(state: Any, event: Any) -> tuple[Any, list[Any]]:
    from plugin.rules import apply as engine_apply

    new_state, effects = engine_apply(state, event)
    return new_state, list(effects)


def to_record(event: Any) -> dict[str, Any]:
    return _events.to_record(event)


def from_record(record: dict[str, Any]) -> Any:
    return _events.from_record(record)


def is_event_record(record: dict[str, Any]) -> bool:
    """An engine event (replayed), as opposed to a table record (pause, add time, undo)."""
    return record.get("type") in _events.EVENT_TYPES


def views() -> Any:
    from plugin.rules import views as engine_views

    return engine_views
