"""Every statement of the event log, written once (`?` placeholders; each store runs them
in its own dialect). The schema's column types come from the store's `Dialect`: the same
tables on SQLite and PostgreSQL, with the types each had before (old logs open as they are).
"""

from __future__ import annotations

from .store import Dialect

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    wall {real} NOT NULL,
    source TEXT NOT NULL,
    client_id TEXT,
    undone {flag} NOT NULL DEFAULT {false},
    PRIMARY KEY (table_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_client_id
    ON events (table_id, client_id) WHERE client_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS archived (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    wall {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS clocks (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    timer_id INTEGER,
    remaining {real},
    warn_at {real} NOT NULL DEFAULT 0,
    paused {flag} NOT NULL,
    updated {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS club_records (
    seq INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    wall {real} NOT NULL,
    source TEXT NOT NULL
);
"""


def schema(dialect: Dialect) -> list[str]:
    """The schema's statements in `dialect`'s column types."""
    text = SCHEMA.format(real=dialect.real, flag=dialect.flag, false=dialect.false)
    return [statement.strip() for statement in text.split(";") if statement.strip()]


INSERT_TABLE = "INSERT INTO tables (id, settings, created) VALUES (?, ?, ?)"
TABLE_SETTINGS = "SELECT settings FROM tables WHERE id = ?"
TABLE_CREATED = "SELECT created FROM tables WHERE id = ?"
TABLES = "SELECT id, settings FROM tables ORDER BY created, id"
LIVE_TABLES = (
    "SELECT id, settings FROM tables WHERE id NOT IN (SELECT table_id FROM archived)"
    " ORDER BY created, id"
)
ARCHIVE = "INSERT INTO archived (table_id, wall) VALUES (?, ?) ON CONFLICT DO NOTHING"
IS_ARCHIVED = "SELECT 1 FROM archived WHERE table_id = ?"

INSERT = (
    "INSERT INTO events (table_id, seq, record, wall, source, client_id) VALUES (?, ?, ?, ?, ?, ?)"
)
LAST_SEQ = "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?"
CLIENT_IDS = "SELECT client_id, seq FROM events WHERE table_id = ? AND client_id IS NOT NULL"
ENTRIES = "SELECT seq, record, source, client_id, undone, wall FROM events WHERE table_id = ?"
ACTIVE = " AND NOT undone"
BY_SEQ = " ORDER BY seq"
MARK_UNDONE = "UPDATE events SET undone = TRUE WHERE table_id = ? AND seq = ? AND NOT undone"

SAVE_CLOCK = (
    "INSERT INTO clocks (table_id, timer_id, remaining, warn_at, paused, updated)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
    " timer_id = excluded.timer_id, remaining = excluded.remaining,"
    " warn_at = excluded.warn_at, paused = excluded.paused, updated = excluded.updated"
)
LOAD_CLOCK = "SELECT timer_id, remaining, paused, warn_at FROM clocks WHERE table_id = ?"

# The club's records (plugin.club): one sequence for the whole club, numbered by the writer
# that read the records before it (a second writer of the same number is refused by the key,
# so the club reads what it missed and asks again: nothing is decided on a stale roster).
INSERT_CLUB = "INSERT INTO club_records (seq, record, wall, source) VALUES (?, ?, ?, ?)"
CLUB_RECORDS = "SELECT seq, record, wall, source FROM club_records WHERE seq > ? ORDER BY seq"
