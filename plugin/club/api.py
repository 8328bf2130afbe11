"""The club's REST API, `/api/club/*` (issue 33). Reads of the results are public (a club
publishes its standings); everything else names who may do it, checked here for every
request (ClubSite.caller, Caller.may) and refused with 401/403 otherwise:

    GET  /api/club/players                       the roster (public)
    POST /api/club/players                       add {nick, name?, city?, club?}      admin
    POST /api/club/players/{ref}/link            a new personal link {kind}          admin
    POST /api/club/players/{ref}/revoke          revoke a link {kind}                admin
    POST /api/club/players/{ref}/grant           {role, revoke?}                     admin
    GET  /api/club/me                            who a personal link is              person
    GET  /api/club/settings                      the club's name and language (public)
    POST /api/club/settings                      {name?, language?}                  admin
    GET  /api/club/sheet/{table}                 the judge's sheet (draft or signed) judge/host
    POST /api/club/sheet/{table}                 sign {sheet, season?}               judge/host
    POST /api/club/sheet/{table}/correct         {sheet?, players?, reason}          admin
    GET  /api/club/standings[.csv]?season=S      a season's standings (public)
    GET  /api/club/players/{ref}/page?season=S   a player's page (public)
    GET  /api/club/games                         the signed games, newest first (public)
    GET  /api/club/games/{id}.json               a signed game's record (public)

The public reads (standings, a player's page, a game's record) show a game whose judges'
extras a tournament hides (issue 34) without them; a judge's or admin's link, or the admin
key, sees them (ClubSite.hidden_from).

Every change is durable in the log before it is answered (Club.commit); bad input gets a
clear error (its code) and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from plugin.bodies import BadBody, decode_json, read_body
from plugin.host.ports import LogUnavailable
from plugin.signing import TokenError

from . import links, sheets, views
from .club import Club
from .site import Caller, ClubSite, Right
from .state import ClubError

MAX_BODY = 16 * 1024
RECENT = 20  # the archived tables a judge's page looks through for unsigned games
Handler = Callable[[Request], Awaitable[Any]]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def guarded(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Every refusal answered with its code, never a 500: bad input, a refused link, the
    log away."""

    async def endpoint(request: Request) -> Response:
        try:
            answer = await handler(request)
        except ClubError as refusal:
            return _error(refusal.status, refusal.code, refusal.message)
        except TokenError as refusal:
            return _error(401, refusal.code, refusal.message)
        except BadBody as refusal:
            return _error(refusal.status, refusal.code, refusal.message)
        except LogUnavailable as failure:
            return _error(503, "log_unavailable", str(failure))
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    return endpoint


async def body_of(request: Request) -> dict[str, Any]:
    raw = await read_body(request, MAX_BODY)
    document = decode_json(raw) if raw else {}
    if not isinstance(document, dict):
        raise ClubError("bad_request", "the body is a JSON object")
    return document


def require(site: ClubSite, request: Request, right: Right, table: str | None = None) -> Caller:
    caller = site.caller(request, table)
    if not caller.may(right, table):
        raise ClubError("forbidden", f"this link may not do that (a club {right}'s action)", 403)
    return caller


def seen(site: ClubSite, request: Request) -> tuple[Club, frozenset[str]]:
    """The club, and the games whose extras this caller may not see, asked in that order:
    the hidden set is then at least as new as the club read (a game signed and linked to a
    hidden stage is never read without its link)."""
    club = site.club
    return club, site.hidden_from(request)


