"""The end of the game in real Chromium (issue 17): a short game played to its end at a
table in Ukrainian; the player widget, the host console, the spectators' page and the
stream overlay each show the result, every seat's role, the timeline (the vote, the
night's kill, the checks, the fouls, the disqualifications) and protocol links that open
the sheet and the JSON; then the host's "next game" moves the player's page, the console
and the spectators to their seats at the new table, in its lobby, by themselves.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/end-screen.png.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from plugin.eventlog import log_opener
from plugin.host.inputs import (
    HOST,
    Disqualify,
    DonCheck,
    GiveFoul,
    Input,
    Next,
    Nominate,
    Pass,
    Sender,
    SheriffCheck,
    Shoot,
    Start,
    Vote,
)
from plugin.host.settings import TableSettings
from plugin.server.embedded import EmbeddedTables
from plugin.server.exports import protocol_routes
from plugin.signing import table_links
from plugin.web.app import ServerConfig, create_app
from plugin.web.pages import catalogue, page_routes
from testing import serve
from testing.browser import wait_for

from .test_widget import LONG_MS, ROLES, SLOW, Game, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NAMES = ["Оля", "Богдан", "Ірина", "Тарас", "Марко", "Соня", "Дмитро", "Єва", "Назар", "Леся"]


@contextlib.asynccontextmanager
async def finished_game_server(tmp_path: Path) -> AsyncIterator[Game]:
    """A server with the pages and the protocol's routes, one 10-seat table in its lobby."""
    tables = EmbeddedTables(voice=False)
    config = ServerConfig(
        db_path=tmp_path / "end.db",
        log=log_opener(tmp_path / "end.db"),
        admin_key="e2e-admin-key-0123456789",
        secret=b"e2e-secret-0123456789abcdef",
        room_factory=tables.room,
        voice_factory=tables.voice,
        routes=(page_routes, tables.routes, protocol_routes),
    )
    app = create_app(config)
    async with serve(app) as url:
        server = app.state.server
        settings = TableSettings(
            language="uk", seats=10, seed=1, roles=ROLES, overrides=SLOW, names=tuple(NAMES)
        )
        table = await server.registry.create(settings)
        links = table_links(server.signer, url, table.id, 10)
        yield Game(url=url, table=table, tables=tables, links=links)


async def play_to_the_end(game: Game) -> None:
    """Day 1: 1 nominates 3, 2 nominates 4, and 3 is voted out; night 1: the black team
    shoots 5, the don checks 2 (the sheriff), the sheriff checks 7 (the don); day 2: a
    foul to 6, then the don and both mafiosi are disqualified: the town wins."""
    table = game.table

    async def submit(sender: Sender, given: Input) -> None:
        verdict = await table.submit(sender, given)
        assert verdict.ok, (sender, given, verdict, table.state.phase)

    async def until(phase: str) -> None:
        for _ in range(200):
            if table.state.phase.value == phase:
                return
            state = table.state
            sender = HOST if state.timer or state.dialog or not state.speaker else state.speaker
            await submit(sender, Next() if sender == HOST else Pass())
        raise AssertionError(f"never reached {phase}: {table.state.phase}")

    await submit(HOST, Start())
    await until("speech")
    await submit(1, Nominate(target=3))
    await submit(1, Pass())
    await submit(2, Nominate(target=4))
    await until("voting")
    for seat in (1, 2, 4, 5, 6, 7, 8, 9, 10):
        if table.state.phase.value == "voting" and seat in table.state.voters:
            await submit(seat, Vote(candidate=3))
    await until("shot")
    for seat in (7, 8, 9):
        await submit(seat, Shoot(target=5))
    await until("don_check")
    await submit(7, DonCheck(target=2))
    await until("sheriff_check")
    await submit(2, SheriffCheck(target=7))
    await until("speech")
    await submit(HOST, GiveFoul(seat=6))
    for seat in (7, 8, 9):
        await submit(HOST, Disqualify(seat=seat))
    assert table.state.over and table.state.winner == "city"


async def open_link(browser: Browser, link: str, debug: str) -> Page:
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(link)
    await wait_for(page, f"window.{debug}?.view != null")
    return page


# The end screen as the page shows it: the texts of the result, the seats and the timeline.
END_JS = """() => {
  const end = document.getElementById('end');
  const text = (el) => el ? el.textContent.trim() : null;
  return {
    shown: Boolean(end && !end.hidden && end.checkVisibility()),
    winner: text(end.querySelector('.end-winner')),
    why: text(end.querySelector('.end-why')),
    roles: [...end.querySelectorAll('.end-seat')].map((row) =>
      [Number(row.dataset.seat), text(row.querySelector('.end-role'))]),
    timeline: [...end.querySelectorAll('.end-item')].map((row) => [row.dataset.kind,
      text(row.querySelector('.end-when')), text(row.querySelector('.end-what'))]),
    links: [...end.querySelectorAll('a.end-protocol')].map((a) => a.href),
  };
}"""

