"""The event log on PostgreSQL: the SQLite log's promise, shared by several servers.

Theory of operation (issue 16):
- psycopg 3 (sync, with psycopg-binary) on one writer thread, the SQLite log's design: the
  Log port's reads and rare writes are synchronous for the table (replay at open, undo), so
  a thread, not async, keeps every append's round trip off the event loop, and appends get
  the same group commit: the inputs of every table that arrive while a transaction is on
  its way share the next one. (asyncpg is faster per query but async only: the port, the
  table's replay and the CLI tools would all have to change with it.)
- An input is committed before its effects and its ack: `synchronous_commit=on` on every
  connection, whatever the cluster's default.
- Ownership: a row in `leases` per table (owner, epoch, expiry, heartbeat). Every write of a
  table (append, undo, clock) checks, in its own transaction, that this log still holds the
  lease with its epoch and that it has not expired, and locks the lease row (FOR SHARE), so
  a claim by another server waits for the write to commit and then replays it. A write
  fenced out fails with `Fenced` and the `on_fenced` callback drops the table here. A write
  whose COMMIT got no answer (the connection died) may or may not be in the log: it fails
  with LogUnavailable and the table is dropped too, to be claimed again and replayed, so
  memory never drifts from the log (a retry of that input is then found by its client id).
- Reads use the loop's own connection; a table's client ids and next sequence number are
  read once (at its first input after a claim) and kept in memory, so an input costs the
  loop no query.
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
import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import psycopg

from plugin.host.log import (
    ClockRow,
    CommitTimes,
    Entry,
    Fenced,
    GroupCommit,
    LogUnavailable,
    Row,
    decode_json,
    done_future,
    encode_json,
    log_clock_failure,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")
LEASE_SECONDS = 2.0  # a lease lasts this long after its last heartbeat (sent every 0.4 s)
CONNECT_TIMEOUT = 2  # seconds (psycopg's connect_timeout is whole seconds, at least 2)
STATEMENT_SECONDS = 2.0  # a transaction or a read with no answer by then is cut off
READS_REFUSED_SECONDS = 1.0  # after a read that got no answer, reads fail at once this long
SERVER_TIMEOUTS = (  # milliseconds: what the database itself ends on our connections
    "-c statement_timeout=2000 -c lock_timeout=2000 -c idle_in_transaction_session_timeout=2000"
)
SCHEMA_LOCK = 16016  # pg_advisory_xact_lock key: servers starting at once create it once

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    wall DOUBLE PRECISION NOT NULL,
    source TEXT NOT NULL,
    client_id TEXT,
    undone BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (table_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_client_id
    ON events (table_id, client_id) WHERE client_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS archived (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    wall DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS clocks (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    timer_id INTEGER,
    remaining DOUBLE PRECISION,
    warn_at DOUBLE PRECISION NOT NULL DEFAULT 0,
    paused BOOLEAN NOT NULL,
    updated DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    owner TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    heartbeat TIMESTAMPTZ NOT NULL
);
ALTER TABLE leases ADD COLUMN IF NOT EXISTS url TEXT NOT NULL DEFAULT '';
"""

INSERT = (
    "INSERT INTO events (table_id, seq, record, wall, source, client_id)"
    " VALUES (%s, %s, %s, %s, %s, %s)"
)
HELD = (
    "SELECT table_id, epoch FROM leases WHERE table_id = ANY(%s) AND owner = %s"
    " AND expires > clock_timestamp() FOR SHARE"
)
CLAIM = """
INSERT INTO leases (table_id, owner, epoch, expires, heartbeat, url)
SELECT %(t)s, %(o)s, 1, clock_timestamp() + %(l)s * interval '1 second', clock_timestamp(),
    %(u)s
WHERE EXISTS (SELECT 1 FROM tables WHERE id = %(t)s)
  AND NOT EXISTS (SELECT 1 FROM archived WHERE table_id = %(t)s)
ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = leases.epoch + 1,
    expires = EXCLUDED.expires, heartbeat = EXCLUDED.heartbeat, url = EXCLUDED.url
WHERE leases.expires <= clock_timestamp() OR leases.owner = EXCLUDED.owner
RETURNING epoch
"""
RENEW = """
UPDATE leases SET expires = clock_timestamp() + %s * interval '1 second',
    heartbeat = clock_timestamp(), url = %s
FROM unnest(%s::text[], %s::bigint[]) AS held(table_id, epoch)
WHERE leases.table_id = held.table_id AND leases.epoch = held.epoch AND leases.owner = %s
RETURNING leases.table_id
"""
UNOWNED = """
SELECT t.id FROM tables t LEFT JOIN leases l ON l.table_id = t.id
WHERE NOT EXISTS (SELECT 1 FROM archived a WHERE a.table_id = t.id)
  AND (l.table_id IS NULL OR l.expires <= clock_timestamp() OR l.owner = %s)
ORDER BY t.created, t.id
"""
SAVE_CLOCK = (
    "INSERT INTO clocks (table_id, timer_id, remaining, warn_at, paused, updated)"
    " SELECT %s, %s, %s, %s, %s, %s WHERE %s OR EXISTS (SELECT 1 FROM leases"
    " WHERE table_id = %s AND owner = %s AND epoch = %s AND expires > clock_timestamp())"
    " ON CONFLICT (table_id) DO UPDATE SET timer_id = excluded.timer_id,"
    " remaining = excluded.remaining, warn_at = excluded.warn_at, paused = excluded.paused,"
    " updated = excluded.updated"
)


