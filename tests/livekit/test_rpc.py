"""The overlay through LiveKit (issue 16), against the real LiveKit server: participants that
hold only a LiveKit token send the WebSocket protocol's messages as RPC to the bot and get
their own views back as data messages. The seat comes from the identity LiveKit verified;
an unproved `host`, a player's host command, oversize and malformed payloads are refused
and change nothing; a view longer than one data packet arrives whole, in parts."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack

import pytest
from livekit.api import AccessToken, VideoGrants

from plugin.host.inputs import HOST, Next, Nominate
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.rpc import MAX_PACKET_BYTES, PART_TOPIC, TOPIC, parts
from plugin.rooms.livekit.tokens import Credentials, host_token, player_token
from testing import eventually, serve
from testing.livekit_overlay import OverlayClient
from testing.livekit_server import API_KEY, API_SECRET, one_table_hosting

ROOM = "rpc-room"
TABLE = "rpctable1"
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}


def test_a_long_message_goes_in_parts_that_join_back() -> None:
    data = json.dumps({"type": "state", "names": ["x" * 50] * 1000}).encode()
    packets = parts(data, seq=7)
    assert len(packets) > 1 and {topic for topic, _ in packets} == {PART_TOPIC}
    assert all(len(payload) <= MAX_PACKET_BYTES for _, payload in packets)
    heads = [json.loads(payload.partition(b"\n")[0]) for _, payload in packets]
    assert [h["part"] for h in heads] == list(range(len(packets)))
    assert {h["seq"] for h in heads} == {7} and {h["parts"] for h in heads} == {len(packets)}
    assert b"".join(payload.partition(b"\n")[2] for _, payload in packets) == data
    assert parts(b'{"type": "state"}', seq=8) == [(TOPIC, b'{"type": "state"}')]


def club_token(identity: str, **attributes: str) -> str:
    """A token a club's own service could mint: any identity, room admin even."""
    grants = VideoGrants(room_join=True, room=ROOM, room_admin=True, can_publish_data=True)
    token = AccessToken(API_KEY, API_SECRET).with_identity(identity).with_grants(grants)
    return token.with_attributes(attributes).to_jwt() if attributes else token.to_jwt()


def hidden_token(identity: str) -> str:
    """A hidden listener (a club's stream, a silent observer): LiveKit shows him to nobody."""
    grants = VideoGrants(room_join=True, room=ROOM, hidden=True, can_publish=False)
    return AccessToken(API_KEY, API_SECRET).with_identity(identity).with_grants(grants).to_jwt()


def listener_token(identity: str) -> str:
    """A listener without a seat (a spectator a club lets into its call)."""
    grants = VideoGrants(room_join=True, room=ROOM, can_publish=False, can_publish_data=True)
    return AccessToken(API_KEY, API_SECRET).with_identity(identity).with_grants(grants).to_jwt()


