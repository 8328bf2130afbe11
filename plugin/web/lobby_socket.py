"""The lobby's WebSocket, `/lobby` (issue 17): the players who opened the table's invite link
and the host's console meet here.

A socket opens with `{"type": "hello", "token": T, "table": ID, "device": SECRET}`:
- the invite token and the device secret its browser keeps (localStorage): a player. He may
  `join` (give his name) and `leave`, and hears who is waiting and where he stands; once
  seated, his own socket (and no other) gets his seat's token, and his page moves to his
  seat. The token travels only in this authenticated socket, never in a URL.
- the table's host token: the console. It hears the whole lobby (the invite link, who
  waits, who sits where, the devices awaiting approval) and may `seat`, `seat_waiting`,
  `approve` and `refuse`. A player sending those is refused (not_host).
Every change is committed to the table's log before it counts (lobby.py). Connects are
rate-limited per address, messages per connection, and a socket holds at most one entry.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Literal

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.host.ports import LogUnavailable
from plugin.host.table import Table
from plugin.signing import INVITE, TokenError

from . import wire
from .close_codes import CloseCode
from .context import Server
from .hub import Connection
from .limits import allow_connect
from .lobbies import Lobbies, LobbyClient, LobbyRoom
from .lobby import Lobby, LobbyError, device_hash

MAX_LOBBY_MESSAGE = 1024
MAX_SOCKETS = 120  # players' open lobby sockets per table: the waiting, the seated, tabs


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


_HELLO = msgspec.json.Decoder(_Hello)
_MESSAGES = msgspec.json.Decoder(_Join | _Leave | _Seat | _SeatWaiting | _Approve | _Refuse)
_HOST_ONLY = (_Seat, _SeatWaiting, _Approve, _Refuse)
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
        await _serve(server, websocket, table, device, member)

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
    server: Server, room: LobbyRoom, device: str, member: tuple[str, str]
) -> None:
    """A club member's device joins under his roster name, unless it is in the lobby
    already (a reload, a reconnect): the same record as a typed join, with his id."""
    async with room.lock:
        if room.lobby.entry_of(device) or room.lobby.request_of(device):
            return
        record = room.lobby.join(member[1], device, player=member[0])
        _charge(server.lobbies, room.table.id, device)
        await room.table.log.commit(room.table.id, record, source="lobby")
        room.lobby.apply(record)
    _broadcast(server, room, refused_devices=set())


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: CloseCode) -> None:
    reply = _encode({"type": "error", "error": code, "message": message})
    await wire.refuse(websocket, reply, code, close_code)


async def _serve(
    server: Server,
    websocket: WebSocket,
    table: Table,
    device: str | None,
    member: tuple[str, str] | None = None,
) -> None:
    async def send(data: bytes) -> None:
        await websocket.send_text(data.decode())

    async def close(code: int, reason: str) -> None:
        await websocket.close(code=code, reason=reason)

    room = server.lobbies.room(table)
    players = sum(1 for client in room.clients if client.device is not None)
    if device is not None and players >= MAX_SOCKETS:  # a flood never locks the host out
        message = f"this table's lobby has {MAX_SOCKETS} sockets open; try again later"
        await _refuse(websocket, "too_many_connections", message, CloseCode.TOO_MANY)
        return
    connection = Connection(table.id, None, send, close)
    me = LobbyClient(connection=connection, device=device)
    room.clients.append(me)
    connection.start()
    connection.push_state(_view(server, room, me))
    try:
        if member is not None and device is not None:
            try:
                await _join_member(server, room, device, member)
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
            in_use = _in_use(server, room)
            records = _records(room.lobby, message, me.device, in_use)
            if me.device is not None and records:
                _charge(server.lobbies, room.table.id, me.device)
            refused = set()
            if isinstance(message, _Refuse):  # that device is told, once
                refused = {room.lobby.requests[r["request"]].device for r in records}
            for record in records:
                await room.table.log.commit(room.table.id, record, source="lobby")
                room.lobby.apply(record)
            await _name_seats(room, records)
        _broadcast(server, room, refused_devices=refused)
    except wire.Refused as refusal:
        me.connection.push_reply(_error(refusal.code, refusal.message, message_id))
    except LobbyError as refusal:
        me.connection.push_reply(_error(refusal.code, refusal.message, message_id))
    except LogUnavailable as failure:
        me.connection.push_reply(_error("log_unavailable", str(failure), message_id))


def _charge(lobbies: Lobbies, table_id: str, device: str) -> None:
    """Take a player's record from his device's budget and the table's (LobbyError when
    either is spent: nothing is written)."""
    if not lobbies.device_records.allow((table_id, device)):
        raise LobbyError("lobby_busy", "you changed your place too often: wait a little")
    if not lobbies.records.allow(table_id):
        raise LobbyError("lobby_busy", "the lobby of this table is busy: try again soon")


def _in_use(server: Server, room: LobbyRoom) -> frozenset[int]:
    """The seats a player on the seat's own link holds now (connected, not from the lobby)."""
    lobby_seats = {e.seat for e in room.lobby.entries.values()}
    connected = server.hub.connected_seats(room.table.id)
    return frozenset(s for s in connected if isinstance(s, int) and s not in lobby_seats)


