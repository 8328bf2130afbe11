"""What each client of a table sees: the engine's view for that viewer, plus the table's
timer and meta (language, names, who is in the call, who is connected), and what the pages
would otherwise have to work out from the rules (plugin.rules.sight): whose speech it is
(`speaking`) and whom this viewer may exchange video with (`video`); the host also gets
`controls`, the console actions the table would accept now, so the console never keeps a
list of phases.

The engine decides what is secret (plugin.rules.views: a player sees his own role and
private results only, the host everything); this module adds only what the table knows,
and `video` names only seats the viewer may see now, so it tells nobody who is black.
Once the game is over every viewer gets the same `end` (the result, every role, the
timeline: plugin.host.ending); before that `end` is None for everyone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from plugin.rules import Event, guards, sight, views
from plugin.rules import events as ev
from plugin.rules.legal import always_legal
from plugin.rules.machine import accepts
from plugin.rules.modes import Choice
from plugin.rules.state import NIGHT_PHASES, GameState, Phase

from .commands import HOST, Command, Refused, candidate_events
from .ports import Snapshot
from .stream import stream_secrets

# A seat, the host, a spectator (None: the public view), or the stream overlay ("stream":
# the public view, and roles after the host's delay while he streams with roles).
Viewer = int | Literal["host", "stream"] | None
STREAM: Literal["stream"] = "stream"


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
    if viewer == HOST:
        view["controls"] = controls(snapshot)
        view["streaming"] = _streaming(snapshot)
    if viewer == STREAM:
        view["stream"] = stream_secrets(snapshot.stream)
    # The end screen (plugin.host.ending): the same for everyone, and only once the game
    # is over, so no role, check or best move reaches a page before the end.
    view["end"] = snapshot.ending if snapshot.state.over else None
    return view


def _streaming(snapshot: Snapshot) -> dict[str, Any]:
    """The console's "stream with roles" control: on or off, and the delay."""
    stream = snapshot.stream
    return {"on": stream is not None, "delay": stream.delay if stream else None}


# The console's actions that become engine events (plugin.host.commands.HOST_EVENTS):
# allowed when one of the command's candidate events is legal now.
_ENGINE_CONTROLS = ("next", "end_speech", "end_game", "manual")


def controls(snapshot: Snapshot) -> list[str]:
    """The console actions the table would accept now, sorted: the engine's own
    (`next`, `end_speech`, `end_game`, `manual`) when one of the events the table would
    try (commands.candidate_events) is legal now, the seat corrections (`foul`, `remove`,
    `disqualify`) while a seat is in a running game, and the table's own: `pause` or
    `resume`, `add_time` while a timer runs, `undo` while the game runs and has events.
    After the game nothing of the game is left (issue 17, "Finish"): only `next_game`
    (the next game with the same players), until the host started it."""
    state = snapshot.state
    if state.over:
        return [] if snapshot.successor is not None else ["next_game"]
    legal = _host_events(state)
    allowed = [kind for kind in _ENGINE_CONTROLS if _legal(state, kind, legal)]
    running = state.phase is not Phase.LOBBY
    if running and state.alive:
        allowed += ["foul", "remove", "disqualify"]
    if running:
        allowed.append("resume" if snapshot.paused else "pause")
    if snapshot.timer_id is not None:
        allowed.append("add_time")
    if running and state.version > 0:
        allowed.append("undo")
    return sorted(allowed)


def _host_events(state: GameState) -> set[Event]:
    """The host's engine events legal now, listed as plugin.rules.legal lists them (the
    transition table's `accepts` and the handlers' own guards), for the kinds a console
    command may become; not the whole of `legal_actions`, which enumerates every ballot."""
    s = state
    legal: set[Event] = set(always_legal(s))
    if s.phase is Phase.LOBBY:
        legal.add(ev.StartGame())
    if accepts(s, ev.SetManual):  # in the lobby too, which always_legal leaves out
        legal.add(ev.SetManual(on=not s.manual))
    if s.timer is not None:
        legal.add(ev.TimerExpired(timer=s.timer.id))
    if s.speaker is not None and accepts(s, ev.PassSpeech) and guards.passing(s, s.speaker) is None:
        legal.add(ev.PassSpeech(seat=s.speaker))
    if accepts(s, ev.HostChoice):
        legal |= {ev.HostChoice(choice=c) for c in Choice if guards.host_choice(s, c) is None}
    return legal


def _legal(state: GameState, kind: str, legal: set[Event]) -> bool:
    fields: dict[str, object] = {"on": not state.manual} if kind == "manual" else {}
    if kind == "end_game":
        fields = {"winner": None}
    try:
        events = candidate_events(state, HOST, Command(kind=kind, fields=fields))
    except Refused:  # e.g. end_speech when nobody speaks and no timer runs
        return False
    return any(event in legal for event in events)


def _speaking(state: GameState) -> dict[str, Any]:
    """`speaker`: whose speech runs now (None outside a speech); `seats`: who may speak
    now (the open microphones)."""
    return {"speaker": sight.speech_of(state), "seats": sorted(state.speakers)}


def _video(state: GameState, viewer: Viewer, seats: int) -> dict[str, Any]:
    """`awake`: whether the viewer may send and show his own camera now; `peers`: whom he
    may exchange video with now (seats, then "host"); `spectators`: whether he sends his
    camera to the spectators now. Spectators only receive, and only by day (at the black
    team's meeting their faces would tell who is black): plugin.web.video's relay."""
    day = state.phase not in NIGHT_PHASES
    if viewer is None or viewer == STREAM:
        everyone: list[int | str] = [*range(1, seats + 1), HOST]
        return {"awake": False, "peers": everyone if day else [], "spectators": False}
    black = sight.black_seats(state)
    return {
        "awake": sight.awake(state.phase, viewer, black),
        "peers": sight.video_peers(state.phase, viewer, black, seats),
        "spectators": day,
    }


def _engine_view(state: Any, viewer: Viewer) -> dict[str, Any]:
    if viewer == "host":
        return views.host_view(state)
    if viewer is None or viewer == STREAM:
        return views.public_view(state)
    return views.seat_view(state, viewer)
