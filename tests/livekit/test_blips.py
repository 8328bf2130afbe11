"""Blips between the bot and LiveKit (issue 30): what LiveKit lists now is the truth.

A TCP proxy (testing/tcp_proxy.py) sits between the table's process (its bot and its
RoomService calls) and the real LiveKit server; ten seated players join the server
directly. At a speech, a vote, a night and the live host's tie dialog the proxy resets
every connection (and refuses new ones for a while) or stalls them; the table changes turn
meanwhile. Within a second of the blip's end the microphones LiveKit lists (polled from
ListParticipants) are exactly the engine's speakers', and the game goes on with the right
microphone at every later turn. Before, a reset made the SDK report every player gone and
back with the same sessions; the room remembered those sessions as gone and dropped them
even while LiveKit listed them, and no later turn change touched anybody.

The second test is the same cause through a signed webhook: a `participant_left` that
names a player's current session must not take him out of the room's control.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx
import pytest
from google.protobuf.json_format import MessageToJson
from livekit import api
from livekit.api import AccessToken
from livekit.protocol.models import ParticipantInfo, Room
from livekit.protocol.webhook import WebhookEvent

from plugin.host.inputs import HOST, Choice, Manual, Next, Nominate, Start, Vote
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.tokens import Credentials
from testing import eventually, serve
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting
from testing.tcp_proxy import TcpProxy

pytestmark = [pytest.mark.livekit, pytest.mark.slow]

ROOM = "blips"
TABLE = "blipstable"
ROLES = {"8": "don", "9": "mafia", "10": "mafia", "7": "sheriff"}
RIGHT_WITHIN = 1.0  # seconds after a blip ends (and after every turn change)


@pytest.fixture
async def lkapi(livekit_server) -> AsyncIterator[api.LiveKitAPI]:
    async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET, failover=False) as c:
        yield c


async def open_mics(lkapi: api.LiveKitAPI) -> set[int]:
    """The seats LiveKit lets publish a microphone now (its permission, not our belief)."""
    listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
    return {
        int(p.identity.removeprefix("seat-"))
        for p in listed.participants
        if p.identity.startswith("seat-") and p.permission.can_publish
    }


async def right_within(lkapi: api.LiveKitAPI, table, seconds: float, what: str) -> None:
    """The open microphones are exactly the engine's speakers within `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        wanted = set(table.state.speakers)
        listed = await open_mics(lkapi)
        if listed == wanted:
            return
        if loop.time() > deadline:
            raise AssertionError(f"{what}: LiveKit lets {sorted(listed)} speak, not {wanted}")
        await asyncio.sleep(0.05)


async def step(table, sender, given) -> None:
    verdict = await asyncio.wait_for(table.submit(sender, given), 30)
    assert verdict.ok, (given, verdict)


async def blip(proxy: TcpProxy, how: str, seconds: float, table, turn=None) -> None:
    """Cut the bot off for `seconds` (`how`: reset or stall); the table moves on meanwhile
    (`turn`: an input submitted during the blip, answered whenever the room can)."""
    proxy.cut(seconds, how)  # type: ignore[arg-type]
    moving = asyncio.create_task(step(table, *turn)) if turn else None
    await asyncio.sleep(seconds)
    if moving is not None:
        await moving


