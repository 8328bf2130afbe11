"""The spectators' page and the stream overlay in real Chromium (issue 17): the watch link
follows a vote as it happens (the candidates, the tallies, the result), names no role
until the game is over, and whatever it sends is refused by the server.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/watch-vote.png and overlay-vote.png.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from plugin.host.inputs import HOST, EndGame, Next, Nominate, Pass, Start, Vote
from testing.browser import wait_for

from .harness import start_audio_meter, wait_for_audio, wait_for_quiet
from .test_finish import advance_to
from .test_widget import LONG_MS, SCREENSHOTS, Game, open_page, running_game, screenshot

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
    await wait_for(page, "window.__watch?.view != null")
    return page


async def until(page: Page, condition: str) -> None:
    """Wait until `condition` (JS, `v` the watch page's view) holds."""
    await wait_for(
        page, f"(() => {{ const v = window.__watch.view; return Boolean(v && ({condition})); }})()"
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

        await game.submit(HOST, Start())
        await advance_to(game, "speech")
        await until(watch, "v.speaking.speaker === 1")
        assert "speaking" in (await watch.get_attribute('.tile[data-seat="1"]', "class") or "")
        assert (await watch.text_content('.tile[data-seat="1"] .countdown') or "").strip()
        await game.submit(1, Nominate(target=3))
        await until(watch, "v.nominations.length === 1")
        assert "1 → 3" in (await watch.text_content("#vote-info") or "")
        await game.submit(1, Pass())
        await game.submit(2, Nominate(target=4))
        await advance_to(game, "voting")

        # The vote as it happens: each ballot moves a tally on every spectator's page.
        await until(watch, "v.vote && v.vote.round && v.vote.round.open")
        assert await tally(watch, 3) == "0" and await tally(watch, 4) == "0"
        for voter in (1, 2, 5, 6, 7, 8):
            await game.submit(voter, Vote(candidate=3))
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
            await game.submit(voter, Vote(candidate=4))
        await game.submit(HOST, Next())  # the round closes: 6 against 3
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
        await game.submit(HOST, EndGame(winner="city"))
        await until(watch, "v.over === true")
        body = await watch.text_content("#tiles") or ""
        assert "Шериф" in body and "Дон" in body  # the end: every role, for everyone
        assert "Перемога міста" in (await watch.text_content("#phase") or "")
        assert watch.errors == [] and overlay.errors == []  # type: ignore[attr-defined]


HEARD = 0.01  # RMS of the fake microphone's beep as it arrives (tests/e2e/test_media.py)
SILENT = 0.002

# From the watch page, with its own token: an offer that would send the fake microphone.
SENDING_OFFER = """async (token) => {
  const mic = await navigator.mediaDevices.getUserMedia({audio: true});
  const pc = new RTCPeerConnection({iceServers: []});
  pc.addTransceiver(mic.getAudioTracks()[0], {direction: "sendrecv"});
  await pc.setLocalDescription(await pc.createOffer());
  const response = await fetch(`/rtc/${location.pathname.split("/")[2]}/offer`, {
    method: "POST",
    headers: {"content-type": "application/json", authorization: `Bearer ${token}`},
    body: JSON.stringify({sdp: pc.localDescription.sdp, type: "offer"}),
  });
  pc.close();
  mic.getTracks().forEach((t) => t.stop());
  return [response.status, (await response.json()).error];
}"""


async def test_a_spectator_hears_the_speaker_and_cannot_send(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    async with running_game(tmp_path, voice=False) as game:
        speaker = await open_page(browser, game, 1)  # his fake microphone beeps
        watch = await open_watch(browser, game)
        await wait_for(watch, "window.__room?.pc.connectionState === 'connected'")
        transceivers = await watch.evaluate(
            "window.__room.pc.getTransceivers().map((t) => [t.currentDirection, t.sender.track])"
        )
        assert transceivers == [["recvonly", None]]  # it offers nothing to send
        assert await watch.is_hidden("#listen")  # autoplay allowed (the test's Chromium)
        await start_audio_meter(watch, "table", "window.__room.remoteStream")
        (listener,) = [s for s in game.room.peers() if str(s).startswith("watch:")]
        assert game.room.present == {1}  # a spectator is nobody's seat

        await game.submit(HOST, Start())  # the night: every microphone is closed
        await wait_for_quiet(watch, "table", below=SILENT, timeout=30)
        await advance_to(game, "speech")  # seat 1 speaks: the spectator hears him
        assert game.table.state.speaker == 1
        await wait_for_audio(watch, "table", above=HEARD, timeout=30)
        stats = game.room.stats()[listener]
        assert stats.frames_received == 0 and stats.frames_forwarded == 0

        # The watch token with an offer that would send: refused, the room unchanged.
        peers = set(game.room.peers())
        token = game.links["watch"]["token"]
        assert await watch.evaluate(SENDING_OFFER, token) == [400, "bad_request"]
        assert set(game.room.peers()) == peers
        assert watch.errors == [] and speaker.errors == []  # type: ignore[attr-defined]


async def test_the_overlay_is_silent_unless_asked(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    async with running_game(tmp_path, voice=False) as game:
        silent = await open_watch(browser, game, "overlay")
        link = game.links["watch"]["overlay"].replace("/overlay#", "/overlay?audio=1#")
        game.links["watch"]["loud"] = link
        loud = await open_watch(browser, game, "loud")
        await wait_for(loud, "window.__room?.pc.connectionState === 'connected'")
        assert await silent.evaluate("window.__room === undefined")
        assert len([s for s in game.room.peers() if str(s).startswith("watch:")]) == 1


async def test_the_overlay_streams_roles_only_after_the_delay_and_the_watch_page_never(
    browser: Browser, loopback_ice: None, tmp_path: Path
) -> None:
    delay = 4
    async with running_game(tmp_path, voice=False) as game:
        console = await open_page(browser, game, "host")
        overlay = await open_watch(browser, game, "overlay")
        watch = await open_watch(browser, game)
        assert await overlay.is_hidden("#stream-card")
        # The host turns it on in the console: a delay, then the switch.
        await console.fill("#stream-delay", str(delay))
        await console.check("#stream-on")
        await until(overlay, f"v.stream && v.stream.delay === {delay}")
        assert "Трансляція з ролями" in (await console.text_content("#stream-card") or "")
        assert game.table.stream.setting.on and game.table.stream.setting.delay == delay

        started = time.monotonic()
        await game.submit(HOST, Start())  # the roles are dealt now
        await until(overlay, "v.phase !== 'lobby'")
        tiles = await overlay.text_content("#tiles") or ""
        assert not any(word in tiles for word in ROLE_WORDS), tiles
        await until(overlay, "Object.keys(v.stream.roles).length === 10")
        assert time.monotonic() - started >= delay  # the server sent them no sooner
        await overlay.wait_for_selector('.tile[data-seat="2"] .role-tag:has-text("Шериф")')
        assert "Чорна команда" in (await overlay.text_content("#stream-card") or "")
        await screenshot(overlay, "overlay-stream-roles.png")

        # A watch link's spectators never get them.
        assert await watch.evaluate("window.__watch.view.stream === undefined")
        body = await watch.text_content("body") or ""
        assert not any(word in body for word in ROLE_WORDS), body

        await console.uncheck("#stream-on")  # off: at once
        await until(overlay, "v.stream === null")
        tiles = await overlay.text_content("#tiles") or ""
        assert not any(word in tiles for word in ROLE_WORDS), tiles
        assert await overlay.is_hidden("#stream-card")
        errors = [*overlay.errors, *watch.errors, *console.errors]  # type: ignore[attr-defined]
        assert errors == []
