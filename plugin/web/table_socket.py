"""The table's WebSocket, `/ws` (docs/messages.md): the player widget, the host console,
the spectators' watch page and the stream overlay.

The token comes in the socket's first message (wire.opening_token) and is admitted against
the table (`Server.admit`); then every message the page sends is decoded (messages.py) and
submitted to the table as a command, and the hub sends the page its view after each change.
A finished game's archived table is still served: its pages get the final view, or are
moved to their seat at the next game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.host.inputs import WATCH
from plugin.host.ports import LogUnavailable
from plugin.host.table import Table
from plugin.host.views import STREAM, Viewer
from plugin.signing import Grant, TokenError, Watch

from . import messages, succession, wire
from .close_codes import CloseCode
from .context import LinkState, Server
from .hub import Connection
from .limits import CONNECTIONS_PER_SEAT, allow_connect


def table_socket_routes(server: Server) -> list[BaseRoute]:
    return [WebSocketRoute("/ws", _websocket_endpoint(server))]


def _websocket_endpoint(server: Server) -> Callable[[WebSocket], Any]:
    async def endpoint(websocket: WebSocket) -> None:
        # The token comes in the first message (wire.opening_token). A refused token gets
        # its error and the socket is closed at once.
        await websocket.accept()
        try:
            token, table_hint = await wire.opening_token(websocket, server.config.hello_seconds)
        except wire.Refused as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        try:
            grant: Grant | Watch = server.claim(token, table_hint)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        # Spectators share one link: each is rate-limited by his own address, and any
        # number of them may watch (issue 17).
        client = websocket.client.host if websocket.client else ""
        seat = None if isinstance(grant, Watch) else grant.seat
        rate_key = (grant.table, WATCH, client) if seat is None else (grant.table, seat)
        if not await allow_connect(server.connects, rate_key):
            message = "this seat connects too often; wait a few seconds"
            await _refuse(websocket, "too_many_connects", message, CloseCode.TOO_MANY)
            return
        if seat is not None and server.hub.count(grant.table, seat) >= CONNECTIONS_PER_SEAT:
            message = f"this seat already has {CONNECTIONS_PER_SEAT} connections open"
            await _refuse(websocket, "too_many_connections", message, CloseCode.TOO_MANY)
            return
        table = await server.table(grant.table)
        if table is None and await _serve_finished(server, websocket, token, grant):
            return
        if table is None:
            code, message = server.missing(grant.table)
            retry = code in ("table_elsewhere", "log_unavailable")
            close = CloseCode.ELSEWHERE if retry else CloseCode.NO_TABLE
            # The owner's public URL (its lease): the page reconnects there, not at random.
            owner = server.elsewhere(grant.table) if code == "table_elsewhere" else None
            await _refuse(websocket, code, message, close, server=owner)
            return
        try:
            grant = server.admit(token, table)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        await _serve_client(server, websocket, table, grant)

    return endpoint


async def _serve_finished(
    server: Server, websocket: WebSocket, token: str, grant: Grant | Watch
) -> bool:
    """An archived table whose game is over (issue 15: finished in an earlier run, or the
    host started the next game): a page whose next game exists is moved to its seat
    there; else it gets the final view, read-only, until it goes away. False for any other
    table (the caller refuses it)."""
    registry = server.registry
    if registry is None:
        return False
    try:
        final = registry.final(grant.table)
        generations = registry.link_generations(grant.table)
    except LogUnavailable:
        return False
    if final is None:
        return False
    links = LinkState(table=grant.table, seats=final.settings.seats, generations=generations)
    try:  # the archived log's seats and links
        grant = server.admit(token, links)
    except TokenError as refused:
        await _refuse(websocket, refused.code, refused.message, CloseCode.UNAUTHORIZED)
        return True
    if final.successor is not None:
        # Only while the next game has not re-issued this link (issue 31, succession.py).
        moved = succession.moved(server, final.successor, _viewer_of(grant) or WATCH)
        if moved is None:
            code, message = succession.REISSUED
            await _refuse(websocket, code, message, CloseCode.UNAUTHORIZED)
            return True
        await websocket.send_text(moved.decode())
        await websocket.close(code=CloseCode.ENDED, reason="table_moved_on")
        return True

    async def send(data: bytes) -> None:
        await websocket.send_text(data.decode())

    async def close(code: int, reason: str) -> None:
        await websocket.close(code=code, reason=reason)

    # A connection of the hub like any other (so the host's next game moves it too), given
    # the final view (the host's controls: the next game only); whatever it sends is
    # refused.
    viewer = _viewer_of(grant)
    connection = Connection(grant.table, viewer, send, close)
    server.hub.attach(connection, final)
    refusal = messages.encode_error("game_over", "the game is over; only the next game remains")
    key = (grant.table, grant.seat, id(connection))
    try:
        while not connection.closed and (raw := await wire.receive(websocket)) is not None:
            delay = server.messages.wait(key)
            if delay > 0:
                await asyncio.sleep(delay)
            connection.push_reply(refusal)
            del raw
    except WebSocketDisconnect:
        pass
    finally:
        await server.hub.detach(connection, None)
    return True


def _viewer_of(grant: Grant | Watch) -> Viewer:
    """Whose view a token gets: its seat's (or the host's); a watch link's spectator the
    public one (None); the stream overlay's token "stream"."""
    if isinstance(grant, Watch):
        return STREAM if grant.stream else None
    return grant.seat


async def _refuse(
    websocket: WebSocket,
    code: str,
    message: str,
    close_code: CloseCode,
    *,
    server: str | None = None,
) -> None:
    error = messages.encode_error(code, message)
    if server is not None:  # {"type": "error", ..., "server": URL}: where to go instead
        error = error[:-1] + b',"server":' + msgspec.json.encode(server) + b"}"
    await wire.refuse(websocket, error, code, close_code)


async def _serve_client(
    server: Server, websocket: WebSocket, table: Table, grant: Grant | Watch
) -> None:
    async def send(data: bytes) -> None:
        await websocket.send_text(data.decode())

    async def close(code: int, reason: str) -> None:
        await websocket.close(code=code, reason=reason)

    # A spectator's view is the public one (viewer None), the stream overlay's is that and,
    # while the host streams with roles, the roles after his delay ("stream"); whatever
    # either sends is refused.
    watching = isinstance(grant, Watch)
    viewer = _viewer_of(grant)
    connection = Connection(table.id, viewer, send, close)
    server.hub.attach(connection, table.snapshot())
    sender = grant.seat  # a seat, "host" or "watch" (commands.route refuses "watch")
    key = (table.id, grant.seat, id(connection)) if watching else (table.id, grant.seat)
    try:
        while not connection.closed:
            raw = await wire.receive(websocket)
            if raw is None:
                break
            delay = server.messages.wait(key)
            if delay > 0:  # past its rate: this seat's next message is read later
                await asyncio.sleep(delay)
            try:
                decoded = messages.decode(raw)
            except messages.ProtocolError as refusal:
                connection.push_reply(
                    messages.encode_error(refusal.code, refusal.message, refusal.id)
                )
                continue
            given = messages.to_input(decoded)
            outcome = await table.submit(sender, given, client_id=decoded.id)
            if outcome.ok:
                reply = messages.encode_ack(decoded.id, duplicate=outcome.duplicate)
            else:
                reply = messages.encode_error(
                    outcome.code or "refused", outcome.message or "", decoded.id
                )
            connection.push_reply(reply)
    except WebSocketDisconnect:
        pass
    finally:
        current = server.registry.tables.get(table.id) if server.registry else None
        await server.hub.detach(connection, current.snapshot() if current else None)