class _Deadlines:
    """One watchdog thread for every connection of a process: a query still waiting past
    its deadline has its socket shut, so psycopg returns at once with an OperationalError
    (the connection is then dropped and made again at its next use)."""

    def __init__(self) -> None:
        self._armed: dict[int, tuple[float, psycopg.Connection[Any]]] = {}
        self._keys = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def guard(self, db: psycopg.Connection[Any], seconds: float) -> Iterator[None]:
        key = next(self._keys)
        with self._wake:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pg-deadlines", daemon=True)
                self._thread.start()
            self._armed[key] = (time.monotonic() + seconds, db)
            self._wake.notify()
        try:
            yield
        finally:
            with self._wake:
                self._armed.pop(key, None)

    def _run(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                late = [k for k, (deadline, _) in self._armed.items() if deadline <= now]
                expired = [self._armed.pop(k)[1] for k in late]
                if not expired:
                    nearest = min((d for d, _ in self._armed.values()), default=None)
                    self._wake.wait(None if nearest is None else nearest - now)
                    continue
            for db in expired:
                _shut(db)


def _shut(db: psycopg.Connection[Any]) -> None:
    """Shut the socket under a connection another thread is blocked on (a duplicate of its
    descriptor, so the connection's own is closed by psycopg, once)."""
    try:
        fd = db.pgconn.socket
    except psycopg.Error:  # closed meanwhile
        return
    with contextlib.suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(fd))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()
    logger.error("event log: the database did not answer for %.1f s", STATEMENT_SECONDS)


DEADLINES = _Deadlines()


class _Uncertain(LogUnavailable):
    """The COMMIT got no answer: the rows may be in the log or not."""


