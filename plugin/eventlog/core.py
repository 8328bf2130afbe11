"""The event log: every operation of the host's Log port, written once over a store
(plugin.eventlog.store: a SQLite file, or a PostgreSQL database shared by servers).

Theory of operation (issues 4 and 16):
- `commit` writes an accepted input durably BEFORE the table carries out its effects or
  tells the sender it was accepted, so a crash never loses an acknowledged vote. It is a
  group commit (plugin.eventlog.group_commit): one writer thread owns the store's writing
  connection and every write goes through it in order; the loop never waits for it on the
  way of a vote. Reads use the loop's own connection and see what has been committed.
- The rare writes whose caller must know the outcome before going on (`create_table`,
  `mark_undone`; `append` for tools and tests) block their caller until the writer has
  done them, after everything queued before them.
- Undo marks an entry `undone`; nothing is ever deleted (the log is also the game's record).
- `client_id` is unique per table: a retried client message is found and not applied twice.
  A table's client ids and next sequence number are read once and kept in memory.
- The `clocks` row keeps the current timer and the time it had left; the table saves it on
  every change and about once a second, so a restart resumes the timer give or take a
  second. A clock save is queued to the writer and not waited for, and not synced alone.
- A finished or ended table is archived: kept whole (its protocol still exports) but not
  reopened when the server starts.
- Every write of a table is fenced (`Store.fence`): on a shared log only the server holding
  the table's lease writes it; a write fenced out fails with `Fenced`, and one whose COMMIT
  got no answer with `Uncertain`; both drop the table here (`on_fenced`), to be claimed
  and replayed, so memory never drifts from the log.
- The store failing: every write raises LogUnavailable and `healthy` is False until one
  succeeds.
- The club's records (issue 33: roster, links, judges' sheets, corrections) sit in the same
  store beside the tables, in one sequence of their own (`club_records`), written by the same
  writer thread and durable before `append_club`/`commit_club` return. A record is numbered
  by its writer, who read every record before it: a number already taken (another server, or
  the command line, wrote first) is refused with ClubConflict and nothing is written.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from plugin.host.ports import ClockRow, CommitTimes, Entry, Fenced, LogUnavailable

from . import statements as sql
from .group_commit import EventRow, GroupCommit, decode_json, encode_json
from .store import Store, Transaction, Uncertain

logger = logging.getLogger(__name__)


class ClubConflict(Exception):
    """A club record's number was taken meanwhile (another writer): read what is new, ask
    again. Nothing was written."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClubEntry:
    """One club record as logged: its number in the club's sequence, the record, when (wall
    clock) and who wrote it (`source`: "admin", "cli", a personal link's kind and person)."""

    seq: int
    record: dict[str, Any]
    wall: float
    source: str


