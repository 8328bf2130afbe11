"""The finish of issue 17 in real Chromium: every page speaks its table's language (every
visible text from that language's catalogue), the console disables what the table would
refuse (after the game nothing of the game remains), and a phone in portrait (375×812)
can nominate, pass and vote on tiles whose texts never overlap.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/console-after-the-game.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from plugin.host.inputs import HOST, EndGame, Next, Nominate, Pass, Start, Vote
from plugin.web.hub import Hub
from plugin.web.pages import catalogue
from testing.browser import wait_for

from .test_widget import Game, open_page, running_game, screenshot, wait_view

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Every text node the user can see (but code): its parent is rendered (not display:none, not
# visibility:hidden, not inside a hidden element) and takes room on the page.
VISIBLE_TEXTS_JS = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    // <code>: a path or a command, the same in every language (the landing page's).
    if (!text || !parent || ["SCRIPT", "STYLE", "CODE"].includes(parent.tagName)) continue;
    if (!parent.checkVisibility({ checkVisibilityCSS: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width > 0 && box.height > 0) found.push(text);
  }
  return found;
}"""

# What any language may show besides its catalogue: digits (seat numbers, tallies, the
# clock), punctuation and the pages' symbols (fouls ●, a pick ✓, a nomination →, ×).
NEUTRAL = re.compile(r"[\s\d.,:;!?()\[\]«»\"'…●✓→×·—–\-+/]*")


def _pattern(template: str) -> str:
    """A catalogue value as a regex: its {parameters} stand for any short text."""
    parts = re.split(r"\{\w+\}", template)
    return r"[^·]{1,40}?".join(re.escape(part) for part in parts)


def foreign_texts(texts: Iterable[str], language: str, names: Iterable[str] = ()) -> list[str]:
    """The texts that are not made of `language`'s catalogue values (after substitution),
    the players' names, digits and punctuation: what a page shows in another language."""
    texts_of = catalogue(language).values()
    # A parameter may be an element of its own (the landing page's <code>autohost demo</code>),
    # which splits the value's text node at it: its literal parts are the catalogue's too.
    pieces = {p.strip(" :") for v in texts_of if "{" in v for p in re.split(r"\{\w+\}", v)}
    values = sorted(
        {v for v in texts_of if v.strip()} | {p for p in pieces if len(p) > 2},
        key=len,
        reverse=True,
    )
    words = [*(_pattern(v) for v in values), *(re.escape(n) for n in names if n)]
    # Whole words only: a short value ("ви") must not eat the middle of a foreign word.
    known = re.compile("|".join(rf"(?<!\w)(?:{w})(?!\w)" for w in words))
    return [text for text in texts if not NEUTRAL.fullmatch(known.sub(" ", text))]


def test_the_check_finds_english_on_a_ukrainian_page() -> None:
    """The check can fail: "no video" on a Ukrainian page is what issue 17 found."""
    assert foreign_texts(["no video", "Голосувати", "3", "Чекаємо ще 7"], "uk") == ["no video"]
    assert foreign_texts(["Vote"], "ru") == ["Vote"]
    assert foreign_texts(["Голосувати · 2", "Шериф"], "uk") == []
    assert foreign_texts(["Anna (ви)"], "uk", names=["Anna"]) == []


async def assert_speaks(page: Page, language: str, where: str) -> None:
    texts: list[str] = await page.evaluate(VISIBLE_TEXTS_JS)
    assert texts, where
    assert foreign_texts(texts, language) == [], (where, language)
    title = await page.title()
    assert foreign_texts([title], language) == [], (where, title)


async def synced(game: Game, pages: Iterable[Page]) -> None:
    """Every page shows the table's latest state (by its public version: the pages' own,
    the console's `table.public`; plugin/web/rhythm.py)."""
    hub = game.table.hub
    assert isinstance(hub, Hub)
    for page in pages:
        await wait_for(
            page,
            "(version) => { const p = window.__widget || window.__console || window.__watch;"
            " const t = p && p.view && p.view.table;"
            " return Boolean(t && (t.public ?? t.version) >= version); }",
            arg=hub.public_version(game.table.id),
        )


