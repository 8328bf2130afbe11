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

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import msgspec
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.bodies import BadBody, decode_json, read_body
from plugin.host.inputs import HOST, WATCH
from plugin.host.log import Fenced, LogUnavailable
from plugin.host.ports import Clock, Log
from plugin.host.registry import (
    MAX_TABLES,
    GameNotOver,
    HostingRefused,
    Registry,
    RoomFactory,
    VoiceFactory,
)
from plugin.host.settings import SettingsError, TableSettings
from plugin.host.table import Table
from plugin.host.views import STREAM, Viewer, build_view
from plugin.signing import (
    INVITE,
    Grant,
    Signer,
    TokenError,
    Watch,
    load_secret,
    secret_path_for,
    table_links,
)

from . import protocol, wire
from .hub import CLOSE_ENDED, Connection, Hub
from .limits import (
    CONNECT_BURST,
    CONNECTIONS_PER_SEAT,
    CONNECTS_PER_SECOND,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    RateLimit,
    allow_connect,
    origin_allowed,
    origin_of,
)
from .lobby_socket import Lobbies, lobby_routes

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 16 * 1024
# WebSocket close codes (4000-4999 are the application's): why a connection was refused.
CLOSE_UNAUTHORIZED = 4401
CLOSE_FORBIDDEN_ORIGIN = 4403
CLOSE_NO_TABLE = 4404
CLOSE_TOO_MANY = 4429
CLOSE_ELSEWHERE = 1013  # "try again later": another server hosts the table (PostgreSQL log)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    db_path: Path
    admin_key: str
    log: Callable[[], Log] | None = None  # default: the SQLite log at db_path
    base_url: str = "http://127.0.0.1:8000"
    secret: bytes | None = None  # default: $AUTOHOST_SECRET or the file beside the db
    clock: Clock | None = None
    room_factory: RoomFactory | None = None
    voice_factory: VoiceFactory | None = None
    max_tables: int = MAX_TABLES
    only: str | None = None  # a one-table server's table (autohost livekit --room)
    # Origins a browser page may change state from, besides the base URL's and the
    # server's own (a club's LiveKit frontend on another site, for example).
    allowed_origins: tuple[str, ...] = ()
    # The club's other servers on the same database (public origins): told to the pages,
    # which try them in turn, and allowed as origins like allowed_origins.
    peers: tuple[str, ...] = ()
    hello_seconds: float = 10.0  # how long a new socket may take to send its token
    messages_per_second: float = MESSAGES_PER_SECOND  # per connection
    message_burst: float = MESSAGE_BURST
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
    connects: RateLimit = field(
        default_factory=lambda: RateLimit(CONNECTS_PER_SECOND, CONNECT_BURST)
    )
    messages: RateLimit = field(init=False)
    lobbies: Lobbies = field(default_factory=Lobbies)  # the tables' lobbies (issue 17)

    def __post_init__(self) -> None:
        self.messages = RateLimit(self.config.messages_per_second, self.config.message_burst)

    def origin_allowed(self, scope: Scope) -> bool:
        """May a browser page at the request's Origin change state here (a POST, a socket)?"""
        headers = Headers(scope=scope)
        secure = scope.get("scheme") in ("https", "wss")
        return origin_allowed(
            headers.get("origin"),
            allowed=(
                origin_of(self.config.base_url),
                *self.config.allowed_origins,
                *(origin_of(peer) for peer in self.config.peers),
            ),
            host=headers.get("host"),
            scheme="https" if secure else "http",
        )

    async def table(self, table_id: str) -> Table | None:
        if self.registry is None:
            return None
        return await self.registry.get(table_id)

    def verify(self, token: str, table: Table) -> Grant:
        """The grant of a token for `table`, or TokenError: a genuine unexpired token of
        this table, for one of its seats (or the host), of the seat's current link."""
        grant = self.admit(token, table)
        if isinstance(grant, Watch):
            raise TokenError("token_watch_only", "a watch link only opens the watch page")
        return grant

    def admit(self, token: str, table: Table) -> Grant | Watch:
        """Like `verify`, and a spectator's watch token too (only the table's socket, /ws,
        serves spectators)."""
        grant = self.signer.verify_any(token, table=table.id)
        seat = grant.seat
        if isinstance(seat, int) and not 1 <= seat <= table.settings.seats:
            # Found by tests/fuzz: a genuine token for seat 42 of a 10-seat table broke the
            # table's broadcasts. A seat outside the table is refused on every endpoint.
            message = f"seat {grant.seat} is not a seat of table {table.id}"
            raise TokenError("token_bad_seat", message)
        if grant.generation != table.generations.get(grant.seat, 0):
            raise TokenError(
                "token_reissued", "this link was replaced; ask the host for the new one"
            )
        return grant

    def authorize(self, table_id: str, token: str) -> int | str | None:
        """The seat (or "host") a token admits to `table_id`, None if refused (rtc_routes)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        if table is None:
            return None
        try:
            return self.verify(token, table).seat
        except TokenError:
            return None

    def authorize_media(self, table_id: str, token: str) -> int | str | None:
        """Like `authorize`, and "watch" for a spectator's watch token: the embedded room
        admits him as a listener only (receive-only, never heard; issue 17)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        if table is None:
            return None
        try:
            return self.admit(token, table).seat
        except TokenError:
            return None

    def missing(self, table_id: str) -> tuple[str, str]:
        """Why table `table_id` is not open: (code, message) for the client."""
        try:
            return self._missing(table_id)
        except LogUnavailable as failure:  # a shared log's database is away
            return "log_unavailable", str(failure)

    def _missing(self, table_id: str) -> tuple[str, str]:
        registry = self.registry
        if registry is not None and table_id in registry.broken:
            return "table_broken", f"table {table_id!r} could not be opened; the host is told"
        if registry is not None and registry.log.is_archived(table_id):
            return "table_archived", f"table {table_id!r} has ended; its protocol is kept"
        if registry is not None and registry.log.shared and registry.log.table_settings(table_id):
            return "table_elsewhere", f"another server hosts table {table_id!r}; try again"
        return "no_table", f"no table {table_id!r}"

    def moved_to(self, table_id: str, seat: int | Literal["host", "watch", "stream"]) -> bytes:
        """The `moved` message that sends a page to `seat` at table `table_id` (the next
        game), with a token of that seat's current link there ("stream": the overlay's)."""
        generations = self.registry.link_generations(table_id) if self.registry else {}
        link: int | Literal["host", "watch"] = WATCH if seat == STREAM else seat
        token = self.signer.issue(
            table_id, link, generation=generations.get(link, 0), stream=seat == STREAM
        )
        return protocol.encode_moved(table_id, token)

    def elsewhere(self, table_id: str) -> str | None:
        """The public URL of the server that holds the table's lease now, if another."""
        registry = self.registry
        url_of = getattr(registry.log, "owner_url", None) if registry is not None else None
        if url_of is None:
            return None
        try:
            url = url_of(table_id)
        except LogUnavailable:
            return None
        return url if url and url != self.config.base_url else None

    def room_for(self, table_id: str) -> Any:
        """The room backend of a running table, None if it is not open (rtc_routes)."""
        table = self.registry.tables.get(table_id) if self.registry else None
        return None if table is None else table.room

    def links(self, table: Table) -> dict[str, Any]:
        return table_links(
            self.signer, self.config.base_url, table.id, table.settings.seats,
            names=[table.settings.name_of(s) for s in range(1, table.settings.seats + 1)],
            generations=table.generations,
        )  # fmt: skip


