"""The store port: what the event-log core (plugin.eventlog.core) asks of a database, and
nothing more. The core writes every statement once, with `?` placeholders; a store runs
them on its own connections (SQLite's file, PostgreSQL's server) in its own dialect.

The way procrastinate's `BaseConnector` serves its `App`: a handful of members under one
core. The core calls `open`, `transaction`, `fence`, `made` and `close_writer` on its one
writer thread, in order; `read` and `close` on the event loop's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from plugin.host.ports import CommitTimes, LogUnavailable

T = TypeVar("T")
Fetched = tuple[Any, ...]  # one row a query returned


class Uncertain(LogUnavailable):
    """The COMMIT got no answer (the connection died on its way): the rows may be in the
    log or not. The table is dropped and replayed, so memory never drifts from the log."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Dialect:
    """What really differs between the stores' SQL: the column types of the schema, and
    which errors mean that a row broke a constraint (a duplicate client id, an unknown
    table) rather than that the database failed."""

    real: str  # a float column
    flag: str  # a yes/no column
    false: str  # its default
    integrity_errors: tuple[type[Exception], ...]
    # The database's own wall clock, in seconds since the epoch (one SELECT): every server
    # of a shared log stamps and compares its times against it (issue 31).
    now: str = "SELECT CAST((julianday('now') - 2440587.5) * 86400.0 AS REAL)"


class Transaction(Protocol):
    """One open transaction on the writer's connection (statements with `?` placeholders)."""

    def execute(self, statement: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; how many rows it changed."""

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def fetch(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        """Run one statement; the rows it returned."""


class Store(Protocol):
    """A database the event log is kept in (SQLite's file, PostgreSQL's server)."""

    dialect: Dialect

    @property
    def healthy(self) -> bool:
        """Whether the last write went through."""

    @property
    def commit_times(self) -> CommitTimes: ...

    def open(self, schema: Sequence[str]) -> None:
        """Connect the writer and make the schema (writer thread). A store that is not an
        event log is refused with an error naming it."""

    def transaction(self, write: Callable[[Transaction], T], *, durable: bool = True) -> T:
        """`write` in one transaction (writer thread): committed, or rolled back and raised.
        A constraint raises one of `dialect.integrity_errors`; the database failing raises
        LogUnavailable (Uncertain if the COMMIT got no answer). `durable=False`: a write
        not worth a sync of its own (a timer's time left), still in order."""

    def fence(self, tx: Transaction, table_ids: Sequence[str]) -> set[str]:
        """The tables among these that this server may write now (inside `tx`, so another
        server's claim waits for it); a store without leases holds every table."""

    def made(self, tx: Transaction, table_id: str) -> None:
        """A table is being made here (inside `tx`): the server that makes it hosts it."""

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        """A query on the event loop's own connection (reads never wait for the writer)."""

    def close_writer(self) -> None:
        """Close the writer's connection (writer thread, after everything queued)."""

    def close(self) -> None:
        """Close what the loop's side holds (its reads)."""
