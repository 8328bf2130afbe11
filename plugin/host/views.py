"""What each client of a table sees: the engine's view for that viewer, plus the table's
timer and meta (language, names, who is in the call, who is connected).

The engine decides what is secret (plugin.rules.views: a player sees his own role and
private results only, the host everything); this module adds only what the table knows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from plugin.rules import views

from .ports import Snapshot

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
    if viewer == "host":
        return views.host_view(state)
    if viewer is None:
        return views.public_view(state)
    return views.seat_view(state, viewer)
