"""The tournaments' tests run on both stores where a log is read back (the event log's
fixtures: one SQLite file, one PostgreSQL database)."""

from __future__ import annotations

from tests.eventlog.conftest import log_at, postgres

__all__ = ["log_at", "postgres"]
