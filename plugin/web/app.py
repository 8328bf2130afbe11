"""The control side of the web server: the WebSocket protocol, the table API, health.

`create_app(config)` builds a Starlette app whose lifespan opens the registry (every table
replayed from the log) and closes it on shutdown (microphones given back, log flushed).
Extension points for the other parts of the server:
- `config.routes`: extra routes or mounts, or callables `(server) -> routes` that need the
  registry or the token signer (the embedded room's `/rtc/...` signalling, the player and
  host pages `/t/{table}/play` and `/t/{table}/host`, `/livekit/token`, `/livekit/webhook`);
- `config.room_factory` / `config.voice_factory`: each table's room backend and voice;
- `app.state.server`: the running `Server` (registry, hub, signer, config).
"""

from __future__ import annotations

import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.host.commands import HOST, Command
from plugin.host.ports import Clock
from plugin.host.registry import Registry, RoomFactory, VoiceFactory
from plugin.host.settings import SettingsError, TableSettings
from plugin.host.table import Table
from plugin.host.views import build_view
from plugin.signing import Grant, Signer, TokenError, load_secret, secret_path_for, table_links

from . import protocol, wire
from .hub import Connection, Hub

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 16 * 1024
# WebSocket close codes (4000-4999 are the application's): why a connection was refused.
CLOSE_UNAUTHORIZED = 4401
CLOSE_NO_TABLE = 4404


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    db_path: Path
    admin_key: str
    base_url: str = "http://127.0.0.1:8000"
    secret: bytes | None = None  # default: $AUTOHOST_SECRET or the file beside the db
    clock: Clock | None = None
    room_factory: RoomFactory | None = None
    voice_factory: VoiceFactory | None = None
    routes: Sequence[BaseRoute | Callable[[Server], Sequence[BaseRoute]]] = field(
        default_factory=tuple
    )


