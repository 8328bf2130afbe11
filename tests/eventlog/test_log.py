"""The event log's promise, on SQLite and on PostgreSQL alike (the Log port)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import psycopg
import pytest

from plugin.host.ports import ClockRow, Log

from .conftest import OpenLog

DUPLICATE = (sqlite3.IntegrityError, psycopg.IntegrityError)


def _hold_the_writer(log: Log) -> threading.Event:
    """Park the writer thread until the returned event is set (as if the disk were slow)."""
    parked, release = threading.Event(), threading.Event()

    def wait() -> None:
        parked.set()
        assert release.wait(10), "the test never released the writer"

    log._writer.submit(wait)  # type: ignore[attr-defined]
    assert parked.wait(5)
    return release


def test_appends_survive_reopening_in_order(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {"seats": 10})
    assert log.append("t1", {"type": "vote", "voter": 1}, source="1", client_id="1/a") == 1
    assert log.append("t1", {"type": "pass", "seat": 2}, source="2") == 2
    log.close()
    again = open_log_at()
    assert again.tables() == [("t1", {"seats": 10})]
    assert again.table_settings("t1") == {"seats": 10} and again.table_settings("x") is None
    assert [(e.seq, e.record["type"], e.source, e.client_id) for e in again.entries("t1")] == [
        (1, "vote", "1", "1/a"),
        (2, "pass", "2", None),
    ]
    assert again.find_client_id("t1", "1/a") == 1
    again.close()


def test_client_id_is_unique_per_table(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {})
    log.create_table("t2", {})
    log.append("t1", {"type": "x"}, source="1", client_id="1/m1")
    log.append("t2", {"type": "x"}, source="1", client_id="1/m1")  # another table: fine
    assert log.find_client_id("t1", "1/m1") == 1
    assert log.find_client_id("t1", "1/m2") is None
    with pytest.raises(DUPLICATE):
        log.append("t1", {"type": "y"}, source="1", client_id="1/m1")
    assert [e.record["type"] for e in log.entries("t1")] == ["x"]  # nothing half-written
    assert log.append("t1", {"type": "z"}, source="1", client_id="1/m3") >= 2
    assert log.find_client_id("t1", "1/m3") is not None  # known without asking again
    log.close()


def test_undo_marks_and_never_deletes(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {})
    log.append("t1", {"type": "a"}, source="host")
    log.append("t1", {"type": "b"}, source="host")
    undo = log.mark_undone("t1", 2, undo_record={"type": "table.undo", "seq": 2}, source="host")
    assert undo == 3
    assert [e.record["type"] for e in log.entries("t1")] == ["a", "table.undo"]
    everything = log.entries("t1", include_undone=True)
    assert [(e.record["type"], e.undone) for e in everything] == [
        ("a", False),
        ("b", True),
        ("table.undo", False),
    ]
    with pytest.raises(LookupError):
        log.mark_undone("t1", 2, undo_record={"type": "table.undo", "seq": 2}, source="host")
    log.close()


def test_clock_rows_are_upserted_and_survive(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {})
    assert log.load_clock("t1") is None
    log.save_clocks({"t1": ClockRow(timer_id=1, remaining=30.0, paused=False)}).result(5)
    log.save_clocks({"t1": ClockRow(timer_id=2, remaining=12.5, paused=True, warn_at=10)})
    log.close()
    again = open_log_at()
    assert again.load_clock("t1") == ClockRow(timer_id=2, remaining=12.5, paused=True, warn_at=10)
    again.close()


def test_archived_tables_are_kept_but_not_live(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {"n": 1})
    log.create_table("t2", {"n": 2})
    log.archive("t1")
    log.archive("t1")  # idempotent
    assert log.is_archived("t1") and not log.is_archived("t2")
    assert [t for t, _ in log.tables()] == ["t2"]
    assert [t for t, _ in log.tables(archived=True)] == ["t1", "t2"]
    log.close()


def test_an_unknown_table_is_refused(open_log_at: OpenLog) -> None:
    log = open_log_at()
    with pytest.raises(Exception) as refused:
        log.append("nope", {"type": "x"}, source="host")
    assert isinstance(refused.value, (*DUPLICATE, LookupError, Exception))
    assert log.entries("nope") == []
    log.close()


async def test_group_commit_shares_a_transaction_and_survives_a_bad_row(
    open_log_at: OpenLog,
) -> None:
    log = open_log_at()
    for table_id in ("t1", "t2"):
        log.create_table(table_id, {})
    log.append("t1", {"type": "first"}, source="1", client_id="1/dup")
    batches: list[int] = []
    insert = log._insert  # type: ignore[attr-defined]
    writing, release = threading.Event(), threading.Event()

    def held_insert(rows: list[object]) -> object:
        batches.append(len(rows))
        if len(batches) == 1:  # the first transaction stays on its way
            writing.set()
            assert release.wait(10), "the test never released the writer"
        return insert(rows)

    log._insert = held_insert  # type: ignore[attr-defined]
    first = asyncio.create_task(log.commit("t1", {"type": "a"}, source="1"))
    for _ in range(500):
        if writing.is_set():
            break
        await asyncio.sleep(0.01)
    assert writing.is_set(), "the first row never reached the writer"
    later = [
        asyncio.create_task(log.commit("t2", {"type": "b"}, source="2")),
        asyncio.create_task(log.commit("t1", {"type": "again"}, source="1", client_id="1/dup")),
        asyncio.create_task(log.commit("t2", {"type": "c"}, source="2")),
    ]
    ticks = 0
    for _ in range(10):  # the loop goes on while the writer is busy; nothing is acked
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks == 10 and not first.done()
    release.set()
    results = await asyncio.wait_for(asyncio.gather(first, *later, return_exceptions=True), 10)
    assert results[0] == 2 and results[1] == 1 and results[3] == 2
    assert isinstance(results[2], DUPLICATE)
    assert batches[:2] == [1, 3]  # the three that came during the first write: one batch
    log.close()
    again = open_log_at()
    assert [e.record["type"] for e in again.entries("t1")] == ["first", "a"]
    assert [e.record["type"] for e in again.entries("t2")] == ["b", "c"]
    again.close()


async def test_close_writes_what_was_committed_in_the_same_turn(open_log_at: OpenLog) -> None:
    log = open_log_at()
    log.create_table("t1", {})
    commit = asyncio.ensure_future(log.commit("t1", {"type": "last"}, source="host"))
    await asyncio.sleep(0)  # queued, not yet handed to the writer
    log.close()
    assert await commit == 1
    with pytest.raises(RuntimeError, match="closed"):
        await log.commit("t1", {"type": "late"}, source="host")
    again = open_log_at()
    assert [e.record["type"] for e in again.entries("t1")] == ["last"]
    again.close()


async def test_creating_and_archiving_a_table_never_hold_up_the_loop(
    open_log_at: OpenLog,
) -> None:
    """A table made or archived by the server waits for the writer without stopping the
    event loop (the others' votes go on), and is durable when the call returns."""
    log = open_log_at()
    release = _hold_the_writer(log)
    made = asyncio.create_task(log.commit_table("t1", {"seats": 10}))
    ticks = 0
    for _ in range(10):  # the loop goes on while the writer is busy
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks == 10 and not made.done()
    release.set()
    await asyncio.wait_for(made, 10)
    assert log.table_settings("t1") == {"seats": 10}
    release = _hold_the_writer(log)
    archived = asyncio.create_task(log.commit_archive("t1"))
    await asyncio.sleep(0.05)
    assert not archived.done()
    release.set()
    await asyncio.wait_for(archived, 10)
    assert log.is_archived("t1")
    log.close()
    again = open_log_at()
    assert again.is_archived("t1") and again.table_settings("t1") == {"seats": 10}
    again.close()


async def test_client_ids_committed_after_the_table_was_read_are_found(
    open_log_at: OpenLog,
) -> None:
    """The ids are read once per table and kept in memory: every id committed since (by a
    group commit, an append, an undo) must be found too, or a retried vote counts twice."""
    log = open_log_at()
    log.create_table("t1", {})
    log.append("t1", {"type": "a"}, source="1", client_id="1/before")
    assert log.find_client_id("t1", "1/nothing") is None  # the table's ids are read now
    seqs = await asyncio.gather(
        *(log.commit("t1", {"type": "v"}, source=str(n), client_id=f"{n}/v") for n in (2, 3, 4))
    )
    log.append("t1", {"type": "b"}, source="5", client_id="5/b")
    undo = log.mark_undone("t1", 1, undo_record={"type": "undo"}, source="host", client_id="h/u")
    found = {key: log.find_client_id("t1", key) for key in ("2/v", "3/v", "4/v", "5/b", "h/u")}
    assert found == {"2/v": seqs[0], "3/v": seqs[1], "4/v": seqs[2], "5/b": 5, "h/u": undo}
    assert log.find_client_id("t1", "1/before") == 1  # undone, still known: applied once
    with pytest.raises(DUPLICATE):
        await log.commit("t1", {"type": "v"}, source="2", client_id="2/v")
    log.close()
    again = open_log_at()
    assert {key: again.find_client_id("t1", key) for key in found} == found
    again.close()


async def test_rows_queued_while_the_writer_is_busy_elsewhere_share_one_transaction(
    open_log_at: OpenLog,
) -> None:
    """A write job that waits in the writer's queue takes every row queued by the time it
    starts: the inputs of many tables that come while the writer does something else (a
    clock save, a table's creation) share one transaction, in the order they came."""
    log = open_log_at()
    for table_id in ("t1", "t2", "t3"):
        log.create_table(table_id, {})
    batches: list[int] = []
    insert = log._insert  # type: ignore[attr-defined]
    log._insert = lambda rows: (batches.append(len(rows)), insert(rows))[1]  # type: ignore[attr-defined]
    release = _hold_the_writer(log)
    commits = [
        asyncio.create_task(log.commit(table_id, {"type": f"x{n}"}, source="1"))
        for n in range(3)
        for table_id in ("t1", "t2", "t3")
    ]
    await asyncio.sleep(0.05)
    assert not any(c.done() for c in commits) and batches == []
    release.set()
    results = await asyncio.wait_for(asyncio.gather(*commits), 10)
    assert batches == [9]
    assert results == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    log.close()
    again = open_log_at()
    assert [e.record["type"] for e in again.entries("t2")] == ["x0", "x1", "x2"]
    again.close()


async def test_the_next_transaction_does_not_wait_for_the_event_loop(
    open_log_at: OpenLog,
) -> None:
    """The writer goes on to the rows queued during a transaction as soon as it is done,
    even while the event loop is busy (under load a turn of the loop takes milliseconds,
    and every vote waited for one between two transactions)."""
    log = open_log_at()
    log.create_table("t1", {})
    log.create_table("t2", {})
    started = [threading.Event(), threading.Event()]
    release = threading.Event()
    insert = log._insert  # type: ignore[attr-defined]

    def held_insert(rows: list[object]) -> object:
        calls = sum(event.is_set() for event in started)
        if calls < len(started):
            started[calls].set()
        if calls == 0:
            assert release.wait(10), "the test never released the writer"
        return insert(rows)

    log._insert = held_insert  # type: ignore[attr-defined]
    first = asyncio.create_task(log.commit("t1", {"type": "a"}, source="1"))
    for _ in range(500):
        if started[0].is_set():
            break
        await asyncio.sleep(0.01)
    second = asyncio.create_task(log.commit("t2", {"type": "b"}, source="2"))
    await asyncio.sleep(0.01)  # its row is queued while the first is being written
    release.set()
    # The loop is held here, on its own thread, until the second transaction has begun.
    assert started[1].wait(5), "the second transaction waited for a turn of the event loop"
    assert await asyncio.wait_for(asyncio.gather(first, second), 10) == [1, 1]
    log.close()


async def test_commit_many_answers_each_input_of_a_table_in_order(open_log_at: OpenLog) -> None:
    """A table's inputs taken together (a round's ballots) go in one call: each gets its
    own sequence number, in order, or its own refusal; a bad one sinks no other."""
    log = open_log_at()
    log.create_table("t1", {})
    log.append("t1", {"type": "first"}, source="1", client_id="1/dup")
    inputs = [
        ({"type": "v", "n": 1}, "2", "2/a"),
        ({"type": "v", "n": 2}, "3", "1/dup"),  # this id is taken: refused alone
        ({"type": "v", "n": 3}, "4", None),
    ]
    outcomes = await asyncio.wait_for(log.commit_many("t1", inputs), 10)
    assert outcomes[0] == 2 and outcomes[2] == 4
    assert isinstance(outcomes[1], DUPLICATE)
    assert log.find_client_id("t1", "2/a") == 2
    assert await log.commit_many("t1", []) == []
    log.close()
    again = open_log_at()
    assert [(e.seq, e.record.get("n")) for e in again.entries("t1")] == [(1, None), (2, 1), (4, 3)]
    again.close()


async def test_a_failure_after_a_write_still_answers_every_committer(
    open_log_at: OpenLog,
) -> None:
    """What the log does on the loop once a transaction is written (remember the client
    ids, see who was fenced) must never leave a committer without its answer: a table
    waiting for one forever would stop taking inputs."""
    log = open_log_at()
    log.create_table("t1", {})

    def broken_after(rows: object, outcomes: object) -> None:
        raise RuntimeError("a bug after the write")

    log._after = broken_after  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    handled: list[object] = []
    loop.set_exception_handler(lambda _, context: handled.append(context.get("exception")))
    try:
        seq = await asyncio.wait_for(log.commit("t1", {"type": "a"}, source="1"), 5)
    finally:
        loop.set_exception_handler(None)
    assert seq == 1
    assert any(isinstance(e, RuntimeError) for e in handled)  # and it is reported
    log.close()
