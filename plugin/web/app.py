"""The web server's app: `create_app(config)` builds the Starlette app of one server.

Its lifespan opens the registry (every table replayed from the log) and closes it on
shutdown (microphones given back, log flushed). The routes come by concern: the table
socket `/ws` (table_socket.py), the REST API and health (api.py), the lobby `/lobby`
(lobby_socket.py); what they share is the `Server` (context.py). Every state-changing
request and every socket from a foreign origin is refused before any route sees it.
Extension points for the other parts of the server:
- `config.routes`: extra routes or mounts, or callables `(server) -> routes` that need the
  registry or the token signer (the embedded room's `/rtc/...` signalling, the player and
  host pages `/t/{table}/play` and `/t/{table}/host`, `/livekit/token`, `/livekit/webhook`);
- `config.room_factory` / `config.voice_factory`: each table's room backend and voice;
- `app.state.server`: the running `Server` (registry, hub, signer, config).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from plugin.host.registry import Registry
from plugin.signing import Signer, load_secret, secret_path_for

from .api import api_routes
from .close_codes import CloseCode
from .context import Server, ServerConfig
from .headers import SecurityHeaders
from .hub import Hub
from .limits import origin_of
from .lobby_socket import lobby_routes
from .table_socket import table_socket_routes

__all__ = ["ServerConfig", "create_app"]  # the factory and what it is given


def create_app(config: ServerConfig) -> Starlette:
    secret = config.secret or load_secret(secret_path_for(config.db_path))
    server = Server(config=config, signer=Signer(secret), hub=Hub())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        log, leases = config.log()
        registry = Registry(
            log,
            leases=leases,
            hub=server.hub,
            clock=config.clock,
            room_factory=config.room_factory,
            voice_factory=config.voice_factory,
            max_tables=config.max_tables,
            only=config.only,
        )
        if leases is not None:  # a shared log names our public URL in our leases
            leases.url_of = lambda: server.config.base_url

        def dropped(table_id: str) -> None:
            message = "another server hosts this table now: reconnect"
            server.hub.close_table(table_id, "table_moved", message)
            server.lobbies.close_table(table_id, "table_moved", message, moved=True)

        registry.on_drop = dropped
        # Every link's expiry is the log's time, the same on every server of a shared log
        # whatever its own clock says (issue 31, "time across servers").
        server.signer.clock = log.wall
        await registry.start()
        server.registry = registry
        try:
            yield
        finally:
            server.registry = None
            server.signer.clock = time.time
            await registry.close()

    routes: list[BaseRoute] = [
        *table_socket_routes(server),
        *api_routes(server),
        *lobby_routes(server),
    ]
    for extra in config.routes:
        routes.extend([extra] if isinstance(extra, BaseRoute) else extra(server))
    # Every answer's security headers (headers.py), then the origin check.
    reachable = (config.base_url, *config.peers, *config.allowed_origins)
    middleware = [
        Middleware(SecurityHeaders, connect=reachable, styles=config.inline_styles),
        Middleware(_OriginCheck, server=server),
    ]
    if config.peers:
        # A page served by a peer follows its table to this server after a failover: its
        # socket needs no CORS, but its audio's offer (POST /rtc/...) and its ICE servers
        # (POST /api/ice) are fetches with the token in a header, which a browser makes to
        # another origin only when that origin says so (issue 32). Only the club's peers.
        middleware.insert(
            0,
            Middleware(
                CORSMiddleware,
                allow_origins=[origin_of(peer) for peer in config.peers],
                allow_methods=["POST"],
                allow_headers=["authorization", "content-type"],
                max_age=600,
            ),
        )
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
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
                await send({"type": "websocket.close", "code": CloseCode.FORBIDDEN_ORIGIN})
                return
            refusal = {
                "error": "bad_origin",
                "message": "requests from this page's origin are refused",
            }
            response = JSONResponse(refusal, status_code=403)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
