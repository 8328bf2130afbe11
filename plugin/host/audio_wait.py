"""A speech does not lose time to the server: after a restart or a failover the speaker's
audio is gone until his page rejoins the new room, so his countdown waits (is held) until
his audio flows again, at most HOLD_SECONDS (issue 32).

Theory of operation:
- `begin(seats)` when a table starts from its log (a restart, or another server taking the
  table over) with a speech's timer running and its speakers not in the room yet: the
  countdown is frozen with the time it had left.
- `arrived(seat)` when a seat's audio connection is up in the room (the room's presence):
  once every held speaker is back, the countdown runs on from where it was.
- After HOLD_SECONDS the countdown runs on anyway: a speaker whose page does not come back
  (his own network, a closed tab) costs the table at most that long, as with a live host
  who would wait a moment and then go on.
- `end()` when the timer is replaced (the host moved on, a new speech): the hold is over,
  the new timer runs as the engine says.
- A speaker's own network cutting out while the server runs is his: nothing is held then.
- The host's pause is the table's own (`Table.paused`); the countdown is frozen while either
  holds it, and runs only when neither does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .ports import Clock, Handle

# The longest a speech's countdown waits for its speaker's audio after a restart or a
# failover: a page rejoins within 1-2 s of its socket (bench/restart_audio.py), and a page
# that is not back by then has a problem of its own. docs/servers.md says so.
HOLD_SECONDS = 10.0


class AudioWait:
    """Whether a table's countdown is held for its speakers' audio; see the module docstring.

    `on_change()` is called whenever the hold begins or ends, so the table can freeze or
    unfreeze its countdown; `on_deadline()` when `seconds` (HOLD_SECONDS) passed (the table
    queues an input that ends the hold in its loop, and publishes)."""

    def __init__(
        self,
        clock: Clock,
        *,
        on_change: Callable[[], None],
        on_deadline: Callable[[], None],
        seconds: float = HOLD_SECONDS,
    ) -> None:
        self._clock = clock
        self._seconds = seconds
        self._on_change = on_change
        self._on_deadline = on_deadline
        self._waiting: frozenset[int] = frozenset()
        self._deadline: Handle | None = None

    @property
    def held(self) -> bool:
        """The countdown waits for the speakers' audio now."""
        return bool(self._waiting)

    @property
    def waiting_for(self) -> frozenset[int]:
        """The speakers whose audio has not come back yet."""
        return self._waiting

    def begin(self, speakers: Iterable[int], present: Iterable[int]) -> None:
        """Hold the countdown until every one of `speakers` not in `present` is back."""
        waiting = frozenset(speakers) - frozenset(present)
        if not waiting:
            return
        self._cancel_deadline()
        self._waiting = waiting
        self._deadline = self._clock.call_later(self._seconds, self._on_deadline)
        self._on_change()

    def arrived(self, seat: int) -> None:
        """Seat `seat`'s audio is in the room again."""
        if seat in self._waiting:
            if self._waiting == {seat}:
                self.end()
            else:
                self._waiting -= {seat}

    def end(self) -> None:
        """Stop holding (everyone is back, the bound passed, or the timer was replaced)."""
        self._cancel_deadline()
        if self._waiting:
            self._waiting = frozenset()
            self._on_change()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
