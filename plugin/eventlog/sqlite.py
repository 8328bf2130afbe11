"""The event log's SQLite store: one file (WAL) holding every table of one server, its
accepted inputs and its clock (plugin.eventlog.core runs every operation over it).

Theory of operation (issue 4):
- An input's commit is synced (`synchronous=FULL`, one fsync: 8 ms median, 26 ms max on
  this machine's disk) by the core's one writer thread; the loop's own connection reads
  (WAL: a reader never waits for the writer) and sees what has been committed.
- The writer never checkpoints the WAL itself: a checkpoint copies megabytes into the main
  file and syncs it, 60-150 ms on this disk, and the commit that happened to cross
  SQLite's threshold carried it, with every vote queued behind it (bench/load.py's p99).
  A checkpointer thread with its own connection does it every CHECKPOINT_SECONDS, beside
  the commits (WAL lets a checkpoint run while the writer appends).
- A clock save is not synced alone (`synchronous=NORMAL`): the next input's commit syncs
  it with itself, in order.
- One server per file: it holds every table for good, nothing is fenced (no leases; the
  assembly's hosting lock keeps a second server away).
- Bad disks are named, never guessed around: a file that is empty, truncated or not an
  event log is refused at open (BadLogFile names the file), and a write the disk refuses
  (full, read-only, I/O error) fails its input with LogUnavailable; `healthy` says whether
  the last write went through.
- The file, and the WAL and SHM files SQLite makes beside it with the same mode, are
  readable by the owner only.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from plugin.host.ports import CommitTimes, LogUnavailable

from .store import Dialect, Fetched, Transaction

logger = logging.getLogger(__name__)
T = TypeVar("T")
FILE_MODE = 0o600  # the log holds every game's secrets (roles, checks): the owner only
CHECKPOINT_SECONDS = 1.0
DIALECT = Dialect(
    real="REAL", flag="INTEGER", false="0", integrity_errors=(sqlite3.IntegrityError,)
)


class BadLogFile(Exception):
    """The file at the log's path is not a usable event log (named in the message)."""


class SqliteStore:
    """The store of one SQLite file (see the module docstring)."""

    dialect = DIALECT

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        except OSError as error:  # a file where its folder should be, no permission, ...
            raise BadLogFile(f"{self.path} cannot be opened ({error.strerror})") from None
        self.healthy = True
        self.commit_times = CommitTimes()
        self._write_db: sqlite3.Connection | None = None  # the writer thread's
        self._db: sqlite3.Connection | None = None  # the loop's, for reads
        self._checkpointer: _Checkpointer | None = None

    def open(self, schema: Sequence[str]) -> None:
        # isolation_level=None: transactions are opened here (BEGIN IMMEDIATE).
        try:
            db = sqlite3.connect(str(self.path), isolation_level=None)
        except sqlite3.Error as error:  # a folder of that name, a file it may not open
            raise BadLogFile(f"{self.path} cannot be opened as an event log ({error})") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job, not a commit's
            db.execute("PRAGMA foreign_keys=ON")
            for statement in schema:
                db.execute(statement)
            problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as error:
            db.close()
            raise BadLogFile(f"{self.path} is not a readable event log ({error})") from None
        if problems != ["ok"]:
            db.close()
            raise BadLogFile(f"{self.path} is damaged: {'; '.join(problems)}")
        self._write_db = db
        self._checkpointer = _Checkpointer(self.path, CHECKPOINT_SECONDS)

    def transaction(self, write: Callable[[Transaction], T], *, durable: bool = True) -> T:
        """One transaction on the writer thread. A constraint (a duplicate client id) is the
        row's fault and raises IntegrityError; anything else SQLite says is the disk's, and
        raises LogUnavailable and marks the log unhealthy until a write succeeds again.

        Not durable: a transaction not worth an fsync of its own (a timer's time left:
        every turn change writes one, and under load they queued their fsyncs ahead of the
        votes'). With WAL and synchronous=NORMAL it survives a killed process, like every
        commit; only a power cut can lose it, and then the timer restarts in full."""
        db = self._write_db
        assert db is not None, "the store is not open"
        if not durable:
            db.execute("PRAGMA synchronous=NORMAL")
        try:
            with _Transaction(db, self.commit_times):
                result = write(_SqliteTransaction(db))
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as error:
            self.healthy = False
            logger.error("event log %s: a write failed: %s", self.path, error)
            raise LogUnavailable(f"the event log cannot be written ({error})") from None
        finally:
            if not durable:
                db.execute("PRAGMA synchronous=FULL")
        self.healthy = True
        return result

    def fence(self, tx: Transaction, table_ids: Sequence[str]) -> set[str]:
        return set(table_ids)  # one server per file: every table is its own

    def made(self, tx: Transaction, table_id: str) -> None:
        return None

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        if self._db is None:  # made by the thread that reads: the loop's
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
        return self._db.execute(statement, params).fetchall()

    def close_writer(self) -> None:
        """Checkpoint the WAL into the main file (TRUNCATE) and close the writer."""
        if self._write_db is None:
            return
        try:
            self._write_db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._write_db.close()
            self._write_db = None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._checkpointer is not None:
            self._checkpointer.stop()


class _SqliteTransaction:
    """The writer's connection inside a transaction (sqlite3 takes `?` as it is)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, statement: str, params: Sequence[Any] = ()) -> int:
        return self._db.execute(statement, params).rowcount

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        self._db.executemany(statement, rows)

    def fetch(self, statement: str, params: Sequence[Any] = ()) -> list[Fetched]:
        return self._db.execute(statement, params).fetchall()


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
