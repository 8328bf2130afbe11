"""Stream with roles (issue 17): the stream overlay shows roles and night actions, each only
once the host's delay has passed since it happened.

Theory of operation. The table keeps a short history of its states, each stamped with the
moment (its clock's) it became the state. The overlay's secrets are the host's view of the
latest state stamped at or before `now - delay`: a role dealt, a check made or a shot fired
at time t is in that state only from t + delay on, so the server never sends one earlier,
whatever the overlay asks. The history keeps MAX_DELAY seconds (and the one state before
them), so any delay the host picks later has what it needs. After a restart the states are
stamped from the log's wall-clock times, compared with the log's own clock (the database's),
so a restart or a takeover by a server whose clock is off does not show anything early.

Only a stream token's page (plugin.signing, Watch.stream) is ever sent these secrets, and
only while the setting is on; a watch link's spectators never are (they may be players'
friends in the call).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from plugin.rules import views
from plugin.rules.roles import BLACK
from plugin.rules.state import GameState, Phase

if TYPE_CHECKING:
    from .ports import Clock, Handle

MAX_DELAY = 600  # seconds: the longest delay a host may set


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamSetting:
    """Whether the overlay shows roles, and how many seconds after the fact."""

    on: bool = False
    delay: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.delay, bool) or not isinstance(self.delay, int):
            raise ValueError(f"the delay is whole seconds, not {self.delay!r}")
        if not 0 <= self.delay <= MAX_DELAY:
            raise ValueError(f"the delay is 0..{MAX_DELAY} seconds, not {self.delay}")


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamView:
    """What a snapshot carries for the overlay while the setting is on: the delay, and the
    state as of `delay` seconds ago (None: nothing is that old yet)."""

    delay: int
    delayed: GameState | None


class StateHistory:
    """The table's states with the moments they began, for the overlay's delay."""

    def __init__(self) -> None:
        self._states: deque[tuple[float, GameState]] = deque()

    def record(self, at: float, state: GameState) -> None:
        """`state` is the table's state from `at` on (moments never go back)."""
        if self._states and self._states[-1][1] is state:
            return
        if self._states and at < self._states[-1][0]:
            at = self._states[-1][0]
        self._states.append((at, state))
        # Keep MAX_DELAY seconds, plus the one state that was current when they began.
        while len(self._states) > 1 and self._states[1][0] <= at - MAX_DELAY:
            self._states.popleft()

    def latest(self) -> GameState | None:
        """The newest recorded state (None before the first)."""
        return self._states[-1][1] if self._states else None

    def as_of(self, moment: float) -> GameState | None:
        """The state that was current at `moment`; None before the first recorded one."""
        # The moments never go back (record), so the deque is sorted by them: a busy table
        # keeps a state per change for MAX_DELAY seconds, thousands, read at every change.
        index = bisect_right(self._states, moment, key=_moment)
        return self._states[index - 1][1] if index else None

    def next_after(self, moment: float) -> float | None:
        """The first moment after `moment` at which a recorded state began (the overlay's
        next change is that plus the delay)."""
        index = bisect_right(self._states, moment, key=_moment)
        return self._states[index][0] if index < len(self._states) else None


def _moment(entry: tuple[float, GameState]) -> float:
    return entry[0]


class StreamTiming:
    """A table's stream with roles in time: its setting, its states with their moments,
    and the overlay refresh due when the delay of the next change it has not shown yet has
    passed (`on_due` is called then; the table queues it as an input)."""

    def __init__(self, clock: Clock, on_due: Callable[[], None]) -> None:
        self.clock = clock
        self.setting = StreamSetting()
        self.history = StateHistory()
        self._on_due = on_due
        self._due: list[Handle] = []
        self._stopped = False

    def restore(
        self, first: GameState, logged: Iterable[tuple[float, GameState]], *, wall: float
    ) -> None:
        """The states since the log began, `first` (the lobby) and then each with the wall
        clock time its event was logged, stamped with how long ago that was, so the
        overlay's delay holds across a restart. `wall`: the log's clock now, the one its
        times were stamped by (the database's: a server whose own clock is fast or slow
        shows nothing early, issue 31). Then the next refresh due is scheduled: a table
        taken over shows its delayed changes on time, not at its next change."""
        now = self.clock.now()
        logged = list(logged)
        self.history.record(now - max(0.0, wall - logged[0][0]) if logged else now, first)
        for logged_at, state in logged:
            self.history.record(now - max(0.0, wall - logged_at), state)
        self._schedule()

    def changed(self, state: GameState) -> None:
        """`state` is the table's state now (the same one again changes nothing)."""
        if self.history.latest() is not state:
            self.history.record(self.clock.now(), state)
            self._schedule()

    def set(self, setting: StreamSetting) -> None:
        self.setting = setting
        self._schedule()

    def view(self) -> StreamView | None:
        """What a snapshot carries for the overlay: None while the setting is off."""
        if not self.setting.on:
            return None
        delay = self.setting.delay
        return StreamView(delay=delay, delayed=self.history.as_of(self.clock.now() - delay))

    def stop(self) -> None:
        """No refresh is due any more, and none will be."""
        self._stopped = True
        self._cancel()

    def _cancel(self) -> None:
        for handle in self._due:
            handle.cancel()
        self._due.clear()

    def _schedule(self) -> None:
        """Refresh the overlay when the next change it has not shown yet is `delay` old;
        nothing while the setting is off (turning it off cancels what was due)."""
        self._cancel()
        if not self.setting.on or self._stopped:
            return
        delay = self.setting.delay
        due = self.history.next_after(self.clock.now() - delay)
        if due is not None:
            wait = max(0.0, due + delay - self.clock.now())
            self._due.append(self.clock.call_later(wait, self._fire))

    def _fire(self) -> None:
        self._due.clear()
        self._on_due()
        self._schedule()  # the next change waiting behind this one, if any


def stream_secrets(stream: StreamView | None) -> dict[str, Any] | None:
    """The overlay's `stream` field: None while the setting is off; else the delay and the
    roles, the black team, the checks and the night's shots of the delayed state."""
    if stream is None:
        return None
    state = stream.delayed
    if state is None or not state.roles or state.phase is Phase.LOBBY:  # dealt, not begun
        return {"delay": stream.delay, "roles": {}, "black": [], "checks": [], "shots": []}
    host = views.host_view(state)
    black = [seat for seat, role in enumerate(state.roles, start=1) if role in BLACK]
    return {
        "delay": stream.delay,
        "roles": host["roles"],
        "black": black,
        "checks": host["checks"],
        "shots": host["shots"],
    }
