"""A table's game in the engine's terms: its settings make a new game, its log replays it.

Typed glue only: the rules stay in plugin.rules, which the host uses directly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from plugin.rules import GameState, RuleError, apply, load_preset
from plugin.rules import effects as fx
from plugin.rules import new_game as engine_new_game
from plugin.rules.events import EVENT_TYPES, from_record

from .settings import SettingsError, TableSettings, check_shown_text


def new_game(settings: TableSettings) -> GameState:
    """The lobby state of a table with these settings (InvalidAction for bad rule settings)."""
    rules = load_preset(settings.preset, settings.overrides)
    return engine_new_game(
        rules,
        players=settings.seats,
        roles=settings.roles,
        seed=settings.seed,
        manual=settings.manual,
    )


def check_settings(settings: TableSettings) -> None:
    """Refuse a new table's settings the engine would refuse (unknown preset, bad rule
    override, roles) or that would garble where they are shown (names)."""
    check_shown_text(settings)
    try:
        new_game(settings)
    except RuleError as error:
        raise SettingsError(error.reason, error.message) from None


def is_event_record(record: dict[str, Any]) -> bool:
    """An engine event (replayed), as opposed to a table record (pause, add time, undo)."""
    return record.get("type") in EVENT_TYPES


def replay(
    settings: TableSettings, records: Iterable[dict[str, Any]]
) -> tuple[GameState, fx.StartTimer | None]:
    """The state after these event records, and the last StartTimer among their effects."""
    state = new_game(settings)
    last_timer: fx.StartTimer | None = None
    for record in records:
        state, effects = apply(state, from_record(record))
        for effect in effects:
            if isinstance(effect, fx.StartTimer):
                last_timer = effect
    return state, last_timer
