"""The tournament's pages (issue 34), club pages like the others (plugin.club.pages: one
HTML shell whose script, in plugin/club/static, reads the API; strict CSP, own scripts
only; the token in the link's fragment, never in a URL the server sees):

    /club/organiser                 the organiser's: the club's tournaments, a new one
    /club/organiser/{id}            the organiser's: seat, links, start and finish rounds
                                    (/club/tournaments/{id} is the public standings page:
                                    plugin.tournament.page)
    /club/tournaments/{id}/play     a player's tournament page (his tournament link lands
                                    here and follows him to his seat: plugin.tournament.follow)
    /club/tournaments/{id}/board    the judges' board (plugin.tournament.board)
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from plugin.club.pages import HEADERS, SHELL


def _shell(page: str, depth: int = 2) -> Callable[[Request], Awaitable[Response]]:
    """The page's shell, `depth` path segments below /club/ (tournaments/{id}/: two)."""
    text = SHELL.format(page=html.escape(page), root="../" * depth)

    async def endpoint(request: Request) -> Response:
        return HTMLResponse(text, headers=HEADERS)

    return endpoint


def page_routes() -> list[BaseRoute]:
    return [
        Route("/club/organiser", _shell("tournament-admin", 0)),
        Route("/club/organiser/{id}", _shell("tournament-admin", 1)),
        Route("/club/tournaments/{id}/play", _shell("tournament-play")),
        Route("/club/tournaments/{id}/board", _shell("tournament-board")),
    ]
