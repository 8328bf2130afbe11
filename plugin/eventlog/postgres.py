"""The event log's PostgreSQL store: the SQLite log's promise, shared by several servers
(plugin.eventlog.core runs every operation over it; plugin.eventlog.leases are its leases).

Theory of operation (issue 16):
- psycopg 3 (sync, with psycopg-binary) on the core's one writer thread, the SQLite log's
  design: the Log port's reads and rare writes are synchronous for the table (replay at
  open, undo), so a thread, not async, keeps every append's round trip off the event loop,
  and appends get the same group commit. (asyncpg is faster per query but async only: the
  port, the table's replay and the CLI tools would all have to change with it.)
- An input is committed before its effects and its ack: `synchronous_commit=on` on every
  connection, whatever the cluster's default.
- Ownership: a row in `leases` per table (owner, epoch, expiry, heartbeat). Every write of a
  table (append, undo, clock, archive) checks, in its own transaction, that this server
  still holds the lease with its epoch and that it has not expired, and locks the lease row
  (FOR SHARE), so a claim by another server waits for the write to commit and then replays
  it (`fence`). A log without an owner (the command-line tools) is not fenced.
- Reads use the loop's own connection.
- The database gone or refusing: every write raises LogUnavailable (code log_unavailable)
  and `healthy` is False until one succeeds; connections are made again at the next use.
- The database frozen (its processes stopped, a host that stopped answering): a socket on
  which nothing comes back never times out by itself, and the kernel of a stopped process
  on loopback still acknowledges everything, so TCP keepalives do not help. Every
  transaction and every read runs under a deadline (`STATEMENT_SECONDS`): past it a
  watchdog thread shuts the connection's socket, the query fails at once, and the input is
  refused with log_unavailable; connecting has its own timeout. On the server side
  `statement_timeout`, `lock_timeout` and `idle_in_transaction_session_timeout` end a
  transaction whose server froze while it held a lease row, so the others can claim it.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import psycopg

from plugin.host.ports import CommitTimes, Fenced, LogUnavailable

from .deadlines import DEADLINES, STATEMENT_SECONDS
from .store import Dialect, Fetched, Transaction, Uncertain

logger = logging.getLogger(__name__)
T = TypeVar("T")
LEASE_SECONDS = 2.0  # a lease lasts this long after its last heartbeat (sent every 0.4 s)
CONNECT_TIMEOUT = 2  # seconds (psycopg's connect_timeout is whole seconds, at least 2)
READS_REFUSED_SECONDS = 1.0  # after a read that got no answer, reads fail at once this long
SERVER_TIMEOUTS = (  # milliseconds: what the database itself ends on our connections
    "-c statement_timeout=2000 -c lock_timeout=2000 -c idle_in_transaction_session_timeout=2000"
)
SCHEMA_LOCK = 16016  # pg_advisory_xact_lock key: servers starting at once create it once
DIALECT = Dialect(
    real="DOUBLE PRECISION",
    flag="BOOLEAN",
    false="false",
    integrity_errors=(psycopg.IntegrityError,),
    now="SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8",
)
LEASES_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS leases (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    owner TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    heartbeat TIMESTAMPTZ NOT NULL
)""",
    "ALTER TABLE leases ADD COLUMN IF NOT EXISTS url TEXT NOT NULL DEFAULT ''",
)
HELD = (
    "SELECT table_id, epoch FROM leases WHERE table_id = ANY(?) AND owner = ?"
    " AND expires > clock_timestamp() FOR SHARE"
)
HOLD_NEW = (
    "INSERT INTO leases (table_id, owner, epoch, expires, heartbeat, url)"
    " VALUES (?, ?, 1, clock_timestamp() + ? * interval '1 second', clock_timestamp(), ?)"
)


