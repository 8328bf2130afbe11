"""The widget hub: every connected client of a table gets its own view after each change.

Views are serialised once per broadcast and distinct viewer: two tabs of the same seat, or
many spectators, share one encoding, and the part of the views every viewer but the host
shares (the public state, the table's meta) is built and encoded once per broadcast
(StateFrames). Each connection has an outbox
drained by its own writer task, so one slow browser never holds up the table; a state
still waiting in an outbox is replaced by a newer one (the newest state is all that
matters), replies (acks and errors) are never dropped.

A client that connects gets its own view at once; the other clients of the table get a new
view only when what they see changes: a new state, or a seat coming online or going
offline. A seat that connects again and again (a reload, or a flood) costs the others
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from plugin.host.inputs import HOST
from plugin.host.ports import Snapshot
from plugin.host.views import Viewer, ViewSet
from plugin.tasks import cancel_and_wait

from . import messages
from .close_codes import CloseCode
from .rhythm import Rhythm

logger = logging.getLogger(__name__)

Send = Callable[[bytes], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]
MAX_PENDING_REPLIES = 64  # a client that does not read its acks is dropped
# Ends one seat's sessions on another endpoint (table, viewer, code, message): the video
# relay's socket, the embedded room's peer. See Hub.on_close_viewer.
CloseViewer = Callable[[str, Viewer, str, str], None]


class Connection:
    """One WebSocket client of one table, with its outbox and writer task."""

    def __init__(
        self, table_id: str, viewer: Viewer, send: Send, close: Close | None = None
    ) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self._send = send
        self._close = close
        self._closing: tuple[CloseCode, str] | None = None
        self._outbox: deque[tuple[str, bytes]] = deque()
        self._ready = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write(), name=f"ws {self.table_id}/{self.viewer}")

    async def stop(self) -> None:
        self.closed = True
        await cancel_and_wait([self._writer], log=logger)

    def push_state(self, data: bytes) -> None:
        # Latest state wins: an unsent older state is useless once a newer one exists.
        if self._outbox:  # (mostly empty: the writer keeps up)
            self._outbox = deque(item for item in self._outbox if item[0] != "state")
        self._outbox.append(("state", data))
        self._ready.set()

    def close_with(self, reply: bytes, code: CloseCode, reason: str) -> None:
        """Send `reply`, then close the socket with `code` (the server ends the session)."""
        self.push_reply(reply)
        self._closing = (code, reason)
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
            if self._closing is not None and self._close is not None:
                self.closed = True
                with contextlib.suppress(Exception):
                    await self._close(*self._closing)


class Hub:
    """All connections of all tables of one server."""

    def __init__(self) -> None:
        self._connections: dict[str, set[Connection]] = {}
        self._latest: dict[str, Snapshot] = {}
        # table -> its encoded states, valid for the latest snapshot and connection set
        self._cache: dict[str, StateFrames] = {}
        self.encodings = 0  # views serialised so far (benches, tests of the cache)
        self._close_viewer_elsewhere: list[CloseViewer] = []
        self._rhythms: dict[str, Rhythm] = {}  # table -> its public version (rhythm.py)

    async def publish(self, snapshot: Snapshot) -> None:
        """Send every client of this table its view of `snapshot` (Table's Hub protocol)."""
        self._latest[snapshot.table_id] = snapshot
        self._broadcast(snapshot.table_id)

    def attach(self, connection: Connection, snapshot: Snapshot) -> None:
        """A client (re)connected: it gets the whole state it may see at once. The others
        hear of it only when its seat was not connected before."""
        table_id = connection.table_id
        before = self.connected_seats(table_id)
        self._connections.setdefault(table_id, set()).add(connection)
        connection.start()
        if self._is_new(snapshot) or self.connected_seats(table_id) != before:
            self._latest[table_id] = snapshot
            self._broadcast(table_id, fresh=connection)
            return
        # Its own view, built from this moment's snapshot (the timer's time left now, not
        # at the table's last change); the others' cached views stay as they are.
        rhythm = self._rhythm(table_id)
        frames = StateFrames(ViewSet(snapshot, self.connected_seats(table_id)), rhythm)
        if connection.viewer != HOST:
            rhythm.sent(connection.viewer, frames.views.own(connection.viewer))
        connection.push_state(frames.encode(connection.viewer))

    async def detach(self, connection: Connection, snapshot: Snapshot | None) -> None:
        table_id = connection.table_id
        before = self.connected_seats(table_id)
        self._connections.get(table_id, set()).discard(connection)
        await connection.stop()
        if snapshot is None:
            return
        if self._is_new(snapshot) or self.connected_seats(table_id) != before:
            self._latest[table_id] = snapshot
            self._broadcast(table_id)

    def count(self, table_id: str, viewer: Viewer) -> int:
        """How many connections `viewer` has open at this table."""
        return sum(1 for c in self._connections.get(table_id, ()) if c.viewer == viewer)

    def close_table(self, table_id: str, code: str, message: str) -> None:
        """End every session of this table: an error saying why, then the socket closes."""
        reply = messages.encode_error(code, message)
        for connection in list(self._connections.get(table_id, ())):
            connection.close_with(reply, CloseCode.ENDED, code)
        self.forget(table_id)

    def move_table(self, table_id: str, moved: Callable[[Viewer], bytes | None]) -> None:
        """The next game is at another table: every session of this one gets its own
        `moved` message (its seat's new token), then the socket closes; one whose link
        the next game re-issued (None) is told `token_reissued` (succession.py)."""
        for connection in list(self._connections.get(table_id, ())):
            message = moved(connection.viewer)
            if message is None:
                refusal = messages.encode_error("token_reissued", "this link was replaced")
                connection.close_with(refusal, CloseCode.ENDED, "token_reissued")
            else:
                connection.close_with(message, CloseCode.ENDED, "table_moved_on")
        self.forget(table_id)

    def move_viewer(self, table_id: str, viewer: Viewer, moved: bytes) -> None:
        """One seat's sessions go on at another table (`moved`: a tournament's next round,
        plugin.tournament.follow); the table's other sessions stay."""
        for connection in list(self._connections.get(table_id, ())):
            if connection.viewer == viewer:
                connection.close_with(moved, CloseCode.ENDED, "table_moved_on")

    def close_viewer(self, table_id: str, viewer: Viewer, code: str, message: str) -> None:
        """End every session of one seat (its link was re-issued), here and on every
        endpoint registered with `on_close_viewer`."""
        reply = messages.encode_error(code, message)
        for connection in list(self._connections.get(table_id, ())):
            if connection.viewer == viewer:
                connection.close_with(reply, CloseCode.ENDED, code)
        for close in self._close_viewer_elsewhere:
            close(table_id, viewer, code, message)

    def on_close_viewer(self, close: CloseViewer) -> None:
        """Have `close_viewer` end a seat's sessions on another endpoint too (`/video`,
        the embedded room's `/rtc` peers): those are mounted as extra routes, which the
        reissue endpoint does not know, and a re-issued link must leave none of its
        sockets open."""
        self._close_viewer_elsewhere.append(close)

    def _is_new(self, snapshot: Snapshot) -> bool:
        latest = self._latest.get(snapshot.table_id)
        return latest is None or latest.version != snapshot.version

    def connected_seats(self, table_id: str) -> set[int]:
        return {c.viewer for c in self._connections.get(table_id, ()) if isinstance(c.viewer, int)}

    def connections(self, table_id: str) -> int:
        return len(self._connections.get(table_id, ()))

    def forget(self, table_id: str) -> None:
        self._latest.pop(table_id, None)
        self._cache.pop(table_id, None)
        self._rhythms.pop(table_id, None)

    def public_version(self, table_id: str) -> int:
        """The table's public version: the `table.version` of every page but the host's."""
        return self._rhythm(table_id).version

    def _rhythm(self, table_id: str) -> Rhythm:
        rhythm = self._rhythms.get(table_id)
        if rhythm is None:
            rhythm = self._rhythms[table_id] = Rhythm()
        return rhythm

    def view_bytes(self, table_id: str, viewer: Viewer) -> bytes | None:
        """The encoded state message `viewer` gets now (encoded once per broadcast)."""
        snapshot = self._latest.get(table_id)
        if snapshot is None:
            return None
        frames = self._cache.get(table_id)
        if frames is None:
            rhythm = self._rhythm(table_id)
            frames = StateFrames(ViewSet(snapshot, self.connected_seats(table_id)), rhythm)
            rhythm.advance(frames.views, time.monotonic())
            self._cache[table_id] = frames
        before = frames.encodings
        data = frames.encode(viewer)
        self.encodings += frames.encodings - before
        return data

    def _broadcast(self, table_id: str, fresh: Connection | None = None) -> None:
        """Every connection of the table its view, if it changed for it: a viewer other
        than the host is sent nothing for a change it cannot see (rhythm.py, issue 31).
        `fresh` (a page that just connected) gets its view whatever changed."""
        self._cache.pop(table_id, None)  # a new snapshot or connection set: new views
        rhythm = self._rhythm(table_id)
        due: dict[Viewer, bool] = {}
        for connection in list(self._connections.get(table_id, ())):
            data = self.view_bytes(table_id, connection.viewer)
            viewer = connection.viewer
            if data is None:
                continue
            if viewer != HOST and viewer not in due:
                due[viewer] = rhythm.due(viewer, self._cache[table_id].views.own(viewer))
            if viewer == HOST or due[viewer] or connection is fresh:
                connection.push_state(data)


class StateFrames:
    """The state messages of one broadcast, one per distinct viewer, each encoded once;
    the keys every viewer but the host shares (ViewSet.shared) are encoded once for all of
    them, and each message is that head and the viewer's own keys."""

    def __init__(self, views: ViewSet, rhythm: Rhythm) -> None:
        self.views = views
        self.rhythm = rhythm  # the public version (rhythm.py)
        self._head: bytes | None = None
        self._frames: dict[Viewer, bytes] = {}
        self.encodings = 0  # viewers' messages encoded (Hub.encodings)

    def encode(self, viewer: Viewer) -> bytes:
        data = self._frames.get(viewer)
        if data is None:
            if viewer == HOST:
                data = messages.encode_state(self.rhythm.host(self.views.own(viewer)))
            else:
                if self._head is None:
                    shared = self.rhythm.public(self.views.shared())
                    self._head = messages.encode_state_head(shared)
                data = messages.encode_state_tail(self._head, self.views.own(viewer))
            self._frames[viewer] = data
            self.encodings += 1
        return data
