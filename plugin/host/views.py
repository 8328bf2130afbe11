"""What each client of a table sees: the engine's view for that viewer, plus the table's
timer and meta (language, names, who is in the call, who is connected), and what the pages
would otherwise have to work out from the rules (plugin.rules.sight): whose speech it is
(`speaking`) and whom this viewer may exchange video with (`video`).

The engine decides what is secret (plugin.rules.views: a player sees his own role and
private results only, the host everything); this module adds only what the table knows,
and `video` names only seats the viewer may see now, so it tells nobody who is black.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from plugin.rules import sight, views
from plugin.rules.state import GameState

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
    view["speaking"] = _speaking(snapshot.state)
    view["video"] = _video(snapshot.state, viewer, settings.seats)
    return view


def _speaking(state: GameState) -> dict[str, Any]:
    """`speaker`: whose speech runs now (None outside a speech); `seats`: who may speak
    now (the open microphones)."""
    return {"speaker": sight.speech_of(state), "seats": sorted(state.speakers)}


def _video(state: GameState, viewer: Viewer, seats: int) -> dict[str, Any]:
    """`awake`: whether the viewer may send and show his own camera now; `peers`: whom he
    may exchange video with now (seats, then "host"). A spectator is not in the mesh."""
    if viewer is None:
        return {"awake": False, "peers": []}
    black = sight.black_seats(state)
    return {
        "awake": sight.awake(state.phase, viewer, black),
        "peers": sight.video_peers(state.phase, viewer, black, seats),
    }


def _engine_view(state: Any, viewer: Viewer) -> dict[str, Any]:
    if viewer == "host":
        return views.host_view(state)
    if viewer is None:
        return views.public_view(state)
    return views.seat_view(state, viewer)
