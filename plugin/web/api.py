"""The table API over HTTP: health, the servers of the club, and the admin's (or the
table's host's) tables: create, look up, archive, re-issue links, start the next game.

The admin key or a link's token comes as `Authorization: Bearer ...` (context.is_admin,
`Server.admit`); every refusal is {"error": code, "message": ...} with its HTTP status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from plugin.bodies import BadBody, decode_json, read_body
from plugin.host.inputs import HOST, WATCH
from plugin.host.ports import Fenced, LogUnavailable
from plugin.host.registry import GameNotOver, HostingRefused
from plugin.host.settings import SettingsError, TableSettings
from plugin.host.table import Table
from plugin.host.views import STREAM, Viewer, build_view
from plugin.signing import INVITE, TokenError

from . import succession
from .context import LinkState, Server, bearer, is_admin
from .reissue import Link
from .reissue import reissue as reissue_links

MAX_BODY_BYTES = 16 * 1024


def api_routes(server: Server) -> list[BaseRoute]:
    return [
        Route("/healthz", _healthz(server)),
        Route("/api/servers", _servers_endpoint(server)),
        Route("/api/tables", _tables_endpoint(server), methods=["GET", "POST"]),
        Route("/api/tables/{table_id}", _table_endpoint(server)),
        Route("/api/tables/{table_id}/archive", _archive_endpoint(server), methods=["POST"]),
        Route("/api/tables/{table_id}/reissue", _reissue_endpoint(server), methods=["POST"]),
        Route("/api/tables/{table_id}/next", _next_game_endpoint(server), methods=["POST"]),
    ]


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
                 "owner": registry.owner}
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


async def _read_reissue(request: Request, everyone: list[Link]) -> list[Link] | Response:
    """The links a re-issue's body names among `everyone` (all of them for an empty body or
    {}), or the refusal to answer: one reading and one check for open and archived tables."""
    try:
        body = await read_body(request, MAX_BODY_BYTES)
        wanted = _REISSUE.decode(body) if body else _Reissue()
    except BadBody as refusal:
        return _error(refusal.status, refusal.code, refusal.message)
    except (msgspec.DecodeError, RecursionError) as error:
        named = " | ".join(["N", *(f'"{link}"' for link in everyone if isinstance(link, str))])
        return _error(400, "bad_request", f'expected {{"seat": {named}}}: {error}')
    if wanted.seat is None:
        return everyone
    if wanted.seat not in everyone:
        return _error(400, "bad_seat", f"seat {wanted.seat} is not a seat of this table")
    return [link for link in everyone if link == wanted.seat]


def _reissue_endpoint(server: Server) -> Callable[[Request], Any]:
    """POST /api/tables/{id}/reissue {"seat": N | "host" | "watch" | "invite"} (or {} for
    every link), with the
    admin key or the table's host token: new links, the old tokens refused at once and
    every socket they opened closed: /ws, /lobby, and (through Hub.close_viewer) /video
    and the embedded room's peers. Answers the table's links."""

    async def reissue(request: Request) -> Response:
        table = await server.table(request.path_params["table_id"])
        if table is None:
            return await _reissue_archived(server, request)
        if not (is_admin(server, request) or _is_host_of(server, request, table)):
            return _error(401, "not_host", "this needs the table's host link or the admin key")
        everyone: list[Link] = [HOST, WATCH, INVITE, *range(1, table.settings.seats + 1)]
        seats = await _read_reissue(request, everyone)
        if isinstance(seats, Response):
            return seats
        try:
            await reissue_links(server, table, seats)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        return JSONResponse(server.links(table))

    return reissue


async def _reissue_archived(server: Server, request: Request) -> Response:
    """POST .../reissue at an archived table (issue 31): its links are revoked too, so a
    leaked link of a finished game loses its end screen and its path to the next game
    (succession.py). Its pages still open are closed. Answers {"id", "reissued"}."""
    table_id, registry = request.path_params["table_id"], server.registry
    try:
        archived = registry is not None and registry.log.is_archived(table_id)
        links = server.link_state(table_id) if archived else None
    except LogUnavailable as failure:
        return _error(503, "log_unavailable", str(failure))
    if registry is None or links is None or table_id in registry.broken:
        return _error(404, "no_table", "no such table")
    if not (is_admin(server, request) or _is_host_of(server, request, links)):
        return _error(401, "not_host", "this needs the table's host link or the admin key")
    # An archived table has no lobby: its links are the seats', the host's and the watch.
    seats = await _read_reissue(request, [HOST, WATCH, *range(1, links.seats + 1)])
    if isinstance(seats, Response):
        return seats
    try:
        if not await registry.reissue_archived(table_id, seats):
            return _error(404, "no_table", "no such table")
    except LogUnavailable as failure:
        return _error(503, "log_unavailable", str(failure))
    for seat in seats:  # the end screens it opened
        if seat == INVITE:  # never named here: an archived table has no lobby
            continue
        viewers: list[Viewer] = [None, STREAM] if seat == WATCH else [seat]
        for viewer in viewers:
            server.hub.close_viewer(table_id, viewer, "token_reissued", "this link was replaced")
    return JSONResponse({"id": table_id, "reissued": seats})


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
        admin = is_admin(server, request)
        if not (admin or _is_host_of(server, request, table_id)):
            return _error(401, "not_host", "this needs the table's host link or the admin key")
        try:
            # The next game exists: the old host token acts on it only while its host
            # link is the one the hand-over made (issue 31, succession.py).
            started = None if admin else registry.final(table_id)
            onward = started.successor if started is not None else None
            if onward is not None and not succession.host_may_follow(server, onward):
                return _error(401, *succession.REISSUED)
            successor = await registry.next_game(table_id)
        except KeyError:
            return _error(404, "no_table", "no such table")
        except HostingRefused as refusal:
            return _error(409, refusal.code, refusal.message)
        except GameNotOver as refusal:
            return _error(409, refusal.code, refusal.message)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        server.hub.move_table(table_id, lambda viewer: succession.moved(server, successor, viewer))
        # The new table's links go to the admin only: an old host token never mints them
        # (its pages are moved to their seats over their own sockets).
        table = await registry.get(successor) if admin else None
        links = None if table is None else server.links(table)
        return JSONResponse({"id": table_id, "successor": successor, "links": links})

    return next_game


def _is_host_of(server: Server, request: Request, table: Table | LinkState | str) -> bool:
    """Does the request carry the host token of this table (an open one, or by its id:
    live or archived)?"""
    key = bearer(request)
    if key is None:
        return False
    try:
        links = server.link_state(table) if isinstance(table, str) else table
        return server.admit(key, links, "seat").is_host
    except (TokenError, LogUnavailable):
        return False


def _phase(table: Table) -> str:
    phase = table.state.phase
    return str(getattr(phase, "value", phase))
