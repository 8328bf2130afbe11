"""The ports a table's host loop drives, owned here and implemented outside.

Each is a typing.Protocol. The rooms (embedded aiortc, LiveKit), the voice (espeak-ng) and
the web hub implement them; `plugin.host.silent` has the no-op ones and `testing`
the in-memory fakes that record what they were asked. Nothing in `plugin.host` imports its
implementations: the assembly (`plugin.server`) plugs them in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from plugin.rules.state import GameState

from .log import ClockRow, CommitTimes, Entry
from .settings import TableSettings
from .stream import StreamView

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
    # Once the game is over: the end screen (plugin.host.ending.end_view), and the table
    # the next game is played at, once the host started it.
    ending: dict[str, Any] | None = None
    successor: str | None = None
    # While the host streams with roles: the delay and the state as of that long ago, for
    # the stream overlay only (plugin.host.stream). None: the setting is off.
    stream: StreamView | None = None


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


class Log(Protocol):
    """The event log every table writes (plugin.host.log: SQLite, one server;
    plugin.eventlog.postgres: PostgreSQL, shared by several servers). `commit` makes an input
    durable before the table acts on it or acks it; a failure raises LogUnavailable.

    Ownership: on a `shared` log a table is hosted by one server at a time, through a lease
    with an epoch that fences every write (`claim`, `renew`, `release`, `unowned`); a write
    fenced out raises `Fenced` and calls the `on_fenced` callback. A log that is not shared
    (SQLite) holds every table for good."""

    healthy: bool
    commit_times: CommitTimes  # how long durable commits take (what /healthz shows)
    shared: bool
    owner: str | None

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None: ...
    async def commit_table(self, table_id: str, settings: dict[str, Any]) -> None:
        """`create_table` for the server's event loop: it goes on serving the other tables
        while the write is made durable (like `commit` beside `append`)."""

    def table_settings(self, table_id: str) -> dict[str, Any] | None: ...
    def tables(self, *, archived: bool = False) -> list[tuple[str, dict[str, Any]]]: ...
    def archive(self, table_id: str) -> None: ...
    async def commit_archive(self, table_id: str) -> None:
        """`archive` for the server's event loop (as `commit_table`)."""

    def is_archived(self, table_id: str) -> bool: ...
    def append(
        self, table_id: str, record: dict[str, Any], *, source: str, client_id: str | None = None
    ) -> int: ...
    async def commit(
        self, table_id: str, record: dict[str, Any], *, source: str, client_id: str | None = None
    ) -> int: ...
    async def commit_many(
        self, table_id: str, inputs: Sequence[tuple[dict[str, Any], str, str | None]]
    ) -> list[int | Exception]:
        """`commit` for inputs taken together (record, source, client id), in order, in
        one transaction: each one's sequence number, or why it was refused."""

    def find_client_id(self, table_id: str, client_id: str) -> int | None: ...
    def entries(self, table_id: str, *, include_undone: bool = False) -> list[Entry]: ...
    def mark_undone(
        self,
        table_id: str,
        seq: int,
        *,
        undo_record: dict[str, Any],
        source: str,
        client_id: str | None = None,
    ) -> int: ...
    def save_clocks(self, rows: dict[str, ClockRow]) -> Future[None]: ...
    def load_clock(self, table_id: str) -> ClockRow | None: ...
    def close(self) -> None: ...

    async def claim(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (a new epoch); True if this log holds it."""

    async def renew(self, table_ids: list[str]) -> set[str]:
        """Extend the leases of these tables (the ones open here); those no longer held."""

    async def release(self, table_ids: list[str]) -> None:
        """Expire these leases now (a drain), after every write queued before."""

    async def unowned(self) -> list[str]:
        """Live tables that nobody holds (no lease, or an expired one), oldest first."""

    async def owners(self) -> dict[str, str]:
        """Table id -> the owner holding its lease now (what `GET /api/tables` shows)."""

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        """Call `callback(table_id)` when a write of that table was fenced out."""
