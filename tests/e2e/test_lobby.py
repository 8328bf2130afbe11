"""From the invite link to the seat in real Chromium (issue 17): two players open the one
invite link and type their names, the host seats them from the console (one by hand, one at
random), and each page moves to its seat on its own, with the names on the tiles. A reload
and a return on the same device keep the seat; a second device waits for the host's
approval and gets in once he approves.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/lobby.png (the lobby with three
players waiting) and console-lobby.png (the console's lobby panel).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page

from plugin.web.pages import catalogue
from testing.browser import wait_for

from .test_finish import VISIBLE_TEXTS_JS, foreign_texts
from .test_widget import LONG_MS, Game, open_page, running_game, screenshot, wait_view

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def join(device: BrowserContext, game: Game, name: str) -> Page:
    """A player's page on the invite link, on `device` (a browser context: its own
    localStorage), with his name typed and sent."""
    page = await device.new_page()
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(game.links["invite"]["link"])
    await page.wait_for_selector("#join:not([hidden])")
    assert "token" not in page.url  # the page dropped its token from the address bar
    await page.fill("#name", name)
    await page.click("#join-button")
    return page


async def seat_of(page: Page) -> int:
    """Once the page moved to its seat: the seat its widget shows."""
    await page.wait_for_url("**/play", timeout=LONG_MS)
    await wait_for(page, "window.__widget?.view?.you != null")
    seat = await page.evaluate("window.__widget.view.you")
    assert isinstance(seat, int)
    return seat


async def tile_name(page: Page, seat: int) -> str:
    return (await page.text_content(f'.tile[data-seat="{seat}"] .name') or "").strip()


async def test_players_go_from_the_invite_link_to_their_seats(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    devices: list[BrowserContext] = []

    async def device() -> BrowserContext:
        context = await browser.new_context(viewport={"width": 900, "height": 720})
        devices.append(context)
        return context

    try:
        async with running_game(tmp_path, voice=False) as game:
            console = await open_page(browser, game, "host")
            await console.wait_for_selector("#invite-link")
            shown = await console.input_value("#invite-link")
            assert shown.startswith(f"{game.url}/t/{game.table.id}/join#token=")

            anna = await join(await device(), game, "  Анна ")
            bohdan = await join(await device(), game, "Богдан")
            oksana = await join(await device(), game, "<b>Оксана</b>")
            for page in (anna, bohdan, oksana):
                await wait_for(page, "document.querySelectorAll('#waiting li').length === 3")
            assert (
                await anna.text_content("#status")
                == "Анна, ви в лобі: ведучий скоро посадить вас за стіл."
            )
            waiting = await oksana.eval_on_selector_all(
                "#waiting li", "items => items.map(i => i.textContent)"
            )
            assert waiting == ["Анна", "Богдан", "<b>Оксана</b>"]  # HTML stays text
            assert await oksana.locator("#waiting b").count() == 0
            assert await oksana.get_attribute("#waiting li:nth-child(3)", "class") == "me"
            await screenshot(anna, "lobby.png")

            # Oksana leaves; the console lists the two who wait.
            await oksana.click("#leave")
            await oksana.wait_for_selector("#join:not([hidden])")
            await wait_for(console, "document.querySelectorAll('#lobby-entries li').length === 2")

            await screenshot(console, "console-lobby.png")
            names = ["Анна", "Богдан", "<b>Оксана</b>"]
            for page in (anna, console):  # every text from the Ukrainian catalogue
                assert foreign_texts(await page.evaluate(VISIBLE_TEXTS_JS), "uk", names) == []

            # Anna by hand, to seat 5: her page moves to her seat on its own.
            row = console.locator("#lobby-entries li", has_text="Анна")
            await row.locator("select").select_option("5")
            await row.locator(".lobby-seat-one").click()
            assert await seat_of(anna) == 5
            # Bohdan at random.
            await console.click("#seat-random")
            bohdan_seat = await seat_of(bohdan)
            assert bohdan_seat != 5
            await wait_for(console, "document.querySelectorAll('#lobby-entries li').length === 0")

            # The names are on every page's tiles (and "you" on one's own).
            for page in (anna, bohdan):
                await wait_view(
                    page,
                    f"v.table.names[4] === 'Анна' && v.table.names[{bohdan_seat - 1}] === 'Богдан'",
                )
            assert await tile_name(anna, 5) == "Анна (ви)"
            assert await tile_name(anna, bohdan_seat) == "Богдан"
            assert await tile_name(bohdan, bohdan_seat) == "Богдан (ви)"
            await wait_view(console, "v.table.names[4] === 'Анна'")
            assert await tile_name(console, 5) == "Анна"

            # A reload keeps the seat; so does coming back to the invite link on the same device.
            await anna.reload()
            assert await seat_of(anna) == 5
            back = await anna.context.new_page()
            back.set_default_timeout(LONG_MS)
            await back.goto(game.links["invite"]["link"])
            assert await seat_of(back) == 5

            # Her phone (another device) types her name: it waits, seeing nothing of the seat...
            phone = await join(await device(), game, "анна")
            await wait_for(
                phone, "document.querySelector('#status').textContent.includes('дозвіл')"
            )
            stored = await phone.evaluate("JSON.stringify(Object.entries(sessionStorage))")
            assert "/play" not in stored and phone.url.endswith("/join")
            # ...until the host lets it in from the console.
            await console.wait_for_selector("#lobby-requests .lobby-approve")
            assert "Анна" in (await console.text_content("#lobby-requests") or "")
            await console.click("#lobby-requests .lobby-approve")
            assert await seat_of(phone) == 5

            for page in (console, anna, bohdan, oksana, phone):
                assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        for context in devices:
            await context.close()


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_lobby_speaks_the_tables_language(
    browser: Browser, loopback_ice: None, tmp_path: Path, language: str
) -> None:
    context = await browser.new_context()
    try:
        async with running_game(tmp_path, language=language, voice=False) as game:
            page = await join(context, game, "Zoe")
            await wait_for(page, "document.querySelectorAll('#waiting li').length === 1")
            assert foreign_texts(await page.evaluate(VISIBLE_TEXTS_JS), language, ["Zoe"]) == []
            # a refusal in the page's language too (the form shown again by hand)
            await page.evaluate("document.querySelector('#join').hidden = false")
            await page.fill("#name", "x")
            await page.click("#join-button")
            await page.wait_for_selector("#lobby-error:not([hidden])")
            error = await page.text_content("#lobby-error")
            assert error == catalogue(language)["refusal.already_joined"]
            assert page.errors == []  # type: ignore[attr-defined]
    finally:
        await context.close()


async def test_the_host_unseats_removes_and_clears_from_the_console(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    """Issue 31: the console's buttons take a seated player off his seat (his seat's link
    is re-issued), remove a player, and clear the lobby; each player's device is told."""
    contexts = [await browser.new_context() for _ in range(2)]
    try:
        async with running_game(tmp_path, voice=False) as game:
            console = await open_page(browser, game, "host")
            anna = await join(contexts[0], game, "Анна")
            bohdan = await join(contexts[1], game, "Богдан")
            entries = "document.querySelectorAll('#lobby-entries li').length"
            await wait_for(console, f"{entries} === 2")
            row = console.locator("#lobby-entries li", has_text="Анна")
            await row.locator("select").select_option("4")
            await row.locator(".lobby-seat-one").click()
            assert await seat_of(anna) == 4
            old = game.table.generations.get(4, 0)
            await console.click("#lobby-seated .lobby-unseat")
            await wait_for(console, f"{entries} === 2")
            assert game.table.generations.get(4, 0) == old + 1  # her seat's link is new
            await (
                console.locator("#lobby-entries li", has_text="Анна")
                .locator(".lobby-remove")
                .click()
            )
            await wait_for(console, f"{entries} === 1")
            sockets: list[str] = []  # the lobby sockets Bohdan's page opens from now on
            bohdan.on("websocket", lambda ws: sockets.append(ws.url))
            await console.click("#lobby-clear")
            await wait_for(console, f"{entries} === 0")
            message = catalogue("uk")["refusal.removed"]
            await wait_for(
                bohdan,
                "(text) => document.querySelector('#lobby-error').textContent === text",
                arg=message,
            )
            # The close is final (4423): the page stays out, it does not come back as a
            # newcomer (it did, reconnecting after 250 ms with its join form).
            await wait_for(bohdan, "document.querySelector('#conn').dataset.status === 'refused'")
            await bohdan.wait_for_timeout(2000)  # several reconnects' worth of backoff
            assert sockets == [], sockets
            assert await bohdan.is_hidden("#join") and await bohdan.is_hidden("#leave")
            assert console.errors == [] and bohdan.errors == []  # type: ignore[attr-defined]
    finally:
        for context in contexts:
            await context.close()