# What a protocol link opens: the page fetches its own blob: URL.
OPEN_LINK_JS = """async (href) => { const r = await fetch(href); return await r.text(); }"""


async def test_every_page_shows_the_end_and_the_next_game_moves_them(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    texts = catalogue("uk")
    async with finished_game_server(tmp_path) as game:
        pages = {
            "player": await open_link(browser, game.page_url(5), "__widget"),
            "console": await open_link(browser, game.page_url("host"), "__console"),
            "watch": await open_link(browser, game.links["watch"]["link"], "__watch"),
            "overlay": await open_link(browser, game.links["watch"]["overlay"], "__watch"),
        }
        for name, page in pages.items():  # before the end: no end screen anywhere
            assert not (await page.evaluate(END_JS))["shown"], name
        await play_to_the_end(game)
        ending = game.table.ending()
        assert ending is not None
        kinds = [item["kind"] for item in ending["timeline"]]
        for kind in ("vote", "killed", "don_check", "sheriff_check", "foul", "disqualified"):
            assert kind in kinds, (kind, kinds)

        for name, page in pages.items():
            await wait_for(
                page,
                "() => { const a = [...document.querySelectorAll('#end a.end-protocol')];"
                " return a.length === 2 && a.every((x) => x.href.startsWith('blob:')); }",
            )
            shown = await page.evaluate(END_JS)
            assert shown["shown"], name
            assert shown["winner"] == texts["winner.city"], name
            assert shown["why"] == texts["end.why.no_black_left"], name
            roles = dict(ROLES)
            assert shown["roles"] == [
                [seat, texts[f"role.{roles.get(seat, 'civilian')}"]] for seat in range(1, 11)
            ], name
            assert [kind for kind, _, _ in shown["timeline"]] == kinds, name
            night = texts["night"].replace("{n}", "1")
            assert ["killed", night, texts["end.event.killed"].replace("{seat}", "5")] in shown[
                "timeline"
            ], name
            sheriff = texts["end.event.sheriff_check.true"].replace("{target}", "7")
            assert ["sheriff_check", night, sheriff] in shown["timeline"], name
            sheet = await page.evaluate(OPEN_LINK_JS, shown["links"][0])
            assert "<html" in sheet and "Марко" in sheet, name  # the printable sheet
            record = json.loads(await page.evaluate(OPEN_LINK_JS, shown["links"][1]))
            assert record["table"] == game.table.id and record["outcome"]["winner"] == "city"
        player, console = pages["player"], pages["console"]
        await player.locator("#end").scroll_into_view_if_needed()
        await screenshot(player, "end-screen.png")
        # After the game the console leaves only the next game (and the exports).
        assert await console.is_visible("#next-game")
        for control in ("#next", "#pause", "#undo", "#end-game"):
            assert await console.is_disabled(control), control
        assert not await player.is_visible("#next-game")  # the host's only

        old = game.table.id
        await console.click("#next-game")
        for name, page in pages.items():
            await page.wait_for_url(lambda url: old not in url and "/t/" in url, timeout=LONG_MS)
            debug = {"player": "__widget", "console": "__console"}.get(name, "__watch")
            await wait_for(
                page,
                f"() => window.{debug}?.view?.table?.id"
                f" && window.{debug}.view.table.id !== {old!r}",
            )
            view = await page.evaluate(f"window.{debug}.view")
            assert view["phase"] == "lobby" and view["end"] is None, name
            assert view["table"]["names"] == NAMES, name
            assert "token" not in page.url and "#" not in page.url, name  # never in a URL
            assert not (await page.evaluate(END_JS))["shown"], name
        new = await player.evaluate("window.__widget.view.table.id")
        assert (await player.evaluate("window.__widget.view.me.seat")) == 5
        assert (await console.evaluate("window.__console.view.you")) == "host"
        assert (await pages["watch"].evaluate("window.__watch.view.you")) is None
        assert player.url.endswith(f"/t/{new}/play")
        # An old seat link opened later lands on its seat at the next game.
        late = await browser.new_page()
        late.errors = []  # type: ignore[attr-defined]
        late.on("pageerror", lambda error: late.errors.append(str(error)))  # type: ignore[attr-defined]
        await late.goto(game.page_url(3))  # the old table's: it moves on by itself
        await late.wait_for_url(f"**/t/{new}/play", timeout=LONG_MS)
        await wait_for(late, f"() => window.__widget?.view?.table?.id === {new!r}")
        assert (await late.evaluate("window.__widget.view.me.seat")) == 3
        pages["late"] = late
        for page in pages.values():
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
