"""A server stopped mid-speech (issue 30), against the real LiveKit server.

SIGTERM of a single server mid-speech gave every microphone back: all ten were open for
about 5 s until it came back. A stop is a restart or an upgrade: the microphones stay as
they are (the speaker's open, everybody else's closed), the bot leaves, and the server
that comes back resumes the table with the same microphones and goes on. The server here
is the assembly in this process; leaving `serve` runs the same shutdown as SIGTERM does
(the lifespan's, `Registry.close`).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from contextlib import AsyncExitStack

import pytest
from livekit import api

from plugin.host.inputs import HOST, Next, Start
from plugin.host.settings import TableSettings
from plugin.paths import ROOT
from plugin.rooms.livekit.seats import BOT_IDENTITY
from plugin.rooms.livekit.tokens import Credentials, host_token, player_token
from testing import eventually, serve
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [pytest.mark.livekit]

ROOM = "restarts"
TABLE = "restarttable"
ROLES = {"8": "don", "9": "mafia", "10": "mafia", "4": "sheriff"}


async def test_a_stop_mid_speech_leaves_the_microphones_as_they_are(livekit_server, tmp_path):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    db = tmp_path / "autohost.db"
    async with (
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):

        async def open_mics() -> set[str]:
            answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
            return {
                p.identity
                for p in answer.participants
                if p.identity.startswith("seat-") and p.permission.can_publish
            }

        async def bot_in_room() -> bool:
            answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
            return BOT_IDENTITY in {p.identity for p in answer.participants}

        for seat in (1, 2, 3):
            player = Player(creds, ROOM, seat)
            await player.join()
            stack.push_async_callback(player.leave)

        hosting = one_table_hosting(creds, db, room=ROOM, table=TABLE)
        async with serve(hosting.app):
            settings = TableSettings.from_record(
                {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
            )
            table = await hosting.app.state.server.registry.create(settings, TABLE)
            assert (await table.submit(HOST, Start())).ok
            while table.state.phase.value != "speech" or 1 not in table.state.speakers:
                assert (await table.submit(HOST, Next())).ok

            async def seat_1_only() -> bool:
                return await open_mics() == {"seat-1"}

            await eventually(seat_1_only, "seat 1's speech: his microphone only")
        # Stopped (SIGTERM's shutdown): the bot is gone, the microphones are as they were.
        await eventually(lambda: _not(bot_in_room), "the bot left the room")
        assert await open_mics() == {"seat-1"}

        again = one_table_hosting(creds, db, room=ROOM, table=TABLE)  # the restart
        async with serve(again.app):
            await eventually(bot_in_room, "the bot is back", seconds=30)
            table = again.app.state.server.registry.tables[TABLE]
            assert 1 in table.state.speakers
            assert await open_mics() == {"seat-1"}
            assert (await table.submit(HOST, Next())).ok  # and the game goes on

            async def seat_2_only() -> bool:
                return await open_mics() == {"seat-2"}

            await eventually(seat_2_only, "seat 2's speech after the restart")


async def _not(check) -> bool:
    return not await check()


async def test_with_no_bot_the_hosts_page_opens_every_microphone(livekit_server, tmp_path):
    """No server's bot came back: the host's page (plugin/web/static/livekit/
    open-microphones.js, run by node here) opens every seat's microphone with its own
    room admin token through the real server's RoomService, and touches nothing else."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing")
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    async with (
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        for seat in (1, 2, 3):
            player = Player(creds, ROOM, seat)
            await player.join()
            stack.push_async_callback(player.leave)
        module = ROOT / "plugin" / "web" / "static" / "livekit" / "open-microphones.js"
        # One token, signed once: a token signed again a second later is another string, and
        # the player's run below would silently keep the host's token.
        admin = host_token(creds, ROOM)
        script = (
            f"import({json.dumps(module.as_uri())}).then(async (m) => console.log(JSON.stringify("
            f"await m.openEveryMicrophone({{url: {json.dumps(creds.url)}, "
            f"token: {json.dumps(admin)}, room: {json.dumps(ROOM)}}}))))"
        )
        done = await asyncio.create_subprocess_exec(
            node, "--input-type=module", "-e", script, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(done.communicate(), 30)
        assert done.returncode == 0, err.decode()
        assert sorted(json.loads(out)) == ["seat-1", "seat-2", "seat-3"]
        answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
        held = {p.identity: p.permission for p in answer.participants}
        for seat in ("seat-1", "seat-2", "seat-3"):
            assert held[seat].can_publish and held[seat].can_subscribe, held[seat]
            assert held[seat].can_publish_data  # nothing else of his changed
        # A player's token is no room admin's: his page cannot do it. Seat 2's microphone
        # is closed first, so that a run which changed nothing cannot pass for a refusal.
        closed = api.ParticipantPermission(
            can_subscribe=True, can_publish=False, can_publish_data=True
        )
        await lkapi.room.update_participant(
            api.UpdateParticipantRequest(room=ROOM, identity="seat-2", permission=closed)
        )
        as_player = script.replace(json.dumps(admin), json.dumps(player_token(creds, ROOM, 2)))
        assert as_player != script
        refused = await asyncio.create_subprocess_exec(
            node, "--input-type=module", "-e", as_player,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        await asyncio.wait_for(refused.communicate(), 30)
        assert refused.returncode != 0
        answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
        still = {p.identity: p.permission for p in answer.participants}["seat-2"]
        assert not still.can_publish, still