def create_app(config: ServerConfig) -> Starlette:
    secret = config.secret or load_secret(secret_path_for(config.db_path))
    server = Server(config=config, signer=Signer(secret), hub=Hub())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        registry = Registry(
            config.log() if config.log is not None else config.db_path,
            hub=server.hub,
            clock=config.clock,
            room_factory=config.room_factory,
            voice_factory=config.voice_factory,
            max_tables=config.max_tables,
            only=config.only,
        )
        shared: Any = registry.log
        if hasattr(shared, "url_of"):  # a shared log names our public URL in our leases
            shared.url_of = lambda: server.config.base_url

        def dropped(table_id: str) -> None:
            message = "another server hosts this table now: reconnect"
            server.hub.close_table(table_id, "table_moved", message)
            server.lobbies.close_table(table_id, "table_moved", message, moved=True)

        registry.on_drop = dropped
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
        Route("/api/servers", _servers_endpoint(server)),
        Route("/api/tables", _tables_endpoint(server), methods=["GET", "POST"]),
        Route("/api/tables/{table_id}", _table_endpoint(server)),
        Route("/api/tables/{table_id}/archive", _archive_endpoint(server), methods=["POST"]),
        Route("/api/tables/{table_id}/reissue", _reissue_endpoint(server), methods=["POST"]),
        Route("/api/tables/{table_id}/next", _next_game_endpoint(server), methods=["POST"]),
        *lobby_routes(server),
    ]
    for extra in config.routes:
        routes.extend([extra] if isinstance(extra, BaseRoute) else extra(server))
    app = Starlette(
        routes=routes, lifespan=lifespan, middleware=[Middleware(_OriginCheck, server=server)]
    )
    app.state.server = server
    return app


