"""A data flood from one player (issue 30), against the real LiveKit server.

Two tables of one server, each with its bot in its own room (plugin.server.livekit's
`LiveKitTables`, as `autohost serve --room livekit` makes them). Seat 3 of the first table
sends reliable 1 KB data packets to the bot as fast as his SDK lets him: the bot's guard
drops them before they reach Python, removes him once he keeps at it, and tells the live
host on `autohost.notice`; a neighbour at the same table who sends a few packets stays, and
the second table's grant still opens its speaker's microphone meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from contextlib import AsyncExitStack

import pytest
from livekit import api, rtc

from plugin.host.settings import TableSettings
from plugin.host.silent import SilentVoice
from plugin.rooms.livekit.guard import NOTICE_TOPIC
from plugin.rooms.livekit.seats import BOT_IDENTITY
from plugin.rooms.livekit.tokens import Credentials, host_token, player_token
from plugin.server.livekit import LiveKitTables
from testing import eventually
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET

pytestmark = [pytest.mark.livekit]


async def flood(room: rtc.Room, sent: list[int]) -> None:
    """1 KB reliable packets to the bot, one after another, until the room is gone."""
    payload = b"x" * 1024
    with contextlib.suppress(Exception):
        while room.isconnected():
            await room.local_participant.publish_data(
                payload, reliable=True, destination_identities=[BOT_IDENTITY]
            )
            sent[0] += 1


async def test_a_flooder_is_removed_and_the_neighbour_tables_grant_works(livekit_server):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    tables = LiveKitTables(creds, voice_factory=lambda language: SilentVoice())
    settings = TableSettings.from_record({"preset": "online", "seats": 10})
    rooms = {"A": tables.room("floodA", settings), "B": tables.room("floodB", settings)}
    names = {key: tables.rooms_by_table[f"flood{key}"] for key in rooms}
    async with (
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        for hosted in rooms.values():
            await hosted.start()
            stack.push_async_callback(hosted.stop)

        async def listed(key: str) -> dict[str, api.ParticipantInfo]:
            answer = await lkapi.room.list_participants(
                api.ListParticipantsRequest(room=names[key])
            )
            return {p.identity: p for p in answer.participants}

        notices: list[dict] = []
        host = rtc.Room()

        def received(packet: rtc.DataPacket) -> None:
            if packet.topic == NOTICE_TOPIC:
                notices.append(json.loads(packet.data))

        host.on("data_received", received)
        await host.connect(creds.url, host_token(creds, names["A"]))
        stack.push_async_callback(host.disconnect)
        neighbour = rtc.Room()
        await neighbour.connect(creds.url, player_token(creds, names["A"], 4))
        stack.push_async_callback(neighbour.disconnect)
        flooder = rtc.Room()
        await flooder.connect(creds.url, player_token(creds, names["A"], 3))
        stack.push_async_callback(flooder.disconnect)
        speaker = Player(creds, names["B"], 2)
        await speaker.join()
        stack.push_async_callback(speaker.leave)
        room_a = rooms["A"].room
        await eventually(lambda: "host" in room_a.hosts(), "the bot sees the proved host")

        sent = [0]
        flooding = asyncio.create_task(flood(flooder, sent))
        stack.push_async_callback(lambda: asyncio.wait_for(flooding, 10))
        for _ in range(5):  # a page's few packets: admitted
            await neighbour.local_participant.publish_data(
                b"{}", reliable=True, destination_identities=[BOT_IDENTITY]
            )
        # The neighbour table's turn during the flood: its speaker's microphone opens.
        await rooms["B"].set_speakers(frozenset({2}))

        async def granted() -> bool:
            return (await listed("B"))["seat-2"].permission.can_publish

        await eventually(granted, "the neighbour table's grant is applied", seconds=10)

        async def flooder_gone() -> bool:
            return "seat-3" not in await listed("A")

        await eventually(flooder_gone, "the flooder is removed from the room", seconds=30)
        await eventually(lambda: notices, "the live host is told", seconds=10)
        assert notices[0]["event"] == "data_flood" and notices[0]["identity"] == "seat-3"
        assert notices[0]["removed"] is True
        guard = rooms["A"].bot.guard
        assert guard is not None and guard.dropped > 0 and guard.floods == 1
        assert sent[0] > guard.admitted  # most of the flood never reached Python
        present = await listed("A")
        assert "seat-4" in present and "host" in present  # the others stay
        assert rooms["B"].bot.guard is not None and rooms["B"].bot.guard.dropped == 0
