"""The pages of the embedded room: the player widget, the host console, a landing page, and
the static files they load (plugin/web/static).

The pages are the same for every table and every seat: the table id comes from the path,
the seat from the signed token the page carries in its URL fragment (`#token=...`, as
`autohost table new` and the demo print it; a fragment never reaches a server, so no access
log keeps it). A page reads its token once,
drops it from the address bar, and sends it only to /ws and /rtc (never to a third party:
`Referrer-Policy: no-referrer`). These routes never look at the token, so nothing here can
log it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

if TYPE_CHECKING:
    from .app import Server

STATIC_DIR = Path(__file__).parent / "static"
WIDGET_PAGE = STATIC_DIR / "widget" / "index.html"
CONSOLE_PAGE = STATIC_DIR / "console" / "index.html"
# The pages hold a token in their URL: never send it on as a referrer; never cache a page
# (a new release of the scripts must be picked up by the next game).
PAGE_HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}

LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mafia auto-host</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="static/widget/widget.css"></head>
<body class="landing"><main>
<h1>Mafia auto-host</h1>
<p>This server hosts sport-mafia tables. To join one, open the link the host gave you:</p>
<ul>
<li><code>/t/&lt;table&gt;/play#token=…</code>: a player's page (your seat is in the token);</li>
<li><code>/t/&lt;table&gt;/host#token=…</code>: the host console.</li>
</ul>
<p>To try it alone, run <code>autohost demo</code>: it prints a link for every seat and for
the console, and fills the empty seats with simulated players.</p>
<p>Tables on this server: {tables}.</p>
</main></body></html>
"""


def page_routes(server: Server) -> list[BaseRoute]:
    """`/`, `/t/{table_id}/play`, `/t/{table_id}/host` and `/static/...` for `server`
    (plugin.web.app.Server; only its registry is read, for the landing page's count)."""
    return [
        Route("/", _landing(server)),
        Route("/t/{table_id}/play", _page(WIDGET_PAGE)),
        Route("/t/{table_id}/host", _page(CONSOLE_PAGE)),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]


def _page(path: Path) -> Callable[[Request], Any]:
    async def page(request: Request) -> Response:
        return FileResponse(path, media_type="text/html", headers=PAGE_HEADERS)

    return page


def _landing(server: Server) -> Callable[[Request], Any]:
    async def landing(request: Request) -> Response:
        registry = server.registry
        count = 0 if registry is None else len(registry.tables)
        return HTMLResponse(LANDING.replace("{tables}", str(count)), headers=PAGE_HEADERS)

    return landing
