"""The table's rhythm as each audience sees it (issue 31, "the night leaks through the
state's rhythm").

The table changes at every input, hidden ones too: a black player's shot, the don's and
the sheriff's checks. Had every change sent every page a state (with a new `version`), a
civilian watching his own socket would count the shots and learn whether the don and the
sheriff are alive, which the rules hide (GAME.md: "a dead don's or sheriff's check still
takes its time but accepts nothing"; seed 004's night). So what a seat or a spectator
receives depends only on what it may see:

- `version` (the engine's) and `table.version` in every view but the host's are the
  table's *public* version: it counts the changes of the part every viewer but the host
  shares (ViewSet.shared), and nothing else.
- a viewer other than the host is sent a state only when that shared part changed, or its
  own part (its secrets, its video) did; a change it cannot see sends it nothing, so the
  number, the timing and the sizes of its messages follow what it may know.
- the clock's time left is a moment, not a change: the shared part is compared without
  it, and with the timer's deadline instead (time added moves it; time passing does not).
- the host, who sees everything, gets every change, and `table.public` besides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from plugin.host.views import Viewer, ViewSet

# How far the timer's deadline may move between two changes and still be the same timer
# running (the time left is measured at each change, a little apart); the host's smallest
# "add time" is many seconds.
DEADLINE_SLACK_SECONDS = 0.5
_encode = msgspec.json.Encoder().encode


def _shared_key(shared: dict[str, Any]) -> bytes:
    """The shared part of a view without its versions and without the time left of a
    running clock (which `Rhythm` compares as a deadline)."""
    table = {k: v for k, v in shared["table"].items() if k != "version"}
    clock = shared.get("clock")
    if clock is not None and clock.get("running"):
        clock = {k: v for k, v in clock.items() if k != "remaining"}
    rest = {k: v for k, v in shared.items() if k not in ("version", "table", "clock")}
    return _encode({"rest": rest, "table": table, "clock": clock})


@dataclass(slots=True)
class Rhythm:
    """One table's public version and what each viewer was last sent."""

    version: int = 0
    _shared: bytes | None = None
    _deadline: float | None = None
    _sent: dict[Viewer, bytes] = field(default_factory=dict)
    changed: bool = True  # the shared part changed at the latest broadcast

    def advance(self, views: ViewSet, now: float) -> None:
        """A broadcast of `views`: bump the public version if the shared part changed since
        the last broadcast. `now` (time.monotonic()) stands in for a snapshot that does
        not say when the table's clock took it."""
        key = _shared_key(views.shared())
        taken_at = views.snapshot.taken_at
        now = now if taken_at is None else taken_at
        remaining = views.snapshot.timer_remaining
        running = remaining is not None and not views.snapshot.paused
        deadline = now + remaining if running and remaining is not None else None
        moved = (deadline is None) != (self._deadline is None) or (
            deadline is not None
            and self._deadline is not None
            and abs(deadline - self._deadline) > DEADLINE_SLACK_SECONDS
        )
        self.changed = self._shared is None or key != self._shared or moved
        if self.changed:
            if self._shared is not None:
                self.version += 1
            self._shared, self._deadline = key, deadline

    def due(self, viewer: Viewer, own: dict[str, Any]) -> bool:
        """Whether `viewer` (not the host) is to be sent this broadcast's state: the shared
        part changed, or its own part differs from what it was last sent."""
        key = _encode(own)
        if self.changed or self._sent.get(viewer) != key:
            self._sent[viewer] = key
            return True
        return False

    def sent(self, viewer: Viewer, own: dict[str, Any]) -> None:
        """`viewer` was sent a state with this own part (a page that just connected)."""
        self._sent[viewer] = _encode(own)

    def public(self, shared: dict[str, Any]) -> dict[str, Any]:
        """The shared part with the public version in place of the table's."""
        table = {**shared["table"], "version": self.version}
        return {**shared, "version": self.version, "table": table}

    def host(self, view: dict[str, Any]) -> dict[str, Any]:
        """The host's view with the public version beside the table's (`table.public`)."""
        return {**view, "table": {**view["table"], "public": self.version}}
