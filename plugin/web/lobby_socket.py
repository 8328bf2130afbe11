"""The lobby's WebSocket, `/lobby` (issue 17): the players who opened the table's invite link
and the host's console meet here.

A socket opens with `{"type": "hello", "token": T, "table": ID, "device": SECRET}`:
- the invite token and the device secret its browser keeps (localStorage): a player. He may
  `join` (give his name) and `leave`, and hears who is waiting and where he stands; once
  seated, his own socket (and no other) gets his seat's token, and his page moves to his
  seat. The token travels only in this authenticated socket, never in a URL.
- the table's host token: the console. It hears the whole lobby (the invite link, who
  waits, who sits where, the devices awaiting approval) and may `seat`, `seat_waiting`,
  `approve`, `refuse`, and (issue 31) `unseat` (the player waits again; his seat's link is
  re-issued), `remove` (out of the lobby, his lobby sockets ended, his seat's link
  re-issued) and `clear` (every waiting player and asking device). A player sending those
  is refused (not_host). Who stays in the lobby, and how long: lobby_presence.py.
Every change is committed to the table's log before it counts (lobby.py). Connects are
rate-limited per address, messages per connection, and a socket holds at most one entry.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.host.ports import LogUnavailable
from plugin.host.table import Table
from plugin.signing import TokenError

from . import lobby_presence, wire
from .close_codes import CloseCode
from .context import Server
from .hub import Connection
from .limits import allow_connect
from .lobbies import Lobbies, LobbyClient, LobbyRoom
from .lobby import Lobby, LobbyError, device_hash
from .lobby_limits import MAX_LOBBY_MESSAGE, MAX_SOCKETS
from .lobby_views import broadcast, in_use, view
from .reissue import reissue


class _Hello(msgspec.Struct, tag="hello", tag_field="type", forbid_unknown_fields=True):
    token: str
    table: str | None = None
    device: str | None = None
    member: str | None = None  # a club member's personal link token (issue 33)
    v: int = 1


class _Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    id: str | None = None


class _Join(_Message, tag="join"):
    name: str


class _Leave(_Message, tag="leave"):
    pass


class _Seat(_Message, tag="seat"):
    entry: str
    seat: int


class _SeatWaiting(_Message, tag="seat_waiting"):
    order: str


class _Approve(_Message, tag="approve"):
    request: str


class _Refuse(_Message, tag="refuse"):
    request: str


class _Unseat(_Message, tag="unseat"):  # issue 31: the host takes a player off his seat
    entry: str


class _Remove(_Message, tag="remove"):  # issue 31: the host removes a player
    entry: str


class _Clear(_Message, tag="clear"):  # issue 31: every waiting player and asking device
    pass


_HELLO = msgspec.json.Decoder(_Hello)
_MESSAGES = msgspec.json.Decoder(
    _Join | _Leave | _Seat | _SeatWaiting | _Approve | _Refuse | _Unseat | _Remove | _Clear
)
_HOST_ONLY = (_Seat, _SeatWaiting, _Approve, _Refuse, _Unseat, _Remove, _Clear)
_encode = msgspec.json.Encoder().encode


def lobby_routes(server: Server) -> list[BaseRoute]:
    return [WebSocketRoute("/lobby", _endpoint(server))]


def _endpoint(server: Server) -> Callable[[WebSocket], Any]:
    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            hello = await _hello(websocket, server.config.hello_seconds)
        except wire.Refused as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        try:
            is_host, table_id = _admit(server, hello)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        # A genuine token's table, per address: a flood of joins is cut off here.
        client = websocket.client.host if websocket.client else ""
        if not await allow_connect(server.lobbies.connects, (table_id, client)):
            message = "too many lobby connections from here; wait a few seconds"
            await _refuse(websocket, "too_many_connects", message, CloseCode.TOO_MANY)
            return
        table = await server.table(table_id)
        if table is None:
            code, message = server.missing(table_id)
            retry = code in ("table_elsewhere", "log_unavailable")
            close = CloseCode.ELSEWHERE if retry else CloseCode.NO_TABLE
            await _refuse(websocket, code, message, close)
            return
        try:  # the generation (a re-issued link) and the seat are checked against the table
            if is_host:
                is_host = server.admit(hello.token, table, "seat").is_host
            else:
                server.admit(hello.token, table, "invite")
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        device: str | None = None
        member: tuple[str, str] | None = None
        if not is_host:
            try:
                device = device_hash(hello.device)
                member = _member(server, hello.member)
            except (LobbyError, TokenError) as refusal:
                await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
                return
        await _serve(server, websocket, table, device, client, member)

    return endpoint


async def _hello(websocket: WebSocket, seconds: float) -> _Hello:
    expected = 'the first message must be {"type": "hello", "token": ..., "device": ...}'
    try:
        raw = await asyncio.wait_for(wire.receive(websocket), seconds)
    except TimeoutError:
        raise wire.Refused("token_malformed", f"no token within {seconds:g} s") from None
    if raw is None:
        raise wire.Refused("token_malformed", "the socket closed before its token")
    try:
        return wire.decode(_HELLO, raw, MAX_LOBBY_MESSAGE)
    except wire.Refused as refusal:
        raise wire.Refused("token_malformed", f"{expected} ({refusal.message})") from None


def _admit(server: Server, hello: _Hello) -> tuple[bool, str]:
    """(True for the table's host token, False for its invite token; the token's table),
    else TokenError: a seat's link or the watch link opens no lobby."""
    try:
        return False, server.claim(hello.token, hello.table, "invite").table
    except TokenError as refusal:
        if refusal.code != "token_not_invite":
            raise
    grant = server.claim(hello.token, hello.table)
    if not grant.is_host:
        raise TokenError("token_not_invite", "a seat's link does not open the lobby")
    return True, grant.table


