"""The SQLite event log: durable appends, idempotency keys, undo marks, the clock row."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import msgspec
import pytest

from plugin.host import log as log_module
from plugin.host.log import ClockRow, EventLog


def test_appends_survive_reopening_in_order(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    log = EventLog(path)
    log.create_table("t1", {"seats": 10})
    assert log.append("t1", {"type": "vote", "voter": 1}, source="1", client_id="1/a") == 1
    assert log.append("t1", {"type": "pass", "seat": 2}, source="2") == 2
    log.close()
    again = EventLog(path)
    assert again.tables() == [("t1", {"seats": 10})]
    entries = again.entries("t1")
    assert [(e.seq, e.record["type"], e.source, e.client_id) for e in entries] == [
        (1, "vote", "1", "1/a"),
        (2, "pass", "2", None),
    ]
    assert again.append("t1", {"type": "foul", "seat": 3}, source="host") == 3
    again.close()


def test_wal_and_full_sync(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    mode = sqlite3.connect(tmp_path / "log.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    writer = log._write_db  # made on the writer thread, used only there
    assert log._wait_for_writer(lambda: writer.execute("PRAGMA synchronous").fetchone()[0]) == 2
    log.close()


def test_client_id_is_unique_per_table(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    log.create_table("t1", {})
    log.create_table("t2", {})
    log.append("t1", {"type": "x"}, source="1", client_id="1/m1")
    log.append("t2", {"type": "x"}, source="1", client_id="1/m1")  # another table: fine
    assert log.find_client_id("t1", "1/m1") == 1
    assert log.find_client_id("t1", "1/m2") is None
    with pytest.raises(sqlite3.IntegrityError):
        log.append("t1", {"type": "y"}, source="1", client_id="1/m1")
    assert [e.record["type"] for e in log.entries("t1")] == ["x"]  # nothing half-written
    assert log.append("t1", {"type": "z"}, source="1") == 2
    log.close()


def test_undo_marks_and_never_deletes(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
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


def test_clock_rows_are_upserted(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    log.create_table("t1", {})
    assert log.load_clock("t1") is None
    log.save_clocks({"t1": ClockRow(timer_id=4, remaining=12.5, paused=False, warn_at=10)})
    saved = log.save_clocks({"t1": ClockRow(timer_id=4, remaining=11.5, paused=True, warn_at=10)})
    saved.result(timeout=5)  # queued to the writer, in order
    assert log.load_clock("t1") == ClockRow(timer_id=4, remaining=11.5, paused=True, warn_at=10)
    log.close()


def test_unknown_table_is_refused(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    with pytest.raises(sqlite3.IntegrityError):
        log.append("nope", {"type": "x"}, source="host")
    log.close()


async def test_group_commit_shares_a_transaction_and_survives_a_bad_row(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    for table_id in ("t1", "t2"):
        log.create_table(table_id, {})
    log.append("t1", {"type": "first"}, source="1", client_id="1/dup")
    results = await asyncio.gather(
        log.commit("t1", {"type": "a"}, source="1"),
        log.commit("t2", {"type": "b"}, source="2"),
        log.commit("t1", {"type": "again"}, source="1", client_id="1/dup"),
        log.commit("t2", {"type": "c"}, source="2"),
        return_exceptions=True,
    )
    assert results[0] == 2 and results[1] == 1 and results[3] == 2
    assert isinstance(results[2], sqlite3.IntegrityError)
    log.close()
    again = EventLog(tmp_path / "log.db")
    assert [e.record["type"] for e in again.entries("t1")] == ["first", "a"]
    assert [e.record["type"] for e in again.entries("t2")] == ["b", "c"]
    again.close()


def _hold_the_writer(log: EventLog) -> tuple[threading.Event, threading.Event]:
    """Park the writer thread until `release` is set; `parked` says it is parked."""
    parked, release = threading.Event(), threading.Event()

    def wait() -> None:
        parked.set()
        assert release.wait(10), "the test never released the writer"

    log._writer.submit(wait)
    assert parked.wait(5)
    return parked, release


def _committed(path: Path, table_id: str) -> list[str]:
    """What another process would read from the file now."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT record FROM events WHERE table_id = ? ORDER BY seq", (table_id,))
        return [msgspec.json.decode(record)["type"] for (record,) in rows]