async def test_blips_at_every_phase_leave_exactly_the_speakers_microphones(
    livekit_server, lkapi, tmp_path
) -> None:
    direct = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    async with AsyncExitStack() as stack:
        proxy = await stack.enter_async_context(TcpProxy("127.0.0.1", livekit_server.port))
        via_proxy = Credentials(url=f"ws://{proxy.address}", api_key=API_KEY,
                                api_secret=API_SECRET)  # fmt: skip
        hosting = one_table_hosting(via_proxy, tmp_path / "autohost.db", room=ROOM, table=TABLE)
        await stack.enter_async_context(serve(hosting.app))
        settings = TableSettings.from_record(
            {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
        )
        table = await hosting.app.state.server.registry.create(settings, TABLE)
        for seat in range(1, 11):
            player = Player(direct, ROOM, seat)
            await player.join()
            stack.push_async_callback(player.leave)
        await step(table, HOST, Manual(on=True))  # the live host answers the tie dialog
        await step(table, HOST, Start())
        phase = table.state.phase.value
        assert phase == "black_meeting", phase
        await right_within(lkapi, table, 10, "night zero")

        # Night zero: a reset of 2 s (the SDK restarts its connection) and a stall.
        await blip(proxy, "reset", 2.0, table)
        await right_within(lkapi, table, RIGHT_WITHIN, "night, after a reset")
        await blip(proxy, "stall", 1.0, table)
        await right_within(lkapi, table, RIGHT_WITHIN, "night, after a stall")
        while table.state.phase.value != "speech":
            await step(table, HOST, Next())
        await right_within(lkapi, table, RIGHT_WITHIN, "the first speech")

        # Speeches: the turn changes during the blip; seats 1 and 2 nominate 5 and 6.
        speaker = min(table.state.speakers)
        await step(table, speaker, Nominate(target=5))
        await blip(proxy, "reset", 2.0, table, turn=(HOST, Next()))
        await right_within(lkapi, table, RIGHT_WITHIN, "the next speech, after a reset")
        speaker = min(table.state.speakers)
        await step(table, speaker, Nominate(target=6))
        await blip(proxy, "stall", 2.0, table, turn=(HOST, Next()))
        await right_within(lkapi, table, RIGHT_WITHIN, "the next speech, after a stall")
        while table.state.phase.value != "voting":
            await step(table, HOST, Next())
            await right_within(lkapi, table, RIGHT_WITHIN, "a later speech")

        # The vote: a tie, 5 to 5, with a reset in the middle of it.
        for voter in (1, 2, 3, 4, 6):
            await step(table, voter, Vote(candidate=5))
        await blip(proxy, "reset", 1.0, table)
        await right_within(lkapi, table, RIGHT_WITHIN, "the vote, after a reset")
        for voter in (5, 7, 8, 9, 10):
            await step(table, voter, Vote(candidate=6))
        while table.state.phase.value == "voting":
            await step(table, HOST, Next())
        assert table.state.phase.value == "dialog", table.state.phase

        # The live host's tie dialog: a stall, then his answer (speeches) during a reset.
        await blip(proxy, "stall", 2.0, table)
        await right_within(lkapi, table, RIGHT_WITHIN, "the tie dialog, after a stall")
        await blip(proxy, "reset", 1.0, table, turn=(HOST, Choice(choice="speeches")))
        await right_within(lkapi, table, RIGHT_WITHIN, "a defense speech, after a reset")
        assert table.state.phase.value == "defense" and table.state.speakers

        # The game goes on: every later turn has the right microphone.
        for _ in range(3):
            await step(table, HOST, Next())
            await right_within(lkapi, table, RIGHT_WITHIN, f"after {table.state.phase.value}")
        assert proxy.resets >= 4 and proxy.stalls >= 3


def signed_left(sid: str, identity: str) -> tuple[str, str]:
    """A `participant_left` signed with the server's key, naming `sid` (a current one)."""
    event = WebhookEvent(
        event="participant_left",
        id=f"EV_left_{sid}",
        room=Room(name=ROOM),
        participant=ParticipantInfo(identity=identity, sid=sid),
    )
    body = MessageToJson(event)
    digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    return body, AccessToken(API_KEY, API_SECRET).with_sha256(digest).to_jwt()


async def test_a_signed_leave_naming_a_current_session_keeps_him_under_control(
    livekit_server, lkapi, tmp_path
) -> None:
    """A signed `participant_left` for seat 3's session while he is still in the room: he
    was dropped from the room's control and kept his microphone through four turns."""
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
    async with AsyncExitStack() as stack:
        base = await stack.enter_async_context(serve(hosting.app))
        settings = TableSettings.from_record(
            {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
        )
        table = await hosting.app.state.server.registry.create(settings, TABLE)
        for seat in range(1, 11):
            player = Player(creds, ROOM, seat)
            await player.join()
            stack.push_async_callback(player.leave)
        await step(table, HOST, Start())
        while table.state.phase.value != "speech":
            await step(table, HOST, Next())
        while 3 not in table.state.speakers:
            await step(table, HOST, Next())
        await right_within(lkapi, table, 5, "seat 3 speaks")
        listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
        sid = next(p.sid for p in listed.participants if p.identity == "seat-3")
        body, auth = signed_left(sid, "seat-3")
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            answer = await client.post(
                "/livekit/webhook", content=body, headers={"Authorization": auth}
            )
        assert answer.status_code == 200, answer.text
        for _ in range(4):  # four turns: seat 3's microphone is taken back at the first
            await step(table, HOST, Next())
            await right_within(lkapi, table, RIGHT_WITHIN, "a turn after the forged leave")
        room = hosting.tables.hosted[TABLE].room

        def listed_again() -> bool:  # the listing has the last word, within a second
            seen = room.participants.get("seat-3")
            return seen is not None and seen.sid == sid and not seen.left

        await eventually(listed_again, "the room lists seat 3 again", seconds=RIGHT_WITHIN)
        assert 3 in room.presence.present  # put back before his grace ran out
