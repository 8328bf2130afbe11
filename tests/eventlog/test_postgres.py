"""What only the PostgreSQL log does: leases that fence every write, a database that goes
away and comes back, and no query on the way of an input."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from plugin.eventlog import EventLog
from plugin.eventlog.leases import PostgresLeases
from plugin.eventlog.postgres import LEASE_SECONDS, PostgresStore
from plugin.host.ports import ClockRow, Fenced, LogUnavailable
from testing.postgres import PostgresServer


def shared(dsn: str, owner: str, lease: float = LEASE_SECONDS) -> tuple[EventLog, PostgresLeases]:
    """A server's log on the database at `dsn` and its leases (`owner` names it)."""
    store = PostgresStore(dsn, owner=owner, lease=lease)
    log = EventLog(store)
    return log, PostgresLeases(log, store)


def _leases(dsn: str) -> dict[str, tuple[str, int]]:
    with psycopg.connect(dsn) as db:
        rows = db.execute("SELECT table_id, owner, epoch FROM leases").fetchall()
    return {table_id: (owner, epoch) for table_id, owner, epoch in rows}


async def test_a_lease_fences_the_old_owner_out(postgres: PostgresServer) -> None:
    dsn = postgres.new_database()
    (a, a_leases), (b, b_leases) = shared(dsn, "a", 0.5), shared(dsn, "b", 0.5)
    dropped: list[str] = []
    a_leases.on_fenced(dropped.append)
    a.create_table("t1", {})
    assert await a.commit("t1", {"type": "x"}, source="1", client_id="1/x") == 1
    assert not await b_leases.claim("t1")  # a holds it
    assert await b_leases.unowned() == []
    await asyncio.sleep(0.7)  # a stops heartbeating: its lease runs out
    assert await b_leases.unowned() == ["t1"]
    assert await b_leases.claim("t1")
    assert _leases(dsn) == {"t1": ("b", 2)}
    with pytest.raises(Fenced):
        await a.commit("t1", {"type": "late"}, source="1")
    assert dropped == ["t1"]
    a.save_clocks({"t1": ClockRow(timer_id=9, remaining=1.0, paused=False)}).result(5)
    with pytest.raises(Fenced):
        a.mark_undone("t1", 1, undo_record={"type": "table.undo", "seq": 1}, source="host")
    assert await a_leases.renew(["t1"]) == {"t1"}  # a learns it lost the table
    assert b.find_client_id("t1", "1/x") == 1
    assert await b.commit("t1", {"type": "y"}, source="2") == 2
    assert [e.record["type"] for e in b.entries("t1", include_undone=True)] == ["x", "y"]
    assert b.load_clock("t1") is None  # the fenced clock save changed nothing
    assert await b_leases.renew(["t1"]) == set()
    await b_leases.release(["t1"])  # a drain: free at once
    assert await a_leases.unowned() == ["t1"] and await a_leases.claim("t1")
    assert _leases(dsn) == {"t1": ("a", 3)}
    a.close()
    b.close()


async def test_a_database_that_goes_away_refuses_inputs_and_loses_none() -> None:
    from testing.postgres import running_postgres

    with running_postgres() as server:  # a cluster of its own: this test stops it
        dsn = server.new_database()
        log, _ = shared(dsn, "a", 60)
        log.create_table("t1", {})
        assert await log.commit("t1", {"type": "a"}, source="1", client_id="1/a") == 1
        assert log.find_client_id("t1", "1/a") == 1
        server.stop()
        # Client ids are in memory: a retry is recognised with the database gone.
        assert log.find_client_id("t1", "1/a") == 1
        with pytest.raises(LogUnavailable):
            await log.commit("t1", {"type": "b"}, source="1", client_id="1/b")
        assert not log.healthy
        server.start()
        assert await log.commit("t1", {"type": "b"}, source="1", client_id="1/b") == 3
        assert log.healthy
        assert [(e.seq, e.record["type"]) for e in log.entries("t1")] == [(1, "a"), (3, "b")]
        log.close()


def test_a_database_that_refuses_is_named(postgres: PostgresServer) -> None:
    with pytest.raises(LogUnavailable, match="refuses"):
        shared(postgres.dsn.rsplit("/", 1)[0] + "/no_such_database", "a")


def test_commits_are_synchronous(postgres: PostgresServer) -> None:
    log, _ = shared(postgres.new_database(), "a")
    setting = log._wait_for_writer(
        lambda: log.store._write_db.execute("SHOW synchronous_commit").fetchone()  # type: ignore[attr-defined]
    )
    assert setting == ("on",)
    log.close()
