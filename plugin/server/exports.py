"""The finished game's protocol over HTTP, for the end screen's links (issue 17):
`GET /t/{table}/protocol.html` (the printable sheet, plugin.protocol.sheet) and
`GET /t/{table}/protocol.json` (plugin.protocol.export), live or archived.

The token goes in the Authorization header (`Bearer <token>`), never in the URL: the pages
fetch the protocol and open it from memory. Any link of the table (a seat's, the host's,
the spectators') may read it once the game is over, when every role is everyone's; before
the end only the host (or the admin key), who sees everything anyway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from plugin.host.ports import LogUnavailable
from plugin.protocol.export import table_protocol
from plugin.protocol.sheet import render_sheet
from plugin.signing import TokenError
from plugin.web.context import Server, bearer, is_admin


def protocol_routes(server: Server) -> list[BaseRoute]:
    return [
        Route("/t/{table_id}/protocol.html", _protocol(server, html=True)),
        Route("/t/{table_id}/protocol.json", _protocol(server, html=False)),
    ]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _protocol(server: Server, *, html: bool) -> Callable[[Request], Any]:
    async def protocol(request: Request) -> Response:
        registry = server.registry
        if registry is None:
            return _error(503, "not_ready", "the server is starting or stopping")
        table_id = request.path_params["table_id"]
        key = bearer(request)
        if not key:
            return _error(401, "no_token", "send the table's link token as Bearer")
        admin = is_admin(server, request)
        host = admin
        try:
            if not admin:  # any link of the table, open or archived (Server.admit)
                host = server.admit(key, server.link_state(table_id)).is_host
        except TokenError as refusal:
            return _error(401, refusal.code, refusal.message)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        try:
            table = registry.tables.get(table_id)
            over = table.state.over if table is not None else registry.final(table_id) is not None
            if table_id in registry.broken:  # its log cannot be read back: said, not a 500
                return _error(409, "table_broken", registry.broken[table_id])
            if not (over or host):
                return _error(403, "game_not_over", "the protocol is everyone's after the game")
            record = table_protocol(registry.log, table_id)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        if record is None:
            return _error(404, "no_table", "no such table")
        if html:
            return HTMLResponse(render_sheet(record))
        text = json.dumps(record, ensure_ascii=False, indent=1)
        disposition = f'inline; filename="protocol-{table_id}.json"'
        return Response(text, media_type="application/json",
                        headers={"content-disposition": disposition})  # fmt: skip

    return protocol
