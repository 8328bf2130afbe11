"""The log's tests run on both backends: `open_log()` opens the same store again each call."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from plugin.eventlog import open_log
from plugin.host.ports import Log
from testing.postgres import PostgresServer, running_postgres

OpenLog = Callable[..., Log]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def open_log_at(request: pytest.FixtureRequest, tmp_path: Path) -> OpenLog:
    """`open_log_at(owner="a")`: the log of this test (one SQLite file, or one database)."""
    if request.param == "sqlite":
        where: str | Path = tmp_path / "log.db"
    else:
        where = request.getfixturevalue("postgres").new_database()
    return lambda owner="server-a": open_log(where, owner=owner)
