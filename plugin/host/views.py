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
from plugin.rules.legal import always_legal_for_the_table
from plugin.rules.machine import accepts
from plugin.rules.modes import Choice
from plugin.rules.state import NIGHT_PHASES, GameState, Phase

from .commands import candidate_events
from .inputs import HOST, EndGame, EndSpeech, Input, Manual, Next, Refused
from .ports import Snapshot
from .stream import stream_secrets

# A seat, the host, a spectator (None: the public view), or the stream overlay ("stream":
# the public view, and roles after the host's delay while he streams with roles).
Viewer = int | Literal["host", "stream"] | None
STREAM: Literal["stream"] = "stream"


def build_view(snapshot: Snapshot, viewer: Viewer, connected: Iterable[int] = ()) -> dict[str, Any]:
    """A JSON-able dict of what `viewer` may see now."""
    return ViewSet(snapshot, connected).view(viewer)


class ViewSet:
    """Every viewer's view of one snapshot with one set of connected seats: what one
    broadcast sends. At each change a table of ten seats sends twelve views (ten seats, the
    host, the spectators), and all but the host's are the same public view and table meta
    with a few keys of their own; those shared keys are built once here, not once a viewer.

    `shared()` is what every viewer but the host gets; `own(viewer)` is the rest of
    `viewer`'s view, with no key of `shared()` (the host's is his whole view: his engine
    view replaces the public one). The encoder (plugin.web.hub.StateFrames) relies on
    that to encode the shared part once. The dicts are shared between views: read them,
    never change them."""

    def __init__(self, snapshot: Snapshot, connected: Iterable[int] = ()) -> None:
        self.snapshot = snapshot
        self._connected = sorted(connected)
        self._public: dict[str, Any] | None = None
        self._meta: dict[str, Any] | None = None
        self._shared: dict[str, Any] | None = None
        self._black: frozenset[int] | None = None

    def view(self, viewer: Viewer) -> dict[str, Any]:
        """The whole view of `viewer`."""
        if viewer == HOST:
            return self.own(viewer)
        return {**self.shared(), **self.own(viewer)}

    def shared(self) -> dict[str, Any]:
        """The keys every viewer but the host gets, the same for all of them."""
        if self._shared is None:
            self._shared = {**self._public_view(), **self._table_meta()}
        return self._shared

    def own(self, viewer: Viewer) -> dict[str, Any]:
        """What only `viewer` gets (for the host, all he gets)."""
        snapshot, state = self.snapshot, self.snapshot.state
        if viewer == HOST:
            view = views.host_view(state, self._public_view())
            view.update(self._table_meta())
        elif viewer is None or viewer == STREAM:
            view = {}
        else:
            view = {"me": views.seat_secrets(state, viewer)}
        view["you"] = viewer
        view["video"] = self._video(viewer)
        if viewer == HOST:
            view["controls"] = controls(snapshot)
            view["streaming"] = _streaming(snapshot)
        if viewer == STREAM:
            view["stream"] = stream_secrets(snapshot.stream)
        return view

    def _public_view(self) -> dict[str, Any]:
        if self._public is None:
            self._public = views.public_view(self.snapshot.state)
        return self._public

    def _table_meta(self) -> dict[str, Any]:
        """The table's own keys (timer, names, who is connected, whose speech, the end),
        the same for every viewer."""
        if self._meta is not None:
            return self._meta
        snapshot = self.snapshot
        settings = snapshot.settings
        remaining = snapshot.timer_remaining
        self._meta = {
            "table": {
                "id": snapshot.table_id,
                "version": snapshot.version,
                "language": settings.language,
                "seats": settings.seats,
                "names": [settings.name_of(seat) for seat in range(1, settings.seats + 1)],
                "present": sorted(snapshot.present),
                "connected": self._connected,
                "paused": snapshot.paused,
            },
            "clock": None
            if snapshot.timer_id is None
            else {
                "timer": snapshot.timer_id,
                "remaining": None if remaining is None else round(remaining, 1),
                "running": not (snapshot.paused or snapshot.timer_held),
                # Only while it waits for the speaker's audio after a restart or a failover
                # (plugin.host.audio_wait), so a view of any other moment is as it was.
                **({"held": True} if snapshot.timer_held else {}),
            },
            "speaking": _speaking(snapshot.state),
            # The end screen (plugin.host.ending): the same for everyone, and only once the
            # game is over, so no role, check or best move reaches a page before the end.
            "end": snapshot.ending if snapshot.state.over else None,
        }
        return self._meta

    def _video(self, viewer: Viewer) -> dict[str, Any]:
        """`awake`: whether the viewer may send and show his own camera now; `peers`: whom
        he may exchange video with now (seats, then "host"); `spectators`: whether he sends
        his camera to the spectators now. Spectators only receive, and only by day (at the
        black team's meeting their faces would tell who is black): plugin.web.video's relay."""
        state, seats = self.snapshot.state, self.snapshot.settings.seats
        day = state.phase not in NIGHT_PHASES
        if viewer is None or viewer == STREAM:
            everyone: list[int | str] = [*range(1, seats + 1), HOST]
            return {"awake": False, "peers": everyone if day else [], "spectators": False}
        if self._black is None:
            self._black = sight.black_seats(state)
        return {
            "awake": sight.awake(state.phase, viewer, self._black),
            "peers": sight.video_peers(state.phase, viewer, self._black, seats),
            "spectators": day,
        }


def _streaming(snapshot: Snapshot) -> dict[str, Any]:
    """The console's "stream with roles" control: on or off, and the delay."""
    stream = snapshot.stream
    return {"on": stream is not None, "delay": stream.delay if stream else None}


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
    allowed = [given.kind for given in _engine_controls(state) if _legal(state, given, legal)]
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
    legal: set[Event] = set(always_legal_for_the_table(s))  # the console's kinds name no seat
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


def _engine_controls(state: GameState) -> tuple[Input, ...]:
    """The console's actions that become engine events (plugin.host.commands.ROUTES), as
    the console would send them now; each is allowed when one of its candidate events is
    legal now."""
    return (Next(), EndSpeech(), EndGame(winner=None), Manual(on=not state.manual))


def _legal(state: GameState, given: Input, legal: set[Event]) -> bool:
    try:
        events = candidate_events(state, HOST, given)
    except Refused:  # e.g. end_speech when nobody speaks and no timer runs
        return False
    return any(event in legal for event in events)


def _speaking(state: GameState) -> dict[str, Any]:
    """`speaker`: whose speech runs now (None outside a speech); `seats`: who may speak
    now (the open microphones)."""
    return {"speaker": sight.speech_of(state), "seats": sorted(state.speakers)}
