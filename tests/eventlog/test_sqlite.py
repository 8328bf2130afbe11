"""The SQLite store's own promises: WAL with full sync, the loop never waiting for the
disk, ordered writes, the checkpointer. What every log promises (appends, client ids, undo,
clocks, the group commit) is tested for both backends in tests/eventlog/test_log.py."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import msgspec
import pytest

from plugin.eventlog import EventLog, SqliteStore, open_hosting
from plugin.eventlog import sqlite as log_module
from plugin.host.ports import ClockRow


def test_wal_and_full_sync(tmp_path: Path) -> None:
    log = EventLog(SqliteStore(tmp_path / "log.db"))
    mode = sqlite3.connect(tmp_path / "log.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    writer = log.store._write_db  # made on the writer thread, used only there
    assert log._wait_for_writer(lambda: writer.execute("PRAGMA synchronous").fetchone()[0]) == 2
    log.close()


def test_unknown_table_is_refused(tmp_path: Path) -> None:
    log = EventLog(SqliteStore(tmp_path / "log.db"))
    with pytest.raises(sqlite3.IntegrityError):
        log.append("nope", {"type": "x"}, source="host")
    log.close()


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
    log = EventLog(SqliteStore(tmp_path / "log.db"))
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


def test_writes_keep_their_order_and_clock_saves_do_not_wait(tmp_path: Path) -> None:
    log = EventLog(SqliteStore(tmp_path / "log.db"))
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
    log = EventLog(SqliteStore(path))
    writer = log.store._write_db
    assert (
        log._wait_for_writer(lambda: writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0]) == 0
    )
    log.create_table("t1", {})
    for i in range(300):
        log.append("t1", {"type": "vote", "n": i}, source="1")
    runs = log.store._checkpointer.runs
    for _ in range(200):
        if log.store._checkpointer.runs >= runs + 2:
            break
        time.sleep(0.02)
    assert log.store._checkpointer.runs >= runs + 2, "the checkpointer did not run"
    copy = tmp_path / "main-file-only.db"
    shutil.copyfile(path, copy)  # without its -wal: only what was checkpointed
    rows = sqlite3.connect(copy).execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert rows == 300
    log.close()
    assert not log.store._checkpointer._thread.is_alive()


def test_a_sqlite_log_offers_no_leases(tmp_path: Path) -> None:
    """One server per file: whatever its name, it holds every table, with no lease."""
    log, leases = open_hosting(tmp_path / "log.db", owner="server-a")
    assert leases is None
    log.create_table("t1", {})
    assert log.append("t1", {"type": "a"}, source="host") == 1
    log.close()