class EventLog(GroupCommit):
    """Every table of a server (or of several, on PostgreSQL) in one store. One event loop
    uses it; the writes happen on its own writer thread."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._start_group_commit()
        self._fenced: Callable[[str], None] = lambda table_id: None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-log")
        try:  # the writer's connection is made on the writer thread and used only there
            self._wait_for_writer(store.open, sql.schema(store.dialect))
        except BaseException:
            self._writer.shutdown(wait=True)
            raise
        # How far the database's clock is from this server's (wall_now): every time this
        # log stamps is the database's, so servers whose clocks differ agree (issue 31).
        self._offset = 0.0
        with contextlib.suppress(LogUnavailable):  # away: measured at the next wall_now
            self.wall_now()

    def wall_now(self) -> float:
        """The database's wall clock now (seconds since the epoch), measured again: what
        a time stamped in this log (Entry.wall) is compared with. LogUnavailable passes."""
        before = time.time()
        found = self.store.read(self.store.dialect.now)
        after = time.time()
        now = float(found[0][0])
        self._offset = now - (before + after) / 2
        return now

    def wall(self) -> float:
        """This server's clock as the database's (the offset last measured)."""
        return time.time() + self._offset

    @property
    def healthy(self) -> bool:
        return self.store.healthy

    @property
    def commit_times(self) -> CommitTimes:
        return self.store.commit_times

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        """Call `callback(table_id)` when a write of that table was fenced out (or its
        COMMIT got no answer): the table must be dropped here (plugin.host.ports.Leases)."""
        self._fenced = callback

    def forget(self, table_id: str) -> None:
        """What is kept in memory of a table may be stale (another server may write it
        now, or did meanwhile): read it again at its next input."""
        self._next_seq.pop(table_id, None)
        self._client_ids.pop(table_id, None)

    async def on_writer(self, write: Callable[[Transaction], Any]) -> Any:
        """`write` in one transaction on the writer thread, after everything queued (the
        leases' own statements); the loop goes on meanwhile."""
        return await self._on_writer(self.store.transaction, write)

    # --- tables --------------------------------------------------------------------------

    def create_table(self, table_id: str, settings: dict[str, Any]) -> None:
        self._wait_for_writer(self.store.transaction, self._table_rows(table_id, settings))

    async def commit_table(self, table_id: str, settings: dict[str, Any]) -> None:
        """`create_table` for the event loop: queued to the writer behind what is queued,
        durable when it returns, and the loop serves the other tables meanwhile."""
        await self._on_writer(self.store.transaction, self._table_rows(table_id, settings))

    def _table_rows(self, table_id: str, settings: dict[str, Any]) -> Callable[[Transaction], None]:
        row = (table_id, encode_json(settings), self.wall())

        def write(tx: Transaction) -> None:
            tx.execute(sql.INSERT_TABLE, row)
            self.store.made(tx, table_id)

        return write

    def table_settings(self, table_id: str) -> dict[str, Any] | None:
        rows = self.store.read(sql.TABLE_SETTINGS, (table_id,))
        return None if not rows else decode_json(rows[0][0])

    def table_created(self, table_id: str) -> float | None:
        """When the table was made (wall time), None if the log has no such table."""
        rows = self.store.read(sql.TABLE_CREATED, (table_id,))
        return None if not rows else float(rows[0][0])

    def tables(self, *, archived: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """Every live table (or, with archived=True, every table), oldest first."""
        rows = self.store.read(sql.TABLES if archived else sql.LIVE_TABLES)
        return [(table_id, decode_json(settings)) for table_id, settings in rows]

    def archive(self, table_id: str) -> None:
        """Keep the table's record but stop reopening it at start (idempotent). Fenced like
        every write: on a shared log only the holder of its lease archives it."""
        self._wait_for_writer(self.store.transaction, self._archived_row(table_id))

    async def commit_archive(self, table_id: str) -> None:
        """`archive` for the event loop (as `commit_table`)."""
        await self._on_writer(self.store.transaction, self._archived_row(table_id))

    def _archived_row(self, table_id: str) -> Callable[[Transaction], None]:
        row = (table_id, self.wall())

        def write(tx: Transaction) -> None:
            if table_id not in self.store.fence(tx, [table_id]):
                raise _fenced_out(table_id)
            tx.execute(sql.ARCHIVE, row)

        return write

    def is_archived(self, table_id: str) -> bool:
        return bool(self.store.read(sql.IS_ARCHIVED, (table_id,)))

    # --- events --------------------------------------------------------------------------

    def append(
        self, table_id: str, record: dict[str, Any], *, source: str, client_id: str | None = None
    ) -> int:
        """Commit one input durably and return its sequence number (waits for the store;
        a table uses `commit`)."""
        seq = self._seq(table_id)
        row = (table_id, seq, encode_json(record), self.wall(), source, client_id)
        outcome = self._wait_for_writer(self._insert, [row])[0]
        self._next_seq[table_id] = seq + 1  # a failed row leaves a gap, never a reuse
        self._after([row], [outcome])
        if isinstance(outcome, Exception):
            raise outcome
        self._remember_client_id(table_id, client_id, seq)
        return seq

    def _after(self, rows: list[EventRow], outcomes: list[int | Exception]) -> None:
        """On the loop: drop the tables fenced out (or whose COMMIT got no answer)."""
        dropped = {
            row[0]
            for row, outcome in zip(rows, outcomes, strict=True)
            if isinstance(outcome, Fenced | Uncertain)
        }
        for table_id in dropped:
            self._dropped(table_id)

    def _dropped(self, table_id: str) -> None:
        self.forget(table_id)
        self._fenced(table_id)

    def _insert(self, rows: list[EventRow]) -> list[int | Exception]:
        """On the writer thread: every row whose table this server may write, in one
        transaction (the others fenced out); if one of them is bad, each in its own, so
        one bad row does not sink the others."""
        try:
            held = self.store.transaction(self._rows_writer(rows))
        except self.store.dialect.integrity_errors as error:
            if len(rows) == 1:
                return [error]
            return [self._insert_one(row) for row in rows]
        except LogUnavailable as failure:  # the store, not a row: every row fails
            return [failure for _ in rows]
        return [row[1] if row[0] in held else _fenced_out(row[0]) for row in rows]

    def _insert_one(self, row: EventRow) -> int | Exception:
        refusals: tuple[type[Exception], ...] = (
            *self.store.dialect.integrity_errors,
            LogUnavailable,
        )
        try:
            held = self.store.transaction(self._rows_writer([row]))
        except refusals as error:
            return error
        return row[1] if row[0] in held else _fenced_out(row[0])

    def _rows_writer(self, rows: list[EventRow]) -> Callable[[Transaction], set[str]]:
        def write(tx: Transaction) -> set[str]:
            held = self.store.fence(tx, sorted({row[0] for row in rows}))
            good = [row for row in rows if row[0] in held]
            if good:
                tx.executemany(sql.INSERT, good)
            return held

        return write

    def _load_client_ids(self, table_id: str) -> dict[str, int]:
        rows = self.store.read(sql.CLIENT_IDS, (table_id,))
        return {key: int(seq) for key, seq in rows}

    def entries(self, table_id: str, *, include_undone: bool = False) -> list[Entry]:
        query = sql.ENTRIES + ("" if include_undone else sql.ACTIVE) + sql.BY_SEQ
        return [
            Entry(
                seq=seq,
                record=decode_json(record),
                source=source,
                client_id=client_id,
                undone=bool(undone),
                wall=wall,
            )
            for seq, record, source, client_id, undone, wall in self.store.read(query, (table_id,))
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
        """Mark entry `seq` undone and log the undo itself, in one (fenced) transaction."""
        undo_seq = self._seq(table_id)
        row = (table_id, undo_seq, encode_json(undo_record), self.wall(), source, client_id)

        def write(tx: Transaction) -> None:
            if table_id not in self.store.fence(tx, [table_id]):
                raise _fenced_out(table_id)
            if tx.execute(sql.MARK_UNDONE, (table_id, seq)) != 1:
                raise LookupError(f"table {table_id}: no active entry {seq} to undo")
            tx.execute(sql.INSERT, row)

        try:
            self._wait_for_writer(self.store.transaction, write)
        except (Fenced, Uncertain):
            self._dropped(table_id)
            raise
        self._next_seq[table_id] = undo_seq + 1
        self._remember_client_id(table_id, client_id, undo_seq)
        return undo_seq

    # --- clocks --------------------------------------------------------------------------

    def save_clocks(self, rows: dict[str, ClockRow]) -> Future[None]:
        """Queue the timers of many tables for one transaction (the once-a-second save) and
        return without waiting; the returned future is done once they are written. Fenced
        like every write: a table no longer held here is left alone."""
        now = self.wall()
        values = [
            (table_id, row.timer_id, row.remaining, row.warn_at, row.paused, now)
            for table_id, row in rows.items()
        ]

        def write(tx: Transaction) -> None:
            held = self.store.fence(tx, sorted(rows))
            tx.executemany(sql.SAVE_CLOCK, [value for value in values if value[0] in held])

        done: Future[None] = (
            self._writer.submit(self.store.transaction, write, durable=False) if values else _done()
        )
        done.add_done_callback(_log_clock_failure)
        return done

    def load_clock(self, table_id: str) -> ClockRow | None:
        rows = self.store.read(sql.LOAD_CLOCK, (table_id,))
        if not rows:
            return None
        timer_id, remaining, paused, warn_at = rows[0]
        return ClockRow(
            timer_id=timer_id, remaining=remaining, paused=bool(paused), warn_at=warn_at
        )

    # --- the club's records -----------------------------------------------------------

    def append_club(self, seq: int, record: dict[str, Any], *, source: str) -> None:
        """Write club record number `seq` durably (waits for the writer); ClubConflict when
        that number is taken."""
        self._wait_for_writer(self._club_insert, (seq, encode_json(record), self.wall(), source))

    async def commit_club(self, seq: int, record: dict[str, Any], *, source: str) -> None:
        """`append_club` for the event loop: durable when it returns, the loop goes on."""
        row = (seq, encode_json(record), self.wall(), source)  # the database's time
        await self._on_writer(self._club_insert, row)

    def import_club(self, first: int, records: list[dict[str, Any]], *, source: str) -> None:
        """Write records numbered `first` on in one transaction (a club's history brought
        in at once, a bench's season); ClubConflict, and nothing written, if one is taken."""
        now = self.wall()
        rows = [(first + n, encode_json(r), now, source) for n, r in enumerate(records)]
        self._wait_for_writer(self._club_insert, *rows)

    def _club_insert(self, *rows: tuple[int, str, float, str]) -> None:
        try:
            self.store.transaction(lambda tx: tx.executemany(sql.INSERT_CLUB, rows))
        except self.store.dialect.integrity_errors:
            raise ClubConflict(f"club record {rows[0][0]} was written meanwhile") from None

    def club_records(self, after: int = 0) -> list[ClubEntry]:
        """The club's records numbered above `after`, in order."""
        return [
            ClubEntry(seq=int(seq), record=decode_json(record), wall=wall, source=source)
            for seq, record, wall, source in self.store.read(sql.CLUB_RECORDS, (after,))
        ]

    # --- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Write what is queued and close (shutdown: the log is flushed). Inputs committed
        in this very turn of the loop are kept too."""
        if self._closed:
            return
        self._closed = True
        self._write_queued()
        self.store.close()
        try:
            self._wait_for_writer(self.store.close_writer)
        finally:
            self._writer.shutdown(wait=True)

    def _seq(self, table_id: str) -> int:
        if table_id not in self._next_seq:
            rows = self.store.read(sql.LAST_SEQ, (table_id,))
            self._next_seq[table_id] = int(rows[0][0]) + 1
        return self._next_seq[table_id]


def _fenced_out(table_id: str) -> Fenced:
    logger.warning("table %s: fenced out, another server holds its lease now", table_id)
    return Fenced(f"table {table_id} is hosted by another server now")


def _done() -> Future[None]:
    future: Future[None] = Future()
    future.set_result(None)
    return future


def _log_clock_failure(future: Future[None]) -> None:
    if future.exception() is not None:
        logger.error("event log: saving the clocks failed", exc_info=future.exception())
