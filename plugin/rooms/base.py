"""The interfaces between a table's host loop and the outside world.

Each is a typing.Protocol; tests use in-memory fakes, production uses the embedded room
(aiortc), LiveKit, the espeak-ng voice and the WebSocket hub.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

# seat, joined (True) or left (False)
PresenceCallback = Callable[[int, bool], Awaitable[None]]


class RoomBackend(Protocol):
    """Where the table's audio lives: decides whose microphone is heard."""

    async def start(self) -> None: ...

    async def set_speakers(self, seats: frozenset[int]) -> None:
        """Exactly these seats may be heard now (the live host always may). Idempotent."""

    async def release_all(self) -> None:
        """Give every player's microphone back (end of the table, shutdown)."""

    def on_presence(self, callback: PresenceCallback) -> None:
        """Call `callback(seat, joined)` when a seat's participant joins or leaves the room."""

    async def stop(self) -> None: ...


class Voice(Protocol):
    """The host's voice: says a phrase key (config/phrases/<lang>.toml) aloud."""

    async def announce(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        """Queue the phrase; returns at once (it never waits for synthesis or playback)."""

    async def skip_queued(self) -> None:
        """Drop the phrases not started yet (the host moved on); finish the current one."""

    async def stop(self) -> None: ...
