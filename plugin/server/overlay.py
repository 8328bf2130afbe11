"""What the overlay's LiveKit RPC calls mean (plugin/rooms/livekit/rpc.py carries them).

`TableOverlay` is one table's `Handler`: a command is the WebSocket protocol's message,
decoded and validated by the same code (messages.decode: size limit, schema, version),
rate-limited by the same per-seat buckets as the socket (a caller past his rate is refused
with `rate_limited` rather than slowed: RPCs arrive side by side, not one after another),
submitted to the table as the caller's seat (or the proved host; anybody else is a
spectator, whom the table refuses every command) and answered with the socket's ack or
error, so an ack still means the input is in the log.

A `hello` attaches the caller to the table's hub as a connection whose writer publishes to
his identity only: he gets his view at once and after every change, exactly what a socket
of that seat gets, and his seat counts as online. He is detached when he leaves the room,
when a send fails (the bot left) and when the table goes (the hub closes it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable
from typing import Literal

import msgspec

from plugin.host.inputs import HOST, WATCH
from plugin.host.table import Table
from plugin.host.views import STREAM, Viewer
from plugin.rooms.livekit.rpc import Caller, OverlayChannel
from plugin.web import messages
from plugin.web.context import Server
from plugin.web.hub import Connection

log = logging.getLogger(__name__)

_encoder = msgspec.json.Encoder()
OPENING_SECONDS = 5.0  # how long a call waits for its table to finish opening


class TableOverlay:
    """One table's overlay calls (rpc.Handler), answered with the table of `server()`."""

    def __init__(
        self, table_id: str, channel: OverlayChannel, server: Callable[[], Server | None]
    ) -> None:
        self.table_id = table_id
        self.channel = channel
        self._server = server
        self.connections: dict[str, Connection] = {}  # identity -> its hub connection
        self.hidden: set[str] = set()  # the hidden listeners given the spectators' view
        self._tasks: set[asyncio.Task[None]] = set()

    def _viewer(self, caller: Caller, seats: int) -> Viewer:
        if caller.host:
            return HOST
        if caller.seat is not None and caller.seat <= seats:
            return caller.seat
        return None  # a spectator (the public view)

    def _rate_key(self, caller: Caller, viewer: Viewer) -> Hashable:
        # the socket's key for a seat or the host (one bucket for every way in); a
        # spectator's by his identity
        if viewer is None:
            return (self.table_id, WATCH, "livekit", caller.identity)
        return (self.table_id, viewer)

    async def _opened(self) -> tuple[Server | None, Table | None]:
        """The server and the table, waiting a little for a table still opening: its bot
        joins (and serves these methods) before the registry lists it, and the first
        call after a failover often comes in between."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + OPENING_SECONDS
        while True:
            server = self._server()
            registry = server.registry if server is not None else None
            table = registry.tables.get(self.table_id) if registry is not None else None
            if table is not None or loop.time() >= deadline:
                return server, table
            await asyncio.sleep(0.05)

    async def _admit(self, caller: Caller) -> tuple[Server, Viewer] | bytes:
        server, table = await self._opened()
        if server is None or table is None:
            code, message = (
                ("no_table", "not ready") if server is None else server.missing(self.table_id)
            )
            return messages.encode_error(code, message)
        viewer = self._viewer(caller, table.settings.seats)
        if not server.messages.allow(self._rate_key(caller, viewer)):
            return messages.encode_error("rate_limited", "too many messages; wait a second")
        return server, viewer

    async def hello(self, caller: Caller) -> str:
        checked = await self._admit(caller)
        if isinstance(checked, bytes):
            return checked.decode()
        server, viewer = checked
        table = server.registry.tables.get(self.table_id) if server.registry else None
        if table is None:
            return messages.encode_error("no_table", "the table is gone").decode()
        old = self.connections.pop(caller.identity, None)
        if old is not None:  # a page that asks again (a reload, a new bot): afresh
            await server.hub.detach(old, None)
        connection = self._connection(server, caller.identity, viewer)
        self.connections[caller.identity] = connection
        server.hub.attach(connection, table.snapshot())  # its view follows as data
        seat: int | Literal["host", "stream"] | None = viewer
        return _encoder.encode({"type": "hello", "v": messages.VERSION, "seat": seat}).decode()

    async def command(self, caller: Caller, payload: str) -> str:
        checked = await self._admit(caller)
        if isinstance(checked, bytes):
            return checked.decode()
        server, viewer = checked
        try:
            decoded = messages.decode(payload)
        except messages.ProtocolError as refusal:
            return messages.encode_error(refusal.code, refusal.message, refusal.id).decode()
        table = await server.table(self.table_id)
        if table is None:
            code, message = server.missing(self.table_id)
            return messages.encode_error(code, message, decoded.id).decode()
        sender = WATCH if viewer in (None, STREAM) else viewer
        verdict = await table.submit(sender, messages.to_input(decoded), client_id=decoded.id)
        if verdict.ok:
            return messages.encode_ack(decoded.id, duplicate=verdict.duplicate).decode()
        message = verdict.message or ""
        return messages.encode_error(verdict.code or "refused", message, decoded.id).decode()

    async def gone(self, identity: str) -> None:
        """`identity` left the room: no more views for him."""
        connection = self.connections.pop(identity, None)
        server = self._server()
        if connection is not None and server is not None:
            table = server.registry.tables.get(self.table_id) if server.registry else None
            await server.hub.detach(connection, table.snapshot() if table else None)

    async def listeners(self, identities: set[str]) -> None:
        """The hidden listeners now in the room: each gets the spectators' view (they
        cannot ask: LiveKit hides their identity from the bot's RPC), the gone ones none."""
        server = self._server()
        table = server.registry.tables.get(self.table_id) if server and server.registry else None
        if server is None or table is None:
            return
        for identity in self.hidden - identities:
            self.hidden.discard(identity)
            await self.gone(identity)
        for identity in identities - self.hidden:
            if identity in self.connections:
                continue
            self.hidden.add(identity)
            connection = self._connection(server, identity, None)
            self.connections[identity] = connection
            server.hub.attach(connection, table.snapshot())
        self.hidden &= set(self.connections)  # those whose sends failed are tried again

    def _connection(self, server: Server, identity: str, viewer: Viewer) -> Connection:
        async def send(data: bytes) -> None:
            try:
                await self.channel.send(identity, data)
            except Exception:  # the bot left the room: he asks again (hello) when it is back
                self._drop(server, identity, connection)
                raise

        async def close(code: int, reason: str) -> None:  # the hub ends it (table gone)
            self._drop(server, identity, connection)

        connection = Connection(self.table_id, viewer, send, close)
        return connection

    def _drop(self, server: Server, identity: str, connection: Connection) -> None:
        # called from the connection's own writer task, which detach stops: another task
        if self.connections.get(identity) is connection:
            del self.connections[identity]
        task = asyncio.get_running_loop().create_task(server.hub.detach(connection, None))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
