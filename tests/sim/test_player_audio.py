"""A simulated player's voice goes through the embedded room like a browser's: over real
WebRTC (aiortc on loopback), forwarded to the others during its speech, and not after."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from plugin.eventlog import log_opener
from plugin.host.inputs import HOST, EndSpeech, Next, Start
from plugin.host.settings import TableSettings
from plugin.rooms.embedded import loopback_ice
from plugin.rooms.embedded.client import RoomClient, http_answerer
from plugin.server.embedded import EmbeddedTables
from plugin.signing import table_links
from plugin.sim import SimPlayer
from plugin.web.app import ServerConfig, create_app
from testing import serve

pytestmark = [pytest.mark.slow]

LONG = {"speech_seconds": 300, "black_meeting_seconds": 300}


async def test_a_bot_is_heard_during_its_speech_only(tmp_path: Path):
    tables = EmbeddedTables(voice=False)
    app = create_app(
        ServerConfig(
            db_path=tmp_path / "audio.db",
            log=log_opener(tmp_path / "audio.db"),
            admin_key="audio-admin-key-0123456789",
            secret=b"audio-secret-0123456789abcdef",
            room_factory=tables.room,
            voice_factory=tables.voice,
            routes=(tables.routes,),
        )
    )
    with loopback_ice():
        async with serve(app) as url:
            table = await app.state.server.registry.create(
                TableSettings(language="en", seats=10, seed=2, overrides=LONG)
            )
            links = table_links(app.state.server.signer, url, table.id, 10)
            room = tables.rooms[table.id]
            bot = SimPlayer(url, table.id, 1, links["seats"][0]["token"], seed=3, lang="en",
                            speech_seconds=60)  # fmt: skip
            listener = RoomClient(keep_seconds=30)
            try:
                await bot.start()
                offer_url = f"{url}/rtc/{table.id}/offer"
                await listener.connect(http_answerer(offer_url, links["seats"][1]["token"]))
                assert bot.room is not None and bot.microphone is not None
                submit = table.submit
                assert (await submit(HOST, Start())).ok
                while table.state.phase.value != "speech":
                    assert (await submit(HOST, Next())).ok
                assert table.state.speaker == 1

                # Its speech: it says its line; the room forwards it; seat 2 hears speech.
                async with asyncio.timeout(60):
                    while room.stats().get(1) is None or room.stats()[1].frames_forwarded < 50:
                        await asyncio.sleep(0.05)
                assert bot.microphone.lines_said == 1
                await asyncio.sleep(0.5)
                heard = [s for _, s in list(listener._kept)]
                assert heard and np.sqrt(np.mean(np.concatenate(heard).astype(float) ** 2)) > 100

                # The host ends it: the gate closes, the bot stops sending.
                assert (await submit(HOST, EndSpeech())).ok
                assert table.state.speaker == 2
                await asyncio.sleep(0.3)
                forwarded = room.stats()[1].frames_forwarded
                await asyncio.sleep(1.0)
                assert room.stats()[1].frames_forwarded == forwarded
            finally:
                await listener.close()
                await bot.stop()


async def test_a_bot_joins_the_room_once_it_can_and_again_when_it_is_lost(tmp_path: Path):
    """A bot whose first offer was refused (its table not open yet, a server restarting)
    stayed silent for the whole game, and so did one whose connection was lost later: it
    offers again, with backoff, as a page does."""
    tables = EmbeddedTables(voice=False)
    app = create_app(
        ServerConfig(
            db_path=tmp_path / "rejoin.db",
            log=log_opener(tmp_path / "rejoin.db"),
            admin_key="audio-admin-key-0123456789",
            secret=b"audio-secret-0123456789abcdef",
            room_factory=tables.room,
            voice_factory=tables.voice,
            routes=(tables.routes,),
        )
    )
    with loopback_ice():
        async with serve(app) as url:
            table_id = "rejoin0001"
            links = table_links(app.state.server.signer, url, table_id, 10)
            bot = SimPlayer(url, table_id, 1, links["seats"][0]["token"], seed=3, lang="en",
                            voice=False)  # fmt: skip
            try:
                await bot.start()
                assert bot.room is None  # refused: there is no such table yet
                await app.state.server.registry.create(
                    TableSettings(language="en", seats=10, seed=2), table_id
                )
                room = tables.rooms[table_id]
                async with asyncio.timeout(30):
                    while 1 not in room.present:
                        await asyncio.sleep(0.05)
                first = bot.room
                assert first is not None

                room.disconnect(1)  # the server ends the connection: the bot's side fails
                assert 1 not in room.present
                async with asyncio.timeout(60):
                    while 1 not in room.present or bot.room is first or bot.room is None:
                        await asyncio.sleep(0.05)
                assert bot.room.pc.connectionState == "connected"
            finally:
                await bot.stop()
