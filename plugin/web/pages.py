"""The pages of the embedded room: the player widget, the host console, the spectators' page
and the stream overlay, a landing page, and the static files they load (plugin/web/static).

The pages are the same for every table and every seat: the table id comes from the path,
the seat from the signed token the page carries in its URL fragment (`#token=...`, as
`autohost table new` and the demo print it; a fragment never reaches a server, so no access
log keeps it). A page reads its token once,
drops it from the address bar, and sends it only to /ws and /rtc (never to a third party:
`Referrer-Policy: no-referrer`). These routes never look at the token, so nothing here can
log it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

if TYPE_CHECKING:
    from .context import Server

STATIC_DIR = Path(__file__).parent / "static"
WIDGET_PAGE = STATIC_DIR / "widget" / "index.html"
CONSOLE_PAGE = STATIC_DIR / "console" / "index.html"
WATCH_PAGE = STATIC_DIR / "watch" / "index.html"
OVERLAY_PAGE = STATIC_DIR / "watch" / "overlay.html"
LOBBY_PAGE = STATIC_DIR / "lobby" / "index.html"
# The pages hold a token in their URL: never send it on as a referrer; never cache a page
# (a new release of the scripts must be picked up by the next game).
PAGE_HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}

LANGUAGES = ("uk", "ru", "en")  # the catalogues in static/i18n, as the pages have them

LANDING = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{landing.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="static/widget/widget.css"></head>
<body class="landing"><main>
<h1>{landing.title}</h1>
<p>{landing.intro}</p>
<ul>
<li><code>/t/&lt;table&gt;/play#token=…</code>: {landing.player};</li>
<li><code>/t/&lt;table&gt;/host#token=…</code>: {landing.console};</li>
<li><code>/t/&lt;table&gt;/watch#token=…</code>: {landing.watch}.</li>
</ul>
<p>{landing.demo}</p>
<p>{landing.tables}</p>
<nav class="languages">{landing.language}: {languages}</nav>
</main></body></html>
"""


def page_routes(server: Server) -> list[BaseRoute]:
    """`/`, `/t/{table_id}/play`, `/t/{table_id}/host`, `/t/{table_id}/watch` (spectators),
    `/t/{table_id}/overlay` (the stream overlay), `/t/{table_id}/join` (the invite link's
    lobby) and `/static/...` for `server`
    (plugin.web.context.Server; only its registry is read, for the landing page's count)."""
    return [
        Route("/", _landing(server)),
        Route("/t/{table_id}/play", _page(WIDGET_PAGE)),
        Route("/t/{table_id}/host", _page(CONSOLE_PAGE)),
        Route("/t/{table_id}/watch", _page(WATCH_PAGE)),
        Route("/t/{table_id}/overlay", _page(OVERLAY_PAGE)),
        Route("/t/{table_id}/join", _page(LOBBY_PAGE)),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]


def _page(path: Path) -> Callable[[Request], Any]:
    async def page(request: Request) -> Response:
        return FileResponse(path, media_type="text/html", headers=PAGE_HEADERS)

    return page


@cache
def catalogue(language: str) -> dict[str, str]:
    """The UI texts of one language, the same files the pages load (static/i18n)."""
    texts: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{language}.json").read_text())
    return texts


def landing_language(request: Request) -> str:
    """?lang=uk|ru|en, else the first of the browser's languages we have, else English."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"


def landing_page(language: str, tables: int) -> str:
    """The landing page in `language`: every text from its catalogue."""
    texts = catalogue(language)
    english = catalogue("en")

    def text(key: str, **params: str) -> str:
        template = html.escape(texts.get(key) or english[key])
        for name, value in params.items():
            template = template.replace("{" + name + "}", value)
        return template

    values = {
        "lang": language,
        "landing.title": text("landing.title"),
        "landing.intro": text("landing.intro"),
        "landing.player": text("landing.player"),
        "landing.console": text("landing.console"),
        "landing.watch": text("landing.watch"),
        "landing.demo": text("landing.demo", command="<code>autohost demo</code>"),
        "landing.tables": text("landing.tables", n=str(tables)),
        "landing.language": text("landing.language"),
        "languages": " · ".join(
            f'<a href="?lang={code}" lang="{code}">{text("language." + code)}</a>'
            for code in LANGUAGES
        ),
    }
    page = LANDING
    for key, value in values.items():
        page = page.replace("{" + key + "}", value)
    return page


def _landing(server: Server) -> Callable[[Request], Any]:
    async def landing(request: Request) -> Response:
        registry = server.registry
        count = 0 if registry is None else len(registry.tables)
        page = landing_page(landing_language(request), count)
        return HTMLResponse(page, headers={**PAGE_HEADERS, "Vary": "Accept-Language"})

    return landing
