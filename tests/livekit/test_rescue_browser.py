"""The live host's page offers "open every microphone" when no bot comes back (issue 30),
in real Chromium against the real LiveKit server and the real server assembly.

The host opens our LiveKit page with his host link (`/static/livekit/demo.html?link=...`,
his LiveKit token from `POST /livekit/token`): while the table's bot is in the room the
button stays hidden. The server stops (the shutdown SIGTERM runs): the bot leaves and the
microphones stay as they were, all closed. Once no bot has been in the room for 15 s the
button shows, and a click opens every seated player's microphone on the LiveKit server.

The host's token is minted here good for SHORT seconds more (LiveKit accepts a token up to a
minute past its `exp`, so it is minted that far past already): by the time the button shows
it has expired, and the click must use the token LiveKit pushed the page since (a 10-minute
token, refreshed; the page's first one was used before, and was refused once expired).
"""

from __future__ import annotations

import datetime
import time
from contextlib import AsyncExitStack

import pytest
from livekit import api

from plugin.host.settings import TableSettings
from plugin.rooms.livekit import tokens
from plugin.rooms.livekit.seats import is_bot_identity
from plugin.rooms.livekit.static import client_installed
from plugin.rooms.livekit.tokens import Credentials
from testing import eventually, serve
from testing.browser import wait_for
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "rescue-room"
TABLE = "rescuetable"
ROLES = {"8": "don", "9": "mafia", "10": "mafia", "7": "sheriff"}
SHORT = datetime.timedelta(seconds=5)
LEEWAY = datetime.timedelta(seconds=60)  # LiveKit's tokenLeeway (protocol auth/verifier.go)
READY = "#status[data-ready], #status[data-error]"
BUTTON = "[data-open-microphones]"


async def test_with_no_bot_the_hosts_page_opens_every_microphone_in_chromium(
    browser, livekit_server, tmp_path, monkeypatch
) -> None:
    minted = tokens.token_for

    def short_lived(creds, room, seat, identity="", generation=0, *, clock=time.time):  # type: ignore[no-untyped-def]
        if seat == "host":
            ttl = SHORT - LEEWAY
            return tokens.host_token(creds, room, generation=generation, ttl=ttl, clock=clock)
        return minted(creds, room, seat, identity, generation, clock=clock)

    monkeypatch.setattr(tokens, "token_for", short_lived)
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    async with AsyncExitStack() as stack:
        lk = await stack.enter_async_context(
            api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False)
        )

        async def listed() -> dict[str, api.ParticipantPermission]:
            answer = await lk.room.list_participants(api.ListParticipantsRequest(room=ROOM))
            return {p.identity: p.permission for p in answer.participants}

        async def open_mics() -> set[str]:
            return {
                identity
                for identity, permission in (await listed()).items()
                if identity.startswith("seat-") and permission.can_publish
            }

        for seat in (1, 2, 3):
            player = Player(creds, ROOM, seat)
            await player.join()
            stack.push_async_callback(player.leave)
        hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
        context = await browser.new_context()
        stack.push_async_callback(context.close)
        page = await context.new_page()
        async with serve(hosting.app) as base:
            server = hosting.app.state.server
            settings = TableSettings.from_record(
                {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
            )
            table = await server.registry.create(settings, TABLE)
            link = server.links(table)["host"]["token"]
            await page.goto(f"{base}/static/livekit/demo.html?link={link}&server={base}")
            await page.wait_for_selector(READY, timeout=90_000)
            status = await page.text_content("#status")
            assert await page.get_attribute("#status", "data-error") is None, status

            async def closed_with_the_bot_in() -> bool:
                return await open_mics() == set() and any(map(is_bot_identity, await listed()))

            await eventually(closed_with_the_bot_in, "the bot in the room, every mic closed")
            assert await page.locator(BUTTON).count() == 1
            assert await page.locator(BUTTON).is_hidden()  # a bot is there: nothing offered

        # Stopped: the bot leaves, the microphones stay closed.
        async def no_bot() -> bool:
            return not any(map(is_bot_identity, await listed()))

        await eventually(no_bot, "the bot left the room")
        assert await page.locator(BUTTON).is_hidden()  # not yet: the table may resume soon
        assert await open_mics() == set()
        await wait_for(page, f"!document.querySelector('{BUTTON}').hidden", timeout=40_000)
        await page.locator(BUTTON).click()

        async def every_seat_open() -> bool:
            return await open_mics() == {"seat-1", "seat-2", "seat-3"}

        async def why() -> str:
            return str(await page.evaluate("autohost.widget.lastError ?? null"))

        await eventually(every_seat_open, "every seat's microphone opened", explain=why)
        opened = await page.evaluate("autohost.widget.opened")
        assert sorted(opened) == ["seat-1", "seat-2", "seat-3"]
        held = await listed()
        assert all(held[f"seat-{n}"].can_subscribe for n in (1, 2, 3))  # nothing else changed
        assert all(held[f"seat-{n}"].can_publish_data for n in (1, 2, 3))
