"""A tournament in real Chromium (issue 34): an organiser creates a small tournament (20
players, 2 tables) on the organiser's page, seats it and hands out the players' tournament
links; every player opens
his link and waits; the round starts, and each page lands by itself at its table and seat
(the `moved` message, as the next game's), where the widget shows that seat; the judges'
board shows both tables with all ten players joined at each, starts every table's game at
once, and opens a table's console.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/tournament-board.png.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page

from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import log_opener
from plugin.server.embedded import EmbeddedTables
from plugin.tournament.api import tournament_routes
from plugin.web.app import ServerConfig, create_app
from plugin.web.pages import page_routes
from testing import serve
from testing.browser import wait_for

from .test_widget import LONG_MS, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ADMIN_KEY = "e2e-admin-key-0123456789"
NICKS = [f"Гравець{n}" for n in range(1, 21)]


@dataclass
class Club:
    url: str
    http: httpx.AsyncClient

    async def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """The organiser's call to the club's REST API, with the admin key."""
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        if body is None:
            reply = await self.http.get(f"{self.url}/api/club/{path}", headers=headers)
        else:
            reply = await self.http.post(f"{self.url}/api/club/{path}", json=body,
                                         headers=headers, timeout=60)  # fmt: skip
        assert reply.is_success, reply.text
        return reply.json()


@contextlib.asynccontextmanager
async def tournament_server(tmp_path: Path) -> AsyncIterator[Club]:
    """A server with the club and its tournaments (API, pages, sockets), no table yet."""
    tables = EmbeddedTables(voice=False)
    site = ClubSite()
    config = ServerConfig(
        db_path=tmp_path / "club.db", log=log_opener(tmp_path / "club.db"),
        admin_key=ADMIN_KEY, secret=b"e2e-secret-0123456789abcdef",
        room_factory=tables.room, voice_factory=tables.voice,
        routes=(page_routes, tables.routes, club_routes(site), tournament_routes(site)),
        member=site.member,
    )  # fmt: skip
    app = create_app(config)
    async with serve(app) as url, httpx.AsyncClient() as http:
        server = app.state.server
        server.config = replace(server.config, base_url=url)  # links carry the port picked
        yield Club(url=url, http=http)


async def new_page(context: BrowserContext, url: str) -> Page:
    page = await context.new_page()
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


async def test_players_follow_their_tournament_links_to_their_seats(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    contexts: list[BrowserContext] = []
    try:
        async with tournament_server(tmp_path) as club:
            # the roster (the club's admin page's, tested with the club), then the organiser's
            # page: the tournament, its seating, the players' links
            await club.call("settings", {"name": "Клуб «Ніч»", "language": "uk"})
            for nick in NICKS:
                await club.call("players", {"nick": nick})
            office = await browser.new_context(viewport={"width": 1300, "height": 900})
            contexts.append(office)
            organiser = await new_page(office, f"{club.url}/club/organiser")
            await organiser.fill("#organiser-key input[name=key]", ADMIN_KEY)
            await organiser.click("#organiser-key button")
            await organiser.fill("#tournament-new input[name=name]", "Зимовий кубок")
            await organiser.fill("#tournament-new input[name=tables]", "2")
            await organiser.fill("#tournament-new input[name=games]", "1")
            await organiser.click("#all-roster")
            await organiser.click("#tournament-new button[type=submit]")
            await organiser.wait_for_url("**/club/organiser/t1")
            tid = "t1"
            await organiser.click(".seat-stage")
            await organiser.wait_for_selector(".round[data-state=waiting]")
            await organiser.click("#issue-links")
            links = await wait_for(organiser, "window.__organiser?.links")
            assert len(links) == 20 and await organiser.locator("#links tr").count() == 20
            assert organiser.errors == []  # type: ignore[attr-defined]

            # every player opens his link (each his own browser) and waits for his round
            pages: dict[str, Page] = {}
            for link in links:
                context = await browser.new_context(viewport={"width": 900, "height": 700})
                contexts.append(context)
                pages[link["player"]] = await new_page(context, link["link"])
            for player, page in pages.items():
                await wait_for(page, "window.__tournament?.status === 'waiting'")
                assert "token" not in page.url and page.url.endswith(f"/tournaments/{tid}/play")
                text = await page.text_content("#tournament-me") or ""
                assert any(link["nick"] in text for link in links if link["player"] == player)

            # the judges' board: the admin key, no round yet
            bench = await browser.new_context(viewport={"width": 1300, "height": 900})
            contexts.append(bench)
            board = await new_page(bench, f"{club.url}/club/tournaments/{tid}/board")
            await board.fill("#board-key", ADMIN_KEY)
            await board.click("#board-login button")
            await board.wait_for_selector("#board-none")
            assert await board.text_content("h1") == "Дошка суддів"  # the club's language

            # the round starts: every page goes to its table and seat by itself
            await organiser.click(".round[data-round='0'] .start-round")
            started = await wait_for(organiser, "window.__organiser?.started")
            await organiser.wait_for_selector(".round[data-round='0'][data-state=playing]")
            seats = {player: (table["id"], n) for table in started["tables"]
                     for n, player in enumerate(table["seats"], 1)}  # fmt: skip
            assert sorted(seats) == sorted(pages)

            async def landed(player: str, page: Page) -> None:
                table, seat = seats[player]
                await page.wait_for_url(f"**/t/{table}/play")
                await wait_for(page, "window.__widget?.view?.you != null")
                assert await page.evaluate("window.__widget.view.you") == seat
                names = await page.evaluate("window.__widget.view.table.names")
                assert names[seat - 1] == next(k["nick"] for k in links if k["player"] == player)

            await asyncio.gather(*(landed(player, page) for player, page in pages.items()))
            for page in pages.values():
                assert "token" not in page.url and page.errors == []  # type: ignore[attr-defined]

            # the board: both tables, every player joined, the game still to be started
            for table in started["tables"]:
                card = f".board-table[data-table='{table['id']}']"
                await board.wait_for_selector(f"{card} .seat-joined >> nth=9")
                assert await board.locator(f"{card} .seat-missing").count() == 0
                assert await board.locator(f"{card} .decision").count() == 1
            # the chief judge begins: every table's game starts, none waits any more
            await board.click(".play-round")
            await wait_for(
                board,
                "document.querySelectorAll('.board-table').length === 2 && "
                "document.querySelectorAll('.board-table .decision').length === 0",
            )
            playing = "!['lobby', undefined].includes(window.__widget?.view?.phase)"
            for page in pages.values():
                await wait_for(page, playing)
            await screenshot(board, "tournament-board.png")
            first = started["tables"][0]["id"]
            async with bench.expect_page() as opened:
                await board.click(f".board-table[data-table='{first}'] button.console")
            console = await opened.value
            await console.wait_for_url(f"**/t/{first}/host")
            await wait_for(console, "window.__console?.view?.you === 'host'")
            assert board.errors == []  # type: ignore[attr-defined]

            # TODO(standings, issue 34): play both games to their end, have a judge sign each
            # sheet, and check the tournament's public standings page shows the results
            # (plugin/tournament/standings.py, the other helper's part). The tables' ids and
            # seats are in `started`; `club.call` is the organiser's REST client.
    finally:
        for context in contexts:
            await context.close()
