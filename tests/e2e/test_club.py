"""The club in real Chromium (issue 33): the admin puts two players and a judge on the roster
from the club's admin page and issues their personal links; each player opens his link (his
browser is remembered) and then the table's invite link, and joins its lobby as himself,
without typing; the host seats them, the game is played to its end, the judge finds it on
his "me" page, fills the sheet (a bonus without a comment is refused and signs nothing) and
signs it; the standings and the player's page show the new points and rating; the admin's
correction moves them; the standings sort, print and export in the club's language; the judge
opens the next table's console from his page.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/club-sheet.png, club-standings.png and
club-player.png.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page

from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import log_opener
from plugin.host.settings import TableSettings
from plugin.server.embedded import EmbeddedTables
from plugin.server.exports import protocol_routes
from plugin.signing import table_links
from plugin.web.app import ServerConfig, create_app
from plugin.web.pages import page_routes
from testing import serve
from testing.browser import wait_for

from .test_endscreen import play_to_the_end
from .test_widget import LONG_MS, ROLES, SLOW, Game, open_page, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ADMIN_KEY = "e2e-admin-key-0123456789"


@contextlib.asynccontextmanager
async def club_server(tmp_path: Path) -> AsyncIterator[Game]:
    """A server with the club (its API, pages and lobby members) and one 10-seat table."""
    tables = EmbeddedTables(voice=False)
    site = ClubSite()
    config = ServerConfig(
        db_path=tmp_path / "club.db", log=log_opener(tmp_path / "club.db"),
        admin_key=ADMIN_KEY, secret=b"e2e-secret-0123456789abcdef",
        room_factory=tables.room, voice_factory=tables.voice,
        routes=(page_routes, tables.routes, protocol_routes, club_routes(site)),
        member=site.member,
    )  # fmt: skip
    app = create_app(config)
    async with serve(app) as url:
        server = app.state.server
        server.config = replace(server.config, base_url=url)  # links carry the port picked
        settings = TableSettings(language="uk", seats=10, seed=1, roles=ROLES, overrides=SLOW)
        table = await server.registry.create(settings)
        links = table_links(server.signer, url, table.id, 10)
        yield Game(url=url, table=table, tables=tables, links=links)


async def new_page(context: BrowserContext, url: str) -> Page:
    page = await context.new_page()
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


async def issue(admin: Page, nick: str, kind: str) -> str:
    """The admin issues `nick` a personal link of `kind` from the roster; the link shown."""
    row = admin.locator("#roster tr", has_text=nick)
    await row.locator("select").select_option(kind)
    await row.locator("button.issue-link").click()
    await wait_for(admin, f"window.__admin?.issued?.nick === {nick!r}")
    link = await admin.evaluate("window.__admin.issued.link")
    assert isinstance(link, str) and "/club/me#token=" in link
    await admin.evaluate("window.__admin.reload()")
    return link


async def standings_row(page: Page, nick: str) -> dict[str, str]:
    await page.wait_for_selector("#standings")
    cells = await page.evaluate(
        """(nick) => {
          const heads = [...document.querySelectorAll('#standings th')]
            .map((th) => th.dataset.key);
          const row = [...document.querySelectorAll('#standings tbody tr')]
            .find((tr) => tr.cells[1].textContent === nick);
          if (!row) return null;
          return Object.fromEntries(heads.map((k, i) => [k, row.cells[i].textContent]));
        }""",
        nick,
    )
    assert cells is not None, f"{nick} is not in the standings"
    return dict(cells)


async def test_players_join_a_judge_signs_and_the_standings_follow(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    contexts: list[BrowserContext] = []

    async def device() -> BrowserContext:
        context = await browser.new_context(viewport={"width": 1200, "height": 800})
        contexts.append(context)
        return context

    try:
        async with club_server(tmp_path) as game:
            # the admin's page: the machine's admin key, the roster, rights and links
            office = await device()
            admin = await new_page(office, f"{game.url}/club/admin")
            await admin.fill("#admin-key input[name=key]", ADMIN_KEY)
            await admin.click("#admin-key button")
            await admin.fill("#club-settings input[name=name]", "Клуб «Ніч»")
            await admin.select_option("#club-settings select[name=language]", "uk")
            assert await admin.evaluate("document.documentElement.lang") == "en"  # Chromium's
            await admin.click("#club-settings button")  # the pages' default language now
            await wait_for(admin, "document.documentElement.lang === 'uk'")
            assert "Клуб «Ніч»" in (await admin.text_content("#club-header") or "")
            await admin.wait_for_selector("#roster")
            for nick, city in (("Оля", "Київ"), ("Богдан", "Львів"), ("Ірина", "")):
                await admin.fill("#add-player input[name=nick]", nick)
                await admin.fill("#add-player input[name=city]", city)
                await admin.click("#add-player button[type=submit]")
                await admin.wait_for_selector(f"#roster tr:has-text('{nick}')")
            await admin.fill("#add-player input[name=nick]", "оля")  # taken, whatever the case
            await admin.click("#add-player button[type=submit]")
            await admin.wait_for_selector("#club-error:not([hidden])")
            assert len(await admin.evaluate("window.__admin.players")) == 3
            await admin.locator("#roster tr", has_text="Ірина").locator(".grant-judge").click()
            await admin.wait_for_selector("#roster tr:has-text('Ірина') .ungrant-judge")
            links = {nick: await issue(admin, nick, "player") for nick in ("Оля", "Богдан")}
            judge_link = await issue(admin, "Ірина", "judge")

            # each player opens his personal link, then the table's invite link: he joins
            # the lobby as himself, without typing a name
            players: dict[str, BrowserContext] = {}
            for nick in ("Оля", "Богдан"):
                players[nick] = await device()
                me = await new_page(players[nick], links[nick])
                await me.wait_for_selector("#me-player")
                assert nick in (await me.text_content("#me-player") or "")
                assert "token" not in me.url
                lobby = await new_page(players[nick], game.links["invite"]["link"])
                await wait_for(lobby, f"window.__lobby?.lobby?.me?.name === {nick!r}")
                assert await lobby.evaluate("window.__lobby.lobby.me.state") == "waiting"
                players[nick].lobby = lobby  # type: ignore[attr-defined]
            console = await open_page(browser, game, "host")
            await console.wait_for_selector("#seat-arrival")
            await console.click("#seat-arrival")  # Оля came first: seat 1, Богдан seat 2
            for nick, seat in (("Оля", 1), ("Богдан", 2)):
                page = players[nick].lobby  # type: ignore[attr-defined]
                await page.wait_for_url("**/play")
                await wait_for(page, "window.__widget?.view?.you != null")
                assert await page.evaluate("window.__widget.view.you") == seat
            assert game.table.settings.names[:2] == ("Оля", "Богдан")

            await play_to_the_end(game)  # the city wins; seat 1 (Оля, civilian) won
            await console.wait_for_selector("#end-sheet")  # the console links the sheet

            # the judge: his "me" page lists the finished game; he opens its sheet
            bench = await device()
            judge = await new_page(bench, judge_link)
            await judge.wait_for_selector(f"#me-judge a:has-text('{game.table.id}')")
            await judge.click(f"#me-judge a:has-text('{game.table.id}')")
            await judge.wait_for_selector("#sheet")
            assert await judge.evaluate("window.__sheet.draft.signed") is False
            seat_one = judge.locator("tr[data-seat='1']")
            await seat_one.locator(".add-bonus").click()
            await seat_one.locator(".bonus-points").fill("0.5")
            await judge.click("#sign")  # no comment: refused, nothing signed
            await judge.wait_for_selector("#club-error:not([hidden])")
            assert await judge.evaluate("window.__sheet.draft.signed") is False
            await seat_one.locator(".bonus-comment").fill("вела місто")
            await judge.click("#sign")
            await judge.wait_for_selector("#signed")
            await screenshot(judge, "club-sheet.png")

            # the standings and the player's page show the points and the rating
            reader = await device()
            table = await new_page(reader, f"{game.url}/club/standings")  # the club's: uk
            await table.wait_for_selector("#standings")
            assert (await table.text_content("h1")) == "Турнірна таблиця"
            olya = await standings_row(table, "Оля")
            assert (olya["main"], olya["extra"], olya["total"]) == ("1.00", "0.80", "1.80")
            bohdan = await standings_row(table, "Богдан")  # the sheriff: he won with her
            assert float(olya["rating"]) > 0 and olya["rating"] == bohdan["rating"]  # from 0
            await table.click("th[data-key=total]")  # sorted by total, highest first
            first = await table.text_content("#standings tbody tr:first-child td:nth-child(2)")
            assert first == "Оля"
            csv = await table.evaluate(
                "async () => (await fetch(document.getElementById('csv').href)).text()"
            )
            assert csv.splitlines()[0].startswith("rank,nick,games") and "Оля" in csv
            profile = await new_page(reader, f"{game.url}/club/players/p1?lang=en")
            await profile.wait_for_selector("#rating-chart circle")
            assert await profile.locator("#rating-chart circle").count() == 1
            assert await profile.text_content("#games tbody tr .points") == "1.80"
            assert await profile.locator("#roles tr[data-role=civilian]").count() == 1
            await screenshot(table, "club-standings.png")
            await screenshot(profile, "club-player.png")

            # the admin corrects the sheet with a reason: the standings follow
            await admin.evaluate("window.__admin.reload()")  # the key is this tab's: same tab
            await admin.click(f"#signed-games a:has-text('{game.table.id}')")
            fix = admin
            await fix.wait_for_selector("#correct")
            await fix.locator("tr[data-seat='1'] .bonus-points").fill("-0.5")
            await fix.locator("tr[data-seat='1'] .bonus-comment").fill("образила суддю")
            await fix.fill("#correct-reason", "відео гри")
            await fix.click("#correct")
            await fix.wait_for_selector("#history li:nth-child(2)")
            await table.evaluate("window.__standings.reload()")
            await wait_for(
                table,
                "window.__standings.document.rows.find((r) => r.nick === 'Оля').total === 0.8",
            )
            assert (await standings_row(table, "Оля"))["extra"] == "-0.20"
            # the judge hosts the next game: a new table, its console opens from his page
            await judge.goto(f"{game.url}/club/me")
            await judge.click("#new-table")
            await judge.wait_for_url("**/host")
            await wait_for(judge, "window.__console?.view != null")
            for page in (judge, table, profile, fix):
                assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts:
            await context.close()
