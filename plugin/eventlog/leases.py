"""The leases of a log shared by several servers (plugin.host.ports.Leases), on the
PostgreSQL store: a row in `leases` per table (owner, epoch, expiry, heartbeat, the owner's
public URL). The store fences every write with the epochs held here (issue 16).

A claim takes a new epoch, so a write still on its way under the old one is fenced out; a
lease taken or lost makes the log forget what it kept in memory of the table (another
server may have written it). Every statement runs on the log's writer thread, after the
writes queued before it (a release is a drain).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .core import EventLog
from .postgres import PostgresStore
from .store import Transaction

CLAIM = """
INSERT INTO leases (table_id, owner, epoch, expires, heartbeat, url)
SELECT ?, ?, 1, clock_timestamp() + ? * interval '1 second', clock_timestamp(), ?
WHERE EXISTS (SELECT 1 FROM tables WHERE id = ?)
  AND NOT EXISTS (SELECT 1 FROM archived WHERE table_id = ?)
ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = leases.epoch + 1,
    expires = EXCLUDED.expires, heartbeat = EXCLUDED.heartbeat, url = EXCLUDED.url
WHERE leases.expires <= clock_timestamp() OR leases.owner = EXCLUDED.owner
RETURNING epoch
"""
RENEW = """
UPDATE leases SET expires = clock_timestamp() + ? * interval '1 second',
    heartbeat = clock_timestamp(), url = ?
FROM unnest(?::text[], ?::bigint[]) AS held(table_id, epoch)
WHERE leases.table_id = held.table_id AND leases.epoch = held.epoch AND leases.owner = ?
RETURNING leases.table_id
"""
RELEASE = (
    "UPDATE leases SET expires = clock_timestamp() - interval '1 second'"
    " WHERE owner = ? AND table_id = ANY(?)"
)
UNOWNED = """
SELECT t.id FROM tables t LEFT JOIN leases l ON l.table_id = t.id
WHERE NOT EXISTS (SELECT 1 FROM archived a WHERE a.table_id = t.id)
  AND (l.table_id IS NULL OR l.expires <= clock_timestamp() OR l.owner = ?)
ORDER BY t.created, t.id
"""
OWNERS = "SELECT table_id, owner FROM leases WHERE expires > clock_timestamp()"
OWNER_URL = "SELECT url FROM leases WHERE table_id = ? AND expires > clock_timestamp()"


class PostgresLeases:
    """This server's leases on a shared log (`store.owner` names it)."""

    def __init__(self, log: EventLog, store: PostgresStore) -> None:
        if store.owner is None:
            raise ValueError("leases need an owner: the name of this server")
        self.owner: str = store.owner
        self.lease = store.lease
        self._log = log
        self._store = store
        self._fenced: Callable[[str], None] = lambda table_id: None
        log.on_fenced(self._dropped)

    @property
    def url_of(self) -> Callable[[], str]:
        return self._store.url_of

    @url_of.setter
    def url_of(self, url_of: Callable[[], str]) -> None:
        self._store.url_of = url_of

    async def claim(self, table_id: str) -> bool:
        """Take the table's lease when nobody holds it (or it is this server's own): a new
        epoch, so any write still on its way under the old one is fenced out."""
        params = (table_id, self.owner, self.lease, self.url_of(), table_id, table_id)
        rows = await self._fetch(CLAIM, params)
        if not rows:
            return False
        self._store.held[table_id] = int(rows[0][0])
        self._log.forget(table_id)  # another server may have written it meanwhile
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        held = self._store.held
        mine = [(t, held[t]) for t in table_ids if t in held]
        lost = {t for t in table_ids if t not in held}
        if not mine:
            return lost
        ids, epochs = [t for t, _ in mine], [e for _, e in mine]
        rows = await self._fetch(RENEW, (self.lease, self.url_of(), ids, epochs, self.owner))
        kept = {row[0] for row in rows}
        for table_id, _ in mine:
            if table_id not in kept:
                lost.add(table_id)
                self._forget(table_id)
        return lost

    async def release(self, table_ids: list[str]) -> None:
        """Expire these leases now, after every write queued before (a drain)."""
        mine = [t for t in table_ids if t in self._store.held]
        if not mine:
            return
        await self._log.on_writer(lambda tx: tx.execute(RELEASE, (self.owner, mine)))
        for table_id in mine:
            self._forget(table_id)

    async def unowned(self) -> list[str]:
        return [row[0] for row in await self._fetch(UNOWNED, (self.owner,))]

    async def owners(self) -> dict[str, str]:
        return {table_id: owner for table_id, owner in await self._fetch(OWNERS, ())}

    def owner_url(self, table_id: str) -> str | None:
        """The public URL of the server whose live lease hosts the table, if any."""
        rows = self._store.read(OWNER_URL, (table_id,))
        return str(rows[0][0]) or None if rows else None

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        self._fenced = callback

    def _dropped(self, table_id: str) -> None:
        """A write of the table was fenced out, or its COMMIT got no answer: not held here
        any more (nothing more is written for it until it is claimed again)."""
        self._store.held.pop(table_id, None)
        self._fenced(table_id)

    def _forget(self, table_id: str) -> None:
        self._store.held.pop(table_id, None)
        self._log.forget(table_id)

    async def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        def fetch(tx: Transaction) -> list[tuple[Any, ...]]:
            return tx.fetch(statement, params)

        rows: list[tuple[Any, ...]] = await self._log.on_writer(fetch)
        return rows
