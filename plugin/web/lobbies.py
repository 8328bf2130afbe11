"""The lobbies of the tables this server hosts (issue 17): per table the model (lobby.py),
the sockets of its players and host consoles, and one lock for changes; the limits on what
the players may write (their values: lobby_limits.py). `Server.lobbies` holds them;
`/lobby` (lobby_socket.py) serves them, and the REST API and the app end their sockets (a
re-issued link, a table moved or ended).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import msgspec

from plugin.host.table import Table

from .close_codes import CloseCode
from .hub import Connection
from .limits import RateLimit
from .lobby import Lobby
from .lobby_limits import (
    LOBBY_ADDRESS_JOIN_BURST,
    LOBBY_ADDRESS_JOINS_PER_SECOND,
    LOBBY_CONNECT_BURST,
    LOBBY_CONNECTS_PER_SECOND,
    LOBBY_DEVICE_RECORD_BURST,
    LOBBY_DEVICE_RECORDS_PER_SECOND,
    LOBBY_GRACE_SECONDS,
    LOBBY_MESSAGE_BURST,
    LOBBY_MESSAGES_PER_SECOND,
    LOBBY_TABLE_RECORD_BURST,
    LOBBY_TABLE_RECORDS_PER_SECOND,
)

_encode = msgspec.json.Encoder().encode


@dataclass(slots=True, kw_only=True)
class LobbyClient:
    """One lobby socket: a player's (his device) or a host console's."""

    connection: Connection
    device: str | None  # the device's hash; None: the host's console
    address: str = ""  # the client's address (the per-address limits)
    refused: bool = False  # the host just refused this device's request
    ended: bool = False  # its token's link was re-issued: nothing more it sends counts


@dataclass(slots=True, kw_only=True)
class LobbyRoom:
    """One table's lobby on this server: the model, the sockets, one lock for changes."""

    table: Table
    lobby: Lobby
    clients: list[LobbyClient] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sweep: asyncio.Task[None] | None = None  # lobby_presence: the places of absent devices
    fresh: bool = True  # not yet swept since it was rebuilt (a restart, a failover)
    made: float = field(default_factory=time.monotonic)  # when it was rebuilt here
    left: dict[str, float] = field(default_factory=dict)  # device -> its last socket's end


@dataclass(slots=True)
class Lobbies:
    """The lobbies of the tables this server hosts, each rebuilt from its table's log the
    first time it is used (so after a restart or a failover too)."""

    rooms: dict[str, LobbyRoom] = field(default_factory=dict)
    connects: RateLimit = field(
        default_factory=lambda: RateLimit(LOBBY_CONNECTS_PER_SECOND, LOBBY_CONNECT_BURST)
    )
    messages: RateLimit = field(
        default_factory=lambda: RateLimit(LOBBY_MESSAGES_PER_SECOND, LOBBY_MESSAGE_BURST)
    )
    records: RateLimit = field(  # by table: the players' lobby records
        default_factory=lambda: RateLimit(LOBBY_TABLE_RECORDS_PER_SECOND, LOBBY_TABLE_RECORD_BURST)
    )
    device_records: RateLimit = field(  # by (table, device)
        default_factory=lambda: RateLimit(
            LOBBY_DEVICE_RECORDS_PER_SECOND, LOBBY_DEVICE_RECORD_BURST
        )
    )
    address_joins: RateLimit = field(  # by (table, address): new places (issue 31)
        default_factory=lambda: RateLimit(LOBBY_ADDRESS_JOINS_PER_SECOND, LOBBY_ADDRESS_JOIN_BURST)
    )
    grace_seconds: float = LOBBY_GRACE_SECONDS  # lobby_presence.py

    def room(self, table: Table) -> LobbyRoom:
        room = self.rooms.get(table.id)
        if room is None or room.table is not table:  # a new Table object: replay its log
            records = [e.record for e in table.log.entries(table.id)]
            room = LobbyRoom(table=table, lobby=Lobby.from_records(table.settings.seats, records))
            self.rooms[table.id] = room
        return room

    def close_players(self, table_id: str, code: str, message: str) -> None:
        """End every player's lobby socket of the table (its invite link was replaced)."""
        room = self.rooms.get(table_id)
        for client in room.clients if room else ():
            if client.device is not None:
                client.ended = True
                reply = _encode({"type": "error", "error": code, "message": message})
                client.connection.close_with(reply, CloseCode.ENDED, code)

    def close_consoles(self, table_id: str, code: str, message: str) -> None:
        """End every host console's lobby socket of the table (the host's link was
        replaced): the old token's console must not seat players or approve devices."""
        room = self.rooms.get(table_id)
        for client in room.clients if room else ():
            if client.device is None:
                client.ended = True
                reply = _encode({"type": "error", "error": code, "message": message})
                client.connection.close_with(reply, CloseCode.ENDED, code)

    def close_table(self, table_id: str, code: str, message: str, *, moved: bool) -> None:
        """End every lobby socket of the table: it moved to another server (moved: the
        pages reconnect, and find it there) or it was archived; forget its lobby here."""
        room = self.rooms.pop(table_id, None)
        if room is not None and room.sweep is not None:
            room.sweep.cancel()
        reply = _encode({"type": "error", "error": code, "message": message})
        for client in room.clients if room else ():
            client.connection.close_with(
                reply, CloseCode.ELSEWHERE if moved else CloseCode.ENDED, code
            )
