"""The event log's implementations of the host's Log port (plugin.host.ports.Log).

Public API:
- `open_log(db, owner=None)`: the log a `--db` names: a `postgresql://` URL opens
  `PostgresLog` (several servers, leases), anything else is a SQLite file (`EventLog`).
- `is_url(db)`: whether `--db` names a PostgreSQL database.
"""

from __future__ import annotations

from pathlib import Path

from plugin.host.log import EventLog
from plugin.host.ports import Log


def is_url(db: str | Path) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def open_log(db: str | Path, *, owner: str | None = None) -> Log:
    """The event log at `db`; `owner` names this server in the leases (PostgreSQL only)."""
    if is_url(db):
        from .postgres import PostgresLog

        return PostgresLog(str(db), owner=owner)
    return EventLog(db)


__all__ = ["is_url", "open_log"]
