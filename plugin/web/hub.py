"""The widget hub: every connected client of a table gets its own view after each change.

Views are serialised once per broadcast and distinct viewer: two tabs of the same seat, or
many spectators, share one encoding. Each connection has an outbox
drained by its own writer task, so one slow browser never holds up the table; a state
still waiting in an outbox is replaced by a newer one (the newest state is all that
matters), replies (acks and errors) are never dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from plugin.host.ports import Snapshot
from plugin.host.views import Viewer, build_view

from . import protocol

logger = logging.getLogger(__name__)

Send = Callable[[bytes], Awaitable[None]]
MAX_PENDING_REPLIES = 64  # a client that does not read its acks is dropped


class Connection:
    """One WebSocket client of one table, with its outbox and writer task."""

    def __init__(self, table_id: str, viewer: Viewer, send: Send) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self._send = send
        self._outbox: deque[tuple[str, bytes]] = deque()
        self._ready = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write(), name=f"ws {self.table_id}/{self.viewer}")

    async def stop(self) -> None:
        self.closed = True
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    def push_state(self, data: bytes) -> None:
        # Latest state wins: an unsent older state is useless once a newer one exists.
        self._outbox = deque(item for item in self._outbox if item[0] != "state")
        self._outbox.append(("state", data))
        self._ready.set()

    def push_reply(self, data: bytes) -> None:
        if len(self._outbox) >= MAX_PENDING_REPLIES:
            self.closed = True
            self._ready.set()
            return
        self._outbox.append(("reply", data))
        self._ready.set()

    async def flush(self) -> None:
        """Wait until the outbox is empty (replies sent in order after the state)."""
        while self._outbox and not self.closed:
            await asyncio.sleep(0)

    async def _write(self) -> None:
        while not self.closed:
            await self._ready.wait()
            self._ready.clear()
            while self._outbox and not self.closed:
                _, data = self._outbox.popleft()
                try:
                    await self._send(data)
                except Exception:
                    self.closed = True
                    return


class Hub:
    """All connections of all tables of one server."""

    def __init__(self) -> None:
        self._connections: dict[str, set[Connection]] = {}
        self._latest: dict[str, Snapshot] = {}
        # table -> viewer -> encoded state, valid for the latest snapshot and connection set
        self._cache: dict[str, dict[Viewer, bytes]] = {}
        self.encodings = 0  # views serialised so far (benches, tests of the cache)

    async def publish(self, snapshot: Snapshot) -> None:
        """Send every client of this table its view of `snapshot` (Table's Hub protocol)."""
        self._latest[snapshot.table_id] = snapshot
        self._broadcast(snapshot.table_id)

    def attach(self, connection: Connection, snapshot: Snapshot) -> None:
        """A client (re)connected: it gets the whole state it may see at once (and the
        others learn it is connected)."""
        self._connections.setdefault(connection.table_id, set()).add(connection)
        connection.start()
        self._latest[connection.table_id] = snapshot
        self._broadcast(connection.table_id)

    async def detach(self, connection: Connection, snapshot: Snapshot | None) -> None:
        self._connections.get(connection.table_id, set()).discard(connection)
        await connection.stop()
        if snapshot is not None:
            self._latest[connection.table_id] = snapshot
            self._broadcast(connection.table_id)

    def connected_seats(self, table_id: str) -> set[int]:
        return {c.viewer for c in self._connections.get(table_id, ()) if isinstance(c.viewer, int)}

    def connections(self, table_id: str) -> int:
        return len(self._connections.get(table_id, ()))

    def forget(self, table_id: str) -> None:
        self._latest.pop(table_id, None)
        self._cache.pop(table_id, None)

    def view_bytes(self, table_id: str, viewer: Viewer) -> bytes | None:
        """The encoded state message `viewer` gets now (encoded once per broadcast)."""
        snapshot = self._latest.get(table_id)
        if snapshot is None:
            return None
        views = self._cache.setdefault(table_id, {})
        if viewer not in views:
            view: dict[str, Any] = build_view(snapshot, viewer, self.connected_seats(table_id))
            views[viewer] = protocol.encode_state(view)
            self.encodings += 1
        return views[viewer]

    def _broadcast(self, table_id: str) -> None:
        self._cache.pop(table_id, None)  # a new snapshot or connection set: new views
        for connection in list(self._connections.get(table_id, ())):
            data = self.view_bytes(table_id, connection.viewer)
            if data is not None:
                connection.push_state(data)
