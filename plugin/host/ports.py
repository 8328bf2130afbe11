"""The ports a table's host loop drives, owned here and implemented outside.

Each is a typing.Protocol. The rooms (embedded aiortc, LiveKit), the voice (espeak-ng) and
the web hub implement them; `plugin.host.silent` has the no-op ones and `plugin.testing`
the in-memory fakes that record what they were asked. Nothing in `plugin.host` imports its
implementations: the assembly (`plugin.server`) plugs them in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from plugin.rules.state import GameState

from .settings import TableSettings

# seat, joined (True) or left (False)
PresenceCallback = Callable[[int, bool], Awaitable[None]]

# 20 ms of the voice: 960 int16 samples, 48 kHz mono.
PcmFrame = npt.NDArray[np.int16]


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
    """The host's voice: says a phrase key (config/phrases/<lang>.toml) aloud, and is heard
    through `pcm_frames()` by a room that plays it itself (the LiveKit bot)."""

    async def announce(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        """Queue the phrase; returns at once (it never waits for synthesis or playback)."""

    async def skip_queued(self) -> None:
        """Drop the phrases not started yet (the host moved on); finish the current one."""

    def pcm_frames(self) -> AsyncIterator[PcmFrame]:
        """The voice as 20 ms frames in real time, until the voice stops. A voice that never
        speaks ends at once, so a room playing it costs nothing."""

    def on_cut(self, callback: Callable[[], None]) -> None:
        """Call `callback()` when an urgent phrase cuts the current one short, so a player
        with a buffer of its own (LiveKit's AudioSource) can drop what it holds."""

    async def stop(self) -> None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """Everything a view is built from, at one moment of one table."""

    table_id: str
    version: int
    state: GameState
    settings: TableSettings
    timer_id: int | None
    timer_remaining: float | None
    paused: bool
    present: frozenset[int]


class Hub(Protocol):
    """Sends every connected client of a table its own view of a snapshot."""

    async def publish(self, snapshot: Snapshot) -> None: ...


class Handle(Protocol):
    """A scheduled callback that can still be cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Seconds on a monotonic scale, and callbacks scheduled on it."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle: ...
