"""The SQLite event log: durable appends, idempotency keys, undo marks, the clock row."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

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
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
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
    log.save_clocks({"t1": ClockRow(timer_id=4, remaining=11.5, paused=True, warn_at=10)})
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
