"""LiveKit mode in real Chromium with livekit-client (from node_modules) and the real
LiveKit server: the bot's voice reaches the pages, only the speaker's microphone stays
published (seen from ListParticipants and from the pages), the widget republishes the
microphone when the permission returns and renders the server's state."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from livekit import api
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.static import client_installed, static_routes
from plugin.rooms.livekit.tokens import Credentials, bot_token, token_route
from testing import eventually, serve
from testing.livekit_server import API_KEY, API_SECRET, mic_publishers
from testing.tones import tone_frames

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "browser-room"
STATE = {"type": "state", "v": 1, "phase": "day_speech", "speakers": [2], "clock": None}


def link_for(link: str):
    """The test's stand-in for our signed seat links: "seat-N" admits seat N of table t1
    (a link never re-issued: generation 0)."""
    if link.startswith("seat-") and link[5:].isdigit():
        return ("t1", int(link[5:]), 0)
    return None


def fake_server(creds: Credentials, received: list[dict]) -> Starlette:
    """Our server's stand-in: /ws sends one state and records what the widget sends."""

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(json.dumps(STATE))
        try:
            while True:
                received.append(json.loads(await websocket.receive_text()))
        except WebSocketDisconnect:
            pass

    routes = [WebSocketRoute("/ws", ws), token_route(creds, link_for, lambda t: ROOM)]
    return Starlette(routes=[*routes, *static_routes()])


READY = "#status[data-ready], #status[data-error]"


async def test_speech_turns_in_the_browser(browser, livekit_server):

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    received: list[dict] = []
    app = fake_server(creds, received)
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, ROOM)
    # the room lets only our bot's own session publish as the bot
    bot = LiveKitBot(creds.url, bot_token(creds, ROOM), on_session=room.bot_joined)
    await bot.start()
    playing = asyncio.create_task(bot.play(tone_frames(440.0)))
    pages, contexts = [], []
    try:
        async with (
            serve(app) as base,
            api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
        ):
            for _seat in (1, 2, 3):
                context = await browser.new_context()
                contexts.append(context)
                pages.append(await context.new_page())
            await asyncio.gather(
                *(
                    page.goto(f"{base}/static/livekit/demo.html?link=seat-{seat}&server={base}",
                              wait_until="commit")
                    for seat, page in enumerate(pages, 1)
                )
            )  # fmt: skip
            for page in pages:
                await page.wait_for_selector(READY, timeout=90_000)  # slow under load
                assert await page.get_attribute("#status", "data-error") is None, (
                    await page.text_content("#status")
                )

            def only(*identities: str):
                async def check() -> bool:
                    return await mic_publishers(lkapi, ROOM) == {*identities, "autohost-bot"}

                return check

            def pages_publish(*flags: bool):
                async def check() -> bool:
                    seen = [await p.evaluate("autohost.widget.micPublished()") for p in pages]
                    return seen == list(flags)

                return check

            await room.start()
            await room.release_all()  # our tokens publish nothing until the room allows it
            await eventually(
                only("seat-1", "seat-2", "seat-3"), "every page publishes its mic", seconds=60
            )
            await room.set_speakers(frozenset({2}))
            await eventually(only("seat-2"), "only seat 2 publishes (ListParticipants)", seconds=60)
            await eventually(
                pages_publish(False, True, False), "the pages see only seat 2", seconds=60
            )
            restores = await pages[2].evaluate("autohost.widget.micRestores")
            await room.set_speakers(frozenset({3}))
            await eventually(
                only("seat-3"), "the turn passed to seat 3 (ListParticipants)", seconds=60
            )
            await eventually(
                pages_publish(False, False, True), "the pages see only seat 3", seconds=60
            )
            # seat 3's widget opened the mic again when the permission came back
            assert await pages[2].evaluate("autohost.widget.micRestores") == restores + 1

            async def bot_heard() -> bool:
                level = await pages[0].evaluate("autohost.levels['autohost-bot'] ?? 0")
                return level > 0.05

            await eventually(bot_heard, "the bot's voice reaches the browser", seconds=60)
            overlay = await pages[0].text_content(".autohost-overlay")
            assert "day_speech" in overlay and "speaking: 2" in overlay
            await pages[0].evaluate("autohost.widget.vote(2)")

            async def vote_sent() -> bool:
                return any(m.get("type") == "vote" and m.get("candidate") == 2 for m in received)

            await eventually(vote_sent, "the widget's vote reaches the server", seconds=60)
    finally:
        for context in contexts:
            await context.close()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await room.stop()
        await bot.stop()


async def test_quick_turn_changes_never_leave_the_speaker_without_a_microphone(
    browser,
    livekit_server,
):
    """Turns that change while the pages are still publishing (a host clicking through, a
    loaded machine): the server revokes a publish in flight, and the SDK drops that revoke
    as an unknown track. The page must still end up publishing for real when its turn
    comes, not holding a publication the server no longer has."""
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, ROOM)
    pages, contexts = [], []
    try:
        async with (
            serve(fake_server(creds, [])) as base,
            api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
        ):
            for seat in (1, 2, 3):
                context = await browser.new_context()
                contexts.append(context)
                pages.append(await context.new_page())
                await pages[-1].goto(
                    f"{base}/static/livekit/demo.html?link=seat-{seat}&server={base}",
                    wait_until="commit",
                )
            for page in pages:
                await page.wait_for_selector(READY, timeout=90_000)
            await room.start()
            rng = random.Random(1)
            for _ in range(40):
                for seat in (1, 2, 3):
                    await room.set_speakers(frozenset({seat}))
                    await asyncio.sleep(rng.uniform(0, 0.25))
                await room.set_speakers(frozenset())
                await asyncio.sleep(rng.uniform(0, 0.1))
            await room.set_speakers(frozenset({1}))

            async def only_seat_1() -> bool:
                return await mic_publishers(lkapi, ROOM) == {"seat-1"}

            async def pages_agree() -> bool:
                seen = [await p.evaluate("autohost.widget.micPublished()") for p in pages]
                return seen == [True, False, False]

            # A publish that raced a revoke times out after about 10 s before the retry.
            await eventually(
                only_seat_1, "seat 1 publishes, nobody else (ListParticipants)", seconds=120
            )
            await eventually(pages_agree, "the pages see only seat 1's microphone", seconds=120)
    finally:
        for context in contexts:
            await context.close()
        await room.stop()
