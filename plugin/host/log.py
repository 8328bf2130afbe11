"""The event log: one SQLite file (WAL) holding every table, its accepted inputs and its clock.

Theory of operation (issue 4):
- `commit` writes an accepted input with `synchronous=FULL` BEFORE the table carries out its
  effects or tells the sender it was accepted, so a crash never loses an acknowledged vote.
  It is a group commit: the inputs of every table that arrive while the disk is busy share
  the next transaction (one fsync: 8 ms median, 26 ms max on this machine's disk).
- One writer thread owns the connection that writes, and every write goes through it in
  order. The event loop, which also mixes the tables' audio every 20 ms and answers every
  socket, never waits for an fsync on the way of a vote, a speech or a timer. Reads use
  the loop's own connection (WAL: a reader never waits for the writer) and see what has
  been committed.
- The rare writes whose caller must know the outcome before going on (`create_table`,
  `mark_undone`; `append` for tools and tests) block their caller until the writer has
  done them, after everything queued before them.
- The writer never checkpoints the WAL itself: a checkpoint copies megabytes into the main
  file and syncs it, 60-150 ms on this disk, and the commit that happened to cross
  SQLite's threshold carried it, with every vote queued behind it (bench/load.py's p99).
  A checkpointer thread with its own connection does it every CHECKPOINT_SECONDS, beside
  the commits (WAL lets a checkpoint run while the writer appends).
- Undo marks an entry `undone`; nothing is ever deleted (the log is also the game's record).
- `client_id` is unique per table: a retried client message is found and not applied twice.
- The `clocks` row keeps the current timer and the time it had left; the table saves it on
  every change and about once a second, so a restart resumes the timer give or take a second.
  A clock save is queued to the writer and not waited for.
- A finished or ended table is archived: kept whole (its protocol still exports) but not
  reopened when the server starts.
- Bad disks are named, never guessed around: a file that is empty, truncated or not an
  event log is refused at open (BadLogFile names the file), and a write the disk refuses
  (full, read-only, I/O error) fails its input with LogUnavailable; `healthy` says whether
  the last write went through.
- The file, and the WAL and SHM files SQLite makes beside it with the same mode, are
  readable by the owner only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgspec

logger = logging.getLogger(__name__)
T = TypeVar("T")
FILE_MODE = 0o600  # the log holds every game's secrets (roles, checks): the owner only
CHECKPOINT_SECONDS = 1.0


class BadLogFile(Exception):
    """The file at the log's path is not a usable event log (named in the message)."""


class LogUnavailable(Exception):
    """The disk refused a write (full, read-only, failing): the input was not committed."""


class Fenced(LogUnavailable):
    """This server no longer holds the table's lease (another took it over): the write was
    refused and the table must be dropped here (plugin.host.ports.Log, ownership)."""


class CommitTimes:
    """How long the log's durable commits took (on the writer thread, the COMMIT alone):
    what `/healthz` shows, so an operator (and bench/load.py) can tell a slow disk from a
    slow server. Written by the writer thread, read by the loop: plain counters."""

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


SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    wall REAL NOT NULL,
    source TEXT NOT NULL,
    client_id TEXT,
    undone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_client_id
    ON events (table_id, client_id) WHERE client_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS archived (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS clocks (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    timer_id INTEGER,
    remaining REAL,
    warn_at REAL NOT NULL DEFAULT 0,
    paused INTEGER NOT NULL,
    updated REAL NOT NULL
);
"""


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
    timer_id: int | None
    remaining: float | None
    paused: bool
    warn_at: float = 0


INSERT = (
    "INSERT INTO events (table_id, seq, record, wall, source, client_id) VALUES (?, ?, ?, ?, ?, ?)"
)
Row = tuple[str, int, str, float, str, str | None]
Queued = tuple[list[Row], "asyncio.Future[list[int | Exception]]"]  # one committer's rows


class GroupCommit:
    """The group commit both event logs share (this SQLite one and plugin.eventlog's
    PostgreSQL one): `commit` queues an accepted input for the log's single writer thread,
    so the inputs of every table that arrive while a transaction is on its way share the
    next one. Each committer gets its sequence number once its row is durable, or the
    reason it was refused.

    The writer takes the queued rows itself: at most one write job waits in the writer's
    queue, and it takes every row queued by the time it starts, so a transaction follows
    the one before it at once, without a turn of the event loop between them (under load a
    turn of the loop takes milliseconds, and each vote paid for one before its transaction
    even began, and one after). Only the answers go back through the loop, one call per
    transaction. Rows queued while a write job waits join it, ahead of any job submitted
    after it (only a clock save, which never waits for an input's row, is ever submitted
    without waiting; everything else the loop waits for).

    A log supplies `_seq` (the
    table's next sequence number), `_insert` (rows in one transaction, on the writer
    thread), `_load_client_ids` (a table's client message ids and their sequence numbers)
    and, if it must look at the outcomes on the loop, `_after`.

    `find_client_id` reads a table's client ids once, then keeps them in memory and adds
    every one committed since: a table looks up each client message before it commits it,
    and a query per message on the loop every table shares was a part of every vote's
    latency."""

    _writer: ThreadPoolExecutor
    _next_seq: dict[str, int]
    _client_ids: dict[str, dict[str, int]]  # table id -> client id -> seq (tables read)
    _queued: list[Queued]  # rows no write job has taken yet, with their committer
    _queued_lock: threading.Lock
    _job_waiting: bool  # a write job is in the writer's queue and has not taken rows yet
    _closed: bool

    def _start_group_commit(self) -> None:
        self._next_seq = {}
        self._client_ids = {}
        self._queued = []
        self._queued_lock = threading.Lock()
        self._job_waiting = False
        self._closed = False

    def _seq(self, table_id: str) -> int:
        raise NotImplementedError

    def _insert(self, rows: list[Row]) -> list[int | Exception]:
        raise NotImplementedError

    def _load_client_ids(self, table_id: str) -> dict[str, int]:
        raise NotImplementedError

    def _after(self, rows: list[Row], outcomes: list[int | Exception]) -> None:
        """On the loop, once a transaction's outcomes are known (before the committers)."""

    def find_client_id(self, table_id: str, client_id: str) -> int | None:
        """The sequence number of the input sent with this client message id, if any."""
        known = self._client_ids.get(table_id)
        if known is None:
            known = self._client_ids[table_id] = self._load_client_ids(table_id)
        return known.get(client_id)

    def _remember_client_id(self, table_id: str, client_id: str | None, seq: int) -> None:
        """A row with `client_id` is durable: add it to the table's ids, if they were read
        (if not, reading them will find it)."""
        known = self._client_ids.get(table_id)
        if known is not None and client_id is not None:
            known[client_id] = seq

    async def commit(
        self,
        table_id: str,
        record: dict[str, Any],
        *,
        source: str,
        client_id: str | None = None,
    ) -> int:
        """Queue one accepted input for the writer; return its sequence number once it is
        durable, so the caller still acts only on committed input. Every input committed
        while the writer is busy (many tables at once) shares its next transaction."""
        (outcome,) = await self.commit_many(table_id, [(record, source, client_id)])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def commit_many(
        self, table_id: str, inputs: Sequence[tuple[dict[str, Any], str, str | None]]
    ) -> list[int | Exception]:
        """`commit` for a table's inputs taken together (record, source, client id), in
        order and in one transaction: each one's sequence number once durable, or the
        reason it was refused. They wait for one answer, not one each: every answer is a
        turn of the event loop, and a round's ballots come at once."""
        if self._closed:
            raise RuntimeError("the event log is closed")
        if not inputs:
            return []
        rows: list[Row] = []
        for record, source, client_id in inputs:
            seq = self._seq(table_id)
            self._next_seq[table_id] = seq + 1  # a failed row leaves a gap, never a reuse
            rows.append((table_id, seq, encode_json(record), time.time(), source, client_id))
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[int | Exception]] = loop.create_future()
        with self._queued_lock:
            self._queued.append((rows, future))
            submit, self._job_waiting = not self._job_waiting, True
        if submit:
            try:
                self._writer.submit(self._write_queued_rows, loop)
            except RuntimeError:  # the writer was shut down (close)
                with self._queued_lock:
                    self._queued = [(r, f) for r, f in self._queued if f is not future]
                    self._job_waiting = False
                raise RuntimeError("the event log is closed") from None
        return await future

    def _write_queued_rows(self, loop: asyncio.AbstractEventLoop) -> None:
        """A write job, on the writer thread: every row queued by now, in one transaction;
        the answers go to the loop."""
        with self._queued_lock:
            batch, self._queued = self._queued, []
            self._job_waiting = False
        if not batch:  # close() wrote them itself
            return
        rows = [row for rows, _ in batch for row in rows]
        try:
            outcomes = self._insert(rows)
        except Exception as error:  # a bug in _insert: every committer hears of it
            failure = RuntimeError(f"the event log failed: {error}")
            outcomes = [failure for _ in rows]
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits now
            loop.call_soon_threadsafe(self._written, batch, rows, outcomes)

    def _written(
        self, batch: list[Queued], rows: list[Row], outcomes: list[int | Exception]
    ) -> None:
        """On the loop: a transaction's outcomes; remember its client ids, then answer
        (whatever happens before: a committer left without its answer would wait forever)."""
        try:
            for row, outcome in zip(rows, outcomes, strict=True):
                if not isinstance(outcome, Exception):
                    self._remember_client_id(row[0], row[5], outcome)
            self._after(rows, outcomes)
        finally:
            at = 0
            for queued, future in batch:
                if not future.done():  # (a committer that went away: its rows are written)
                    future.set_result(outcomes[at : at + len(queued)])
                at += len(queued)

    def _write_queued(self) -> None:
        """At close: write what is still queued (inputs committed in this very turn of the
        loop) and answer their committers."""
        with self._queued_lock:
            batch, self._queued = self._queued, []
        rows = [row for rows, _ in batch for row in rows]
        if rows:
            self._written(batch, rows, self._wait_for_writer(self._insert, rows))

    def _wait_for_writer(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function` on the writer thread after everything queued before it; wait."""
        return self._writer.submit(function, *args).result()

    async def _on_writer(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function` on the writer thread after everything queued before it; the loop
        goes on meanwhile."""
        return await asyncio.wrap_future(self._writer.submit(function, *args))


class EventLog(GroupCommit):
    """All tables of one server in one SQLite file. One event loop uses it (see the module
    docstring); the writes happen on its own writer thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        except OSError as error:  # a file where its folder should be, no permission, ...
            raise BadLogFile(f"{self.path} cannot be opened ({error.strerror})") from None
        self.healthy = True
        self.commit_times = CommitTimes()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        # The writer's connection is made on the writer thread and used only there.
        try:
            self._write_db: sqlite3.Connection = self._writer.submit(self._open_writer).result()
        except BaseException:
            self._writer.shutdown(wait=True)
            raise
        self._db = sqlite3.connect(str(path), isolation_level=None)  # reads, this thread
        self._checkpointer = _Checkpointer(self.path, CHECKPOINT_SECONDS)
        self._start_group_commit()

    # One server per SQLite file: it holds every table for good, nothing is ever fenced.
    shared = False
    owner: str | None = None

    async def claim(self, table_id: str) -> bool:
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        return set()

    async def release(self, table_ids: list[str]) -> None:
        return None

    async def unowned(self) -> list[str]:
        return []

    async def owners(self) -> dict[str, str]:
        return {}

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        return None

    def _open_writer(self) -> sqlite3.Connection:
        # isolation_level=None: we open transactions ourselves (BEGIN IMMEDIATE).
        try:
            db = sqlite3.connect(str(self.path), isolation_level=None)
        except sqlite3.Error as error:  # a folder of that name, a file it may not open
            raise BadLogFile(f"{self.path} cannot be opened as an event log ({error})") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job, not a commit's
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(SCHEMA)
            problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as error:
            db.close()
            raise BadLogFile(f"{self.path} is not a readable event log ({error})") from None
        if problems != ["ok"]:
            db.close()
            raise BadLogFile(f"{self.path} is damaged: {'; '.join(problems)}")
        return db

    # --- tables --------------------------------------------------------------------------

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None:
        self._wait_for_writer(self._in_transaction, _table_row(table_id, settings))

    async def commit_table(self, table_id: str, settings: dict[str, Any]) -> None:
        """`create_table` for the event loop: queued to the writer behind what is queued,
        durable when it returns, and the loop serves the other tables meanwhile."""
        await self._on_writer(self._in_transaction, _table_row(table_id, settings))

    def table_settings(self, table_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT settings FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else decode_json(row[0])

    def tables(self, *, archived: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """Every live table (or, with archived=True, every table), oldest first."""
        query = "SELECT id, settings FROM tables"
        if not archived:
            query += " WHERE id NOT IN (SELECT table_id FROM archived)"
        rows = self._db.execute(query + " ORDER BY created, id")
        return [(table_id, decode_json(settings)) for table_id, settings in rows]

    def archive(self, table_id: str) -> None:
        """Keep the table's record but stop reopening it at start (idempotent)."""
        self._wait_for_writer(self._in_transaction, _archived_row(table_id))

    async def commit_archive(self, table_id: str) -> None:
        """`archive` for the event loop (as `commit_table`)."""
        await self._on_writer(self._in_transaction, _archived_row(table_id))

    def is_archived(self, table_id: str) -> bool:
        found = self._db.execute("SELECT 1 FROM archived WHERE table_id = ?", (table_id,))
        return found.fetchone() is not None

    # --- events --------------------------------------------------------------------------

    def append(
        self,
        table_id: str,
        record: dict[str, Any],
        *,
        source: str,
        client_id: str | None = None,
    ) -> int:
        """Commit one input durably and return its sequence number (waits for the disk;
        a table uses `commit`)."""
        seq = self._seq(table_id)
        row = (table_id, seq, encode_json(record), time.time(), source, client_id)
        self._wait_for_writer(self._in_transaction, lambda db: db.execute(INSERT, row))
        self._next_seq[table_id] = seq + 1
        self._remember_client_id(table_id, client_id, seq)
        return seq

    def _insert(self, rows: list[Row]) -> list[int | Exception]:
        """On the writer thread: all rows in one transaction, or, if one of them is bad,
        each in its own, so one bad row does not sink the others."""
        try:
            self._in_transaction(lambda db: db.executemany(INSERT, rows))
        except sqlite3.IntegrityError:
            return [self._insert_one(row) for row in rows]
        except LogUnavailable as failure:  # the disk, not a row: every row of the batch fails
            return [failure for _ in rows]
        return [row[1] for row in rows]

    def _insert_one(self, row: Row) -> int | Exception:
        try:
            self._in_transaction(lambda db: db.execute(INSERT, row))
        except (sqlite3.IntegrityError, LogUnavailable) as error:
            return error
        return row[1]

    def _load_client_ids(self, table_id: str) -> dict[str, int]:
        rows = self._db.execute(
            "SELECT client_id, seq FROM events WHERE table_id = ? AND client_id IS NOT NULL",
            (table_id,),
        )
        return {key: int(seq) for key, seq in rows}

    def entries(self, table_id: str, *, include_undone: bool = False) -> list[Entry]:
        query = (
            "SELECT seq, record, source, client_id, undone, wall FROM events"
            " WHERE table_id = ?" + ("" if include_undone else " AND undone = 0") + " ORDER BY seq"
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
            for seq, record, source, client_id, undone, wall in self._db.execute(query, (table_id,))
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
        """Mark entry `seq` undone and log the undo itself, in one transaction."""
        undo_seq = self._seq(table_id)
        row = (table_id, undo_seq, encode_json(undo_record), time.time(), source, client_id)

        def write(db: sqlite3.Connection) -> None:
            changed = db.execute(
                "UPDATE events SET undone = 1 WHERE table_id = ? AND seq = ? AND undone = 0",
                (table_id, seq),
            ).rowcount
            if changed != 1:
                raise LookupError(f"table {table_id}: no active entry {seq} to undo")
            db.execute(INSERT, row)

        self._wait_for_writer(self._in_transaction, write)
        self._next_seq[table_id] = undo_seq + 1
        self._remember_client_id(table_id, client_id, undo_seq)
        return undo_seq

    # --- clocks --------------------------------------------------------------------------

    def save_clocks(self, rows: dict[str, ClockRow]) -> Future[None]:
        """Queue the timers of many tables for one transaction (the once-a-second save) and
        return without waiting; the returned future is done once they are on disk."""
        now = time.time()
        values = [
            (table_id, row.timer_id, row.remaining, row.warn_at, int(row.paused), now)
            for table_id, row in rows.items()
        ]

        def write(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT INTO clocks (table_id, timer_id, remaining, warn_at, paused, updated)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
                " timer_id = excluded.timer_id, remaining = excluded.remaining,"
                " warn_at = excluded.warn_at, paused = excluded.paused,"
                " updated = excluded.updated",
                values,
            )

        done = self._writer.submit(self._without_sync, write) if values else done_future()
        done.add_done_callback(log_clock_failure)
        return done

    def load_clock(self, table_id: str) -> ClockRow | None:
        row = self._db.execute(
            "SELECT timer_id, remaining, paused, warn_at FROM clocks WHERE table_id = ?",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        return ClockRow(timer_id=row[0], remaining=row[1], paused=bool(row[2]), warn_at=row[3])

    # --- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Write what is queued, checkpoint the WAL into the main file and close (shutdown:
        the log is flushed). Inputs committed in this very turn of the loop are kept too."""
        if self._closed:
            return
        self._closed = True
        self._write_queued()
        self._db.close()
        self._checkpointer.stop()
        try:
            self._wait_for_writer(self._close_writer)
        finally:
            self._writer.shutdown(wait=True)

    def _close_writer(self) -> None:
        try:
            self._write_db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._write_db.close()

    # --- the writer thread ---------------------------------------------------------------

    def _in_transaction(self, write: Callable[[sqlite3.Connection], object]) -> None:
        """One transaction on the writer thread. A constraint (a duplicate client id) is the
        row's fault and raises IntegrityError; anything else SQLite says is the disk's, and
        raises LogUnavailable and marks the log unhealthy until a write succeeds again."""
        try:
            with _Transaction(self._write_db, self.commit_times):
                write(self._write_db)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as error:
            self.healthy = False
            logger.error("event log %s: a write failed: %s", self.path, error)
            raise LogUnavailable(f"the event log cannot be written ({error})") from None
        self.healthy = True

    def _without_sync(self, write: Callable[[sqlite3.Connection], object]) -> None:
        """A transaction that is not worth an fsync of its own: a timer's time left (every
        turn change writes one, and under load they queued their fsyncs ahead of the votes').
        With WAL and synchronous=NORMAL it survives a killed process, like every commit; only
        a power cut can lose it, and then the timer restarts in full. The next input's
        commit (synchronous=FULL) syncs it to the disk with itself, in order."""
        self._write_db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._in_transaction(write)
        finally:
            self._write_db.execute("PRAGMA synchronous=FULL")

    def _seq(self, table_id: str) -> int:
        if table_id not in self._next_seq:
            row = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?", (table_id,)
            ).fetchone()
            self._next_seq[table_id] = int(row[0]) + 1
        return self._next_seq[table_id]


def _table_row(table_id: str, settings: dict[str, Any]) -> Callable[[sqlite3.Connection], object]:
    row = (table_id, encode_json(settings), time.time())
    return lambda db: db.execute("INSERT INTO tables (id, settings, created) VALUES (?, ?, ?)", row)


def _archived_row(table_id: str) -> Callable[[sqlite3.Connection], object]:
    row = (table_id, time.time())
    return lambda db: db.execute(
        "INSERT OR IGNORE INTO archived (table_id, wall) VALUES (?, ?)", row
    )


def _create_private(path: Path) -> None:
    """Create the log file readable by its owner only, before SQLite opens it (SQLite gives
    its WAL and SHM files the main file's mode). An existing empty file is refused: SQLite
    would take it for a new log, and every link would answer "no such table"."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        if path.is_dir():
            raise BadLogFile(f"{path} is a folder, not an event log: name a file") from None
        if path.stat().st_size == 0:
            raise BadLogFile(
                f"{path} is empty (0 bytes), not an event log: restore it from a backup, "
                "or move it away to start with no tables"
            ) from None
        return
    os.close(fd)


def done_future() -> Future[None]:
    future: Future[None] = Future()
    future.set_result(None)
    return future


def log_clock_failure(future: Future[None]) -> None:
    if future.exception() is not None:
        logger.error("event log: saving the clocks failed", exc_info=future.exception())


class _Checkpointer:
    """A thread that checkpoints the log's WAL into its main file every `every` seconds,
    with its own connection, so no commit waits for it (PASSIVE: it copies what no reader
    still needs and never blocks the writer). A failing checkpoint is logged and tried
    again: the WAL only grows meanwhile, and the writer reports the disk's health."""

    def __init__(self, path: Path, every: float) -> None:
        self.path = path
        self.every = every
        self.runs = 0  # checkpoints done (tests)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="event-log checkpoint")
        self._thread.daemon = True  # close() stops it; a crash must not wait for it
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while not self._stopping.wait(self.every):
                try:
                    if db is None:  # mode=rw: never makes a file that is not there
                        where = f"file:{urllib.parse.quote(str(self.path))}?mode=rw"
                        db = sqlite3.connect(where, uri=True, isolation_level=None)
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.runs += 1
                except sqlite3.Error as error:
                    logger.warning("event log %s: checkpoint failed: %s", self.path, error)
        finally:
            if db is not None:
                db.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (the log stays as it was)."""

    def __init__(self, db: sqlite3.Connection, times: CommitTimes) -> None:
        self._db = db
        self._times = times

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None:
            started = time.perf_counter()
            self._db.execute("COMMIT")
            self._times.record(time.perf_counter() - started)
        elif self._db.in_transaction:  # a failed BEGIN or COMMIT leaves nothing to roll back
            self._db.execute("ROLLBACK")


def encode_json(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def decode_json(text: str) -> Any:
    return msgspec.json.decode(text)
