"""A repeated impostor of the bot (issue 30), against the real LiveKit server.

A participant who joined with the bot's identity every time he was kicked held the bot's
place 97 % of 40 s (LiveKit lets one session per identity: each join replaced our bot, and
our bot's backoff for duplicates in a row kept it out longer and longer). Now a bot replaced
twice in a row joins again under a name nobody can guess (`autohost-bot-<random>`), and the
room removes every other holder of a bot name as soon as it sees him, reported in the log
and to the live host on `autohost.notice`: the bot keeps the room, and the pages' RPC
finds it under its new name.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from contextlib import AsyncExitStack

import pytest
from livekit import api, rtc
from livekit.api import AccessToken, VideoGrants

from plugin.host.settings import TableSettings
from plugin.rooms.livekit.guard import NOTICE_TOPIC
from plugin.rooms.livekit.seats import BOT_IDENTITY, is_bot_identity
from plugin.rooms.livekit.tokens import Credentials, host_token, player_token
from testing import eventually, serve
from testing.livekit_overlay import OverlayClient
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [pytest.mark.livekit, pytest.mark.slow]

WATCHED_SECONDS = 6.0  # the attack goes on this long once the bot took a name of its own


async def impostor(url: str, token: str, stop: asyncio.Event, joins: list[int]) -> None:
    """Join as the bot, and again at once whenever removed or replaced."""
    while not stop.is_set():
        room = rtc.Room()
        try:
            await room.connect(url, token, rtc.RoomOptions(auto_subscribe=False))
        except Exception:
            await asyncio.sleep(0.05)
            continue
        joins[0] += 1
        while room.isconnected() and not stop.is_set():
            await asyncio.sleep(0.02)
        with contextlib.suppress(Exception):
            await room.disconnect()


async def test_a_repeated_impostor_is_removed_and_the_bot_keeps_the_room(livekit_server, tmp_path):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    name = "impostor-room"
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=name, table="impostor")
    async with (
        serve(hosting.app),
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        settings = TableSettings.from_record({"preset": "online", "language": "en", "seats": 10})
        await hosting.app.state.server.registry.create(settings, "impostor")
        room = hosting.tables.hosted["impostor"].room
        notices: list[dict] = []
        host = rtc.Room()
        host.on(
            "data_received",
            lambda packet: (
                notices.append(json.loads(packet.data)) if packet.topic == NOTICE_TOPIC else None
            ),
        )
        await host.connect(creds.url, host_token(creds, name))
        stack.push_async_callback(host.disconnect)
        player = OverlayClient(creds.url, player_token(creds, name, 2))
        await player.join()
        stack.push_async_callback(player.leave)
        assert (await player.hello())["seat"] == 2
        await eventually(lambda: "host" in room.hosts(), "the bot sees the proved host")

        # A club's token server that hands out whatever identity is asked for.
        grants = VideoGrants(room_join=True, room=name)
        token = AccessToken(API_KEY, API_SECRET).with_identity(BOT_IDENTITY)
        stop, joins = asyncio.Event(), [0]
        attacking = asyncio.create_task(
            impostor(creds.url, token.with_grants(grants).to_jwt(), stop, joins)
        )
        stack.push_async_callback(lambda: asyncio.wait_for(attacking, 15))
        stack.callback(stop.set)
        # Replaced twice in a row (as soon as the impostor's SDK manages to join twice),
        # the bot takes a name of its own; from then on he is removed at each join.
        await eventually(lambda: joins[0] >= 2, "the impostor joined twice", seconds=30)
        await asyncio.sleep(2.0)  # the bot's rejoin under its own name
        held = polls = 0
        loop = asyncio.get_running_loop()
        end = loop.time() + WATCHED_SECONDS
        while loop.time() < end:
            listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=name))
            sessions = {p.identity: p.sid for p in listed.participants}
            polls += 1
            held += sessions.get(room.bot_identity) == room.bot_sid
            await asyncio.sleep(0.1)
        stop.set()

        assert held >= 0.9 * polls, f"the bot was in the room {held} of {polls} polls"
        assert joins[0] >= 2 and room.impostors >= 1, (joins, room.impostors)

        async def impostor_gone() -> bool:
            listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=name))
            return BOT_IDENTITY not in {p.identity for p in listed.participants}

        await eventually(impostor_gone, "the impostor is out of the room")
        await eventually(lambda: notices, "the live host is told")
        assert {n["event"] for n in notices} == {"bot_impostor"}
        assert {n["identity"] for n in notices} == {BOT_IDENTITY}
        # The page's RPC finds the bot under its new name, and it still knows seat 2.
        assert (await player.hello())["seat"] == 2


async def copycat(
    url: str, lkapi: api.LiveKitAPI, name: str, stop: asyncio.Event, joins: list[int]
) -> None:
    """Join under whatever bot name the room shows (identities are visible to every
    participant), and again at once whenever removed or replaced."""
    while not stop.is_set():
        listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=name))
        names = [p.identity for p in listed.participants if is_bot_identity(p.identity)]
        if not names:
            await asyncio.sleep(0.05)
            continue
        grants = VideoGrants(room_join=True, room=name)
        token = AccessToken(API_KEY, API_SECRET).with_identity(names[-1]).with_grants(grants)
        room = rtc.Room()
        try:
            await room.connect(url, token.to_jwt(), rtc.RoomOptions(auto_subscribe=False))
        except Exception:
            await asyncio.sleep(0.05)
            continue
        joins[0] += 1
        while room.isconnected() and not stop.is_set():
            await asyncio.sleep(0.02)
        with contextlib.suppress(Exception):
            await room.disconnect()


@pytest.mark.xfail(
    strict=True,
    reason="open (issue 30): LiveKit replaces any session whose identity joins again, and the "
    "bot's own name is visible to the room; measured, a copycat held its place about half the "
    "time (25 of 55 polls), whether the bot takes a new name at the first duplicate or the "
    "second. Needs a standby bot session (docs/livekit.md).",
)
async def test_an_impostor_copying_the_bots_visible_name_is_refused(livekit_server, tmp_path):
    """The bot's own name (`autohost-bot-<random>`) cannot be guessed ahead, but it is seen
    by everybody in the room once the bot is in: an impostor whose club token server hands
    out any identity joins under it, again and again. The bot should keep the room all the
    same; today it does not (xfail, strict: this fails once it does)."""
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    name = "copycat-room"
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=name, table="copycat")
    async with (
        serve(hosting.app),
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        settings = TableSettings.from_record({"preset": "online", "language": "en", "seats": 10})
        await hosting.app.state.server.registry.create(settings, "copycat")
        room = hosting.tables.hosted["copycat"].room
        player = OverlayClient(creds.url, player_token(creds, name, 2))
        await player.join()
        stack.push_async_callback(player.leave)
        assert (await player.hello())["seat"] == 2
        stop, joins = asyncio.Event(), [0]
        attacking = asyncio.create_task(copycat(creds.url, lkapi, name, stop, joins))
        stack.push_async_callback(lambda: asyncio.wait_for(attacking, 15))
        stack.callback(stop.set)
        await eventually(lambda: joins[0] >= 4, "the impostor joined again and again", seconds=30)
        await asyncio.sleep(2.0)
        held = polls = 0
        loop = asyncio.get_running_loop()
        end = loop.time() + WATCHED_SECONDS
        while loop.time() < end:
            listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=name))
            sessions = {p.identity: p.sid for p in listed.participants}
            polls += 1
            held += sessions.get(room.bot_identity) == room.bot_sid
            await asyncio.sleep(0.1)
        stop.set()
        assert held >= 0.9 * polls, (
            f"the bot was in the room {held} of {polls} polls; the impostor joined {joins[0]} "
            f"times, the bot now {room.bot_identity}"
        )
        assert (await player.hello())["seat"] == 2
