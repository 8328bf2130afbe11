"""In-memory stand-ins for the ports a table drives (plugin.host.ports): the room backend,
the voice and the widget hub.

Each records what it was asked to do, in order, so a test asserts on behaviour.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from plugin.host.ports import PcmFrame, PresenceCallback, Snapshot

if TYPE_CHECKING:
    from plugin.host.ports import Hub, RoomBackend, Voice


class FakeRoom:
    """A room that remembers who may speak and whether the microphones were given back."""

    def __init__(self) -> None:
        self.speakers: frozenset[int] | None = None
        self.calls: list[tuple[str, Any]] = []
        self.released = False
        self.started = False
        self.stopped = False
        self._presence: list[PresenceCallback] = []

    async def start(self) -> None:
        self.started = True

    async def set_speakers(self, seats: frozenset[int]) -> None:
        self.speakers = frozenset(seats)
        self.released = False
        self.calls.append(("set_speakers", frozenset(seats)))

    async def release_all(self) -> None:
        self.released = True
        self.calls.append(("release_all", None))

    def on_presence(self, callback: PresenceCallback) -> None:
        self._presence.append(callback)

    async def stop(self) -> None:
        self.stopped = True

    async def join(self, seat: int, joined: bool = True) -> None:
        """Simulate a participant joining (or leaving) the call."""
        for callback in self._presence:
            await callback(seat, joined)


class FakeVoice:
    """A voice that writes down the phrase keys it was asked to say (and says nothing)."""

    def __init__(self) -> None:
        self.said: list[tuple[str, dict[str, Any]]] = []
        self.skipped_at: list[int] = []  # len(said) at each skip_queued()
        self.stopped = False
        self._cut: list[Callable[[], None]] = []

    async def announce(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        self.said.append((key, dict(params)))

    async def skip_queued(self) -> None:
        self.skipped_at.append(len(self.said))

    async def pcm_frames(self) -> AsyncIterator[PcmFrame]:
        """No frames: the fake is never heard, so a room playing it ends at once."""
        return
        yield  # pragma: no cover  (makes this an async generator)

    def on_cut(self, callback: Callable[[], None]) -> None:
        self._cut.append(callback)

    def cut(self) -> None:
        """Simulate an urgent phrase cutting the current one short (calls every on_cut)."""
        for callback in self._cut:
            callback()

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self.said]

    async def stop(self) -> None:
        self.stopped = True


class FakeHub:
    """A hub that keeps every snapshot it was given."""

    def __init__(self) -> None:
        self.snapshots: list[Snapshot] = []

    async def publish(self, snapshot: Snapshot) -> None:
        self.snapshots.append(snapshot)

    @property
    def last(self) -> Snapshot:
        return self.snapshots[-1]


if TYPE_CHECKING:  # mypy checks that each fake satisfies its port
    _room: RoomBackend = FakeRoom()
    _voice: Voice = FakeVoice()
    _hub: Hub = FakeHub()