async def test_the_loop_goes_on_while_the_disk_is_busy_and_acks_only_what_is_on_disk(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "log.db")
    log.create_table("t1", {})
    _, release = _hold_the_writer(log)  # as if an fsync took very long
    first = asyncio.create_task(log.commit("t1", {"type": "a"}, source="1"))
    second = asyncio.create_task(log.commit("t1", {"type": "b"}, source="2"))
    ticks = 0
    for _ in range(10):  # the event loop (the audio mixer, the sockets) keeps running
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks == 10
    assert not first.done() and not second.done()  # nothing acked before it is durable
    assert _committed(tmp_path / "log.db", "t1") == []
    release.set()
    assert await asyncio.wait_for(asyncio.gather(first, second), 5) == [1, 2]
    assert _committed(tmp_path / "log.db", "t1") == ["a", "b"]
    assert log.find_client_id("t1", "x") is None and len(log.entries("t1")) == 2
    log.close()


async def test_inputs_that_arrive_during_a_write_share_the_next_transaction(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "log.db")
    for table_id in ("t1", "t2"):
        log.create_table(table_id, {})
    batches: list[int] = []
    insert = log._insert
    log._insert = lambda rows: (batches.append(len(rows)), insert(rows))[1]  # type: ignore[method-assign]
    _, release = _hold_the_writer(log)
    first = asyncio.create_task(log.commit("t1", {"type": "a"}, source="1"))
    await asyncio.sleep(0.05)  # the first batch is now waiting for the writer
    later = [
        asyncio.create_task(log.commit(table_id, {"type": "b"}, source="host"))
        for table_id in ("t1", "t2", "t1")
    ]
    await asyncio.sleep(0.05)
    release.set()
    assert await asyncio.wait_for(asyncio.gather(first, *later), 5) == [1, 2, 1, 3]
    assert batches == [1, 3]
    log.close()


async def test_close_writes_what_was_committed_in_the_same_turn(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    log.create_table("t1", {})
    commit = asyncio.ensure_future(log.commit("t1", {"type": "last"}, source="host"))
    await asyncio.sleep(0)  # queued, not yet handed to the writer
    log.close()
    assert await commit == 1
    assert _committed(tmp_path / "log.db", "t1") == ["last"]
    with pytest.raises(RuntimeError, match="closed"):
        await log.commit("t1", {"type": "late"}, source="host")


def test_writes_keep_their_order_and_clock_saves_do_not_wait(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.db")
    log.create_table("t1", {})
    _, release = _hold_the_writer(log)
    saved = log.save_clocks({"t1": ClockRow(timer_id=1, remaining=30.0, paused=False)})
    assert not saved.done()  # queued behind the parked writer; the caller goes on
    release.set()
    log.append("t1", {"type": "a"}, source="host")  # waits: after the clock, in order
    assert saved.done() and saved.exception() is None
    assert log.load_clock("t1") == ClockRow(timer_id=1, remaining=30.0, paused=False)
    log.close()


def test_commits_never_checkpoint_the_checkpointer_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint (60-150 ms on a busy disk) never rides on a commit: the writer's
    connection has automatic checkpoints off, and the checkpointer thread copies the WAL
    into the main file on its own, so a copy of the main file alone has every row."""
    monkeypatch.setattr(log_module, "CHECKPOINT_SECONDS", 0.05)
    path = tmp_path / "log.db"
    log = EventLog(path)
    writer = log._write_db
    assert (
        log._wait_for_writer(lambda: writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0]) == 0
    )
    log.create_table("t1", {})
    for i in range(300):
        log.append("t1", {"type": "vote", "n": i}, source="1")
    runs = log._checkpointer.runs
    for _ in range(200):
        if log._checkpointer.runs >= runs + 2:
            break
        time.sleep(0.02)
    assert log._checkpointer.runs >= runs + 2, "the checkpointer did not run"
    copy = tmp_path / "main-file-only.db"
    shutil.copyfile(path, copy)  # without its -wal: only what was checkpointed
    rows = sqlite3.connect(copy).execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert rows == 300
    log.close()
    assert not log._checkpointer._thread.is_alive()
