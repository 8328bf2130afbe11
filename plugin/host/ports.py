"""The ports a table's host loop drives, owned here and implemented outside.

Each is a typing.Protocol. The rooms (embedded aiortc, LiveKit), the voice (espeak-ng), the
web hub and the event log (`plugin.eventlog`: Log, and Leases on a shared log) implement
them; `plugin.host.silent` has the no-op ones and `testing` the in-memory fakes that record
what they were asked. The values and errors the ports carry (Entry, ClockRow, CommitTimes,
LogUnavailable, Fenced) are defined here too, so a port never imports its adapter. Nothing
in `plugin.host` imports its implementations: the assembly (`plugin.server`) plugs them in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from plugin.rules.state import GameState

from .settings import TableSettings
from .stream import StreamView

# seat, joined (True) or left (False)
PresenceCallback = Callable[[int, bool], Awaitable[None]]

# seat: his audio reaches the room's listeners now
AudioCallback = Callable[[int], Awaitable[None]]

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


@runtime_checkable
class HearsSpeakers(Protocol):
    """A room in which a speaker is heard only some time after his grant (LiveKit: a fresh
    track each turn, which every listener must subscribe to, about 0.45 s), and which says
    when his audio flows (plugin.host.first_word)."""

    def on_audio(self, callback: AudioCallback) -> None:
        """Call `callback(seat)` once a newly granted seat's audio reaches the room."""


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
    # The speech's countdown waits for its speaker's audio after a restart or a failover
    # (plugin.host.audio_wait): frozen, though the host did not pause the game.
    timer_held: bool = False
    # Once the game is over: the end screen (plugin.host.ending.end_view), and the table
    # the next game is played at, once the host started it.
    ending: dict[str, Any] | None = None
    successor: str | None = None
    # While the host streams with roles: the delay and the state as of that long ago, for
    # the stream overlay only (plugin.host.stream). None: the setting is off.
    stream: StreamView | None = None
    # The table clock's time when taken (Clock.now): with timer_remaining, the timer's
    # deadline, which a page's clock follows (plugin/web/rhythm.py).
    taken_at: float | None = None


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


class LogUnavailable(Exception):
    """The log refused a write or a read (a full or failing disk, a database away): the
    input was not committed, and nothing changed."""


class Fenced(LogUnavailable):
    """This server no longer holds the table's lease (another took it over): the write was
    refused and the table must be dropped here (see Leases)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One logged input. `source`: a seat number as text, "host", "clock" or "room"."""

    seq: int
    record: dict[str, Any]
    source: str
    client_id: str | None
    undone: bool
    wall: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockRow:
    """A table's timer as saved: which one runs, the time it had left, paused or not."""

    timer_id: int | None
    remaining: float | None
    paused: bool
    warn_at: float = 0


class CommitTimes:
    """How long the log's durable commits took (the COMMIT alone, on the log's writer
    thread): what `/healthz` shows, so an operator (and bench/load.py) can tell a slow disk
    from a slow server. Written by the writer thread, read by the loop: plain counters."""

    SLOW_MS = 50.0

    def __init__(self) -> None:
        self.count = 0
        self.slow = 0  # commits over SLOW_MS
        self.slowest_ms = 0.0

    def record(self, seconds: float) -> None:
        ms = seconds * 1000
        self.count += 1
        self.slow += ms > self.SLOW_MS
        self.slowest_ms = max(self.slowest_ms, ms)

    def summary(self) -> dict[str, Any]:
        return {
            "commits": self.count,
            "slow_commits": self.slow,
            "slow_ms": self.SLOW_MS,
            "slowest_commit_ms": round(self.slowest_ms, 1),
        }


# A table's inputs committed together: (record, source, client id) each.
Inputs = Sequence[tuple[dict[str, Any], str, str | None]]


class Log(Protocol):
    """The event log every table writes (plugin.eventlog: one core over a SQLite file or a
    PostgreSQL database). `commit` makes an input durable before the table acts on it or
    acks it; a failure raises LogUnavailable (Fenced: another server hosts the table now).
    Undo marks an entry, nothing is ever deleted; a finished table is archived, kept whole."""

    @property
    def healthy(self) -> bool:
        """Whether the last write went through."""

    @property
    def commit_times(self) -> CommitTimes:
        """How long durable commits take (what /healthz shows)."""

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None: ...
    async def commit_table(self, table_id: str, settings: dict[str, Any]) -> None:
        """`create_table` for the server's event loop: it goes on serving the other tables
        while the write is made durable (like `commit` beside `append`)."""

    def table_settings(self, table_id: str) -> dict[str, Any] | None: ...
    def table_created(self, table_id: str) -> float | None: ...
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
    async def commit_many(self, table_id: str, inputs: Inputs) -> list[int | Exception]:
        """`commit` for inputs taken together (record, source, client id), in order, in
        one transaction: each one's sequence number, or why it was refused."""

    def find_client_id(self, table_id: str, client_id: str) -> int | None: ...
    def wall_now(self) -> float:
        """The log's own wall clock now (the database's, on a shared log): the one every
        `Entry.wall` was stamped with, whichever server wrote it (issue 31)."""

    def wall(self) -> float:
        """The log's clock without asking it (this server's, moved by the offset to the
        log's last measured): what a token's expiry is issued and checked with (issue 31)."""

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


class Leases(Protocol):
    """Who hosts each table of a log shared by several servers (PostgreSQL): a lease per
    table with an epoch that fences every write of the log; a write fenced out raises
    `Fenced` and calls the `on_fenced` callback. A log that is not shared (SQLite) has no
    leases: its one server holds every table for good."""

    owner: str  # this server's name in the leases
    lease: float  # seconds a lease lasts after its last renewal
    url_of: Callable[[], str]  # this server's public URL, kept in its leases

    async def claim(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it (a new epoch); True if this log holds it."""

    async def renew(self, table_ids: list[str]) -> set[str]:
        """Extend the leases of these tables (the ones open here); those no longer held."""

    async def release(self, table_ids: list[str]) -> None:
        """Expire these leases now (a drain), after every write queued before."""

    async def unowned(self) -> list[str]:
        """Live tables that nobody holds (no lease, or an expired one), oldest first."""

    async def owners(self) -> dict[str, str]:
        """Table id -> the owner holding its lease now."""

    def owner_url(self, table_id: str) -> str | None:
        """The public URL of the server whose live lease hosts the table, if any."""

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        """Call `callback(table_id)` when a write of that table was fenced out."""
