"""What the internet tests check on a day of a game, whatever the network: every page hears
the bot, a speaker is heard by the others only in his turn (his page never stops sending),
and every page decodes every other page's video."""

from __future__ import annotations

from collections.abc import Mapping

from playwright.async_api import Page

from testing.call import CallSite, wait_video
from tests.e2e.harness import (
    quiet_for,
    start_audio_meter,
    until,
    wait_for_audio,
    wait_for_quiet,
    wait_for_sustained_audio,
)

HEARD = 0.01  # RMS (tests/e2e/test_media.py): the bot's tone arrives near 0.17
SILENT = 0.002  # a page with nothing forwarded to it measures 0


async def meter(pages: Mapping[int, Page]) -> None:
    for page in pages.values():
        await start_audio_meter(page, "table", "window.room.remoteStream")


async def day(site: CallSite, pages: Mapping[int, Page], *, timeout: float = 20) -> None:
    """The bot, then two speeches (the first two seats), then video between every pair."""
    room, bot = site.room, site.bot
    seats = sorted(pages)
    first, second = seats[0], seats[1]
    await until(lambda: room.present == set(seats))

    # The bot is heard everywhere; then silence: every microphone beeps, none is forwarded.
    bot.speaking = True
    for page in pages.values():
        await wait_for_audio(page, "table", above=HEARD, timeout=timeout)
    bot.speaking = False
    for seat, page in pages.items():
        await wait_for_quiet(page, "table", below=SILENT, timeout=timeout)
        assert await quiet_for(page, "table", 1.0) < SILENT, f"page {seat} hears someone"

    # The first seat's turn: every other page hears him, he does not hear himself.
    await room.set_speakers(frozenset({first}))
    for seat in seats[1:]:
        await wait_for_audio(pages[seat], "table", above=HEARD, timeout=timeout)
    assert await quiet_for(pages[first], "table", 1.0) < SILENT

    # The second seat's turn: the first one's microphone is no longer forwarded to him.
    await room.set_speakers(frozenset({second}))
    bot.speaking = True  # a mark: what the page hears after the tone was mixed after it
    await wait_for_sustained_audio(
        pages[second], "table", above=HEARD, seconds=0.4, timeout=timeout
    )
    bot.speaking = False
    await wait_for_quiet(pages[second], "table", below=SILENT, timeout=timeout)
    assert await quiet_for(pages[second], "table", 1.0) < SILENT, "the old speaker is heard"
    for seat in seats:
        if seat != second:
            await wait_for_audio(pages[seat], "table", above=HEARD, timeout=timeout)

    # Video, every page from every other page.
    for seat, page in pages.items():
        await wait_video(page, [s for s in seats if s != seat], timeout=timeout * 2)