def _records(
    lobby: Lobby, message: _Message, device: str | None, in_use: frozenset[int]
) -> list[dict[str, Any]]:
    if isinstance(message, _Join) and device is not None:
        return [lobby.join(message.name, device)]
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
    raise LobbyError("bad_message", "not a lobby message")  # pragma: no cover


async def _name_seats(room: LobbyRoom, records: list[dict[str, Any]]) -> None:
    """A seated player's name goes on his tile, the console and the protocol (durably)."""
    for record in records:
        if record["type"] == "lobby.seat":
            entry = room.lobby.entries[record["entry"]]
            await room.table.rename(record["seat"], entry.name)


def _broadcast(server: Server, room: LobbyRoom, *, refused_devices: set[str]) -> None:
    for client in list(room.clients):
        client.refused = client.device in refused_devices
        client.connection.push_state(_view(server, room, client))


def _error(code: str, message: str, message_id: str | None) -> bytes:
    return _encode({"type": "error", "id": message_id, "error": code, "message": message})


def _view(server: Server, room: LobbyRoom, client: LobbyClient) -> bytes:
    """What one socket sees: the host the whole lobby; a player who waits, and his own
    place (with his seat's token once seated, to his own socket only)."""
    lobby, table = room.lobby, room.table
    common: dict[str, Any] = {
        "type": "lobby",
        "table": table.id,
        "language": table.settings.language,
        "waiting": [e.name for e in lobby.waiting()],
    }
    if client.device is None:
        # The invite's token: the console makes the link from its own address, the one
        # the host reached this server by.
        generation = table.generations.get(INVITE, 0)
        common["invite"] = server.signer.issue(table.id, INVITE, generation=generation)
        common["entries"] = [  # "member": a club player who came by his own link (issue 33)
            {"entry": e.id, "name": e.name, "member": e.player is not None} for e in lobby.waiting()
        ]
        common["seated"] = [{"entry": e.id, "name": e.name, "seat": e.seat} for e in lobby.seated()]
        common["requests"] = [
            {
                "request": r.id,
                "name": lobby.entries[r.entry].name,
                "seat": lobby.entries[r.entry].seat,
            }
            for r in sorted(lobby.requests.values(), key=lambda r: r.arrived)
        ]
        common["free"] = lobby.free_seats(_in_use(server, room))
        common["seats"] = table.settings.seats
        return _encode(common)
    common["me"] = _place(server, room, client.device, refused=client.refused)
    return _encode(common)


def _place(server: Server, room: LobbyRoom, device: str, *, refused: bool) -> dict[str, Any]:
    state: Literal["new", "waiting", "pending", "seated", "refused"]
    entry = room.lobby.entry_of(device)
    request = room.lobby.request_of(device)
    if entry is not None and entry.seat is not None:
        seat, table = entry.seat, room.table
        token = server.signer.issue(table.id, seat, generation=table.generations.get(seat, 0))
        return {"state": "seated", "name": entry.name, "seat": seat, "token": token}
    if entry is not None:
        return {"state": "waiting", "name": entry.name}
    if request is not None:  # nothing of the seat until the host approves
        return {"state": "pending", "name": room.lobby.entries[request.entry].name}
    state = "refused" if refused else "new"
    return {"state": state}
