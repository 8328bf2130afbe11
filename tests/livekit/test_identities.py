"""Identities nobody can override (issue 30), against the real LiveKit server.

A seat comes only from the identity the token's signer minted (`seat-N`), never from the
`seat` attribute: any room admin can rewrite attributes (an old host token stays a room
admin for its whole life), and one set seat 7's attribute to `seat=1`; the bot then
treated him as seat 1 (seat 1's view, seat 1's microphone during seat 1's speech, and his
`pass` ended seat 1's speech).
"""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest
from livekit import api

from plugin.host.inputs import HOST, Next, Start
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.tokens import Credentials, player_token
from testing import eventually, serve
from testing.livekit_overlay import OverlayClient
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

pytestmark = [pytest.mark.livekit]

ROOM = "identities"
TABLE = "identitytable"
ROLES = {"8": "don", "9": "mafia", "10": "mafia", "4": "sheriff"}


async def test_an_admin_written_seat_attribute_binds_nothing(livekit_server, tmp_path) -> None:
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
    async with (
        serve(hosting.app),
        AsyncExitStack() as stack,
        api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lkapi,
    ):
        settings = TableSettings.from_record(
            {"preset": "online", "language": "en", "seats": 10, "roles": ROLES}
        )
        table = await hosting.app.state.server.registry.create(settings, TABLE)
        room = hosting.tables.hosted[TABLE].room
        clients = {}
        for seat in (1, 7):
            clients[seat] = OverlayClient(creds.url, player_token(creds, ROOM, seat))
            await clients[seat].join()
            stack.push_async_callback(clients[seat].leave)
        seven = clients[7]
        assert (await seven.hello())["seat"] == 7

        assert (await table.submit(HOST, Start())).ok
        while table.state.phase.value != "speech" or 1 not in table.state.speakers:
            assert (await table.submit(HOST, Next())).ok

        async def listed() -> dict[str, api.ParticipantInfo]:
            answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=ROOM))
            return {p.identity: p for p in answer.participants}

        async def only_seat_1_may_speak() -> bool:
            now = await listed()
            return now["seat-1"].permission.can_publish and not now["seat-7"].permission.can_publish

        await eventually(only_seat_1_may_speak, "seat 1's speech: his microphone only")

        # An admin (the server API here, an old host token in the field) writes seat 7's
        # `seat` attribute; seat 7 himself may not (our tokens never allow it).
        await lkapi.room.update_participant(
            api.UpdateParticipantRequest(room=ROOM, identity="seat-7", attributes={"seat": "1"})
        )
        assert (await listed())["seat-7"].attributes["seat"] == "1"
        await room.reconcile()  # the room has read the new attribute
        assert room.participants["seat-7"].seat == 7
        assert (await seven.hello())["seat"] == 7  # his RPC is still seat 7's
        await eventually(lambda: (seven.state or {}).get("you") == 7, "seat 7's own view")
        assert await only_seat_1_may_speak()  # no microphone in seat 1's speech
        refused = await seven.send("pass")  # not his speech: refused, seat 1 goes on
        assert refused["type"] == "error", refused
        assert 1 in table.state.speakers and table.state.phase.value == "speech"
        assert (await clients[1].send("pass"))["type"] == "ack"  # seat 1's own pass works
        await eventually(lambda: 1 not in table.state.speakers, "seat 1's pass ends his speech")