async def advance_to(game: Game, phase: str) -> None:
    """The host's next step (or the speaker's pass where a speech waits) until `phase`."""
    while game.table.state.phase.value != phase:
        state = game.table.state
        sender, given = (HOST, Next()) if state.timer or state.dialog else (state.speaker, Pass())
        await game.submit(sender or HOST, given)


async def _speeches(game: Game) -> None:
    await game.submit(HOST, Start())
    while game.table.state.phase.value != "speech":
        await game.submit(HOST, Next())


@pytest.mark.parametrize("language", ["uk", "ru", "en"])
async def test_every_page_speaks_the_tables_language(
    browser: Browser, loopback_ice: None, tmp_path: Path, language: str
) -> None:
    async with running_game(tmp_path, voice=False, language=language) as game:
        landing = await browser.new_page()
        await landing.goto(f"{game.url}/?lang={language}")
        await assert_speaks(landing, language, "landing")

        console = await open_page(browser, game, "host")
        # 1 speaks first and nominates; 2 is the sheriff, 7 the don (ROLES in test_widget).
        pages: dict[int | str, Page] = {
            seat: await open_page(browser, game, seat) for seat in (1, 2, 7)
        }
        for kind in ("link", "overlay"):  # the spectators' page and the stream overlay
            pages[f"watch {kind}"] = watch = await browser.new_page()
            await watch.goto(game.links["watch"][kind])
            await wait_for(watch, "window.__watch?.view != null")
        everyone = [console, *pages.values()]

        async def check(where: str) -> None:
            await synced(game, everyone)
            for name, page in (("console", console), *pages.items()):
                await assert_speaks(page, language, f"{where}, page {name}")

        await check("lobby")
        await game.submit(HOST, Start())
        await check("black meeting")
        while game.table.state.phase.value != "speech":
            await game.submit(HOST, Next())
        await check("speech")  # seat 1: nominate buttons and pass
        await game.submit(1, Nominate(target=3))
        await game.submit(1, Pass())
        await game.submit(2, Nominate(target=4))  # one candidate on day 1 is no vote
        await advance_to(game, "voting")
        await game.submit(2, Vote(candidate=3))
        await check("voting")  # tallies, the vote card
        await advance_to(game, "shot")
        await check("night")  # the don's shoot buttons
        await game.submit(HOST, EndGame(winner="city"))
        await check("over")  # every role, the winner


