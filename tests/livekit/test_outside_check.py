"""What an outside check found in the LiveKit path (issue 16), one test per class, against
the real LiveKit server where it can show it, else against the contract server:

- a revoke keeps every permission field but the publish ones;
- a stale leave of the speaker changes nothing, and the reconcile keeps its own schedule;
- `host` and `autohost-bot` are proved, not named; a duplicate bot is reported and the bot
  comes back;
- our player tokens publish nothing at join;
- a genuine webhook replayed within its signature window is applied once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

import httpx
import pytest
from livekit import api, rtc
from livekit.api import AccessToken, VideoGrants
from livekit.protocol.models import ParticipantInfo

from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot
from plugin.rooms.livekit.proof import host_attributes, is_proved_host
from plugin.rooms.livekit.tokens import Credentials, bot_token, host_token
from plugin.rooms.livekit.webhook import Recent, webhook_route
from plugin.server import listening
from testing import eventually
from testing.livekit_contract import ContractServer
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET, mic_publishers
from testing.tones import tone_frames

ROOMS = itertools.count(1)


@pytest.fixture
def creds(livekit_server):
    return Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)


@pytest.fixture
def room_name():
    return f"check-{next(ROOMS)}"


@pytest.fixture
async def lkapi(creds):
    async with api.LiveKitAPI(creds.url, API_KEY, API_SECRET, failover=False) as client:
        yield client


def club_token(room: str, identity: str, **grants) -> str:
    """A token as a club's own service might mint it."""
    grants.setdefault("can_publish_sources", ["microphone"])
    seat = identity.removeprefix("seat-")
    token = AccessToken(API_KEY, API_SECRET).with_identity(identity)
    if seat.isdigit():
        token = token.with_attributes({"seat": seat})
    return token.with_grants(VideoGrants(room_join=True, room=room, **grants)).to_jwt()


async def listed(lkapi, room: str) -> dict[str, ParticipantInfo]:
    answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room))
    return {p.identity: p for p in answer.participants}


# (a) ------------------------------------------------------------------------------------


@pytest.mark.livekit
async def test_a_revoke_keeps_what_else_the_participant_may_do(creds, room_name, lkapi):
    player = Player(creds, room_name, 1)
    await player.join(club_token(room_name, "seat-1", can_update_own_metadata=True))
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, room_name, reconcile_every=3600)
    await room.start()
    try:
        await room.set_speakers(frozenset({2}))  # seat 1 revoked
        await room.set_speakers(frozenset({1}))  # and granted again
        await room.set_speakers(frozenset({2}))
        held = (await listed(lkapi, room_name))["seat-1"].permission
        assert held.can_publish is False
        assert held.can_update_metadata, "the revoke took away his own attributes"
        assert held.can_subscribe and held.can_publish_data
        await player.room.local_participant.set_attributes({"seat": "1", "mood": "calm"})

        async def attributes_set() -> bool:
            return (await listed(lkapi, room_name))["seat-1"].attributes.get("mood") == "calm"

        await eventually(attributes_set, "the participant still sets his own attributes")
    finally:
        await room.stop()
        await player.leave()


# (b) ------------------------------------------------------------------------------------


@pytest.mark.livekit
async def test_a_stale_leave_of_the_speaker_changes_nothing(creds, room_name, lkapi):
    players = [Player(creds, room_name, seat) for seat in (1, 2)]
    for player in players:
        await player.join()
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, room_name, reconcile_every=3600)
    await room.start()
    try:
        await room.set_speakers(frozenset({1}))
        await eventually(
            _async_eq(lambda: mic_publishers(lkapi, room_name), {"seat-1"}), "seat 1 speaks"
        )
        old_session = (await listed(lkapi, room_name))["seat-1"].sid
        await players[0].leave()  # a reconnect: a new session of seat 1
        players[0] = Player(creds, room_name, 1)
        await players[0].join()
        await room.reconcile()  # the room sees the new session, and gives him his turn back
        await eventually(
            _async_eq(lambda: mic_publishers(lkapi, room_name), {"seat-1"}), "seat 1 again"
        )
        # the old session's leave arrives late (a replayed or delayed webhook)
        await room.participant_left(ParticipantInfo(identity="seat-1", sid=old_session))
        await room.participant_joined(ParticipantInfo(identity="seat-1", sid=old_session))
        assert room.participants["seat-1"].sid != old_session
        await room.set_speakers(frozenset({2}))
        await eventually(
            _async_eq(lambda: mic_publishers(lkapi, room_name), {"seat-2"}),
            "only seat 2 publishes after the turn change (seat 1 was revoked)",
        )
        assert (await listed(lkapi, room_name))["seat-1"].permission.can_publish is False
    finally:
        await room.stop()
        for player in players:
            await player.leave()