class PostgresLog(GroupCommit):
    """Every table of every server in one PostgreSQL database. `owner` names this server in
    the leases; a log without an owner (the command-line tools) is not fenced."""

    shared = True

    def __init__(self, dsn: str, *, owner: str | None = None, lease: float = LEASE_SECONDS) -> None:
        self.dsn = dsn
        self.owner = owner
        self.lease = lease
        self.healthy = True
        self.commit_times = CommitTimes()
        # This server's public URL, kept in its leases: a server that does not host a
        # table tells a page the owner's (set by the web app; "" for the command line).
        self.url_of: Callable[[], str] = lambda: ""
        self._reads_refused_until = 0.0
        self._held: dict[str, int] = {}  # table id -> the epoch of the lease held here
        self._start_group_commit()
        self._fenced: Callable[[str], None] = lambda table_id: None
        self._write_db: psycopg.Connection[Any] | None = None
        self._read_db: psycopg.Connection[Any] | None = None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        try:
            self._wait_for_writer(self._create_schema)
        except BaseException:
            self._writer.shutdown(wait=True)
            raise

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

    def _create_schema(self) -> None:
        def create(db: psycopg.Connection[Any]) -> None:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

        self._in_transaction(create)

    # --- tables --------------------------------------------------------------------------

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None:
        self._wait_for_writer(self._in_transaction, self._table_rows(table_id, settings))
        if self.owner is not None:
            self._taken(table_id, 1)

    async def commit_table(self, table_id: str, settings: dict[str, Any]) -> None:
        """`create_table` for the event loop: the loop serves the other tables meanwhile."""
        await self._on_writer(self._in_transaction, self._table_rows(table_id, settings))
        if self.owner is not None:
            self._taken(table_id, 1)

    def _table_rows(
        self, table_id: str, settings: dict[str, Any]
    ) -> Callable[[psycopg.Connection[Any]], None]:
        url = self.url_of()

        def write(db: psycopg.Connection[Any]) -> None:
            db.execute(
                "INSERT INTO tables (id, settings, created) VALUES (%s, %s, %s)",
                (table_id, encode_json(settings), time.time()),
            )
            if self.owner is not None:  # the server that makes a table hosts it
                db.execute(
                    "INSERT INTO leases (table_id, owner, epoch, expires, heartbeat, url)"
                    " VALUES (%s, %s, 1, clock_timestamp() + %s * interval '1 second',"
                    " clock_timestamp(), %s)",
                    (table_id, self.owner, self.lease, url),
                )

        return write

    def table_settings(self, table_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT settings FROM tables WHERE id = %s", (table_id,))
        return None if not rows else decode_json(rows[0][0])

    def tables(self, *, archived: bool = False) -> list[tuple[str, dict[str, Any]]]:
        query = "SELECT id, settings FROM tables"
        if not archived:
            query += " WHERE id NOT IN (SELECT table_id FROM archived)"
        rows = self._read(query + " ORDER BY created, id", ())
        return [(table_id, decode_json(settings)) for table_id, settings in rows]

    def archive(self, table_id: str) -> None:
        """Archive a table, fenced like every write: only the holder of its lease may."""
        self._wait_for_writer(self._in_transaction, self._archived_row(table_id))

    async def commit_archive(self, table_id: str) -> None:
        """`archive` for the event loop (as `commit_table`)."""
        await self._on_writer(self._in_transaction, self._archived_row(table_id))

    def _archived_row(self, table_id: str) -> Callable[[psycopg.Connection[Any]], None]:
        row = (table_id, time.time())

        def write(db: psycopg.Connection[Any]) -> None:
            if table_id not in self._fence(db, [table_id]):
                raise self._fenced_out(table_id)
            db.execute(
                "INSERT INTO archived (table_id, wall) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                row,
            )

        return write

    def is_archived(self, table_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM archived WHERE table_id = %s", (table_id,)))

    # --- events --------------------------------------------------------------------------

    def append(
        self, table_id: str, record: dict[str, Any], *, source: str, client_id: str | None = None
    ) -> int:
        """Commit one input and return its sequence number (waits; a table uses `commit`)."""
        seq = self._seq(table_id)
        row = (table_id, seq, encode_json(record), time.time(), source, client_id)
        outcome = self._wait_for_writer(self._insert, [row])[0]
        self._next_seq[table_id] = seq + 1
        self._after([row], [outcome])
        if isinstance(outcome, Exception):
            raise outcome
        self._remember_client_id(table_id, client_id, seq)
        return seq

    def _after(self, rows: list[Row], outcomes: list[int | Exception]) -> None:
        """On the loop: drop the tables fenced out."""
        dropped: set[str] = set()
        for row, outcome in zip(rows, outcomes, strict=True):
            if isinstance(outcome, Fenced | _Uncertain):
                dropped.add(row[0])
        for table_id in dropped:
            self._forget(table_id)
            self._fenced(table_id)

    def _insert(self, rows: list[Row]) -> list[int | Exception]:
        """On the writer thread: every row whose table this log holds, in one transaction
        (or, if one of them is bad, each in its own); the others are fenced out."""
        tables = sorted({row[0] for row in rows})

        def write(db: psycopg.Connection[Any]) -> set[str]:
            held = self._fence(db, tables)
            good = [row for row in rows if row[0] in held]
            if good:
                with db.cursor() as cursor:
                    cursor.executemany(INSERT, good)
            return held

        try:
            held = self._in_transaction(write)
        except psycopg.IntegrityError as error:  # one bad row must not sink the others
            if len(rows) == 1:
                return [error]
            return [self._insert([row])[0] for row in rows]
        except LogUnavailable as failure:
            return [failure for _ in rows]
        return [row[1] if row[0] in held else self._fenced_out(row[0]) for row in rows]

    def _fence(self, db: psycopg.Connection[Any], tables: list[str]) -> set[str]:
        """The tables among these whose lease this log holds now (rows locked FOR SHARE)."""
        if self.owner is None:
            return set(tables)
        found = db.execute(HELD, (tables, self.owner)).fetchall()
        return {table_id for table_id, epoch in found if self._held.get(table_id) == epoch}

    def _fenced_out(self, table_id: str) -> Fenced:
        logger.warning("table %s: fenced out, another server holds its lease now", table_id)
        return Fenced(f"table {table_id} is hosted by another server now")

    def _load_client_ids(self, table_id: str) -> dict[str, int]:
        rows = self._read(
            "SELECT client_id, seq FROM events WHERE table_id = %s AND client_id IS NOT NULL",
            (table_id,),
        )
        return {key: int(seq) for key, seq in rows}

    def entries(self, table_id: str, *, include_undone: bool = False) -> list[Entry]:
        query = (
            "SELECT seq, record, source, client_id, undone, wall FROM events"
            " WHERE table_id = %s" + ("" if include_undone else " AND NOT undone") + " ORDER BY seq"
        )
        return [
            Entry(
                seq=seq,
                record=decode_json(record),
                source=source,
                client_id=client_id,
                undone=bool(undone),
                wall=wall,
            )
            for seq, record, source, client_id, undone, wall in self._read(query, (table_id,))
        ]

    def mark_undone(
        self,
        table_id: str,
        seq: int,
        *,
        undo_record: dict[str, Any],
        source: str,
        client_id: str | None = None,
    ) -> int:
        """Mark entry `seq` undone and log the undo itself, in one fenced transaction."""
        undo_seq = self._seq(table_id)
        row = (table_id, undo_seq, encode_json(undo_record), time.time(), source, client_id)

        def write(db: psycopg.Connection[Any]) -> None:
            if table_id not in self._fence(db, [table_id]):
                raise self._fenced_out(table_id)
            changed = db.execute(
                "UPDATE events SET undone = true WHERE table_id = %s AND seq = %s AND NOT undone",
                (table_id, seq),
            ).rowcount
            if changed != 1:
                raise LookupError(f"table {table_id}: no active entry {seq} to undo")
            db.execute(INSERT, row)

        try:
            self._wait_for_writer(self._in_transaction, write)
        except (Fenced, _Uncertain):
            self._forget(table_id)
            self._fenced(table_id)
            raise
        self._next_seq[table_id] = undo_seq + 1
        if client_id is not None:
            self._remember_client_id(table_id, client_id, undo_seq)
        return undo_seq

    # --- clocks --------------------------------------------------------------------------

    def save_clocks(self, rows: dict[str, ClockRow]) -> Future[None]:
        """Queue the timers of many tables for one transaction, fenced like every write
        (a table no longer held here is left alone); returns without waiting."""
        now = time.time()
        free = self.owner is None
        values = [
            (table_id, row.timer_id, row.remaining, row.warn_at, row.paused, now, free,
             table_id, self.owner, self._held.get(table_id, -1))
            for table_id, row in rows.items()
            if free or table_id in self._held
        ]  # fmt: skip

        def write(db: psycopg.Connection[Any]) -> None:
            with db.cursor() as cursor:
                cursor.executemany(SAVE_CLOCK, values)

        done = self._writer.submit(self._in_transaction, write) if values else done_future()
        done.add_done_callback(log_clock_failure)
        return done

    def load_clock(self, table_id: str) -> ClockRow | None:
        rows = self._read(
            "SELECT timer_id, remaining, paused, warn_at FROM clocks WHERE table_id = %s",
            (table_id,),
        )
        if not rows:
            return None
        timer_id, remaining, paused, warn_at = rows[0]
        return ClockRow(timer_id=timer_id, remaining=remaining, paused=paused, warn_at=warn_at)

    # --- ownership -----------------------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        """Take the table's lease when nobody holds it (or it is this server's own): a new
        epoch, so any write still on its way under the old one is fenced out."""
        if self.owner is None:
            return True
        params = {"t": table_id, "o": self.owner, "l": self.lease, "u": self.url_of()}
        rows = await self._on_writer(
            self._in_transaction, lambda db: db.execute(CLAIM, params).fetchall()
        )
        if not rows:
            return False
        self._taken(table_id, int(rows[0][0]))
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        held = [(t, self._held[t]) for t in table_ids if t in self._held]
        lost = {t for t in table_ids if t not in self._held}
        if self.owner is None or not held:
            return lost
        ids, epochs = [t for t, _ in held], [e for _, e in held]
        params = (self.lease, self.url_of(), ids, epochs, self.owner)
        rows = await self._on_writer(
            self._in_transaction, lambda db: db.execute(RENEW, params).fetchall()
        )
        kept = {row[0] for row in rows}
        for table_id, _ in held:
            if table_id not in kept:
                lost.add(table_id)
                self._forget(table_id)
        return lost

    async def release(self, table_ids: list[str]) -> None:
        """Expire these leases now, after every write queued before (a drain)."""
        mine = [t for t in table_ids if t in self._held]
        if self.owner is None or not mine:
            return
        await self._on_writer(
            self._in_transaction,
            lambda db: db.execute(
                "UPDATE leases SET expires = clock_timestamp() - interval '1 second'"
                " WHERE owner = %s AND table_id = ANY(%s)",
                (self.owner, mine),
            ),
        )
        for table_id in mine:
            self._forget(table_id)

    async def unowned(self) -> list[str]:
        rows = await self._on_writer(
            self._in_transaction, lambda db: db.execute(UNOWNED, (self.owner,)).fetchall()
        )
        return [row[0] for row in rows]

    async def owners(self) -> dict[str, str]:
        rows = await self._on_writer(
            self._in_transaction,
            lambda db: db.execute(
                "SELECT table_id, owner FROM leases WHERE expires > clock_timestamp()"
            ).fetchall(),
        )
        return {table_id: owner for table_id, owner in rows}

    def owner_url(self, table_id: str) -> str | None:
        """The public URL of the server whose live lease hosts the table, if any."""
        rows = self._read(
            "SELECT url FROM leases WHERE table_id = %s AND expires > clock_timestamp()",
            (table_id,),
        )
        return str(rows[0][0]) or None if rows else None

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        self._fenced = callback

    def _taken(self, table_id: str, epoch: int) -> None:
        """A lease taken: what was cached about the table may be stale (another server
        wrote it meanwhile), read it again."""
        self._held[table_id] = epoch
        self._next_seq.pop(table_id, None)
        self._client_ids.pop(table_id, None)

    def _forget(self, table_id: str) -> None:
        self._held.pop(table_id, None)
        self._next_seq.pop(table_id, None)
        self._client_ids.pop(table_id, None)

    # --- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Write what is queued and close (inputs committed in this very turn are kept)."""
        if self._closed:
            return
        self._closed = True
        self._write_queued()
        if self._read_db is not None:
            self._read_db.close()
        try:
            self._wait_for_writer(self._close_writer)
        finally:
            self._writer.shutdown(wait=True)

    def _close_writer(self) -> None:
        if self._write_db is not None:
            self._write_db.close()
            self._write_db = None

    # --- the writer thread and the loop's reads ------------------------------------------

    def _in_transaction(self, write: Callable[[psycopg.Connection[Any]], T]) -> T:
        """One transaction on the writer thread. A constraint is the row's fault (raises
        IntegrityError); anything else is the database's: LogUnavailable, the connection
        dropped and made again at the next write. A connection found dead at BEGIN (the
        database restarted since) is made again at once: nothing was sent on it."""
        committing = False
        try:
            fresh = self._write_db is None or self._write_db.closed
            if fresh:
                self._write_db = self._connect()
            assert self._write_db is not None
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
            db = self._write_db
            with DEADLINES.guard(db, STATEMENT_SECONDS):
                try:
                    result = write(db)
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
            kind = _Uncertain if committing else LogUnavailable
            raise kind(f"the event log cannot be written ({error})") from None
        except LogUnavailable:
            self.healthy = False
            raise
        self.healthy = True
        return result

    def _drop_writer(self) -> None:
        if self._write_db is not None:
            with contextlib.suppress(psycopg.Error):
                self._write_db.close()
            self._write_db = None

    def _read(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """A query on the loop's connection; one found dead (the database restarted since)
        is made again once."""
        if time.monotonic() < self._reads_refused_until:  # it just failed: fail at once
            raise LogUnavailable("the event log cannot be read (the database did not answer)")
        for attempt in (1, 2):
            fresh = self._read_db is None or self._read_db.closed
            started = time.monotonic()
            try:
                if fresh:
                    self._read_db = self._connect()
                assert self._read_db is not None
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

    def _seq(self, table_id: str) -> int:
        if table_id not in self._next_seq:
            rows = self._read(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = %s", (table_id,)
            )
            self._next_seq[table_id] = int(rows[0][0]) + 1
        return self._next_seq[table_id]