def club_api_routes(site: ClubSite) -> list[BaseRoute]:
    async def players(request: Request) -> Any:
        club = site.club
        if request.method == "GET":
            return [p.record() for p in club.state.players.values()]
        caller = require(site, request, "admin")
        fields = await body_of(request)
        record = await club.commit(lambda s: s.add_player(fields), source=caller.source)
        return JSONResponse(club.state.players[record["id"]].record(), status_code=201)

    async def link(request: Request) -> Any:
        caller = require(site, request, "admin")
        ref, body = request.path_params["ref"], await body_of(request)
        club = site.club
        token = await club.commit_link(ref, body.get("kind", "player"), source=caller.source)
        server = site.server
        assert server is not None
        url = links.link_url(server.config.base_url, token)
        return {"player": club.state.player(ref).record(), "link": url, "token": token}

    async def revoke(request: Request) -> Any:
        caller = require(site, request, "admin")
        ref, body = request.path_params["ref"], await body_of(request)
        kind = body.get("kind", "player")
        await site.club.commit(lambda s: s.revoke_link(ref, kind), source=caller.source)
        return {"revoked": kind, "player": site.club.state.player(ref).record()}

    async def grant(request: Request) -> Any:
        caller = require(site, request, "admin")
        ref, body = request.path_params["ref"], await body_of(request)
        role, back = body.get("role"), body.get("revoke", False) is True
        await site.club.commit(lambda s: s.grant(ref, role, revoke=back), source=caller.source)
        return site.club.state.player(ref).record()

    async def settings(request: Request) -> Any:
        club = site.club
        if request.method == "POST":
            caller = require(site, request, "admin")
            fields = await body_of(request)
            await club.commit(lambda s: s.settings(fields), source=caller.source)
        return {"name": club.state.name, "language": club.state.language}

    async def me(request: Request) -> Any:
        caller = require(site, request, "person")
        assert caller.person is not None
        return {"player": caller.person.player.record(), "kind": caller.person.kind,
                "unsigned": _unsigned(site) if caller.may("judge") else []}  # fmt: skip

    async def sheet(request: Request) -> Any:
        table = request.path_params["table"]
        caller = require(site, request, "judge", table)
        registry = site.server.registry if site.server else None
        if registry is None:
            raise ClubError("not_ready", "the server is starting or stopping", 503)
        if request.method == "GET":
            return sheets.draft(site.club, registry.log, table)
        body = await body_of(request)
        await sheets.sign(site.club, registry.log, table, body, caller.source)
        return JSONResponse(sheets.draft(site.club, registry.log, table), status_code=201)

    async def correct(request: Request) -> Any:
        caller = require(site, request, "admin")
        game_id, body = request.path_params["table"], await body_of(request)
        await sheets.correct(site.club, game_id, body, caller.source)
        return views.game_json(site.club, game_id)

    async def standings(request: Request) -> Any:
        club, hidden = seen(site, request)
        return views.standings(club, request.query_params.get("season"), hidden)

    async def standings_csv(request: Request) -> Any:
        season = request.query_params.get("season")
        club, hidden = seen(site, request)
        text = views.standings_csv(club, season, hidden)
        chosen = season or views.seasons(club)[0]
        name = "standings-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in chosen)
        name += ".csv"
        disposition = {"content-disposition": f'attachment; filename="{name}"'}
        return Response(text, media_type="text/csv; charset=utf-8", headers=disposition)

    async def page(request: Request) -> Any:
        ref, season = request.path_params["ref"], request.query_params.get("season")
        club, hidden = seen(site, request)
        return views.player_page(club, ref, season, hidden)

    async def game(request: Request) -> Any:
        club, hidden = seen(site, request)
        return views.game_json(club, request.path_params["game"], hidden)

    async def games(request: Request) -> Any:
        return views.games(site.club)

    routes = [
        ("/api/club/players", players, ["GET", "POST"]),
        ("/api/club/players/{ref}/link", link, ["POST"]),
        ("/api/club/players/{ref}/revoke", revoke, ["POST"]),
        ("/api/club/players/{ref}/grant", grant, ["POST"]),
        ("/api/club/players/{ref}/page", page, ["GET"]),
        ("/api/club/me", me, ["GET"]),
        ("/api/club/settings", settings, ["GET", "POST"]),
        ("/api/club/sheet/{table}", sheet, ["GET", "POST"]),
        ("/api/club/sheet/{table}/correct", correct, ["POST"]),
        ("/api/club/standings", standings, ["GET"]),
        ("/api/club/standings.csv", standings_csv, ["GET"]),
        ("/api/club/games", games, ["GET"]),
        ("/api/club/games/{game}.json", game, ["GET"]),
    ]
    return [Route(path, guarded(handler), methods=methods) for path, handler, methods in routes]


def _unsigned(site: ClubSite) -> list[str]:
    """The finished tables of this server whose sheet nobody has signed yet (a judge's list)."""
    registry = site.server.registry if site.server else None
    if registry is None:
        return []
    signed = site.club.state.signed
    live = [t.id for t in registry.tables.values() if t.state.over and t.id not in signed]
    archived = [i for i, _ in registry.log.tables(archived=True)[-RECENT:] if i not in signed]
    return live + [i for i in archived if i not in live and registry.final(i) is not None]
