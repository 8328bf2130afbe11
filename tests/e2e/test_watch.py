"""The spectators' page and the stream overlay in real Chromium (issue 17): the watch link
follows a vote as it happens (the candidates, the tallies, the result), names no role
until the game is over, and whatever it sends is refused by the server.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/watch-vote.png and overlay-vote.png.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from plugin.host.commands import HOST

from .test_finish import advance_to
from .test_widget import LONG_MS, SCREENSHOTS, Game, running_game, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROLE_WORDS = ("Шериф", "Дон", "Мафія", "Мирний")  # the Ukrainian table's role names


async def open_watch(browser: Browser, game: Game, kind: str = "link") -> Page:
    """The watch page (or, kind="overlay", the stream overlay) once it shows the table."""
    page = await browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(game.links["watch"][kind])
    await page.wait_for_function("window.__watch?.view != null")
    return page


async def until(page: Page, condition: str) -> None:
    """Wait until `condition` (JS, `v` the watch page's view) holds."""
    await page.wait_for_function(
        f"(() => {{ const v = window.__watch.view; return Boolean(v && ({condition})); }})()"
    )


async def tally(page: Page, seat: int) -> str | None:
    return await page.text_content(f'.tile[data-seat="{seat}"] .tally')


async def test_the_watch_page_follows_a_vote_and_names_no_role(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    async with running_game(tmp_path, voice=False) as game:
        watch = await open_watch(browser, game)
        overlay = await open_watch(browser, game, "overlay")
        assert await watch.title() == "Мафія: глядач"
        assert await watch.text_content("#watching") == "глядач"
        # OBS shows the stream through it: nothing paints a background, not even the canvas
        # (a dark color-scheme on the root would).
        painted = await overlay.evaluate(
            """() => [document.documentElement, document.body].map((el) => {
                 const style = getComputedStyle(el);
                 return [style.backgroundColor, style.colorScheme];
               })"""
        )
        assert painted == [["rgba(0, 0, 0, 0)", "normal"], ["rgba(0, 0, 0, 0)", "normal"]]

        await game.submit(HOST, "start")
        await advance_to(game, "speech")
        await until(watch, "v.speaking.speaker === 1")
        assert "speaking" in (await watch.get_attribute('.tile[data-seat="1"]', "class") or "")
        assert (await watch.text_content('.tile[data-seat="1"] .countdown') or "").strip()
        await game.submit(1, "nominate", target=3)
        await until(watch, "v.nominations.length === 1")
        assert "1 → 3" in (await watch.text_content("#vote-info") or "")
        await game.submit(1, "pass")
        await game.submit(2, "nominate", target=4)
        await advance_to(game, "voting")

        # The vote as it happens: each ballot moves a tally on every spectator's page.
        await until(watch, "v.vote && v.vote.round && v.vote.round.open")
        assert await tally(watch, 3) == "0" and await tally(watch, 4) == "0"
        for voter in (1, 2, 5, 6, 7, 8):
            await game.submit(voter, "vote", candidate=3)
        await until(watch, "v.vote.round.tally['3'] === 6")
        await until(overlay, "v.vote.round.tally['3'] === 6")
        assert await tally(watch, 3) == "6"
        assert "3: 6 · 4: 0" in (await watch.text_content("#vote-info") or "")
        await screenshot(watch, "watch-vote.png")
        if os.environ.get("AUTOHOST_SCREENSHOTS"):
            await overlay.screenshot(
                path=str(SCREENSHOTS / "overlay-vote.png"), omit_background=True
            )
        for voter in (3, 9, 10):
            await game.submit(voter, "vote", candidate=4)
        await game.submit(HOST, "next")  # the round closes: 6 against 3
        await until(watch, "v.vote && v.vote.eliminated && v.vote.eliminated.includes(3)")
        assert await watch.text_content('.tile[data-seat="3"] .label') == "вибуває"

        # Nothing a spectator sends counts: the server refuses it, the table does not move.
        version = game.table.version
        await watch.evaluate("window.__watch.socket.send('vote', {candidate: 4})")
        await watch.evaluate("window.__watch.socket.send('pass')")
        await watch.wait_for_selector("#toast:not([hidden])")
        assert "глядачі дивляться" in (await watch.text_content("#toast") or "")
        assert game.table.version == version

        body = await watch.text_content("body") or ""
        assert not any(word in body for word in ROLE_WORDS), body
        await game.submit(HOST, "end_game", winner="city")
        await until(watch, "v.over === true")
        body = await watch.text_content("#tiles") or ""
        assert "Шериф" in body and "Дон" in body  # the end: every role, for everyone
        assert "Перемога міста" in (await watch.text_content("#phase") or "")
        assert watch.errors == [] and overlay.errors == []  # type: ignore[attr-defined]
