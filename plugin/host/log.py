"""The event log: one SQLite file (WAL) holding every table, its accepted inputs and its clock.

Theory of operation (issue 4):
- `append` / `commit` write an accepted input with `synchronous=FULL` BEFORE the table
  carries out its effects or tells the sender it was accepted, so a crash never loses an
  acknowledged vote. `commit` is the group commit the tables use: the inputs of every table
  accepted in one turn of the event loop share one transaction (one fsync, ~3.5 ms here).
- Undo marks an entry `undone`; nothing is ever deleted (the log is also the game's record).
- `client_id` is unique per table: a retried client message is found and not applied twice.
- The `clocks` row keeps the current timer and the time it had left; the table saves it on
  every change and about once a second, so a restart resumes the timer give or take a second.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

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


class EventLog:
    """All tables of one server in one SQLite file. Not thread-safe: one event loop owns it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we open transactions ourselves, one per accepted input.
        self._db = sqlite3.connect(str(path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._next_seq: dict[str, int] = {}
        self._batch: list[tuple[tuple[Any, ...], asyncio.Future[int]]] = []

    # --- tables --------------------------------------------------------------------------

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT INTO tables (id, settings, created) VALUES (?, ?, ?)",
                (table_id, _encode(settings), time.time()),
            )

    def table_settings(self, table_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT settings FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else _decode(row[0])

    def tables(self) -> list[tuple[str, dict[str, Any]]]:
        """Every table, oldest first, with its settings."""
        rows = self._db.execute("SELECT id, settings FROM tables ORDER BY created, id")
        return [(table_id, _decode(settings)) for table_id, settings in rows]

    # --- events --------------------------------------------------------------------------

    def append(
        self,
        table_id: str,
        record: dict[str, Any],
        *,
        source: str,
        client_id: str | None = None,
    ) -> int:
        """Commit one accepted input durably and return its sequence number."""
        seq = self._seq(table_id)
        with self._transaction():
            self._db.execute(
                "INSERT INTO events (table_id, seq, record, wall, source, client_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, seq, _encode(record), time.time(), source, client_id),
            )
        self._next_seq[table_id] = seq + 1
        return seq

    async def commit(
        self,
        table_id: str,
        record: dict[str, Any],
        *,
        source: str,
        client_id: str | None = None,
    ) -> int:
        """`append` with group commit: every input committed in the same turn of the event
        loop (many tables at once) shares one transaction, so one fsync. Returns once the
        input is durable, so the caller still acts only on committed input."""
        seq = self._seq(table_id)
        self._next_seq[table_id] = seq + 1  # a failed row leaves a gap, never a reuse
        row = (table_id, seq, _encode(record), time.time(), source, client_id)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._batch.append((row, future))
        if len(self._batch) == 1:
            asyncio.get_running_loop().call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        insert = (
            "INSERT INTO events (table_id, seq, record, wall, source, client_id)"
            " VALUES (?, ?, ?, ?, ?, ?)"
        )
        try:
            with self._transaction():
                self._db.executemany(insert, [row for row, _ in batch])
        except sqlite3.Error:
            # One bad row must not sink the others: commit them one by one.
            for row, future in batch:
                try:
                    with self._transaction():
                        self._db.execute(insert, row)
                except sqlite3.Error as error:
                    if not future.done():
                        future.set_exception(error)
                else:
                    if not future.done():
                        future.set_result(row[1])
            return
        for row, future in batch:
            if not future.done():
                future.set_result(row[1])

    def find_client_id(self, table_id: str, client_id: str) -> int | None:
        """The sequence number of the input sent with this client message id, if any."""
        row = self._db.execute(
            "SELECT seq FROM events WHERE table_id = ? AND client_id = ?", (table_id, client_id)
        ).fetchone()
        return None if row is None else int(row[0])

    def entries(self, table_id: str, *, include_undone: bool = False) -> list[Entry]:
        query = (
            "SELECT seq, record, source, client_id, undone, wall FROM events"
            " WHERE table_id = ?" + ("" if include_undone else " AND undone = 0") + " ORDER BY seq"
        )
        return [
            Entry(
                seq=seq,
                record=_decode(record),
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
        with self._transaction():
            changed = self._db.execute(
                "UPDATE events SET undone = 1 WHERE table_id = ? AND seq = ? AND undone = 0",
                (table_id, seq),
            ).rowcount
            if changed != 1:
                raise LookupError(f"table {table_id}: no active entry {seq} to undo")
            self._db.execute(
                "INSERT INTO events (table_id, seq, record, wall, source, client_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, undo_seq, _encode(undo_record), time.time(), source, client_id),
            )
        self._next_seq[table_id] = undo_seq + 1
        return undo_seq

    # --- clocks --------------------------------------------------------------------------

    def save_clocks(self, rows: dict[str, ClockRow]) -> None:
        """Write the timers of many tables in one transaction (the once-a-second save)."""
        if not rows:
            return
        now = time.time()
        with self._transaction():
            self._db.executemany(
                "INSERT INTO clocks (table_id, timer_id, remaining, warn_at, paused, updated)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
                " timer_id = excluded.timer_id, remaining = excluded.remaining,"
                " warn_at = excluded.warn_at, paused = excluded.paused,"
                " updated = excluded.updated",
                [
                    (table_id, row.timer_id, row.remaining, row.warn_at, int(row.paused), now)
                    for table_id, row in rows.items()
                ],
            )

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
        """Checkpoint the WAL into the main file and close (shutdown: the log is flushed)."""
        if self._batch:
            self._flush()  # inputs accepted in this very turn of the loop are kept too
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()

    def _seq(self, table_id: str) -> int:
        if table_id not in self._next_seq:
            row = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?", (table_id,)
            ).fetchone()
            self._next_seq[table_id] = int(row[0]) + 1
        return self._next_seq[table_id]

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (the log stays as it was)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")


def _encode(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def _decode(text: str) -> Any:
    return msgspec.json.decode(text)