@dataclass(slots=True, kw_only=True)
class Server:
    """What the routes share: the configuration, the signer, the hub and the registry."""

    config: ServerConfig
    signer: Signer
    hub: Hub
    registry: Registry | None = None

    async def table(self, table_id: str) -> Table | None:
        if self.registry is None:
            return None
        return await self.registry.get(table_id)

    def authorize(self, table_id: str, token: str) -> int | str | None:
        """The seat (or "host") a token admits to `table_id`, None if refused (rtc_routes)."""
        try:
            grant = self.signer.verify(token, table=table_id)
        except TokenError:
            return None
        table = self.registry.tables.get(table_id) if self.registry else None
        if grant.is_host:
            return grant.seat
        if table is None or not 1 <= int(grant.seat) <= table.settings.seats:
            return None
        return grant.seat

    def room_for(self, table_id: str) -> Any:
        """The room backend of a running table, None if it is not open (rtc_routes)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        return None if table is None else table.room

    def links(self, table: Table) -> dict[str, Any]:
        return table_links(
            self.signer, self.config.base_url, table.id, table.settings.seats,
            names=[table.settings.name_of(s) for s in range(1, table.settings.seats + 1)],
        )  # fmt: skip


def create_app(config: ServerConfig) -> Starlette:
    secret = config.secret or load_secret(secret_path_for(config.db_path))
    server = Server(config=config, signer=Signer(secret), hub=Hub())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        registry = Registry(
            config.db_path,
            hub=server.hub,
            clock=config.clock,
            room_factory=config.room_factory,
            voice_factory=config.voice_factory,
        )
        await registry.start()
        server.registry = registry
        try:
            yield
        finally:
            server.registry = None
            await registry.close()

    routes: list[BaseRoute] = [
        WebSocketRoute("/ws", _websocket_endpoint(server)),
        Route("/healthz", _healthz(server)),
        Route("/api/tables", _tables_endpoint(server), methods=["GET", "POST"]),
        Route("/api/tables/{table_id}", _table_endpoint(server)),
    ]
    for extra in config.routes:
        routes.extend([extra] if isinstance(extra, BaseRoute) else extra(server))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app


# --- the WebSocket protocol ------------------------------------------------------------------


def _websocket_endpoint(server: Server) -> Callable[[WebSocket], Any]:
    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        token = websocket.query_params.get("token", "")
        try:
            grant = server.signer.verify(token, table=websocket.query_params.get("table"))
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CLOSE_UNAUTHORIZED)
            return
        table = await server.table(grant.table)
        if table is None:
            await _refuse(websocket, "no_table", f"no table {grant.table!r}", CLOSE_NO_TABLE)
            return
        if not grant.is_host and not 1 <= int(grant.seat) <= table.settings.seats:
            # Found by tests/fuzz: a genuine token for seat 42 of a 10-seat table broke the
            # table's broadcasts. A seat outside the table is refused before it is attached.
            message = f"seat {grant.seat} is not a seat of table {table.id}"
            await _refuse(websocket, "token_bad_seat", message, CLOSE_UNAUTHORIZED)
            return
        await _serve_client(server, websocket, table, grant)

    return endpoint


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    await websocket.send_text(protocol.encode_error(code, message).decode())
    await websocket.close(code=close_code, reason=code)


async def _serve_client(server: Server, websocket: WebSocket, table: Table, grant: Grant) -> None:
    async def send(data: bytes) -> None:
        await websocket.send_text(data.decode())

    connection = Connection(table.id, grant.seat, send)
    server.hub.attach(connection, table.snapshot())
    sender = HOST if grant.is_host else grant.seat
    try:
        while not connection.closed:
            raw = await wire.receive(websocket)
            if raw is None:
                break
            try:
                decoded = protocol.decode(raw)
            except protocol.ProtocolError as refusal:
                connection.push_reply(
                    protocol.encode_error(refusal.code, refusal.message, refusal.id)
                )
                continue
            command = Command(
                kind=protocol.message_type(decoded),
                fields=protocol.message_fields(decoded),
                client_id=decoded.id,
            )
            outcome = await table.submit(sender, command)
            if outcome.ok:
                reply = protocol.encode_ack(decoded.id, duplicate=outcome.duplicate)
            else:
                reply = protocol.encode_error(
                    outcome.code or "refused", outcome.message or "", decoded.id
                )
            connection.push_reply(reply)
    except WebSocketDisconnect:
        pass
    finally:
        current = server.registry.tables.get(table.id) if server.registry else None
        await server.hub.detach(connection, current.snapshot() if current else None)


# --- HTTP ------------------------------------------------------------------------------------


def _healthz(server: Server) -> Callable[[Request], Any]:
    async def healthz(request: Request) -> Response:
        registry = server.registry
        return JSONResponse(
            {"ok": registry is not None, "tables": 0 if registry is None else len(registry.tables)}
        )

    return healthz


def _is_admin(server: Server, request: Request) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, key = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        key.encode(), server.config.admin_key.encode()
    )


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _tables_endpoint(server: Server) -> Callable[[Request], Any]:
    async def tables(request: Request) -> Response:
        if not _is_admin(server, request):
            return _error(401, "not_admin", "this needs the server's admin key (Bearer)")
        if server.registry is None:
            return _error(503, "not_ready", "the server is starting or stopping")
        if request.method == "GET":
            return JSONResponse(
                [
                    {"id": t.id, "phase": _phase(t), "over": bool(t.state.over)}
                    for t in server.registry.tables.values()
                ]
            )
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "too_large", f"the body is over {MAX_BODY_BYTES} bytes")
        try:
            record = msgspec.json.decode(body) if body else {}
            settings = TableSettings.from_record(record)
            table = await server.registry.create(settings)
        except msgspec.DecodeError:
            return _error(400, "bad_json", "the body is not JSON")
        except SettingsError as refusal:
            return _error(400, refusal.code, refusal.message)
        return JSONResponse(server.links(table), status_code=201)

    return tables


def _table_endpoint(server: Server) -> Callable[[Request], Any]:
    async def table_info(request: Request) -> Response:
        if not _is_admin(server, request):
            return _error(401, "not_admin", "this needs the server's admin key (Bearer)")
        table = await server.table(request.path_params["table_id"])
        if table is None:
            return _error(404, "no_table", "no such table")
        view = build_view(table.snapshot(), HOST, server.hub.connected_seats(table.id))
        return JSONResponse({"id": table.id, "settings": table.settings.to_record(), "view": view})

    return table_info


def _phase(table: Table) -> str:
    phase = table.state.phase
    return str(getattr(phase, "value", phase))
