"""The event log: one core (every operation of the host's Log port, the group commit, each
statement written once) over a store, SQLite or PostgreSQL; on PostgreSQL, shared by
several servers, the leases of its tables (the host's Leases port).

Public API:
- `open_log(db, owner=None)`: the log a `--db` names: a `postgresql://` URL opens the
  PostgreSQL store (its writes fenced by the leases `owner` holds, if named), anything else
  is a SQLite file. What the command-line tools and tests open.
- `open_hosting(db, owner=None)`: the log and, on PostgreSQL, this server's leases (None on
  SQLite: one server holds every table of its file). What a server's assembly opens.
- `log_opener(db, owner=None)`: `open_hosting` for later (a web app opens its log at each
  start: plugin.web.app.ServerConfig.log).
- `is_url(db)`: whether `--db` names a PostgreSQL database.
- `ClubEntry`, `ClubConflict`: the club's records (EventLog.append_club, club_records).
- `EventLog` (the core), `SqliteStore`, `PostgresStore`, `PostgresLeases`; `BadLogFile`:
  a file at the log's path that is not a usable event log.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from plugin.host.ports import Leases, Log

from .core import ClubConflict, ClubEntry, EventLog
from .sqlite import BadLogFile, SqliteStore


def is_url(db: str | Path) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def open_hosting(db: str | Path, *, owner: str | None = None) -> tuple[Log, Leases | None]:
    """The event log at `db` and, on PostgreSQL with an `owner` (this server's name in the
    leases), its leases."""
    if not is_url(db):
        return EventLog(SqliteStore(db)), None
    from .leases import PostgresLeases
    from .postgres import PostgresStore

    store = PostgresStore(str(db), owner=owner)
    log = EventLog(store)
    return log, None if owner is None else PostgresLeases(log, store)


def log_opener(
    db: str | Path, *, owner: str | None = None
) -> Callable[[], tuple[Log, Leases | None]]:
    """What opens the log at `db` (and its leases) each time it is called."""
    return lambda: open_hosting(db, owner=owner)


def open_log(db: str | Path, *, owner: str | None = None) -> Log:
    """The event log at `db`; `owner` names this server in the leases (PostgreSQL only)."""
    return open_hosting(db, owner=owner)[0]


__all__ = [
    "BadLogFile",
    "ClubConflict",
    "ClubEntry",
    "EventLog",
    "SqliteStore",
    "is_url",
    "log_opener",
    "open_hosting",
    "open_log",
]
