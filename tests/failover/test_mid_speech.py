"""The owner of a LiveKit table SIGKILLed or SIGSTOPped in the middle of a speech, with the
real LiveKit server and real participants in the seats: the other server takes the table
over, replays it (the same speaker, the timer going on from the log) and its bot holds the
room; the speaker's microphone is open and only his. The next turn, on the heir, moves the
microphone. A SIGSTOPped owner resumed afterwards writes nothing and drops the table
without touching a microphone: the heir's grants stay as they are."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from livekit import api

from plugin.rooms.livekit.permissions import PublishPermission
from plugin.rooms.livekit.tokens import Credentials
from plugin.server.livekit import ROOM_PREFIX
from testing import Client, ServerProcess
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET
from testing.postgres import PostgresServer

from .conftest import (
    assert_resumed,
    claim_after,
    create_table,
    dsn_of,
    host_of,
    leases,
    widget,
)

pytestmark = [pytest.mark.slow, pytest.mark.livekit]
SETTLE_SECONDS = 20  # a grant reaching ListParticipants on a busy machine
STALE_WATCH_SECONDS = 4.0  # past the resumed server's overdue reconcile and lease check


@pytest.fixture
def lk_servers(
    livekit_server, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[ServerProcess]]:
    monkeypatch.setenv("LIVEKIT_URL", livekit_server.ws_url)
    monkeypatch.setenv("LIVEKIT_API_KEY", API_KEY)
    monkeypatch.setenv("LIVEKIT_API_SECRET", API_SECRET)
    dsn = postgres.new_database()
    made = [ServerProcess(dsn, options=["--room", "livekit", "--no-voice"]) for _ in range(2)]
    try:
        for server in made:
            server.start()
        yield made
    finally:
        for server in made:
            if server.process is not None:
                if server.alive():
                    with_cont(server)
                server.kill()  # reaps it and closes its pipe, dead or alive


def with_cont(server: ServerProcess) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(server.pid, signal.SIGCONT)


@pytest.fixture
async def lkapi(livekit_server) -> AsyncIterator[api.LiveKitAPI]:
    async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET, failover=False) as c:
        yield c


async def open_mics(lkapi: api.LiveKitAPI, room: str) -> set[int]:
    listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room))
    return {
        int(p.identity.removeprefix("seat-"))
        for p in listed.participants
        if p.identity.startswith("seat-") and PublishPermission.of(p.permission).opens_microphone
    }


async def bot_sid(lkapi: api.LiveKitAPI, room: str) -> str | None:
    listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room))
    bots = [p.sid for p in listed.participants if p.identity == "autohost-bot"]
    return bots[0] if bots else None


async def settle(lkapi: api.LiveKitAPI, room: str, expected: set[int]) -> None:
    deadline = time.monotonic() + SETTLE_SECONDS
    while (mics := await open_mics(lkapi, room)) != expected:
        assert time.monotonic() < deadline, f"open microphones {mics}, expected {expected}"
        await asyncio.sleep(0.1)


def to_a_speech(host: Client) -> int:
    """Start the game and go on to the first speech; its speaker."""
    host.ack("start")
    deadline = time.monotonic() + 30
    while not (host.state["phase"] == "speech" and host.state["speaker"]):
        assert time.monotonic() < deadline, host.state
        host.ack("next")
    return int(host.state["speaker"])


def speech_left(host: Client) -> float:
    return float(host.state["clock"]["remaining"]) - (time.monotonic() - host.state_at)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP])
async def test_the_owner_dies_mid_speech(lk_servers, lkapi, livekit_server, sig) -> None:
    links = create_table(lk_servers[0])
    table_id = links["id"]
    room = ROOM_PREFIX + table_id
    owner = await asyncio.to_thread(host_of, table_id, lk_servers)
    (other,) = [s for s in lk_servers if s is not owner]
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    players = [Player(creds, room, seat) for seat in (1, 2, 3)]
    for player in players:
        await player.join()
    try:
        console = widget(owner, links["host"]["token"])
        speaker = await asyncio.to_thread(to_a_speech, console)
        assert speaker in (1, 2, 3), speaker  # the seats with a participant
        await settle(lkapi, room, {speaker})
        first_bot = await bot_sid(lkapi, room)
        epoch = leases(dsn_of(owner))[table_id][1]
        timer, left = int(console.state["clock"]["timer"]), speech_left(console)
        read = time.monotonic()
        console.close()  # while the owner answers: a paused one would hold the close 10 s
        if sig == signal.SIGKILL:
            owner.kill()
        else:
            os.kill(owner.pid, sig)
        killed = time.monotonic()
        claimed = await asyncio.to_thread(claim_after, dsn_of(owner), table_id, epoch)
        heir = await asyncio.to_thread(host_of, table_id, [other])
        heir_console = widget(heir, links["host"]["token"])
        assert heir_console.state["phase"] == "speech"
        assert heir_console.state["speaker"] == speaker
        # The timer goes on from the log: what it had when the owner died, give or take the
        # last clock save; it does not run while nobody hosts the table. (The heir's bot
        # joins the room after the timer resumed: that time is in `ran`.)
        left_now = speech_left(heir_console)
        ran = (killed - read) + (time.monotonic() - claimed)
        assert_resumed(int(heir_console.state["clock"]["timer"]), left_now, timer, left, ran)
        await settle(lkapi, room, {speaker})  # the speaker's microphone, and his only
        deadline = time.monotonic() + SETTLE_SECONDS
        while await bot_sid(lkapi, room) in (None, first_bot):
            assert time.monotonic() < deadline, "the heir's bot never joined the room"
            await asyncio.sleep(0.2)
        heir_console.ack("next")  # the heir moves the microphone on
        following = int(heir_console.state["speaker"])
        assert following != speaker
        expected = {following} if following in (1, 2, 3) else set()
        await settle(lkapi, room, expected)
        if sig == signal.SIGSTOP:
            os.kill(owner.pid, signal.SIGCONT)
            # Resumed past its lease: it must not put its stale speaker back.
            watch_until = time.monotonic() + STALE_WATCH_SECONDS
            while time.monotonic() < watch_until:
                assert await open_mics(lkapi, room) == expected
                await asyncio.sleep(0.05)
            assert table_id not in await asyncio.to_thread(owner.hosted)
            assert heir_console.state["speaker"] == following  # the resumed one wrote nothing
            assert heir_console.state["phase"] == "speech"
            assert table_id in await asyncio.to_thread(heir.hosted)
        heir_console.close()
    finally:
        for player in players:
            await player.leave()
