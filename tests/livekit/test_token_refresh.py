"""The page's LiveKit token lives minutes, not hours (issue 30): LiveKit itself pushes the
page a refreshed token (same identity, so the same link generation), and a page that must
join again after its first token expired does so with it; once the link is re-issued, the
old generation gets nothing through our server and its refreshed token keeps nobody in.

Real Chromium with livekit-client runs our demo page (`/static/livekit/demo.html?link=...`,
which asks `POST /livekit/token` of the real server assembly), against the real LiveKit
server. Our tokens are minted here to be good for SHORT seconds more instead of 10 minutes
(the route and the minting are the real ones), so that the first token expires during the
test. LiveKit accepts a token up to a minute past its `exp` (`tokenLeeway` in its
protocol's auth/verifier.go), so they are minted with an `exp` already LEEWAY - SHORT
seconds past. The page's first token, tried again once expired, is refused: the expiry is
real, and the page joined again with the token LiveKit pushed it.
"""

from __future__ import annotations

import asyncio
import datetime
import time
from contextlib import AsyncExitStack

import httpx
import jwt
import pytest
from livekit import api, rtc

from plugin.host.settings import TableSettings
from plugin.rooms.livekit import tokens
from plugin.rooms.livekit.static import client_installed
from plugin.rooms.livekit.tokens import Credentials
from testing import eventually, serve
from testing.browser import wait_for
from testing.livekit_overlay import OverlayClient
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "refresh-room"
TABLE = "refreshtable"
ROLES = {"8": "don", "9": "mafia", "10": "mafia", "7": "sheriff"}
SHORT = datetime.timedelta(seconds=8)
LEEWAY = datetime.timedelta(seconds=60)
READY = "#status[data-ready], #status[data-error]"


def expiry(token: str) -> float:
    return float(jwt.decode(token, options={"verify_signature": False})["exp"])


async def sessions(lk: api.LiveKitAPI) -> dict[str, str]:
    """Identity: session id of everybody LiveKit lists in the room now."""
    answer = await lk.room.list_participants(api.ListParticipantsRequest(room=ROOM))
    return {p.identity: p.sid for p in answer.participants}


async def listed(lk: api.LiveKitAPI) -> set[str]:
    return set(await sessions(lk))


async def test_the_pages_token_is_refreshed_and_a_stale_generations_keeps_nobody_in(
    browser, livekit_server, tmp_path, monkeypatch
) -> None:
    minted = tokens.token_for
    issued: dict[int, str] = {}  # seat: the last token our server minted for it

    def short_lived(creds, room, seat, identity="", generation=0, *, clock=time.time):  # type: ignore[no-untyped-def]
        if isinstance(seat, int):
            ttl = SHORT - LEEWAY  # good for SHORT seconds more, past LiveKit's leeway
            token = tokens.player_token(
                creds, room, seat, generation=generation, ttl=ttl, clock=clock
            )
            issued[seat] = token
            return token
        return minted(creds, room, seat, identity, generation, clock=clock)

    monkeypatch.setattr(tokens, "token_for", short_lived)
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
    async with AsyncExitStack() as stack:
        base = await stack.enter_async_context(serve(hosting.app))
        http = await stack.enter_async_context(httpx.AsyncClient())
        lk = await stack.enter_async_context(
            api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False)
        )
        server = hosting.app.state.server
        settings = TableSettings.from_record(
            {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
        )
        table = await server.registry.create(settings, TABLE)
        links = server.links(table)
        context = await browser.new_context()
        stack.push_async_callback(context.close)
        page = await context.new_page()
        link = links["seats"][2]["token"]
        await page.goto(f"{base}/static/livekit/demo.html?link={link}&server={base}")
        await page.wait_for_selector(READY, timeout=90_000)
        assert await page.get_attribute("#status", "data-error") is None, await page.text_content(
            "#status"
        )
        first = issued[3]  # what the page was given by POST /livekit/token
        assert expiry(first) + LEEWAY.total_seconds() - time.time() <= SHORT.total_seconds()

        # LiveKit pushes the page a token of its own, good for minutes, same identity.
        await wait_for(page, "(first) => autohost.room.engine.token !== first", first)
        refreshed = await page.evaluate("autohost.room.engine.token")
        assert expiry(refreshed) - time.time() > 5 * 60
        assert jwt.decode(refreshed, options={"verify_signature": False})["sub"] == "seat-3"

        # The first token expires; the page must join LiveKit again from scratch (a new
        # session, as after a LiveKit node's restart), and does, with the refreshed one.
        await asyncio.sleep(max(expiry(first) + LEEWAY.total_seconds() - time.time() + 1, 0))
        expired = rtc.Room()  # the control: the page's first token lets nobody in now
        with pytest.raises(rtc.ConnectError):
            await expired.connect(creds.url, first)
        before = await sessions(lk)
        await page.evaluate("autohost.room.engine.reconnect()")

        async def joined_again() -> bool:
            now = await sessions(lk)
            state = await page.evaluate("autohost.room.state")
            return state == "connected" and now.get("seat-3") not in (None, before["seat-3"])

        await eventually(joined_again, "the page joins again with its refreshed token")

        # The seat's link is re-issued: the old generation's session is removed, its link
        # mints nothing, and its refreshed token (LiveKit's, minutes long) keeps nobody in.
        admin = {"Authorization": f"Bearer {server.config.admin_key}"}
        answer = await http.post(f"{base}/api/tables/{TABLE}/reissue", json={"seat": 3},
                                 headers=admin)  # fmt: skip
        assert answer.status_code == 200, answer.text

        async def removed() -> bool:
            return "seat-3" not in await listed(lk)

        await eventually(removed, "the old generation's page is removed")
        await page.reload()
        await page.wait_for_selector(READY, timeout=30_000)
        error = await page.get_attribute("#status", "data-error")
        assert error is not None and "401" in error, await page.text_content("#status")
        again = OverlayClient(creds.url, refreshed)  # the old generation's refreshed token
        await again.join()
        stack.push_async_callback(again.leave)
        room = hosting.tables.hosted[TABLE].room

        async def removed_again() -> bool:
            return "seat-3" not in await listed(lk) and "seat-3" not in room.participants

        await eventually(removed_again, "the refreshed token of a stale generation is removed")