async def test_after_the_game_the_console_offers_nothing_of_the_game(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    async with running_game(tmp_path, voice=False, language="en") as game:
        console = await open_page(browser, game, "host")
        # The lobby: the next step starts the game; nothing else of a game runs yet.
        assert not await console.is_disabled("#next")
        for control in ("#pause", "#undo", "#end-speech", "#add-time"):
            assert await console.is_disabled(control), control
        await _speeches(game)
        await synced(game, [console])
        for control in ("#next", "#pause", "#undo", "#end-speech", "#end-game"):
            assert not await console.is_disabled(control), control
        assert await console.locator('.tile[data-seat="4"] .foul-btn').count() == 1

        await game.submit(HOST, EndGame(winner="mafia"))
        await wait_view(console, "v.over === true")
        disabled = await console.evaluate(
            """() => [...document.querySelectorAll('.toolbar button, #manual')]
                 .filter((b) => !b.hidden).map((b) => [b.id, b.disabled])"""
        )
        assert disabled and all(off for _, off in disabled), disabled
        assert await console.locator(".tile-btn").count() == 0
        await console.keyboard.press("Space")  # the space bar sends nothing either
        version = game.table.version
        assert (await console.evaluate("window.__console.view.table.version")) == version
        await screenshot(console, "console-after-the-game.png")
        assert console.errors == []  # type: ignore[attr-defined]


# --- a phone in portrait ---------------------------------------------------------------

PHONE = {"width": 375, "height": 812}

# The boxes of what a tile shows, and of every button the page shows, in page coordinates.
BOXES_JS = """() => {
  // A button or a tally: its own box (its background shows); any other text: the text's.
  const box = (el) => {
    let r = el.getBoundingClientRect();
    if (!el.matches('.tally, .tile-btn')) {
      const range = document.createRange();
      range.selectNodeContents(el);
      r = range.getBoundingClientRect();
    }
    return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; };
  const shown = (el) => el.checkVisibility({ checkVisibilityCSS: true }) &&
    el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().height > 0;
  const tiles = [...document.querySelectorAll('.tile')].map((tile) => ({
    seat: tile.dataset.seat,
    box: box(tile),
    parts: [...tile.querySelectorAll(
      '.num, .name, .role-tag, .countdown, .tally, .label, .fouls, .tile-btn, .video-status')]
      .filter((el) => shown(el) && (el.textContent.trim() || el.matches('.tally, .tile-btn')))
      .map((el) => ({what: el.className, text: el.textContent.trim(), box: box(el)})),
  }));
  return { tiles, width: document.documentElement.clientWidth };
}"""

# A button is clickable when the point at its centre hits the button itself.
CLICKABLE_JS = """(selector) => [...document.querySelectorAll(selector)].map((b) => {
  b.scrollIntoView({block: 'center'});
  const r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(hit && (hit === b || b.contains(hit))) && r.right <= innerWidth && r.left >= 0;
})"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"] - 0.5
        and b["x"] < a["x"] + a["w"] - 0.5
        and a["y"] < b["y"] + b["h"] - 0.5
        and b["y"] < a["y"] + a["h"] - 0.5
    )


def _inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + 0.5
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + 0.5
    )


async def assert_laid_out(page: Page, where: str) -> None:
    """No two texts or buttons of a tile overlap, each lies inside its tile, the tiles do
    not overlap and nothing is wider than the phone."""
    found: dict[str, Any] = await page.evaluate(BOXES_JS)
    tiles = found["tiles"]
    assert len(tiles) == 10, where
    for i, tile in enumerate(tiles):
        assert tile["box"]["x"] + tile["box"]["w"] <= found["width"] + 0.5, (where, tile)
        for other in tiles[i + 1 :]:
            assert not _overlap(tile["box"], other["box"]), (where, tile["seat"], other["seat"])
        parts = tile["parts"]
        for j, part in enumerate(parts):
            assert _inside(part["box"], tile["box"]), (where, tile["seat"], part)
            for other in parts[j + 1 :]:
                assert not _overlap(part["box"], other["box"]), (where, tile["seat"], part, other)


async def assert_clickable(page: Page, selector: str) -> None:
    hits: list[bool] = await page.evaluate(CLICKABLE_JS, selector)
    assert hits and all(hits), (selector, hits)


async def test_a_phone_in_portrait_nominates_passes_and_votes(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    async with running_game(tmp_path, voice=False) as game:
        context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        phones: dict[int, Page] = {}
        errors: list[str] = []
        for seat in (1, 5):
            page = await context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(game.page_url(seat))
            await wait_for(page, "window.__widget?.view != null")
            phones[seat] = page
        await _speeches(game)
        one = phones[1]
        await wait_view(one, "v.me.may_nominate === true")
        await assert_laid_out(one, "speech")
        await assert_clickable(one, ".nominate-btn")
        await assert_clickable(one, ".pass-btn")
        await one.tap('.tile[data-seat="3"] .nominate-btn')
        await wait_view(one, "v.nominations.length === 1")
        assert list(game.table.state.days[-1].nominations) == [(1, 3)]
        await one.tap(".pass-btn")
        await wait_view(one, "v.speaker === 2")

        await game.submit(2, Nominate(target=4))
        while game.table.state.phase.value == "speech":
            await game.submit(game.table.state.speaker, Pass())
        while game.table.state.phase.value != "voting":
            await game.submit(HOST, Next())
        five = phones[5]
        await wait_view(five, "v.vote && v.vote.round && v.vote.round.open && v.me.can_vote")
        for seat in (1, 2, 6):
            await game.submit(seat, Vote(candidate=3))
        await wait_view(five, "v.vote.round.tally['3'] === 3")
        await assert_laid_out(five, "voting")  # the tallies beside the vote buttons
        await assert_clickable(five, ".vote-btn")
        await five.tap('.tile[data-seat="4"] .vote-btn')
        await wait_view(five, "v.vote.round.tally['4'] === 1")
        assert game.table.state.vote is not None
        assert 5 not in game.table.state.voters  # his ballot is in
        assert errors == []
        await context.close()