@pytest.mark.livekit
async def test_votes_over_rpc_and_views_as_data(livekit_server, tmp_path) -> None:
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
    app = hosting.app
    async with serve(app), AsyncExitStack() as stack:
        server = app.state.server
        settings = TableSettings.from_record(
            {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES}
        )
        table = await server.registry.create(settings, TABLE)
        tokens = {
            "seat2": player_token(creds, ROOM, 2),
            "seat7": player_token(creds, ROOM, 7),
            "forged": club_token("host"),  # room admin, named host, but no proof
            "spoofed": club_token("seat-9", seat="2"),  # the identity binds, not the attribute
            "watcher": listener_token("watcher-1"),
        }
        clients: dict[str, OverlayClient] = {}

        async def join(name: str, token: str) -> OverlayClient:
            clients[name] = OverlayClient(creds.url, token)
            await clients[name].join()
            stack.push_async_callback(clients[name].leave)
            return clients[name]

        for name, token in tokens.items():
            await join(name, token)
        seat2, seat7, forged = (clients[n] for n in ("seat2", "seat7", "forged"))
        hellos = {name: await client.hello() for name, client in clients.items()}
        # A hidden listener cannot ask (LiveKit hides his identity from the bot, so no
        # answer could reach him): the bot sends him the spectators' view unasked.
        hidden = await join("hidden", hidden_token("stream-1"))
        assert hellos["seat2"]["seat"] == 2 and hellos["seat7"]["seat"] == 7
        assert hellos["forged"]["seat"] is None  # an unproved host is a spectator
        assert hellos["watcher"]["seat"] is None
        assert hellos["spoofed"]["seat"] == 9

        for name, client in clients.items():
            await eventually(lambda c=client: c.state is not None, f"{name} gets his view")
        assert seat2.state["you"] == 2 and seat2.state["me"]["role"] == "mafia"
        assert seat7.state["you"] == 7 and "black_team" not in seat7.state["me"]
        for name in ("forged", "watcher", "hidden"):
            view = clients[name].state
            assert view["you"] is None and "me" not in view and "controls" not in view
        assert not any(c.foreign for c in clients.values())
        assert 7 in seat7.state["table"]["connected"]  # an RPC page counts as online

        # Refused, and nothing changes: a forged host's and a player's host commands,
        # oversize, malformed and wrong-shaped payloads, an old protocol version.
        before = table.snapshot().version
        refused = [
            await forged.send("start"),
            await seat7.send("start"),
            await seat7.raw("x" * 5000),
            await seat7.raw("{not json"),
            await seat7.raw('{"v": 1, "id": "m1", "type": "vote", "candidate": "five"}'),
            await seat7.raw('{"v": 1, "id": "m2", "type": "launch"}'),
            await seat7.raw('{"v": 9, "id": "m3", "type": "pass"}'),
        ]
        assert [r["type"] for r in refused] == ["error"] * len(refused), refused
        assert [r["error"] for r in refused] == [
            "spectator", "host_only", "too_large", "bad_json", "bad_message", "bad_message",
            "bad_version",
        ]  # fmt: skip
        assert refused[4]["id"] == "m1"  # the error names the message it refuses
        assert table.snapshot().version == before and table.state.phase.value == "lobby"

        # The forged host goes (LiveKit lets one participant per identity in) and the
        # proved host joins: he gets the host's view and his commands are obeyed.
        await forged.leave()
        host = await join("host", host_token(creds, ROOM))
        assert (await host.hello())["seat"] == "host"
        await eventually(lambda: host.state is not None, "the host gets his view")
        assert "controls" in host.state and "controls" not in (forged.state or {})

        # The proved host starts the game over RPC; the engine's speeches run to the vote.
        started = await host.send("start")
        assert started["type"] == "ack", started
        nominations = {1: 5, 2: 6}
        while table.state.phase.value != "voting":
            speakers = sorted(table.state.speakers)
            if table.state.phase.value == "speech" and speakers and speakers[0] in nominations:
                target = nominations.pop(speakers[0])
                if speakers[0] == 2:  # seat 2 nominates over RPC
                    assert (await seat2.send("nominate", target=target))["type"] == "ack"
                else:
                    nominate = Nominate(target=target)
                    assert (await table.submit(speakers[0], nominate)).ok
            outcome = await table.submit(HOST, Next())
            assert outcome.ok, outcome

        vote = {"v": 1, "id": "vote-7-a", "type": "vote", "candidate": 5}
        acked = await seat7.raw(json.dumps(vote))
        assert acked == {"type": "ack", "v": 1, "id": "vote-7-a", "duplicate": False}
        again = await seat7.raw(json.dumps(vote))  # the same message again: applied once
        assert again["type"] == "ack" and again["duplicate"] is True

        def tally(client: OverlayClient) -> dict[str, int] | None:
            round = ((client.state or {}).get("vote") or {}).get("round") or {}
            return round.get("tally")

        for name in ("seat7", "seat2", "host", "watcher", "hidden"):
            await eventually(
                lambda c=clients[name]: (tally(c) or {}).get("5") == 1,
                f"{name}'s view shows seat 7's vote",
            )
        assert (tally(seat7) or {}).get("5") == 1
        # never a role to the wrong identity: seat 7 saw only his own seat's secrets
        assert {s["me"]["seat"] for s in seat7.states} == {7}
        for name in ("watcher", "hidden"):
            assert all("me" not in s and s["you"] is None for s in clients[name].states)

        # A message longer than a data packet reaches its one identity whole, in parts.
        channel = hosting.tables.overlays[TABLE].channel
        sent = channel.sent
        big = {"type": "state", "names": [f"name {i}" * 20 for i in range(400)]}
        await channel.send(seat7.identity, json.dumps(big).encode())
        assert channel.sent - sent > 2  # parts, not one packet
        await eventually(lambda: seat7.messages[-1] == big, "the long message arrives whole")
        assert big not in seat2.messages

        # A flood from one identity is refused past the socket's rate (the same per-seat
        # bucket), and what is refused is not applied.
        flood = [{"v": 1, "id": f"flood-{i}", "type": "vote", "candidate": 6} for i in range(80)]
        answers = await asyncio.gather(*(seat2.raw(json.dumps(m)) for m in flood))
        limited = [a for a in answers if a.get("error") == "rate_limited"]
        assert limited, answers
        assert table.state.vote is not None and table.state.vote.round is not None
        assert table.state.vote.round.tally().get(6, 0) <= 1  # one vote per voter, at most
        assert all("controls" not in s for s in hidden.states)


