"""The player widget in real Chromium: four player pages and the host console at one table
with the embedded room and the real voice (espeak-ng).

One game is played through the pages' buttons: the bot's voice reaches every page; a
speaker is heard during his turn and not after it (in the pages and by the server's
forwarding counters); nominations, a vote that ties (seed 004: the tied tiles outlined in
yellow while the round is open, no "eliminated" label on the tie), the live host's tie
dialog in manual mode (closing it takes the default), the revote and the "eliminated"
label after it. A page whose socket drops reconnects and gets the state back.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/widget-tie.png and console-tie.png.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from plugin.eventlog import log_opener
from plugin.host.inputs import HOST, Input, Sender, Start, Vote
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.paths import ROOT
from plugin.server.embedded import EmbeddedTables
from plugin.signing import table_links
from plugin.web.app import ServerConfig, create_app
from plugin.web.pages import page_routes
from testing import serve
from testing.browser import wait_for

from .harness import wait_for_audio, wait_for_quiet

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SCREENSHOTS = ROOT / "docs" / "screenshots"
HEARD = 0.01  # RMS (1.0 full scale), as in test_media.py
SILENT = 0.002
YELLOW = "rgb(250, 204, 21)"  # --tie in widget.css
# Seat 2 is the sheriff: his page alone may say so. Pages 1, 3, 4 are civilians.
ROLES = {2: "sheriff", 7: "don", 8: "mafia", 9: "mafia"}
# Long timers: the test moves the game on with the host's `next`, never by waiting.
LONG_MS = 90_000
SLOW = {
    "speech_seconds": 300,
    "defense_seconds": 300,
    "last_word_seconds": 300,
    "simultaneous_window_seconds": 300,
    "black_meeting_seconds": 300,
    "intro_seconds": 300,
    "revote_pause_seconds": 300,
}


# The harness's level meter (window.__audioMeters[name].peak), following the page's media
# connection: the page reconnects its audio by itself when the connection drops (on a
# starved machine ICE consent can lapse), and announces each connection with a "room" event.
_FOLLOWING_METER_JS = """
(name) => {
  window.__audioMeters = window.__audioMeters || {};
  const meter = { peak: 0, last: 0, reads: 0 };
  window.__audioMeters[name] = meter;
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  let source = null;
  const element = new Audio();
  element.muted = true;
  const attach = (room) => {
    if (source) source.disconnect();
    source = context.createMediaStreamSource(room.remoteStream);
    source.connect(analyser);
    element.srcObject = room.remoteStream;
    element.play().catch(() => {});
  };
  attach(window.__room);
  document.addEventListener("room", (event) => attach(event.detail));
  const buffer = new Float32Array(analyser.fftSize);
  setInterval(() => {
    analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const v of buffer) sum += v * v;
    meter.last = Math.sqrt(sum / buffer.length);
    meter.peak = Math.max(meter.peak, meter.last);
    meter.reads += 1;
  }, 20);
  context.resume();
}
"""


async def start_following_meter(page: Page, name: str) -> None:
    await wait_for(page, "window.__room != null", timeout=LONG_MS)
    await page.evaluate(_FOLLOWING_METER_JS, name)


@dataclass
class Game:
    url: str
    table: Table
    tables: EmbeddedTables
    links: dict[str, Any]

    def page_url(self, seat: int | str) -> str:
        link: str = (
            self.links["host"]["link"] if seat == "host" else self.links["seats"][seat - 1]["link"]
        )  # type: ignore[operator]
        return link

    @property
    def room(self) -> Any:
        return self.tables.rooms[self.table.id]

    async def submit(self, sender: Sender, given: Input) -> None:
        verdict = await self.table.submit(sender, given)
        assert verdict.ok, (sender, given, verdict)


@contextlib.asynccontextmanager
async def running_game(
    tmp_path: Path, *, language: str = "uk", voice: bool = True, manual: bool = False
) -> AsyncIterator[Game]:
    """A server on a free port with one 10-seat table in its lobby (embedded room, voice)."""
    tables = EmbeddedTables(voice=voice)
    config = ServerConfig(
        db_path=tmp_path / "e2e.db",
        log=log_opener(tmp_path / "e2e.db"),
        admin_key="e2e-admin-key-0123456789",
        secret=b"e2e-secret-0123456789abcdef",
        room_factory=tables.room,
        voice_factory=tables.voice,
        routes=(page_routes, tables.routes),
    )
    app = create_app(config)
    async with serve(app) as url:
        server = app.state.server
        settings = TableSettings(
            language=language, seats=10, seed=1, roles=ROLES, overrides=SLOW, manual=manual
        )
        table = await server.registry.create(settings)
        links = table_links(server.signer, url, table.id, 10)
        yield Game(url=url, table=table, tables=tables, links=links)


async def open_page(browser: Browser, game: Game, seat: int | str) -> Page:
    """A page of `seat` (or "host"), once it shows the table's state."""
    page = await browser.new_page(viewport={"width": 1280, "height": 760})
    # Generous: this machine is shared, and a starved Chromium is slow, never wrong.
    page.set_default_timeout(LONG_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(game.page_url(seat))
    await wait_for(page, "(window.__widget || window.__console)?.view != null")
    return page


def view_of(page: Page) -> str:
    return "(window.__widget || window.__console).view"


async def wait_view(page: Page, condition: str, timeout: float = LONG_MS) -> None:
    """Wait until `condition` (JS, with `v` the page's current view) holds."""
    await wait_for(
        page,
        f"(() => {{ const v = {view_of(page)}; return Boolean(v && ({condition})); }})()",
        timeout=timeout,
    )


async def host_next(game: Game, console: Page) -> None:
    """The host's one key (the space bar), then wait for the table to move on."""
    before = game.table.version
    await console.keyboard.press("Space")
    async with asyncio.timeout(60):
        while game.table.version == before:
            await asyncio.sleep(0.02)
    await wait_view(console, f"v.table.version >= {game.table.version}")


async def wait_phase(game: Game, phase: str, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while game.table.state.phase.value != phase:
            await asyncio.sleep(0.02)


async def wait_voice_idle(game: Game) -> None:
    # The host clicks through the night in a second; the bot then says every phrase it
    # queued, in real time (about 30 s), and slower when the machine is loaded: its clock
    # resyncs after each stall of the loop, so a full CI run once needed over 60 s.
    async with asyncio.timeout(180):
        while not game.table.voice.idle:  # type: ignore[attr-defined]
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # the last frames are still on their way to the pages


async def tile_state(page: Page, seat: int) -> dict[str, Any]:
    return await page.evaluate(
        """(seat) => {
          const tile = document.querySelector(`.tile[data-seat="${seat}"]`);
          const style = getComputedStyle(tile);
          return {
            classes: [...tile.classList],
            outline: style.outlineStyle === "none" ? null : style.outlineColor,
            label: tile.querySelector(".label").textContent,
            tally: tile.querySelector(".tally").textContent,
            buttons: [...tile.querySelectorAll(".tile-btn")].map((b) => b.className),
          };
        }""",
        seat,
    )


async def click_tile_button(page: Page, seat: int, kind: str) -> None:
    await page.click(f'.tile[data-seat="{seat}"] .{kind}')


async def screenshot(page: Page, name: str) -> None:
    if os.environ.get("AUTOHOST_SCREENSHOTS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(SCREENSHOTS / name))


async def test_a_game_through_the_widget_and_the_console(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    async with running_game(tmp_path) as game:
        console = await open_page(browser, game, "host")
        pages = {seat: await open_page(browser, game, seat) for seat in (1, 2, 3, 4)}

        # Each page shows its own role, in the table's language, and nobody else's.
        assert await pages[2].text_content("#role") == "Шериф"
        for seat in (1, 3, 4):
            assert await pages[seat].text_content("#role") == "Мирний"
            assert "Шериф" not in (await pages[seat].text_content("#tiles") or "")
        assert "Дон" in (await console.text_content("#tiles") or "")

        # Every page joined the room; the host mutes his own (beeping, fake) microphone.
        for page in [*pages.values(), console]:
            await start_following_meter(page, "table")
        await console.click("#host-mic")
        async with asyncio.timeout(60):
            while len(game.room.present) < 4:
                await asyncio.sleep(0.05)

        # The host starts the game: the bot's voice is heard in every page.
        await host_next(game, console)
        assert game.table.state.phase.value == "black_meeting"
        for page in [*pages.values(), console]:
            await wait_for_audio(page, "table", above=HEARD, timeout=60)
        while game.table.state.phase.value != "speech":
            await host_next(game, console)
        assert game.table.state.speaker == 1

        # Seat 1 speaks: his page offers Pass and a Nominate button on every other tile.
        await wait_view(pages[1], "v.speaker === 1 && v.me.may_nominate")
        assert "nominate-btn" not in " ".join((await tile_state(pages[1], 1))["buttons"])
        assert "tile-btn nominate-btn" in (await tile_state(pages[1], 3))["buttons"]
        assert (await tile_state(pages[2], 3))["buttons"] == []  # not his speech
        await click_tile_button(pages[1], 3, "nominate-btn")
        await wait_view(pages[4], "v.nominations.some(([by, t]) => by === 1 && t === 3)")

        # His microphone reaches the others (the bot has finished talking meanwhile).
        await wait_voice_idle(game)
        for seat in (2, 3, 4):
            await wait_for_audio(pages[seat], "table", above=HEARD, timeout=60)
        assert 1 in game.room.stats(), game.room.stats()
        assert game.room.stats()[1].frames_forwarded > 0

        # He passes: seat 2 speaks, seat 1's page keeps sending and is no longer forwarded.
        await pages[1].click(".pass-btn")
        await wait_phase(game, "speech")
        await wait_view(pages[1], "v.speaker === 2")
        await wait_voice_idle(game)
        await wait_for_quiet(pages[2], "table", below=SILENT, timeout=60)
        forwarded = game.room.stats()[1].frames_forwarded
        await asyncio.sleep(1)
        assert game.room.stats()[1].frames_forwarded == forwarded  # the server's gate
        # ...and his page stopped sending (to save CPU; test_media.py shows the gate holds
        # against a page that keeps sending).
        assert await pages[1].evaluate("window.__room.pc.getSenders()[0].track === null")
        assert await pages[2].evaluate("window.__room.pc.getSenders()[0].track !== null")
        await wait_for_audio(pages[1], "table", above=HEARD, timeout=60)  # seat 2 is heard

        # Seat 2 nominates 4; the host ends every other speech with the space bar.
        await click_tile_button(pages[2], 4, "nominate-btn")
        await wait_view(pages[1], "v.nominations.length === 2")
        while game.table.state.phase.value != "voting":
            await host_next(game, console)

        # The vote, through the pages' buttons: no button for oneself.
        for page in pages.values():
            await wait_view(page, "v.vote && v.vote.round && v.vote.round.open")
        assert (await tile_state(pages[3], 3))["buttons"] == []
        assert "tile-btn vote-btn" in (await tile_state(pages[3], 4))["buttons"]
        await click_tile_button(pages[1], 3, "vote-btn")
        await click_tile_button(pages[2], 3, "vote-btn")
        await click_tile_button(pages[3], 4, "vote-btn")
        await click_tile_button(pages[4], 3, "vote-btn")
        for seat in (5, 6):
            await game.submit(seat, Vote(candidate=3))
        for seat in (7, 8, 9, 10):
            await game.submit(seat, Vote(candidate=4))

        # 5 : 5 while the round is still open: 3 and 4 outlined in yellow, nobody eliminated.
        for page in [*pages.values(), console]:
            await wait_view(page, "v.vote.round.tally['3'] === 5 && v.vote.round.tally['4'] === 5")
            await wait_view(page, "v.vote.round.open && v.vote.round.tied.length === 2")
            for seat in (3, 4):
                tile = await tile_state(page, seat)
                assert "tied" in tile["classes"] and tile["outline"] == YELLOW, tile
                assert tile["tally"] == "5" and "eliminated" not in tile["classes"]
            for seat in (1, 2, 5):
                assert (await tile_state(page, seat))["outline"] is None
        assert game.table.state.phase.value == "voting"
        await pages[1].wait_for_timeout(300)  # the clock's redraw
        await screenshot(pages[1], "widget-tie.png")

        # The host takes over; the window closes on a tie: the dialog of seed 004.
        await console.click("#manual")
        await wait_view(console, "v.manual === true")
        await host_next(game, console)
        await wait_view(console, "v.dialog && v.dialog.kind === 'tie'")
        assert await console.text_content("#dialog-title") == "Нічия"
        options = await console.locator("#dialog-options button").all_text_contents()
        assert options == ["Промови кандидатів", "Перезапустити голосування"]
        for page in pages.values():
            await wait_view(page, "v.phase === 'dialog'")
            for seat in (3, 4):
                tile = await tile_state(page, seat)
                assert "eliminated" not in tile["classes"] and tile["label"] != "вибуває"
        await screenshot(console, "console-tie.png")

        # Closing the window takes the default: the candidates' speeches.
        await console.click("#dialog-close")
        await wait_view(console, "v.dialog === null && v.phase === 'defense' && v.speaker === 3")
        await host_next(game, console)
        await host_next(game, console)
        await wait_view(console, "v.awaiting_revote === true")
        assert await console.is_visible("#start-revote")
        await console.click("#start-revote")  # the revote opens at once
        for page in pages.values():
            await wait_view(page, "v.vote.round.open && v.vote.round.number === 2")
        for seat in (1, 2, 4):
            await click_tile_button(pages[seat], 3, "vote-btn")
        await click_tile_button(pages[3], 4, "vote-btn")
        for seat in range(5, 11):
            await game.submit(seat, Vote(candidate=3))
        await wait_view(console, "v.vote.round.tally['3'] === 9")
        await host_next(game, console)

        # Seat 3 is out: the "eliminated" label, after the vote, on every page.
        for page in pages.values():
            await wait_view(page, "v.vote && v.vote.eliminated.includes(3)")
            tile = await tile_state(page, 3)
            assert "eliminated" in tile["classes"] and tile["label"] == "вибуває"
            assert "tied" not in tile["classes"]
        for page in [*pages.values(), console]:
            assert page.errors == []  # type: ignore[attr-defined]


async def test_a_page_reconnects_and_gets_the_state_back(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    async with running_game(tmp_path, language="en", voice=False) as game:
        page = await open_page(browser, game, 1)
        await wait_for(page, "window.__widget.socket.history.includes('online')")
        assert await page.text_content("#conn") == "online"
        await page.evaluate("window.__widget.socket.drop()")
        # Meanwhile the game moves on: the page must show the state it gets back.
        await game.submit(HOST, Start())
        await wait_for(
            page, "window.__widget.socket.history.slice(-2).join() === 'reconnecting,online'"
        )
        await wait_view(page, "v.phase === 'black_meeting'")
        assert await page.text_content("#phase") == "Night zero: the mafia meets"
        assert await page.text_content("#conn") == "online"
        # Errors from the server are shown: a civilian cannot pass a speech he does not have.
        await page.evaluate("window.__widget.socket.send('pass')")
        await page.wait_for_selector("#toast:not([hidden])")
        assert "Refused" in (await page.text_content("#toast") or "")


async def test_a_page_without_a_microphone_still_hears_the_table(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    async with running_game(tmp_path, language="en") as game:
        page = await browser.new_page()
        page.set_default_timeout(LONG_MS)
        await page.add_init_script(
            "navigator.mediaDevices.getUserMedia = () =>"
            " Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));"
        )
        await page.goto(game.page_url(1))
        await start_following_meter(page, "table")
        assert "No microphone" in (await page.text_content("#toast") or "")
        await game.submit(HOST, Start())  # the host's voice announces the night
        await wait_for_audio(page, "table", above=HEARD, timeout=60)


async def test_the_token_travels_only_in_the_url_fragment(
    browser: Browser, loopback_ice: None, tmp_path: Path
):
    """A page takes its token from `#token=` (never sent to a server) and drops it from the
    address bar; a reload finds it again in the tab. A token in the query string, which the
    server's access log would keep, is not used: that page is refused."""
    async with running_game(tmp_path, language="en", voice=False) as game:
        page = await open_page(browser, game, 3)
        assert "#" not in page.url and "token" not in page.url
        await page.reload()
        await wait_for(page, "window.__widget?.view != null")
        assert await page.evaluate("window.__widget.view.me.seat") == 3

        leaked = await browser.new_page()
        leaked.set_default_timeout(LONG_MS)
        await leaked.goto(game.page_url(3).replace("#token=", "?token="))
        await wait_for(leaked, "window.__widget?.socket.history.includes('refused')")
        assert await leaked.evaluate("window.__widget.view") is None