def _member(server: Server, token: str | None) -> tuple[str, str] | None:
    """(player id, roster name) of the club member whose personal link the page sent, if
    any; TokenError for a link refused (revoked, re-issued, not a player's)."""
    if token is None:
        return None
    if server.config.member is None:
        raise LobbyError("no_club", "this server keeps no club roster")
    return server.config.member(token)


async def _join_member(
    server: Server, room: LobbyRoom, me: LobbyClient, member: tuple[str, str]
) -> None:
    """A club member's device joins under his roster name, unless it is in the lobby
    already (a reload, a reconnect): the same record as a typed join, with his id."""
    device = me.device
    assert device is not None
    async with room.lock:
        if room.lobby.entry_of(device) or room.lobby.request_of(device):
            return
        record = room.lobby.join(member[1], device, _others(room), player=member[0])
        _charge(server.lobbies, room.table.id, me, [record])
        await room.table.log.commit(room.table.id, record, source="lobby")
        room.lobby.apply(record)
    broadcast(server, room, refused_devices=set())


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: CloseCode) -> None:
    reply = _encode({"type": "error", "error": code, "message": message})
    await wire.refuse(websocket, reply, code, close_code)


async def _serve(
    server: Server,
    websocket: WebSocket,
    table: Table,
    device: str | None,
    address: str,
    member: tuple[str, str] | None = None,
) -> None:
    async def send(data: bytes) -> None:
        await websocket.send_text(data.decode())

    async def close(code: int, reason: str) -> None:
        await websocket.close(code=code, reason=reason)

    room = server.lobbies.room(table)
    if room.fresh:  # rebuilt from the log (a restart, a failover): its absent go
        room.fresh = False
        lobby_presence.schedule_sweep(server, room)
    players = sum(1 for client in room.clients if client.device is not None)
    if device is not None and players >= MAX_SOCKETS:  # a flood never locks the host out
        message = f"this table's lobby has {MAX_SOCKETS} sockets open; try again later"
        await _refuse(websocket, "too_many_connections", message, CloseCode.TOO_MANY)
        return
    connection = Connection(table.id, None, send, close)
    me = LobbyClient(connection=connection, device=device, address=address)
    room.clients.append(me)
    connection.start()
    connection.push_state(view(server, room, me))
    try:
        if member is not None and device is not None:
            try:
                await _join_member(server, room, me, member)
            except LobbyError as refusal:  # a guest waits under his name: he types another
                connection.push_reply(_error(refusal.code, refusal.message, None))
            except LogUnavailable as failure:
                connection.push_reply(_error("log_unavailable", str(failure), None))
        while not connection.closed:
            raw = await wire.receive(websocket)
            if raw is None:
                break
            delay = server.lobbies.messages.wait(id(connection))
            if delay > 0:  # a flood is read at the lobby's pace
                await asyncio.sleep(delay)
            current = server.registry.tables.get(table.id) if server.registry else None
            if current is not room.table:  # the table moved or stopped: reconnect
                moved = _error("table_moved", "the table moved or stopped: reconnect", None)
                connection.close_with(moved, CloseCode.ELSEWHERE, "table_moved")
                break
            await _handle(server, room, me, raw)
    except WebSocketDisconnect:
        pass
    finally:
        with contextlib.suppress(ValueError):
            room.clients.remove(me)
        await connection.stop()
        if device is not None and device not in lobby_presence.connected_devices(room):
            lobby_presence.left(room, device)  # his place waits a grace for him
            lobby_presence.schedule_sweep(server, room)


