"""What a player hears: real Chromium joins the embedded room, the bot announces a tie in
Ukrainian with the default voice, the page records the announcement as it receives it
(WebRTC, Opus, the browser's jitter buffer and decoder), and the offline recogniser
(Whisper base, the `speech` extra) recovers the phrase and both seat numbers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from plugin.paths import ROOT
from plugin.rooms.embedded import EmbeddedRoom
from plugin.rooms.embedded.signalling import rtc_routes
from testing import serve
from testing.browser import wait_for
from testing.hearing import heard_seats, score
from testing.recogniser import Recogniser, write_wav
from voice.announcer import Announcer
from voice.phrases import Catalogue
from voice.synth import Synthesizer

from .harness import recorded, start_recording, until

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STATIC = ROOT / "plugin" / "web" / "static"
LANG, SEATS = "uk", [4, 9]
PHRASE_CER = 0.15  # the phrase nearly word for word; the seats exactly

PAGE = """<!doctype html><meta charset="utf-8"><title>hearing test</title>
<script type="module">
import { connect } from "/static/embedded/media.js";
window.join = async (url, token) => { window.room = await connect(url, token); };
window.ready = true;
</script>"""


async def _page(request):  # type: ignore[no-untyped-def]
    return HTMLResponse(PAGE)


@pytest.fixture
async def table(
    loopback_ice: None, default_voice_rhvoice: None, tmp_path: Path
) -> AsyncIterator[tuple[EmbeddedRoom, Announcer, str]]:
    announcer = Announcer(LANG, synthesizer=Synthesizer(tmp_path / "voice"))
    room = EmbeddedRoom(seats=10, bot_audio=announcer.pcm_frames())
    await room.start()
    app = Starlette(
        routes=[
            Route("/", _page),
            *rtc_routes(
                lambda table_id: room if table_id == "t1" else None,
                lambda table_id, token: 2 if token == "seat-2" else None,
            ),
            Mount("/static", StaticFiles(directory=STATIC)),
        ]
    )
    try:
        async with serve(app) as url:
            yield room, announcer, url
    finally:
        await room.stop()
        await announcer.stop()


async def test_a_page_hears_the_tie_and_both_seats_through_webrtc(
    browser: Browser, table: tuple[EmbeddedRoom, Announcer, str], hearer: Recogniser,
    tmp_path: Path,
) -> None:  # fmt: skip
    room, announcer, url = table
    page = await browser.new_page()
    await page.goto(url + "/")
    await wait_for(page, "window.ready === true")
    await page.evaluate("([token]) => window.join('/rtc/t1/offer', token)", ["seat-2"])
    await wait_for(page, "window.room.pc.connectionState === 'connected'")
    await until(lambda: room.present == {2})
    await room.set_speakers(frozenset())
    rate = await start_recording(page, "bot", "window.room.remoteStream")

    await announcer.announce("tie.speeches", {"seats": SEATS})
    await until(lambda: not announcer.idle)
    await until(lambda: announcer.idle, seconds=30)
    await asyncio.sleep(1.0)  # what the jitter buffer still holds
    pcm = await recorded(page, "bot")
    write_wav(tmp_path / "heard.wav", pcm, rate)  # kept with the test's files

    heard = hearer.transcribe(pcm, rate, LANG)
    text = Catalogue.load(LANG).text("tie.speeches", {"seats": SEATS})
    judged = score(text, heard, LANG)
    assert heard_seats(heard, SEATS, LANG) == SEATS, f"said {text!r}, the page heard {heard!r}"
    assert judged.cer <= PHRASE_CER, f"said {text!r}, the page heard {heard!r}"
