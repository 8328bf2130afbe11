"""The group commit of the event log (plugin.eventlog.core): accepted inputs queued for the
log's one writer thread, the inputs of every table that arrive while a transaction is on
its way sharing the next one (issue 4: one fsync, 8 ms median, 26 ms max on this disk).

The event loop, which also mixes the tables' audio every 20 ms and answers every socket,
never waits for the disk on the way of a vote; a committer gets its sequence number once
its row is durable, or the reason it was refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import msgspec

from plugin.host.ports import Inputs

T = TypeVar("T")
# One input as written: table, seq, record (JSON), wall clock, source, client id.
EventRow = tuple[str, int, str, float, str, str | None]
Queued = tuple[list[EventRow], "asyncio.Future[list[int | Exception]]"]  # one committer's rows


class GroupCommit:
    """`commit` queues an accepted input for the log's single writer thread,
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

    The log supplies `_seq` (the table's next sequence number), `_insert` (rows in one
    transaction, on the writer thread), `_load_client_ids` (a table's client message ids
    and their sequence numbers) and `_after` (the outcomes, on the loop).

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

    def wall(self) -> float:
        """The time an input is stamped with (the database's clock: EventLog.wall)."""
        raise NotImplementedError

    def _seq(self, table_id: str) -> int:
        raise NotImplementedError

    def _insert(self, rows: list[EventRow]) -> list[int | Exception]:
        raise NotImplementedError

    def _load_client_ids(self, table_id: str) -> dict[str, int]:
        raise NotImplementedError

    def _after(self, rows: list[EventRow], outcomes: list[int | Exception]) -> None:
        """On the loop, once a transaction's outcomes are known (before the committers)."""
        raise NotImplementedError

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

    async def commit_many(self, table_id: str, inputs: Inputs) -> list[int | Exception]:
        """`commit` for a table's inputs taken together (record, source, client id), in
        order and in one transaction: each one's sequence number once durable, or the
        reason it was refused. They wait for one answer, not one each: every answer is a
        turn of the event loop, and a round's ballots come at once."""
        if self._closed:
            raise RuntimeError("the event log is closed")
        if not inputs:
            return []
        rows: list[EventRow] = []
        for record, source, client_id in inputs:
            seq = self._seq(table_id)
            self._next_seq[table_id] = seq + 1  # a failed row leaves a gap, never a reuse
            rows.append((table_id, seq, encode_json(record), self.wall(), source, client_id))
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
        self, batch: list[Queued], rows: list[EventRow], outcomes: list[int | Exception]
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


def encode_json(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def decode_json(text: str) -> Any:
    return msgspec.json.decode(text)
