"""Logs written by the code before the one event-log core still open and replay (issue 28):
a SQLite file and a PostgreSQL dump of the same evening (tests/eventlog/old_logs.py wrote
them, and what the old code read back from them), read back now as a restarting server
does, give the same tables, entries, clocks, protocols and views, and take new inputs."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from plugin.eventlog import open_hosting, open_log
from plugin.host.registry import Registry
from testing import FakeClock, FakeHub

from .old_logs import EXPECTED, POSTGRES, SQLITE, VOTING, observe, restore


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The protocol's date is the server's local day: read in the zone the data was."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(params=["sqlite", "postgres"])
def old_log(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """(kind, where): a copy of the old log of that kind (a file, or a restored dump)."""
    if request.param == "sqlite":
        copy = tmp_path / "old.sqlite"
        shutil.copyfile(SQLITE, copy)
        return "sqlite", str(copy)
    dsn = request.getfixturevalue("postgres").new_database()
    restore(POSTGRES, dsn)
    return "postgres", dsn


async def test_an_old_log_opens_and_replays_as_the_old_code_read_it(
    old_log: tuple[str, str], utc: None
) -> None:
    kind, where = old_log
    log, leases = open_hosting(where, owner="reader")

    def registry(clock: FakeClock) -> Registry:
        return Registry(log, leases=leases, hub=FakeHub(), clock=clock, save_every=0, heartbeat=60)

    read = await observe(log, registry)
    expected = json.loads(EXPECTED[kind].read_text())
    assert read["live"] == expected["live"] and read["opened"] == expected["opened"]
    for table_id, table in expected["tables"].items():
        assert read["tables"][table_id] == table, table_id
    assert read == expected


def test_an_old_log_takes_new_inputs(old_log: tuple[str, str]) -> None:
    _, where = old_log
    log = open_log(where)  # a tool: no lease
    before = log.entries(VOTING)
    seq = log.append(VOTING, {"type": "table.name", "seat": 3, "name": "Late"}, source="host")
    assert seq == before[-1].seq + 1
    log.close()
    again = open_log(where)
    assert [e.seq for e in again.entries(VOTING)] == [*(e.seq for e in before), seq]
    assert again.find_client_id(VOTING, "7/7/v") == 19
    again.close()
