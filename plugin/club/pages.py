"""The club's pages (issue 33): the standings of a season, a player's page, the club's admin
page, "me" (where a personal link lands) and a game's judge's sheet; each one HTML shell
whose script (plugin/club/static) reads /api/club/*. A token travels in a link's fragment,
never in a URL the server sees; the pages never log or forward it (no referrer)."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from plugin.web.context import Server

from .api import club_api_routes
from .hosting import hosting_routes
from .site import ClubSite

STATIC = Path(__file__).parent / "static"
HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
SHELL = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Club</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="{root}static/club.css"></head>
<body class="club club-{page}"><main>
<header id="club-header"></header>
<p id="club-error" class="error" role="alert" hidden></p>
<div id="club-main"></div>
</main><script type="module" src="{root}static/{page}.js"></script></body></html>
"""


def _shell(page: str, depth: int) -> Callable[[Request], Awaitable[Response]]:
    """The page's shell; `depth`: how many path segments below /club/ it sits."""
    text = SHELL.format(page=html.escape(page), root="../" * depth)

    async def endpoint(request: Request) -> Response:
        return HTMLResponse(text, headers=HEADERS)

    return endpoint


async def _home(request: Request) -> Response:
    return RedirectResponse("club/standings", status_code=307)


def page_routes() -> list[BaseRoute]:
    return [
        Route("/club", _home),
        Route("/club/standings", _shell("standings", 0)),
        Route("/club/me", _shell("me", 0)),
        Route("/club/admin", _shell("admin", 0)),
        Route("/club/players/{ref}", _shell("player", 1)),
        Route("/club/sheet/{table}", _shell("sheet", 1)),
        Mount("/club/static", app=StaticFiles(directory=STATIC), name="club-static"),
    ]


def club_routes(site: ClubSite) -> Callable[[Server], Sequence[BaseRoute]]:
    """What the assembly mounts: the club's API and pages on this server."""

    def routes(server: Server) -> Sequence[BaseRoute]:
        site.bind(server)
        return [*club_api_routes(site), *hosting_routes(site), *page_routes()]

    return routes
