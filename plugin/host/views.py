"""What each client of a table sees: the engine's view for that viewer, plus the table's
timer and meta (language, names, who is in the call, who is connected).

The engine decides what is secret (plugin.rules.views: a player sees his own role and
private results only, the host everything). Until that module exists, `_fallback_view`
shows only public facts and the viewer's own role.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from .table import Snapshot

Viewer = int | Literal["host"] | None  # a seat, the host, or a spectator (public view)


def build_view(snapshot: Snapshot, viewer: Viewer, connected: Iterable[int] = ()) -> dict[str, Any]:
    """A JSON-able dict of what `viewer` may see now."""
    view = dict(_engine_view(snapshot.state, viewer))
    settings = snapshot.settings
    view["table"] = {
        "id": snapshot.table_id,
        "version": snapshot.version,
        "language": settings.language,
        "seats": settings.seats,
        "names": [settings.name_of(seat) for seat in range(1, settings.seats + 1)],
        "present": sorted(snapshot.present),
        "connected": sorted(connected),
        "paused": snapshot.paused,
    }
    remaining = snapshot.timer_remaining
    view["clock"] = (
        None
        if snapshot.timer_id is None
        else {
            "timer": snapshot.timer_id,
            "remaining": None if remaining is None else round(remaining, 1),
            "running": not snapshot.paused,
        }
    )
    view["you"] = viewer
    return view


def _engine_view(state: Any, viewer: Viewer) -> dict[str, Any]:
    try:
        from plugin.rules import views
    except ImportError:
        return _fallback_view(state, viewer)
    if viewer == "host":
        return views.host_view(state)
    if viewer is None:
        return views.public_view(state)
    return views.seat_view(state, viewer)


def _fallback_view(state: Any, viewer: Viewer) -> dict[str, Any]:
    timer = state.timer
    view: dict[str, Any] = {
        "phase": state.phase.value,
        "players": state.players,
        "alive": sorted(state.alive),
        "speakers": sorted(state.speakers),
        "manual": state.manual,
        "timer": None if timer is None else {"id": timer.id, "purpose": timer.purpose},
        "candidates": list(state.candidates),
        "voters": sorted(state.voters),
        "tally": {str(seat): n for seat, n in state.tally.items()},
        "over": state.over,
        "winner": state.winner,
    }
    if viewer == "host":
        dialog = state.dialog
        view["dialog"] = (
            None
            if dialog is None
            else {
                "kind": dialog.kind,
                "candidates": list(dialog.candidates),
                "options": list(dialog.options),
                "default": dialog.default,
            }
        )
        view["roles"] = None if state.roles is None else list(state.roles)
    elif isinstance(viewer, int):
        view["role"] = state.role(viewer)
    return view
