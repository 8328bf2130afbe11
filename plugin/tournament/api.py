"""The club's tournaments over REST, `/api/club/tournaments` (issue 34), checked and answered
as the club's API (plugin.club.api: who may call, errors with their codes, changes durable
before they are answered). Reads are public (a club publishes its tournaments); changes are
an admin's (the admin key or an admin's personal link):

    GET  /api/club/tournaments                 the club's tournaments, in brief (public)
    POST /api/club/tournaments                 create {name, players, tables, games,
                                               stages?, preset?, system?, keep_apart?,
                                               hide_extras_from?}                       admin
    GET  /api/club/tournaments/{id}            one, with its seating (public)
    POST /api/club/tournaments/{id}/seat       {stage?, players?, seed?, seconds?}      admin
    POST /api/club/tournaments/{id}/swap       {stage?, round, a, b}: the cost change   admin
    POST /api/club/tournaments/{id}/start      {stage?, round}: its tables made and
                                               hosted (plugin.tournament.rounds)        admin
    POST /api/club/tournaments/{id}/finish     {stage?, round}                          admin
    GET  /api/club/tournaments/{id}/standings[.csv|.json]; POST .../tables, .../reveal;
    GET  /club/tournaments/{id}                (plugin.tournament.page)

Stages and rounds are numbered from 0 here, as the records number them. A seating is
computed off the event loop (the tables go on meanwhile), within `seconds` (60 at most).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from plugin.club.api import body_of, guarded, require
from plugin.club.site import ClubSite
from plugin.host.registry import Registry
from plugin.web.context import Server

from . import rounds
from .board import board_routes
from .follow import Bell, follow_routes, move_on
from .page import standings_routes
from .pages import page_routes
from .seats import seat_routes
from .service import SEAT_SECONDS, Tournaments
from .standings import hidden_games
from .state import TournamentError


class TournamentSite:
    """The tournaments of one server's club (made again when the club is)."""

    def __init__(self, site: ClubSite) -> None:
        self.site = site
        self._tournaments: Tournaments | None = None
        self.bell = Bell()  # wakes the players' waiting pages (plugin.tournament.follow)
        self.starting = asyncio.Lock()  # one start at a time here (a double click resumes)
        # the club's public reads ask which games hide their extras (issue 34): ours
        site.hidden_extras = self.hidden_games

    @property
    def tournaments(self) -> Tournaments:
        club = self.site.club
        if self._tournaments is None or self._tournaments.club is not club:
            self._tournaments = Tournaments(club)
        self._tournaments.refresh()
        return self._tournaments

    def hidden_games(self) -> frozenset[str]:
        """The games whose judges' extras the public may not see now (the newest state)."""
        return hidden_games(self.tournaments.state)


def registry_of(site: ClubSite) -> Registry:
    server = site.server
    if server is None or server.registry is None:
        raise TournamentError("not_ready", "the server is starting or stopping", 503)
    return server.registry


def _number(body: dict[str, Any], key: str, default: int | None = None) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TournamentError("bad_field", f"{key} is a whole number, not {value!r}")
    return value


def tournament_api_routes(site: ClubSite, here: TournamentSite | None = None) -> list[BaseRoute]:
    here = here or TournamentSite(site)

    async def collection(request: Request) -> Any:
        tournaments = here.tournaments
        if request.method == "GET":
            return [{"id": t.id, "name": t.name, "players": len(t.players),
                     "stages": [s.name for s in t.stages]}
                    for t in tournaments.state.tournaments.values()]  # fmt: skip
        caller = require(site, request, "admin")
        fields = await body_of(request)
        record = await tournaments.commit(lambda c, s: s.create(c, fields), source=caller.source)
        return JSONResponse(tournaments.state.get(record["id"]).view(), status_code=201)

    async def one(request: Request) -> Any:
        return here.tournaments.state.get(request.path_params["id"]).view()

    async def seat(request: Request) -> Any:
        caller = require(site, request, "admin")
        tid, body = request.path_params["id"], await body_of(request)
        seconds = body.get("seconds", SEAT_SECONDS)
        if not isinstance(seconds, int | float) or not 0 < seconds <= SEAT_SECONDS:
            raise TournamentError("bad_field", f"seconds is more than 0, at most {SEAT_SECONDS}")
        tournaments = here.tournaments
        stage, seed = _number(body, "stage", 0), _number(body, "seed", 0)
        compute = tournaments.plan(tid, stage, body.get("players"), seed=seed,
                                   seconds=float(seconds))  # fmt: skip
        question = await asyncio.to_thread(compute)
        await tournaments.commit(question, source=caller.source)
        return JSONResponse(tournaments.state.get(tid).view(), status_code=201)

    def change(kind: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Any:
            caller = require(site, request, "admin")
            tid, body = request.path_params["id"], await body_of(request)
            stage, round_ = _number(body, "stage", 0), _number(body, "round")
            if kind == "swap":
                a, b = body.get("a"), body.get("b")
                ask = lambda _, s: s.swap(tid, stage, round_, a, b)  # noqa: E731
            elif kind == "start":  # made and hosted here; a start cut short is finished
                async with here.starting:
                    started = await rounds.start(here.tournaments, registry_of(site), tid,
                                                 stage, round_, source=caller.source)  # fmt: skip
                here.bell.ring()  # the players' pages go to their seats
                tournament = here.tournaments.state.get(tid)
                assert site.server is not None
                move_on(site.server, tournament, rounds.tables_of(tournament, stage, round_))
                if started["complete"]:
                    return JSONResponse(started, status_code=201)
                why = "some tables could not be made here: start the round again to make them"
                return JSONResponse({"error": "round_incomplete", "message": why, **started},
                                    status_code=503)  # fmt: skip
            else:
                ask = lambda _, s: s.finish_round(tid, stage, round_)  # noqa: E731
            return await here.tournaments.commit(ask, source=caller.source)

        return endpoint

    routes = [
        ("/api/club/tournaments", collection, ["GET", "POST"]),
        ("/api/club/tournaments/{id}", one, ["GET"]),
        ("/api/club/tournaments/{id}/seat", seat, ["POST"]),
        ("/api/club/tournaments/{id}/swap", change("swap"), ["POST"]),
        ("/api/club/tournaments/{id}/start", change("start"), ["POST"]),
        ("/api/club/tournaments/{id}/finish", change("finish"), ["POST"]),
    ]
    listed = [Route(path, guarded(handler), methods=methods) for path, handler, methods in routes]
    return [*listed, *standings_routes(here)]  # the standings, their exports and page


def tournament_routes(site: ClubSite) -> Callable[[Server], Sequence[BaseRoute]]:
    """What the assembly mounts beside the club's routes (the same ClubSite)."""

    def routes(server: Server) -> Sequence[BaseRoute]:
        site.bind(server)
        here = TournamentSite(site)
        return [*tournament_api_routes(site, here), *follow_routes(here), *seat_routes(here),
                *board_routes(here), *page_routes()]  # fmt: skip

    return routes