async def test_the_reconcile_runs_while_joins_keep_waking_the_loop(contract: ContractServer):
    contract.join("busy", "seat-1", attributes={"seat": "1"})
    room = LiveKitRoom.connect(contract.url, API_KEY, API_SECRET, "busy", reconcile_every=0.3)
    await room.start()
    listed_at_start = sum(r.method == "ListParticipants" for r in contract.requests)
    try:
        for number in range(40):  # a spectator joining every 50 ms for 2 s
            await room.participant_joined(ParticipantInfo(identity=f"guest-{number}"))
            await asyncio.sleep(0.05)
        reconciles = sum(r.method == "ListParticipants" for r in contract.requests)
        assert reconciles - listed_at_start >= 4, "the reconcile never ran on its schedule"
    finally:
        await room.stop()


# (c) ------------------------------------------------------------------------------------


@pytest.mark.livekit
async def test_an_unproved_host_is_silenced_and_the_real_one_is_not(creds, room_name, lkapi):
    impostor = Player(creds, room_name, 0)
    await impostor.join(club_token(room_name, "host", can_publish_sources=[]))  # every source
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, room_name, reconcile_every=3600)
    await room.start()
    try:
        await room.set_speakers(frozenset({1}))
        held = (await listed(lkapi, room_name))["host"].permission
        assert held.can_publish is False, "a participant named host publishes without proof"
        await impostor.leave()
        host = Player(creds, room_name, 0)
        impostor = host
        await host.join(host_token(creds, room_name))
        await room.reconcile()
        await room.set_speakers(frozenset({2}))
        assert (await listed(lkapi, room_name))["host"].permission.can_publish

        async def host_publishes() -> bool:
            return "host" in await mic_publishers(lkapi, room_name)

        await eventually(host_publishes, "the proved host keeps his microphone")
    finally:
        await room.stop()
        await impostor.leave()


def test_a_host_proof_is_bound_to_the_room_and_to_unchangeable_attributes():
    from livekit.protocol.models import ParticipantPermission

    proof = host_attributes(API_SECRET, "r1")
    fixed = ParticipantPermission(can_update_metadata=False)
    changeable = ParticipantPermission(can_update_metadata=True)
    expected = host_attributes(API_SECRET, "r1")["autohost-host"]
    assert is_proved_host(expected, "host", proof, fixed)
    assert not is_proved_host(expected, "host", proof, changeable)  # could have copied it
    assert not is_proved_host(expected, "seat-1", proof, fixed)
    assert not is_proved_host(expected, "host", host_attributes(API_SECRET, "r2"), fixed)
    assert not is_proved_host(expected, "host", host_attributes("x" * 40, "r1"), fixed)
    assert not is_proved_host(None, "host", proof, fixed)


@pytest.mark.livekit
async def test_a_duplicate_bot_is_reported_and_the_bot_comes_back(creds, room_name, lkapi, caplog):
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, room_name, reconcile_every=3600)
    bot = LiveKitBot(
        creds.url,
        lambda: bot_token(creds, room_name),
        events=room,
        on_session=room.bot_joined,
        rejoin_delay=0.05,
        quiet_after=3600,  # its track must come back with it, however slow the rejoin
    )
    await room.start()
    await bot.start()
    impostor = rtc.Room()
    try:
        await bot.play(tone_frames(550.0, frames=5))  # it spoke: its track comes back with it
        await room.set_speakers(frozenset())
        caplog.set_level(logging.WARNING, logger="plugin.rooms.livekit.bot")
        await impostor.connect(creds.url, club_token(room_name, "autohost-bot"))

        # On a loaded machine the impostor's own join may still be setting up when the
        # bot's rejoin replaces it; its SDK then tries again and replaces the bot a second
        # time. Each replacement is reported and answered by a rejoin, and the bot is the
        # one left in the room.
        async def bot_is_back() -> bool:
            bots = [p for p in (await listed(lkapi, room_name)).values()]
            return (
                bot.rejoins >= 1
                and bot.rejoins == bot.duplicates
                and [p.sid for p in bots if p.identity == "autohost-bot"] == [room.bot_sid]
                and "autohost-bot" in await mic_publishers(lkapi, room_name)
                and impostor.connection_state != rtc.ConnectionState.CONN_CONNECTED
            )

        await eventually(bot_is_back, "the bot joined again and publishes its voice", seconds=30)
        messages = [record.getMessage() for record in caplog.records]
        reported = [message for message in messages if "duplicate identity" in message]
        assert len(reported) == bot.duplicates >= 1, reported
    finally:
        await impostor.disconnect()
        await bot.stop()
        await room.stop()


