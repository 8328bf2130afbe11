"""Judges host games (issue 33): a judge's personal link (or an admin's) creates a table and
opens any open table's console, as the admin key does through /api/tables, so a club's
judge needs no machine key to run an evening.

    GET  /api/club/tables                    the open tables of this server      judge
    POST /api/club/tables                    a new table {settings}              judge
    POST /api/club/tables/{table}/host       the table's host link               judge
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from plugin.host.registry import HostingRefused
from plugin.host.settings import SettingsError, TableSettings

from .api import body_of, guarded, require
from .site import ClubSite
from .state import ClubError


def hosting_routes(site: ClubSite) -> list[BaseRoute]:
    def registry() -> Any:
        server = site.server
        if server is None or server.registry is None:
            raise ClubError("not_ready", "the server is starting or stopping", 503)
        return server.registry

    async def tables(request: Request) -> Any:
        require(site, request, "judge")
        hosted = registry()
        if request.method == "GET":
            signed = site.club.state.signed
            return [
                {
                    "id": t.id,
                    "over": bool(t.state.over),
                    "signed": t.id in signed,
                    "seats": t.settings.seats,
                    "language": t.settings.language,
                }
                for t in hosted.tables.values()
                if hosted.holds(t.id)
            ]
        record = await body_of(request)
        try:
            table = await hosted.create(TableSettings.from_record(record))
        except SettingsError as refusal:
            raise ClubError(refusal.code, refusal.message) from None
        except HostingRefused as refusal:
            raise ClubError(refusal.code, refusal.message, 409) from None
        assert site.server is not None
        return JSONResponse(site.server.links(table), status_code=201)

    async def host(request: Request) -> Any:
        table_id = request.path_params["table"]
        require(site, request, "judge")
        server = site.server
        assert server is not None
        table = await server.table(table_id)
        if table is None:
            code, message = server.missing(table_id)
            raise ClubError(code, message, 404)
        return {"table": table.id, "link": server.links(table)["host"]["link"]}

    return [
        Route("/api/club/tables", guarded(tables), methods=["GET", "POST"]),
        Route("/api/club/tables/{table}/host", guarded(host), methods=["POST"]),
    ]