class _OriginCheck:
    """Every WebSocket and every state-changing request from a browser page on a foreign
    origin is refused (403) before any endpoint sees it."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        changes = scope["type"] == "websocket" or (
            scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS")
        )
        if changes and not self.server.origin_allowed(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN_ORIGIN})
                return
            response = _error(403, "bad_origin", "requests from this page's origin are refused")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


# --- the WebSocket protocol ------------------------------------------------------------------


def _websocket_endpoint(server: Server) -> Callable[[WebSocket], Any]:
    async def endpoint(websocket: WebSocket) -> None:
        # The token comes in the first message (wire.opening_token). A refused token gets
        # its error and the socket is closed at once.
        await websocket.accept()
        try:
            token, table_hint = await wire.opening_token(websocket, server.config.hello_seconds)
        except wire.Refused as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CLOSE_UNAUTHORIZED)
            return
        try:
            grant: Grant | Watch = server.signer.verify_any(token, table=table_hint)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CLOSE_UNAUTHORIZED)
            return
        # Spectators share one link: each is rate-limited by his own address, and any
        # number of them may watch (issue 17).
        client = websocket.client.host if websocket.client else ""
        seat = None if isinstance(grant, Watch) else grant.seat
        rate_key = (grant.table, WATCH, client) if seat is None else (grant.table, seat)
        if not await allow_connect(server.connects, rate_key):
            message = "this seat connects too often; wait a few seconds"
            await _refuse(websocket, "too_many_connects", message, CLOSE_TOO_MANY)
            return
        if seat is not None and server.hub.count(grant.table, seat) >= CONNECTIONS_PER_SEAT:
            message = f"this seat already has {CONNECTIONS_PER_SEAT} connections open"
            await _refuse(websocket, "too_many_connections", message, CLOSE_TOO_MANY)
            return
        table = await server.table(grant.table)
        if table is None and await _serve_finished(server, websocket, grant):
            return
        if table is None:
            code, message = server.missing(grant.table)
            retry = code in ("table_elsewhere", "log_unavailable")
            close = CLOSE_ELSEWHERE if retry else CLOSE_NO_TABLE
            # The owner's public URL (its lease): the page reconnects there, not at random.
            owner = server.elsewhere(grant.table) if code == "table_elsewhere" else None
            await _refuse(websocket, code, message, close, server=owner)
            return
        try:
            grant = server.admit(token, table)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CLOSE_UNAUTHORIZED)
            return
        await _serve_client(server, websocket, table, grant)

    return endpoint


async def _serve_finished(server: Server, websocket: WebSocket, grant: Grant | Watch) -> bool:
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
    seat = grant.seat  # the checks of Server.admit, against the archived log
    if isinstance(seat, int) and not 1 <= seat <= final.settings.seats:
        message = f"seat {seat} is not a seat of table {grant.table}"
        await _refuse(websocket, "token_bad_seat", message, CLOSE_UNAUTHORIZED)
        return True
    if grant.generation != generations.get(seat, 0):
        message = "this link was replaced; ask the host for the new one"
        await _refuse(websocket, "token_reissued", message, CLOSE_UNAUTHORIZED)
        return True
    if final.successor is not None:
        moved = server.moved_to(final.successor, _viewer_of(grant) or WATCH)
        await websocket.send_text(moved.decode())
        await websocket.close(code=CLOSE_ENDED, reason="table_moved_on")
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
    refusal = protocol.encode_error("game_over", "the game is over; only the next game remains")
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
    websocket: WebSocket, code: str, message: str, close_code: int, *, server: str | None = None
) -> None:
    error = protocol.encode_error(code, message)
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
                decoded = protocol.decode(raw)
            except protocol.ProtocolError as refusal:
                connection.push_reply(
                    protocol.encode_error(refusal.code, refusal.message, refusal.id)
                )
                continue
            given = protocol.to_input(decoded)
            outcome = await table.submit(sender, given, client_id=decoded.id)
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


def _servers_endpoint(server: Server) -> Callable[[Request], Any]:
    """GET /api/servers: this server's base URL and its peers' (public: the pages read it
    to know where else their table may be hosted after a failover)."""

    async def servers(request: Request) -> Response:
        return JSONResponse({"self": server.config.base_url, "peers": list(server.config.peers)})

    return servers


def _healthz(server: Server) -> Callable[[Request], Any]:
    """200 {"ok": true, ...} while the server can take inputs; 503 while it is starting or
    stopping, or while its event log cannot be written. Broken tables are listed."""

    async def healthz(request: Request) -> Response:
        registry = server.registry
        if registry is None:
            return JSONResponse({"ok": False, "tables": 0, "reason": "starting"}, status_code=503)
        body: dict[str, Any] = {
            "ok": registry.log.healthy,
            "tables": len(registry.tables),
            "broken": dict(registry.broken),
            "log": registry.log.commit_times.summary(),
        }
        if not registry.log.healthy:
            body["reason"] = "log_unavailable"
        return JSONResponse(body, status_code=200 if registry.log.healthy else 503)

    return healthz


def is_admin(server: Server, request: Request) -> bool:
    """Whether the request carries the admin key (`Authorization: Bearer KEY`)."""
    admin_key = server.config.admin_key
    if not admin_key:  # no key is nobody's key (an empty header would match it)
        return False
    header = request.headers.get("authorization", "")
    scheme, _, key = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(key.encode(), admin_key.encode())


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _tables_endpoint(server: Server) -> Callable[[Request], Any]:
    async def tables(request: Request) -> Response:
        if not is_admin(server, request):
            return _error(401, "not_admin", "this needs the server's admin key (Bearer)")
        if server.registry is None:
            return _error(503, "not_ready", "the server is starting or stopping")
        registry = server.registry
        if request.method == "GET":
            listed: list[dict[str, Any]] = [
                {"id": t.id, "phase": _phase(t), "over": bool(t.state.over),
                 "owner": registry.log.owner}
                for t in registry.tables.values()
                if registry.holds(t.id)  # a lease not renewed in time: not ours to report
            ]  # fmt: skip
            listed += [{"id": i, "broken": why} for i, why in registry.broken.items()]
            return JSONResponse(listed)
        try:
            body = await read_body(request, MAX_BODY_BYTES)
            record = decode_json(body) if body else {}
            settings = TableSettings.from_record(record)
            table = await registry.create(settings)
        except BadBody as refusal:
            return _error(refusal.status, refusal.code, refusal.message)
        except HostingRefused as refusal:
            return _error(409, refusal.code, refusal.message)
        except SettingsError as refusal:
            return _error(400, refusal.code, refusal.message)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        return JSONResponse(server.links(table), status_code=201)

    return tables


def _table_endpoint(server: Server) -> Callable[[Request], Any]:
    async def table_info(request: Request) -> Response:
        if not is_admin(server, request):
            return _error(401, "not_admin", "this needs the server's admin key (Bearer)")
        table_id = request.path_params["table_id"]
        table = await server.table(table_id)
        if table is None:
            return _not_open(server, table_id)
        view = build_view(table.snapshot(), HOST, server.hub.connected_seats(table.id))
        return JSONResponse({"id": table.id, "settings": table.settings.to_record(), "view": view})

    return table_info


def _not_open(server: Server, table_id: str) -> Response:
    """GET /api/tables/{id} for a table that is not open here: an archived one is still
    the admin's to look up (its settings, whether its game was finished, where its
    protocol is), a broken one says why; anything else is 404."""
    registry = server.registry
    if registry is None:
        return _error(503, "not_ready", "the server is starting or stopping")
    try:
        record = registry.log.table_settings(table_id)
        archived = record is not None and registry.log.is_archived(table_id)
        over = archived and registry.final(table_id) is not None  # may find it broken
    except LogUnavailable as failure:
        return _error(503, "log_unavailable", str(failure))
    if table_id in registry.broken:
        return JSONResponse({"id": table_id, "broken": registry.broken[table_id]}, status_code=409)
    if not archived:
        return _error(404, "no_table", "no such table")
    return JSONResponse({
        "id": table_id, "archived": True, "over": over, "settings": record,
        "protocol": f"/t/{table_id}/protocol.json",
    })  # fmt: skip


def _archive_endpoint(server: Server) -> Callable[[Request], Any]:
    """POST /api/tables/{id}/archive: stop the table (microphones given back) and archive it;
    its protocol stays exportable, and the server does not reopen it."""

    async def archive(request: Request) -> Response:
        if not is_admin(server, request):
            return _error(401, "not_admin", "this needs the server's admin key (Bearer)")
        if server.registry is None:
            return _error(503, "not_ready", "the server is starting or stopping")
        table_id = request.path_params["table_id"]
        live = server.registry.tables.get(table_id)
        over = live is not None and live.state.over
        try:
            if not await server.registry.archive(table_id):
                return _error(404, "no_table", "no such table")
        except Fenced as refused:  # a shared log: only the server that hosts it archives
            return _error(409, "table_elsewhere", str(refused))
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        if over:  # its pages reconnect to their end screen, served from the log
            server.hub.close_table(table_id, "game_over", "the game is over")
        else:
            server.hub.close_table(table_id, "table_archived", "the table has ended")
        server.lobbies.close_table(table_id, "table_archived", "the table has ended", moved=False)
        return JSONResponse({"id": table_id, "archived": True})

    return archive


class _Reissue(msgspec.Struct, forbid_unknown_fields=True):
    # None: every link (the seats', the host's and the spectators' watch link)
    seat: int | Literal["host", "watch", "invite"] | None = None


_REISSUE = msgspec.json.Decoder(_Reissue)


def _reissue_endpoint(server: Server) -> Callable[[Request], Any]:
    """POST /api/tables/{id}/reissue {"seat": N | "host" | "watch" | "invite"} (or {} for
    every link), with the
    admin key or the table's host token: new links, the old tokens refused at once and
    every socket they opened closed: /ws, /lobby, and (through Hub.close_viewer) /video
    and the embedded room's peers. Answers the table's links."""

    async def reissue(request: Request) -> Response:
        table = await server.table(request.path_params["table_id"])
        if table is None:
            return _error(404, "no_table", "no such table")
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        host = False
        if scheme.lower() == "bearer" and not is_admin(server, request):
            try:
                host = server.verify(key, table).is_host
            except TokenError:
                host = False
        if not (host or is_admin(server, request)):
            return _error(401, "not_host", "this needs the table's host link or the admin key")
        try:
            body = await read_body(request, MAX_BODY_BYTES)
            wanted = _REISSUE.decode(body) if body else _Reissue()
        except BadBody as refusal:
            return _error(refusal.status, refusal.code, refusal.message)
        except (msgspec.DecodeError, RecursionError) as error:
            message = f'expected {{"seat": N | "host" | "watch" | "invite"}}: {error}'
            return _error(400, "bad_request", message)
        everyone: list[int | Literal["host", "watch", "invite"]] = [
            HOST, WATCH, INVITE, *range(1, table.settings.seats + 1)
        ]  # fmt: skip
        if wanted.seat is not None and wanted.seat not in everyone:
            return _error(400, "bad_seat", f"seat {wanted.seat} is not a seat of this table")
        seats = everyone if wanted.seat is None else [wanted.seat]
        try:
            await table.reissue(seats)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        if INVITE in seats:  # the lobby's players reconnect with the new invite link
            server.lobbies.close_players(table.id, "token_reissued", "this link was replaced")
        if HOST in seats:  # the old host token's console would still seat players
            server.lobbies.close_consoles(table.id, "token_reissued", "this link was replaced")
        for seat in seats:  # spectators are the public viewer (None), the overlay "stream"
            if seat == INVITE:
                continue
            viewers: list[Viewer] = [None, STREAM] if seat == WATCH else [seat]
            for viewer in viewers:
                server.hub.close_viewer(
                    table.id, viewer, "token_reissued", "this link was replaced"
                )
        return JSONResponse(server.links(table))

    return reissue


def _next_game_endpoint(server: Server) -> Callable[[Request], Any]:
    """POST /api/tables/{id}/next, with the admin key or the table's host token, once the
    game is over: the next game with the same players, at a NEW table (one game, one log,
    one protocol: the finished game's stays whole and archived) with the same seats and
    settings and a fresh deal. Idempotent (the successor is recorded in the old table's
    log first). Every page connected to the old table is moved to its seat at the new
    one over its own socket. Answers {"id", "successor", "links"} (the new table's)."""

    async def next_game(request: Request) -> Response:
        registry = server.registry
        if registry is None:
            return _error(503, "not_ready", "the server is starting or stopping")
        table_id = request.path_params["table_id"]
        if not (is_admin(server, request) or _is_host_of(server, request, table_id)):
            return _error(401, "not_host", "this needs the table's host link or the admin key")
        try:
            successor = await registry.next_game(table_id)
        except KeyError:
            return _error(404, "no_table", "no such table")
        except HostingRefused as refusal:
            return _error(409, refusal.code, refusal.message)
        except GameNotOver as refusal:
            return _error(409, refusal.code, refusal.message)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        server.hub.move_table(
            table_id, lambda viewer: server.moved_to(successor, WATCH if viewer is None else viewer)
        )
        table = await registry.get(successor)
        links = None if table is None else server.links(table)
        return JSONResponse({"id": table_id, "successor": successor, "links": links})

    return next_game


def _is_host_of(server: Server, request: Request, table_id: str) -> bool:
    """Does the request carry the host token of this table (live or archived)?"""
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    try:
        grant = server.signer.verify(key, table=table_id)
    except TokenError:
        return False
    registry = server.registry
    try:
        current = registry.link_generations(table_id).get(HOST, 0) if registry else 0
    except LogUnavailable:
        return False
    return grant.is_host and grant.generation == current


def _phase(table: Table) -> str:
    phase = table.state.phase
    return str(getattr(phase, "value", phase))
