"""Relay only, through a real coturn on loopback: Chromium pages forced to
`iceTransportPolicy: "relay"` hear the bot, hear a speaker only in his turn, decode each
other's video, and every connection's selected candidate pair is a relay pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from plugin.testing.call import CallSite, call_site, join, selected_pairs, wait_video
from plugin.testing.coturn import Coturn
from plugin.web.ice import IceSettings
from tests.e2e.harness import (
    quiet_for,
    start_audio_meter,
    until,
    wait_for_audio,
    wait_for_quiet,
    wait_for_sustained_audio,
)

from .conftest import TURN_SECRET

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SEATS = (1, 2, 3)
HEARD = 0.01  # RMS (tests/e2e/test_media.py): the bot's tone arrives near 0.17
SILENT = 0.002


async def open_pages(browser: Browser, site: CallSite) -> dict[int, Page]:
    context = await browser.new_context()
    pages: dict[int, Page] = {}
    for seat in SEATS:
        page = await context.new_page()
        page.on("console", lambda m, s=seat: m.type == "error" and print(f"[{s}] {m.text}"))
        await join(page, site, seat)
        await start_audio_meter(page, "table", "window.room.remoteStream")
        pages[seat] = page
    return pages


async def test_relay_only_pages_hear_the_bot_and_the_speaker_and_see_each_other(
    tmp_path: Path, coturn: Coturn, browser: Browser, loopback_ice: None
) -> None:
    ice = IceSettings(
        stun=(coturn.stun_url,),
        turn=(coturn.turn_url, coturn.turn_tcp_url),
        turn_secret=TURN_SECRET.encode(),
        policy="relay",
    )
    async with call_site(tmp_path, ice=ice) as site:
        pages = await open_pages(browser, site)
        room, bot = site.room, site.bot
        await until(lambda: room.present == set(SEATS))

        # The bot is heard on every page; then silence, nobody forwarded.
        for page in pages.values():
            await wait_for_audio(page, "table", above=HEARD)
        bot.speaking = False
        for seat, page in pages.items():
            await wait_for_quiet(page, "table", below=SILENT)
            assert await quiet_for(page, "table", 1.0) < SILENT, f"page {seat} hears someone"

        # Seat 1's turn: 2 and 3 hear him, he does not hear himself.
        await room.set_speakers(frozenset({1}))
        for seat in (2, 3):
            await wait_for_audio(pages[seat], "table", above=HEARD)
        assert await quiet_for(pages[1], "table", 1.0) < SILENT

        # Seat 2's turn: seat 1's beeping microphone is no longer forwarded.
        await room.set_speakers(frozenset({2}))
        bot.speaking = True
        await wait_for_sustained_audio(pages[2], "table", above=HEARD, seconds=0.4)
        bot.speaking = False
        await wait_for_quiet(pages[2], "table", below=SILENT)
        assert await quiet_for(pages[2], "table", 1.0) < SILENT, "seat 2 would hear only seat 1"
        await wait_for_audio(pages[1], "table", above=HEARD)

        # Video, page to page through the relay.
        for seat, page in pages.items():
            await wait_video(page, [s for s in SEATS if s != seat])

        # Every connection of every page is a relay pair (UDP to coturn).
        for seat, page in pages.items():
            pairs = await selected_pairs(page)
            assert set(pairs) == {"audio", *(f"video:{s}" for s in SEATS if s != seat)}, pairs
            for name, pair in pairs.items():
                assert pair is not None and pair["local"] == "relay", (seat, name, pair)
        assert coturn.allocations() >= len(SEATS) * len(SEATS)  # audio + 2 video each
