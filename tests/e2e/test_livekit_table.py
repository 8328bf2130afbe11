"""A whole LiveKit table in real Chromium: our server (engine, WebSocket protocol) with the
table in a real LiveKit room, three players' pages with livekit-client and the widget.
During a speech only the speaker's microphone is published; a vote cast in one overlay
reaches the engine and the tally reaches every overlay, including the overlay of a player
who joined with the club's own LiveKit token (traded for our seat link)."""

from __future__ import annotations

import asyncio
import json

import pytest
from livekit import api
from livekit.api import AccessToken, VideoGrants

from plugin.host.inputs import HOST, Input, Next, Nominate, Start
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.static import client_installed
from plugin.rooms.livekit.tokens import Credentials
from testing import eventually, serve
from testing.livekit_server import API_KEY, API_SECRET, mic_publishers, one_table_hosting

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "table-room"
TABLE = "lktable1"
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
PAGES = (5, 6, 7)

READY = "#status[data-ready], #status[data-error]"


async def test_a_speech_and_a_vote_at_a_livekit_table(browser, livekit_server, tmp_path):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    app = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE).app
    contexts = []
    async with (
        serve(app) as base,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        server = app.state.server
        settings = TableSettings.from_record(
            # Long speeches: the checks below run inside seat 5's speech, and a 60 s speech
            # could run out under load before they finish (the host's `next` moves on).
            {
                "preset": "online",
                "language": "uk",
                "seats": 10,
                "roles": ROLES,
                "overrides": {"speech_seconds": 900},
            }
        )
        table = await server.registry.create(settings, TABLE)
        try:
            pages = {}
            for seat in PAGES:
                context = await browser.new_context()
                contexts.append(context)
                pages[seat] = await context.new_page()
            context = await browser.new_context()
            contexts.append(context)
            club = await context.new_page()  # seat 8 with the club's own token, no link
            club_token = (
                AccessToken(API_KEY, API_SECRET)
                .with_identity("seat-8")  # a club's token server names the seat so
                .with_grants(VideoGrants(room_join=True, room=ROOM))
                .to_jwt()
            )
            await asyncio.gather(
                club.goto(
                    f"{base}/static/livekit/demo.html?server={base}&url={creds.url}"
                    f"&token={club_token}",
                    wait_until="commit",
                ),
                *(
                    page.goto(
                        f"{base}/static/livekit/demo.html?server={base}&table={TABLE}"
                        f"&link={server.signer.issue(TABLE, seat)}",
                        wait_until="commit",
                    )
                    for seat, page in pages.items()
                ),
            )
            for page in [*pages.values(), club]:
                await page.wait_for_selector(READY, timeout=90_000)  # slow under load
                assert await page.get_attribute("#status", "data-error") is None

            async def publishers() -> set[str]:
                return await mic_publishers(lkapi, ROOM) - {"autohost-bot"}

            async def present() -> bool:
                return {*PAGES, 8} <= table.present

            await eventually(present, "the bot reports the three players to the table", seconds=90)

            async def host(given: Input) -> None:
                verdict = await table.submit(HOST, given)
                assert verdict.ok, verdict

            await host(Start())
            nominations = {1: 5, 2: 6}
            checked_speech = False
            while table.state.phase.value != "voting":
                speakers = sorted(table.state.speakers)
                if table.state.phase.value == "speech" and speakers == [5] and not checked_speech:

                    async def only_seat_5() -> bool:
                        return await publishers() == {"seat-5"}  # not seat 8's either

                    async def explain() -> str:
                        pages_said = {
                            seat: await page.evaluate(
                                "({published: autohost.widget.micPublished(),"
                                " may: autohost.room.localParticipant.permissions?.canPublish,"
                                " sources: [...(autohost.room.localParticipant.permissions"
                                "?.canPublishSources ?? [])],"
                                " error: autohost.widget.lastError,"
                                " restores: autohost.widget.micRestores})"
                            )
                            for seat, page in pages.items()
                        }
                        return f"publishers {await publishers()}, pages {pages_said}"

                    await eventually(
                        only_seat_5,
                        "only seat 5 publishes during his speech",
                        seconds=90,
                        explain=explain,
                    )

                    async def pages_agree() -> bool:
                        return [
                            await pages[s].evaluate("autohost.widget.micPublished()") for s in PAGES
                        ] == [True, False, False]

                    await eventually(
                        pages_agree, "the pages see only seat 5's microphone", seconds=90
                    )
                    checked_speech = True
                if table.state.phase.value == "speech" and speakers and speakers[0] in nominations:
                    seat = speakers[0]
                    target = nominations.pop(seat)
                    outcome = await table.submit(seat, Nominate(target=target))
                    assert outcome.ok, outcome
                await host(Next())
            assert checked_speech

            button = '.autohost-overlay button[data-candidate="5"]'
            await pages[7].wait_for_selector(button)
            await pages[7].click(button)

            def tally_shows(page):
                async def check() -> bool:
                    text = await page.get_attribute(".autohost-overlay [data-tally]", "data-tally")
                    return bool(text) and json.loads(text).get("5") == 1

                return check

            for seat, page in [*pages.items(), (8, club)]:
                await eventually(
                    tally_shows(page), f"seat {seat}'s overlay shows the vote", seconds=90
                )
            assert await club.evaluate("autohost.widget.state.me.seat") == 8
            view = table.snapshot().state
            assert view.phase.value == "voting"
        finally:
            for context in contexts:
                await context.close()