class PostgresStore:
    """Every table of every server in one PostgreSQL database. `owner` names this server in
    the leases; a store without an owner (the command-line tools) is not fenced."""

    dialect = DIALECT

    def __init__(self, dsn: str, *, owner: str | None = None, lease: float = LEASE_SECONDS) -> None:
        self.dsn = dsn
        self.owner = owner
        self.lease = lease
        self.healthy = True
        self.commit_times = CommitTimes()
        # This server's public URL, kept in its leases: a server that does not host a
        # table tells a page the owner's (set by the web app; "" for the command line).
        self.url_of: Callable[[], str] = lambda: ""
        self.held: dict[str, int] = {}  # table id -> the epoch of the lease held here
        self._reads_refused_until = 0.0
        self._write_db: psycopg.Connection[Any] | None = None
        self._read_db: psycopg.Connection[Any] | None = None

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(
                self.dsn,
                autocommit=True,  # transactions are opened explicitly (BEGIN ... COMMIT)
                connect_timeout=CONNECT_TIMEOUT,
                options="-c synchronous_commit=on " + SERVER_TIMEOUTS,
            )
        except psycopg.Error as error:
            self.healthy = False
            raise LogUnavailable(f"the event log's database refuses: {error}") from None

    def open(self, schema: Sequence[str]) -> None:
        def create(tx: Transaction) -> None:
            tx.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
            for statement in (*schema, *LEASES_SCHEMA):
                tx.execute(statement)

        self.transaction(create)

    # --- the fence -----------------------------------------------------------------------

    def fence(self, tx: Transaction, table_ids: Sequence[str]) -> set[str]:
        """The tables among these whose lease this server holds now (rows locked FOR SHARE)."""
        if self.owner is None:
            return set(table_ids)
        found = tx.fetch(HELD, (list(table_ids), self.owner))
        return {table_id for table_id, epoch in found if self.held.get(table_id) == epoch}

    def made(self, tx: Transaction, table_id: str) -> None:
        """The server that makes a table hosts it: its lease, epoch 1, in the same
        transaction (and held here from now on)."""
        if self.owner is None:
            return
        tx.execute(HOLD_NEW, (table_id, self.owner, self.lease, self.url_of()))
        self.held[table_id] = 1

    # --- the writer thread and the loop's reads ------------------------------------------

    def transaction(self, write: Callable[[Transaction], T], *, durable: bool = True) -> T:
        """One transaction on the writer thread (every commit is synchronous). A constraint
        is the row's fault (raises IntegrityError); anything else is the database's:
        LogUnavailable, the connection dropped and made again at the next write. A
        connection found dead at BEGIN (the database restarted since) is made again at
        once: nothing was sent on it."""
        committing = False
        try:
            db = self._begin()
            with DEADLINES.guard(db, STATEMENT_SECONDS):
                try:
                    result = write(_PostgresTransaction(db))
                except BaseException:
                    if not db.broken:
                        db.execute("ROLLBACK")
                    raise
                committing = True
                started = time.perf_counter()
                db.execute("COMMIT")
                self.commit_times.record(time.perf_counter() - started)
        except (psycopg.IntegrityError, Fenced, LookupError):
            raise
        except psycopg.Error as error:
            self.healthy = False
            self._drop_writer()
            logger.error("event log: a write failed: %s", error)
            kind = Uncertain if committing else LogUnavailable
            raise kind(f"the event log cannot be written ({error})") from None
        except LogUnavailable:
            self.healthy = False
            raise
        self.healthy = True
        return result

    def _begin(self) -> psycopg.Connection[Any]:
        """The writer's connection with a transaction begun on it."""
        fresh = self._write_db is None or self._write_db.closed
        if fresh or self._write_db is None:
            self._write_db = self._connect()
        try:
            with DEADLINES.guard(self._write_db, STATEMENT_SECONDS):
                self._write_db.execute("BEGIN")
        except psycopg.OperationalError:
            if fresh:
                raise
            self._drop_writer()
            self._write_db = self._connect()
            with DEADLINES.guard(self._write_db, STATEMENT_SECONDS):
                self._write_db.execute("BEGIN")
        return self._write_db

    def _drop_writer(self) -> None:
        if self._write_db is not None:
            with contextlib.suppress(psycopg.Error):
                self._write_db.close()
            self._write_db = None

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        """A query on the loop's connection; one found dead (the database restarted since)
        is made again once."""
        if time.monotonic() < self._reads_refused_until:  # it just failed: fail at once
            raise LogUnavailable("the event log cannot be read (the database did not answer)")
        query = _placeholders(statement)
        for attempt in (1, 2):
            fresh = self._read_db is None or self._read_db.closed
            started = time.monotonic()
            try:
                if fresh or self._read_db is None:
                    self._read_db = self._connect()
                with DEADLINES.guard(self._read_db, STATEMENT_SECONDS):
                    return self._read_db.execute(query, params).fetchall()
            except psycopg.Error as error:
                if self._read_db is not None:
                    self._read_db.close()
                    self._read_db = None
                slow = time.monotonic() - started >= STATEMENT_SECONDS
                if fresh or slow or attempt == 2 or not isinstance(error, psycopg.OperationalError):
                    if slow:  # the loop waited once: the next reads are refused for a while
                        self._reads_refused_until = time.monotonic() + READS_REFUSED_SECONDS
                    raise LogUnavailable(f"the event log cannot be read ({error})") from None
            except LogUnavailable:  # could not connect
                self._reads_refused_until = time.monotonic() + READS_REFUSED_SECONDS
                raise
        raise AssertionError("unreachable")

    def close_writer(self) -> None:
        self._drop_writer()

    def close(self) -> None:
        reader, self._read_db = self._read_db, None
        if reader is not None:
            reader.close()


class _PostgresTransaction:
    """The writer's connection inside a transaction: the core's `?` become psycopg's `%s`."""

    def __init__(self, db: psycopg.Connection[Any]) -> None:
        self._db = db

    def execute(self, statement: str, params: Sequence[Any] = ()) -> int:
        return self._db.execute(_placeholders(statement), params).rowcount

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self._db.cursor() as cursor:
                cursor.executemany(_placeholders(statement), rows)

    def fetch(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        return self._db.execute(_placeholders(statement), params).fetchall()


_CONVERTED: dict[str, str] = {}


def _placeholders(statement: str) -> str:
    """`statement` with psycopg's placeholders (`%s` for `?`); no statement has a literal
    `?` or `%`. Converted once each (the statements are the core's constants)."""
    converted = _CONVERTED.get(statement)
    if converted is None:
        converted = _CONVERTED[statement] = statement.replace("?", "%s")
    return converted