# (d) ------------------------------------------------------------------------------------


@pytest.mark.livekit
async def test_a_player_publishes_nothing_until_the_engine_grants_it(creds, room_name, lkapi):
    player = Player(creds, room_name, 3)
    await player.join()  # our player token
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, room_name, reconcile_every=3600)
    await room.start()
    try:
        assert not player.may_publish()
        assert (await listed(lkapi, room_name))["seat-3"].permission.can_publish is False
        assert await mic_publishers(lkapi, room_name) == set()
        await room.set_speakers(frozenset({3}))
        await eventually(
            _async_eq(lambda: mic_publishers(lkapi, room_name), {"seat-3"}),
            "the engine's grant opens his microphone",
        )
    finally:
        await room.stop()
        await player.leave()


# (e) ------------------------------------------------------------------------------------


class Recorder:
    """ASGI wrapper that keeps every request's body and Authorization header."""

    def __init__(self, app) -> None:
        self.app = app
        self.requests: list[tuple[bytes, str]] = []

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        auth = dict(scope["headers"]).get(b"authorization", b"").decode()
        self.requests.append((body, auth))

        async def again():
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, again, send)


class Sink:
    listed_since = 0.0

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    async def participant_joined(self, info: ParticipantInfo) -> None:
        self.calls.append(("joined", info.identity, info.sid))

    async def participant_left(self, info: ParticipantInfo) -> None:
        self.calls.append(("left", info.identity, info.sid))


@pytest.mark.livekit
async def test_a_replayed_genuine_webhook_is_applied_once(livekit_server, creds, room_name):
    from starlette.applications import Starlette

    sink = Sink()
    route = webhook_route(API_KEY, API_SECRET, lambda name: sink if name == room_name else None)
    recorder = Recorder(Starlette(routes=[route]))
    player = Player(creds, room_name, 4)
    async with listening(recorder, port=livekit_server.webhook_port, lifespan="off") as where:
        await player.join()
        await eventually(_async(lambda: len(sink.calls) >= 1), "participant_joined", seconds=15)
        await player.leave()
        await eventually(_async(lambda: len(sink.calls) >= 2), "participant_left", seconds=15)
        applied = list(sink.calls)
        assert [call[:2] for call in applied] == [("joined", "seat-4"), ("left", "seat-4")]
        async with httpx.AsyncClient() as client:
            for body, auth in list(recorder.requests):  # every genuine event, again
                answer = await client.post(
                    f"{where.url}/livekit/webhook",
                    content=body,
                    headers={"Authorization": auth, "Content-Type": "application/webhook+json"},
                )
                assert answer.status_code == 200 and answer.json()["duplicate"], answer.text
        assert sink.calls == applied


def test_remembered_event_ids_are_bounded_in_count_and_time():
    now = [0.0]
    recent = Recent(window=10.0, limit=3, clock=lambda: now[0])
    assert recent.first_time("a") and not recent.first_time("a")
    for name in "bcd":
        assert recent.first_time(name)
    assert len(recent) == 3  # "a" dropped for the limit
    now[0] = 20.0
    assert recent.first_time("e") and len(recent) == 1  # the rest expired with the window


def _async(predicate):
    async def check() -> bool:
        return bool(predicate())

    return check


def _async_eq(fetch, expected):
    async def check() -> bool:
        return await fetch() == expected

    return check


async def test_a_seat_attribute_its_owner_can_rewrite_binds_no_seat(contract: ContractServer):
    """Keeping can_update_metadata (class a) must not let a player set `seat` to the
    speaker's and take his turn: such a participant's seat comes from his identity only."""
    contract.join("own", "seat-1", attributes={"seat": "1"})
    contract.join("own", "anna", attributes={"seat": "2"})
    contract.join("own", "seat-3", attributes={"seat": "2"})
    for identity in ("anna", "seat-3"):
        contract.rooms["own"][identity].permission.can_update_metadata = True
    room = LiveKitRoom.connect(contract.url, API_KEY, API_SECRET, "own", reconcile_every=3600)
    await room.start()
    try:
        assert {i: s.seat for i, s in room.participants.items()} == {
            "seat-1": 1,
            "anna": None,
            "seat-3": 3,
        }
        await room.set_speakers(frozenset({2}))
        assert contract.publishing("own") == set()
    finally:
        await room.stop()
