"""The embedded room in real Chromium: four pages join through media.js; the bot's voice
reaches every page; a speaker is heard by the others during his turn and not after it,
although his page never stops sending (the fake microphone beeps all the time)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import numpy as np
import pytest
from playwright.async_api import Browser, Page
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from plugin.paths import ROOT
from plugin.rooms.embedded import EmbeddedRoom
from plugin.rooms.embedded.frames import FRAME_SAMPLES, SAMPLE_RATE, SILENCE, tone
from plugin.rooms.embedded.signalling import rtc_routes
from testing import serve, steady
from testing.browser import wait_for

from .harness import (
    quiet_for,
    start_audio_meter,
    until,
    wait_for_audio,
    wait_for_quiet,
    wait_for_sustained_audio,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STATIC = ROOT / "plugin" / "web" / "static"
SEATS = (1, 2, 3, 4)
HEARD = 0.01  # RMS, 1.0 = full scale: the bot tone arrives near 0.17, the fake mic's beep
SILENT = 0.002  # well above; a page with nothing forwarded to it measures 0

PAGE = """<!doctype html><meta charset="utf-8"><title>media test</title>
<script type="module">
import { connect } from "/static/embedded/media.js";
window.join = async (url, token) => { window.room = await connect(url, token); };
window.ready = true;
</script>"""


class SwitchableBot:
    """A bot voice for the test: a 440 Hz tone while `speaking`, silence otherwise."""

    def __init__(self) -> None:
        self.speaking = True

    async def __aiter__(self) -> AsyncIterator[np.ndarray]:
        loop = asyncio.get_running_loop()
        start, sample = loop.time(), 0
        while True:
            await asyncio.sleep(max(0.0, start + sample / SAMPLE_RATE - loop.time()))
            yield tone(440, sample) if self.speaking else SILENCE
            sample += FRAME_SAMPLES


async def _page(request):  # type: ignore[no-untyped-def]
    return HTMLResponse(PAGE)


@pytest.fixture
async def table(loopback_ice: None) -> AsyncIterator[tuple[EmbeddedRoom, SwitchableBot, str]]:
    bot = SwitchableBot()
    room = EmbeddedRoom(seats=10, bot_audio=bot.__aiter__())
    await room.start()
    tokens = {f"seat-{seat}": seat for seat in SEATS}
    app = Starlette(
        routes=[
            Route("/", _page),
            *rtc_routes(
                lambda table_id: room if table_id == "t1" else None,
                lambda table_id, token: tokens.get(token),
            ),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]
    )
    try:
        async with serve(app) as url:
            yield room, bot, url
    finally:
        await room.stop()


async def _join(browser: Browser, url: str, seat: int) -> Page:
    page = await browser.new_page()
    await page.goto(url + "/")
    await wait_for(page, "window.ready === true")
    await page.evaluate("([token]) => window.join('/rtc/t1/offer', token)", [f"seat-{seat}"])
    await wait_for(page, "window.room.pc.connectionState === 'connected'")
    await start_audio_meter(page, "table", "window.room.remoteStream")
    return page


async def _mark(bot: SwitchableBot, pages: list[Page]) -> None:
    """The bot says a tone and falls silent again, and every page has heard it end: whatever
    the pages receive afterwards was mixed after this call (packets arrive in order),
    however much audio a browser's jitter buffer was still holding. The tone is told from
    a beeping seat's leftovers by its length (0.4 s unbroken; the fake microphone beeps
    for a few milliseconds at a time)."""
    bot.speaking = True
    for page in pages:
        await wait_for_sustained_audio(page, "table", above=HEARD, seconds=0.4)
    bot.speaking = False
    for page in pages:
        await wait_for_quiet(page, "table", below=SILENT)


async def test_four_pages_hear_the_bot_and_only_the_allowed_speaker(
    browser: Browser, table: tuple[EmbeddedRoom, SwitchableBot, str]
):
    room, bot, url = table
    pages = dict(zip(SEATS, [await _join(browser, url, seat) for seat in SEATS], strict=True))
    await until(lambda: room.present == set(SEATS))

    # Nobody may speak: what every page hears is the bot.
    await room.set_speakers(frozenset())
    for page in pages.values():
        await wait_for_audio(page, "table", above=HEARD)

    # The bot falls silent; every microphone beeps, nobody is forwarded: silence everywhere.
    bot.speaking = False
    for seat, page in pages.items():
        await wait_for_quiet(page, "table", below=SILENT)
        assert await quiet_for(page, "table", 1.2) < SILENT, f"page {seat} hears someone"

    # Seat 1's turn: the others hear his microphone; he does not hear himself.
    await room.set_speakers(frozenset({1}))
    for seat in (2, 3, 4):
        await wait_for_audio(pages[seat], "table", above=HEARD)
    await wait_for_quiet(pages[1], "table", below=SILENT)
    assert await quiet_for(pages[1], "table", 1.2) < SILENT
    assert room.stats()[1].frames_forwarded > 0

    # His turn ends; his page keeps sending, the server forwards nothing of it.
    await room.set_speakers(frozenset({2}))
    forwarded = room.stats()[1].frames_forwarded
    received = room.stats()[1].frames_received
    await _mark(bot, [pages[2]])
    assert await quiet_for(pages[2], "table", 1.2) < SILENT, "seat 2 would hear only seat 1"
    await wait_for_audio(pages[1], "table", above=HEARD)  # seat 2 is heard by seat 1
    stats = room.stats()
    assert stats[1].frames_forwarded == forwarded
    assert stats[1].frames_received > received


async def test_set_sending_stops_the_upload_and_a_bad_token_is_refused(
    browser: Browser, table: tuple[EmbeddedRoom, SwitchableBot, str]
):
    room, _, url = table
    page = await _join(browser, url, 3)
    await until(lambda: room.present == {3})
    await until(lambda: room.stats()[3].frames_received > 20)
    await page.evaluate("window.room.setSending(false)")
    # Packets already on their way (Chromium's pacer, the receive path on a busy machine)
    # may still land: wait for a window that adds none, then nothing more may arrive.
    stopped = await steady(
        lambda: room.stats()[3].frames_received, "seat 3 after setSending(false)"
    )
    await asyncio.sleep(1.0)
    assert room.stats()[3].frames_received == stopped, "seat 3 arrives after a quiet window"
    await page.evaluate("window.room.setSending(true)")
    await until(lambda: room.stats()[3].frames_received > stopped + 10)

    other = await browser.new_page()
    await other.goto(url + "/")
    await wait_for(other, "window.ready === true")
    error = await other.evaluate(
        "window.join('/rtc/t1/offer', 'forged').then(() => 'joined', (e) => e.message)"
    )
    assert "forbidden" in error
    assert list(room.peers()) == [3]