@pytest.mark.livekit
async def test_a_reissued_seat_loses_its_livekit_session_and_its_seat(livekit_server, tmp_path):
    """A re-issue closed the old link's sockets but left its LiveKit session: the token we
    minted lasts 6 h, and its holder kept voting as seat 3 over RPC. Now the session is
    removed at the re-issue, a rejoin with the old token is a spectator, and the new link's
    token (an identity of its own) is seat 3."""
    import httpx
    from livekit import api

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hosting = one_table_hosting(creds, tmp_path / "autohost.db", room=ROOM, table=TABLE)
    app = hosting.app
    async with serve(app) as base, AsyncExitStack() as stack, httpx.AsyncClient() as http:
        server = app.state.server
        settings = TableSettings.from_record(
            {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES}
        )
        table = await server.registry.create(settings, TABLE)
        links = server.links(table)
        seat3_link = links["seats"][2]["token"]
        minted = (await http.post(f"{base}/livekit/token", json={"link": seat3_link})).json()
        old = OverlayClient(creds.url, minted["token"])
        await old.join()
        stack.push_async_callback(old.leave)
        assert (await old.hello())["seat"] == 3
        admin = {"Authorization": f"Bearer {server.config.admin_key}"}
        answer = await http.post(f"{base}/api/tables/{TABLE}/reissue", json={"seat": 3},
                                 headers=admin)  # fmt: skip
        assert answer.status_code == 200, answer.text
        async with api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lk:

            async def gone() -> bool:
                listed = await lk.room.list_participants(api.ListParticipantsRequest(room=ROOM))
                return "seat-3" not in {p.identity for p in listed.participants}

            await eventually(gone, "the old session is removed")
        refused = await http.post(f"{base}/livekit/token", json={"link": seat3_link})
        assert refused.status_code == 401  # the old link mints nothing now
        again = OverlayClient(creds.url, minted["token"])  # the old token joins again
        await again.join()
        stack.push_async_callback(again.leave)
        room = hosting.tables.hosted[TABLE].room

        async def removed_again() -> bool:  # removed as soon as the bot sees him (issue 30)
            listed = await lk_list(creds)
            return "seat-3" not in listed and "seat-3" not in room.participants

        await eventually(removed_again, "the old token's new session is removed")
        new_link = answer.json()["seats"][2]["token"]
        fresh = (await http.post(f"{base}/livekit/token", json={"link": new_link})).json()
        assert fresh["identity"] == "seat-3.1"
        new = OverlayClient(creds.url, fresh["token"])
        await new.join()
        stack.push_async_callback(new.leave)
        await eventually(lambda: "seat-3.1" in room.participants, "the bot sees him join")
        assert (await new.hello())["seat"] == 3

        # The host link too: the old host token (a room admin's for 6 h) is nobody after
        # its re-issue, and cannot push the new host out (another identity: host.1).
        host_link = answer.json()["host"]["token"]
        old_host_token = (await http.post(f"{base}/livekit/token", json={"link": host_link})).json()
        old_host = OverlayClient(creds.url, old_host_token["token"])
        await old_host.join()
        stack.push_async_callback(old_host.leave)
        await eventually(lambda: "host" in room.participants, "the bot sees the host")
        assert (await old_host.hello())["seat"] == "host"
        again = await http.post(f"{base}/api/tables/{TABLE}/reissue", json={"seat": "host"},
                                headers=admin)  # fmt: skip
        assert again.status_code == 200
        await eventually(lambda: "host" not in room.participants, "the old host is removed")
        new_host_link = again.json()["host"]["token"]
        minted_host = await http.post(f"{base}/livekit/token", json={"link": new_host_link})
        assert minted_host.json()["identity"] == "host.1"
        new_host = OverlayClient(creds.url, minted_host.json()["token"])
        await new_host.join()
        stack.push_async_callback(new_host.leave)
        await eventually(lambda: "host.1" in room.participants, "the bot sees the new host")
        assert (await new_host.hello())["seat"] == "host"
        back = OverlayClient(creds.url, old_host_token["token"])  # the old host joins again
        await back.join()
        stack.push_async_callback(back.leave)

        async def old_host_removed() -> bool:
            return "host" not in await lk_list(creds) and "host" not in room.participants

        await eventually(old_host_removed, "the old host's new session is removed")
        assert (await new_host.hello())["seat"] == "host"  # still in, still the host


async def lk_list(creds: Credentials) -> set[str]:
    from livekit import api

    async with api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as lk:
        listed = await lk.room.list_participants(api.ListParticipantsRequest(room=ROOM))
    return {p.identity for p in listed.participants}
