"""The log's tests run on both backends: `open_log()` opens the same store again each call."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from plugin.eventlog import open_hosting, open_log
from plugin.host.ports import Leases, Log
from testing.postgres import PostgresServer, running_postgres

OpenLog = Callable[..., Log]
OpenHosting = Callable[..., tuple[Log, Leases | None]]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def log_at(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where this test's log is: one SQLite file, or one PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "log.db"
    return str(request.getfixturevalue("postgres").new_database())


@pytest.fixture
def open_log_at(log_at: str | Path) -> OpenLog:
    """`open_log_at(owner="a")`: the log of this test (one SQLite file, or one database)."""
    return lambda owner="server-a": open_log(log_at, owner=owner)


@pytest.fixture
def open_hosting_at(log_at: str | Path) -> OpenHosting:
    """`open_hosting_at(owner="a")`: the log of this test and, on PostgreSQL, its leases."""
    return lambda owner="server-a": open_hosting(log_at, owner=owner)
