"""A tournament's standings over REST and its public page (issue 34):

    GET  /api/club/tournaments/{id}/standings[.json|.csv][?format=json|csv]
                                       the standings: each stage's, the overall ones and the
                                       final results with their tie-breaks (public; a judge's
                                       or an admin's link, or the admin key, sees the hidden
                                       extra points too)
    POST /api/club/tournaments/{id}/tables {stage?, round, table, table_id}
                                       link a club table to a table of a started round admin
    POST /api/club/tournaments/{id}/reveal  reveal the hidden extra points            admin
    GET  /club/tournaments/{id}        the standings page for players and streams (public;
                                       plugin/club/static/tournament.js, refreshing itself)
    GET  /club/tournaments             the club's tournaments, each linking to its page

Refusals are answered as the club's (plugin.club.api.guarded): a code, a message, nothing
written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from plugin.club.api import body_of, guarded, require
from plugin.club.pages import HEADERS, SHELL

from . import played
from .exports import document, to_csv
from .state import TournamentError

if TYPE_CHECKING:
    from .api import TournamentSite

PAGE = SHELL.format(page="tournament", root="../")
LIST = SHELL.format(page="tournament", root="")  # /club/tournaments: the club's tournaments
CACHED = 16  # standings documents kept (tournaments x views), all dropped when full


def _number(body: dict[str, Any], key: str, default: int | None = None) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TournamentError("bad_field", f"{key} is a whole number, not {value!r}")
    return value


def standings_routes(here: TournamentSite) -> list[BaseRoute]:
    site = here.site
    built: dict[tuple[object, ...], dict[str, Any]] = {}

    async def standings(request: Request) -> Any:
        tid = request.path_params["id"]
        kind = request.path_params.get("kind") or request.query_params.get("format", "json")
        if kind not in ("json", "csv"):
            raise TournamentError("bad_format", f"format is json or csv, not {kind!r}")
        tournaments = here.tournaments
        # Built once per state of the log (the club's last record): many pages of players
        # and streams read it every few seconds, and between two records it is the same.
        key = (tid, site.sees_hidden(request), tournaments.seq, site.club.seq)
        doc = built.get(key)
        if doc is None:
            doc = document(tournaments.state, tournaments.live, tid, site.club.state.nick_of,
                           judge=key[1])  # fmt: skip
            if len(built) >= CACHED:
                built.clear()
            built[key] = doc
        if kind == "json":
            return doc
        name = f"standings-{doc['id']}.csv"
        disposition = {"content-disposition": f'attachment; filename="{name}"'}
        return Response(to_csv(doc), media_type="text/csv; charset=utf-8", headers=disposition)

    async def link(request: Request) -> Any:
        caller = require(site, request, "admin")
        tid, body = request.path_params["id"], await body_of(request)
        stage, round_ = _number(body, "stage", 0), _number(body, "round")
        table_no, table_id = body.get("table"), body.get("table_id")
        record = await here.tournaments.commit(
            lambda _, s: played.link_table(s, tid, stage, round_, table_no, table_id),
            source=caller.source,
        )
        return JSONResponse(record, status_code=201)

    async def reveal(request: Request) -> Any:
        caller = require(site, request, "admin")
        tid = request.path_params["id"]
        return await here.tournaments.commit(lambda _, s: played.reveal(s, tid),
                                             source=caller.source)  # fmt: skip

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE, headers=HEADERS)

    async def listing(request: Request) -> Response:
        return HTMLResponse(LIST, headers=HEADERS)

    api = [
        ("/api/club/tournaments/{id}/standings", standings, ["GET"]),
        ("/api/club/tournaments/{id}/standings.{kind}", standings, ["GET"]),
        ("/api/club/tournaments/{id}/tables", link, ["POST"]),
        ("/api/club/tournaments/{id}/reveal", reveal, ["POST"]),
    ]
    routes: list[BaseRoute] = [Route(p, guarded(h), methods=m) for p, h, m in api]
    return [*routes, Route("/club/tournaments", listing), Route("/club/tournaments/{id}", page)]