async def _handle(server: Server, room: LobbyRoom, me: LobbyClient, raw: str | bytes) -> None:
    message_id: str | None = None
    try:
        message = wire.decode(_MESSAGES, raw, MAX_LOBBY_MESSAGE)
        message_id = message.id
        if isinstance(message, _HOST_ONLY) and me.device is not None:
            raise LobbyError("not_host", "only the host seats players and approves devices")
        if not isinstance(message, _HOST_ONLY) and me.device is None:
            raise LobbyError("not_player", "the host's console does not join the lobby")
        async with room.lock:  # checked and committed one at a time
            if me.ended:  # re-issued while this message waited: its token counts no more
                raise LobbyError("token_reissued", "this link was replaced")
            records = _records(room.lobby, message, me.device, in_use(server, room), _others(room))
            if me.device is not None and records:
                _charge(server.lobbies, room.table.id, me, records)
            refused = set()
            if isinstance(message, _Refuse):  # that device is told, once
                refused = {room.lobby.requests[r["request"]].device for r in records}
            # A player the host unseats or removes loses his seat's link (issue 31), and a
            # removed one his lobby sockets.
            evicted = _evicted(room.lobby, message)
            await lobby_presence.commit(room, records)
            await _name_seats(room, records)
            if isinstance(message, (_Remove, _Clear)):
                lobby_presence.end_devices(
                    room, evicted.devices, "removed", "the host removed you", CloseCode.REMOVED
                )
        if evicted.seat is not None:
            await reissue(server, room.table, [evicted.seat])
        broadcast(server, room, refused_devices=refused)
    except wire.Refused as refusal:
        me.connection.push_reply(_error(refusal.code, refusal.message, message_id))
    except LobbyError as refusal:
        me.connection.push_reply(_error(refusal.code, refusal.message, message_id))
    except LogUnavailable as failure:
        me.connection.push_reply(_error("log_unavailable", str(failure), message_id))


def _others(room: LobbyRoom) -> tuple[str, ...]:
    """The names of the seats no lobby entry holds (given with the table, or a player on
    his seat's own link): a newcomer may not take one (issue 31)."""
    settings = room.table.settings
    held = {e.seat for e in room.lobby.entries.values()}
    if not settings.names:
        return ()
    return tuple(settings.name_of(s) for s in range(1, settings.seats + 1) if s not in held)


@dataclass(frozen=True, slots=True)
class _Evicted:
    seat: int | None = None  # the seat whose link is re-issued
    devices: frozenset[str] = frozenset()  # whose lobby sockets end


def _evicted(lobby: Lobby, message: _Message) -> _Evicted:
    """Whom the host's unseat, remove or clear puts out (before it is applied)."""
    if isinstance(message, (_Unseat, _Remove)):
        entry = lobby.entries.get(message.entry)
        if entry is not None:
            gone = frozenset(entry.devices) if isinstance(message, _Remove) else frozenset()
            asking = {r.device for r in lobby.requests.values() if r.entry == entry.id}
            return _Evicted(entry.seat, gone | asking if isinstance(message, _Remove) else gone)
    if isinstance(message, _Clear):
        waiting = {d for e in lobby.waiting() for d in e.devices}
        return _Evicted(None, frozenset(waiting | {r.device for r in lobby.requests.values()}))
    return _Evicted()


def _charge(
    lobbies: Lobbies, table_id: str, me: LobbyClient, records: list[dict[str, Any]]
) -> None:
    """Take a player's records from his device's budget, the table's and, for a new
    place, his address's (LobbyError when one is spent: nothing is written)."""
    assert me.device is not None
    joins = any(r["type"] in ("lobby.join", "lobby.request") for r in records)
    if joins and not lobbies.address_joins.allow((table_id, me.address)):
        raise LobbyError("lobby_busy", "too many players joined from here: wait a minute")
    if not lobbies.device_records.allow((table_id, me.device)):
        raise LobbyError("lobby_busy", "you changed your place too often: wait a little")
    if not lobbies.records.allow(table_id):
        raise LobbyError("lobby_busy", "the lobby of this table is busy: try again soon")


def _records(
    lobby: Lobby,
    message: _Message,
    device: str | None,
    in_use: frozenset[int],
    others: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    if isinstance(message, _Join) and device is not None:
        return [lobby.join(message.name, device, others)]
    if isinstance(message, _Leave) and device is not None:
        return [lobby.leave(device)]
    if isinstance(message, _Seat):
        return [lobby.seat(message.entry, message.seat, in_use)]
    if isinstance(message, _SeatWaiting):
        return lobby.seat_waiting(message.order, in_use=in_use)
    if isinstance(message, _Approve):
        return [lobby.approve(message.request)]
    if isinstance(message, _Refuse):
        return [lobby.refuse(message.request)]
    if isinstance(message, _Unseat):
        return [lobby.unseat(message.entry)]
    if isinstance(message, _Remove):
        return lobby.remove(message.entry)
    if isinstance(message, _Clear):
        return lobby.clear()
    raise LobbyError("bad_message", "not a lobby message")  # pragma: no cover


async def _name_seats(room: LobbyRoom, records: list[dict[str, Any]]) -> None:
    """A seated player's name goes on his tile, the console and the protocol (durably)."""
    for record in records:
        if record["type"] == "lobby.seat":
            entry = room.lobby.entries[record["entry"]]
            await room.table.rename(record["seat"], entry.name)


def _error(code: str, message: str, message_id: str | None) -> bytes:
    return _encode({"type": "error", "id": message_id, "error": code, "message": message})
