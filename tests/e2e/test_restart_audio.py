"""An upgrade in the middle of a speech (issue 32): the real server stopped (SIGTERM, as
systemd does) and started again on the same log, the speaker's and a listener's pages in
Chromium. The pages rejoin the room as soon as their sockets are back (not when their old
peer connections are declared dead, 15 s or more later), and the speech's timer waits for
the speaker's audio meanwhile: he loses no time to the restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Browser

from plugin.eventlog import open_log
from plugin.host.audio_wait import HOLD_SECONDS
from testing import ServerProcess
from testing.media_pages import (
    console,
    create_speech_table,
    open_speech_pages,
    speech_of,
    wait_audio_back,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def saved_clock(db: Path, table_id: str) -> float:
    """The speech's time left as the stopped server saved it."""
    log = open_log(db)
    try:
        row = log.load_clock(table_id)
    finally:
        log.close()
    assert row is not None and row.remaining is not None
    return row.remaining


async def test_an_upgrade_mid_speech_costs_the_speaker_no_time(
    tmp_path: Path, browser: Browser
) -> None:
    db = tmp_path / "log.db"
    server = ServerProcess(db, options=["--no-voice"])
    server.start()
    try:
        links = await create_speech_table(server)
        speaker = await speech_of(links, lambda token: console(server, token))
        pages = await open_speech_pages(browser, links, speaker, mark="before")
        server.stop()  # SIGTERM, as systemd stops it: the timer saved as it stands
        saved = saved_clock(db, links["id"])
        server.start()
        # At once (before any page can be back: their sockets wait 190 ms or more, a join
        # gathers ICE): the speech stands still, with the time it had.
        host = await asyncio.to_thread(console, server, links["host"]["token"])
        try:
            assert host.state["speaker"] == speaker and host.state["phase"] == "speech"
            clock = host.state["clock"]
            assert clock["held"] is True and clock["running"] is False, clock
            assert clock["remaining"] == round(saved, 1)
            # The pages rejoin once their sockets are back, well within the wait's bound
            # (their old peer connections would take 15 s or more to be declared dead).
            for page in pages.values():
                await wait_audio_back(page, "before", seconds=HOLD_SECONDS)
            state = await asyncio.to_thread(host.until, lambda m: not m["clock"].get("held"), 10)
            # It ran on from the moment the speaker's audio was back: nothing lost.
            assert state["clock"]["running"] is True
            assert state["clock"]["remaining"] >= saved - 0.5, (saved, state["clock"])
        finally:
            host.close()
    finally:
        server.kill()
