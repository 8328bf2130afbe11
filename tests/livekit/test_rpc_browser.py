"""The LiveKit widget in real Chromium on its LiveKit room alone (issue 16): the page holds a
LiveKit URL and a player's LiveKit token, no link of ours, and opens no socket to our
server; a vote clicked in its overlay goes as RPC to the bot, reaches the engine, and the
tally comes back to the overlay as a data message."""

from __future__ import annotations

import json

import pytest

from plugin.host.inputs import HOST, Next, Nominate, Start
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.static import client_installed
from plugin.rooms.livekit.tokens import Credentials, player_token
from plugin.web.pages import STATIC_DIR as STATIC
from testing import eventually, serve
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "rpc-browser-room"
TABLE = "rpcbrowser1"
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
READY = "#status[data-ready], #status[data-error]"


async def test_a_vote_clicked_in_the_overlay_goes_as_rpc(browser, livekit_server, tmp_path):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    app = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE).app
    async with serve(app) as base:
        server = app.state.server
        settings = TableSettings.from_record(
            {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES}
        )
        table = await server.registry.create(settings, TABLE)
        context = await browser.new_context()
        try:
            page = await context.new_page()
            sockets: list[str] = []
            page.on("websocket", lambda socket: sockets.append(socket.url))
            token = player_token(creds, ROOM, 7)
            demo = f"{base}/static/livekit/demo.html?rpc=1&url={creds.url}&token={token}"
            await page.goto(demo)
            await page.wait_for_selector(READY, timeout=90_000)
            assert await page.get_attribute("#status", "data-error") is None

            async def has_view() -> bool:
                return bool(await page.evaluate("autohost.widget.state?.me?.seat === 7"))

            await eventually(has_view, "the page gets seat 7's view as data", seconds=60)

            async def online() -> bool:
                return 7 in server.hub.connected_seats(TABLE)

            await eventually(online, "seat 7 counts as online through LiveKit")
            assert (await table.submit(HOST, Start())).ok
            nominations = {1: 5, 2: 6}
            while table.state.phase.value != "voting":
                speakers = sorted(table.state.speakers)
                speaking = table.state.phase.value == "speech" and speakers
                if speaking and speakers[0] in nominations:
                    nominate = Nominate(target=nominations.pop(speakers[0]))
                    assert (await table.submit(speakers[0], nominate)).ok
                assert (await table.submit(HOST, Next())).ok

            button = '.autohost-overlay button[data-candidate="5"]'
            await page.wait_for_selector(button, timeout=60_000)
            await page.click(button)

            async def engine_has_it() -> bool:
                round = table.state.vote.round if table.state.vote else None
                return round is not None and round.tally().get(5) == 1

            await eventually(engine_has_it, "seat 7's vote reaches the engine", seconds=60)

            async def tally_shows() -> bool:
                text = await page.get_attribute(".autohost-overlay [data-tally]", "data-tally")
                return bool(text) and json.loads(text).get("5") == 1

            await eventually(tally_shows, "the overlay shows the tally (data)", seconds=60)
            # ... in the table's language, as every page of ours (the table is Ukrainian).
            uk = json.loads((STATIC / "i18n" / "uk.json").read_text(encoding="utf-8"))

            async def in_ukrainian() -> bool:
                phase = await page.text_content(".autohost-overlay [data-phase]")
                mic = await page.text_content(".autohost-overlay [data-mic]")
                return phase == uk["phase.voting"] and mic == uk["overlay.mic_closed"]

            await eventually(in_ukrainian, "the overlay speaks the table's language")
            # Everything went through LiveKit: the page never opened a socket to our server.
            ours = base.replace("http", "ws") + "/"
            assert not [url for url in sockets if url.startswith(ours)], sockets
        finally:
            await context.close()
