"""A link's expiry is the database's time on every server of a shared log (issue 31, "time
across servers"): two real `autohost serve` processes on one real PostgreSQL, one of them
under Debian's libfaketime with its wall clock 10 s fast, or 10 s slow.

Before, each server stamped a link's expiry with its own wall clock and checked it against
its own: a server 10 s fast refused a link 10 s before it expired, one 10 s slow admitted it
10 s after, and the links a skewed server issued lived 10 s more or less than another's.
Now the signer's clock is the log's (EventLog.wall: the database's, measured at start), so
a link is refused exactly when the database's clock passes its expiry, whichever server
issued it and whichever checks it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from livekit import api, rtc
from livekit.api import AccessToken, VideoGrants

from plugin.rooms.livekit.tokens import DEFAULT_TTL
from plugin.signing import DEFAULT_LIFETIME, Signer
from testing import SECRET, ServerProcess, connect, eventually
from testing.livekit_server import API_KEY, API_SECRET, LiveKitServer
from testing.postgres import PostgresServer, running_postgres

pytestmark = pytest.mark.slow
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
AHEAD = 4  # seconds of life the near-expiry link is given, by the database's clock
GRAIN = 1.0  # a check this far either side of the expiry is on the side it is on
SETTINGS = {"preset": "online", "seats": 10, "language": "uk"}


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


def database_now(dsn: str) -> float:
    with psycopg.connect(dsn, connect_timeout=5) as db:
        row = db.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
    assert row is not None
    return float(row[0])


def expiry_of(token: str) -> int:
    body = token.partition(".")[0]
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return int(payload["e"])


def create_table(server: ServerProcess) -> dict[str, Any]:
    answer = httpx.post(
        server.base + "/api/tables",
        json=SETTINGS,
        headers={"Authorization": f"Bearer {server.admin_key}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def first_answer(server: ServerProcess, token: str) -> dict[str, Any]:
    """What the server's table socket first says to a page opening with `token`: its state,
    or an error whose code says why it was refused."""
    with connect(server.ws_url(token), timeout=10) as client:
        return client.receive()


def until_database(dsn: str, moment: float) -> None:
    while (now := database_now(dsn)) < moment:
        time.sleep(min(0.1, moment - now))


@pytest.mark.skipif(not FAKETIME.exists(), reason="needs Debian's libfaketime (faketime)")
@pytest.mark.parametrize("skew", ["+10s", "-10s"])
def test_a_link_expires_when_the_database_says_on_a_server_with_a_skewed_clock(
    postgres: PostgresServer, skew: str
) -> None:
    dsn = postgres.new_database()
    owner = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
    skewed = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
    skewed.env.update(
        {"LD_PRELOAD": str(FAKETIME), "FAKETIME": skew, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    )
    try:
        owner.start()
        skewed.start()
        links = create_table(owner)  # hosted by the owner, whose clock is the database's
        table_id = links["id"]

        # The links a skewed server issues live as long as another's, by the database.
        before = database_now(dsn)
        issued = create_table(skewed)
        after = database_now(dsn)
        for token in (issued["host"]["token"], issued["seats"][0]["token"],
                      issued["watch"]["token"], issued["invite"]["token"]):  # fmt: skip
            expires = expiry_of(token) - DEFAULT_LIFETIME
            assert before - GRAIN <= expires <= after + GRAIN, (skew, expires - before)

        # A seat's link about to expire, by the database's clock (another server's signer).
        now = database_now(dsn)
        token = Signer(SECRET.encode()).issue(table_id, 3, lifetime=AHEAD, now=now)
        expires = expiry_of(token)
        assert expires - now > GRAIN + 1, "minted too close to its expiry"
        for server in (skewed, owner):
            answer = first_answer(server, token)
            assert database_now(dsn) < expires - GRAIN, "the machine was too slow to check"
            # The skewed server does not host the table: it sends the page to its owner.
            wanted = "state" if server is owner else "error"
            assert answer["type"] == wanted, (skew, server is owner, answer)
            assert answer.get("error") != "token_expired", (skew, answer)
            if server is skewed:
                assert answer["error"] == "table_elsewhere", answer

        until_database(dsn, expires + GRAIN)
        for server in (skewed, owner):
            answer = first_answer(server, token)
            assert answer["type"] == "error", (skew, answer)
            assert answer["error"] == "token_expired", (skew, answer)
    finally:
        for server in (owner, skewed):
            if server.alive():
                server.kill()


def livekit_claims(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


async def livekit_admits(url: str, token: str) -> str:
    """'' when the real LiveKit server lets `token` join its room now, else why not."""
    room = rtc.Room()
    try:
        await asyncio.wait_for(room.connect(url, token), timeout=20)
    except (rtc.ConnectError, TimeoutError) as refusal:
        return str(refusal) or type(refusal).__name__
    finally:
        await room.disconnect()
    return ""


@pytest.mark.livekit
@pytest.mark.skipif(not FAKETIME.exists(), reason="needs Debian's libfaketime (faketime)")
@pytest.mark.parametrize("skew", ["+10s", "-10s", "+90s"])
async def test_livekit_tokens_a_skewed_server_mints_are_stamped_with_the_databases_time(
    postgres: PostgresServer, livekit_server: LiveKitServer, skew: str
) -> None:
    """A page's LiveKit token minted by a server whose clock is off: its nbf and exp are
    the database's time (LiveKit's, on a club whose servers keep NTP), so every server of
    the club mints the same validity window; before, they were the minting server's own
    (10 s early or late), and a server more than LiveKit's leeway (one minute,
    livekit/protocol auth/verifier.go) fast minted tokens the real LiveKit server refused
    as not yet valid: the page could not join until that minute passed."""
    dsn = postgres.new_database()
    keys = {"LIVEKIT_URL": livekit_server.ws_url, "LIVEKIT_API_KEY": API_KEY,
            "LIVEKIT_API_SECRET": API_SECRET}  # fmt: skip
    options = ["--room", "livekit", "--no-voice"]
    owner = ServerProcess(dsn, options=options, env=keys)
    skewed = ServerProcess(dsn, options=options, env=keys)
    skewed.env.update(
        {"LD_PRELOAD": str(FAKETIME), "FAKETIME": skew, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    )
    try:
        owner.start()
        skewed.start()
        links = create_table(owner)  # its bot and room are the owner's; any server mints
        for link in (links["host"]["token"], links["seats"][2]["token"], links["watch"]["token"]):
            before = database_now(dsn)
            answer = httpx.post(f"{skewed.base}/livekit/token", json={"link": link}, timeout=10)
            after = database_now(dsn)
            assert answer.status_code == 200, answer.text
            token = answer.json()["token"]
            refused = await livekit_admits(livekit_server.ws_url, token)
            assert refused == "", (skew, answer.json()["identity"], refused)
            claims = livekit_claims(token)
            assert before - GRAIN <= claims["nbf"] <= after + GRAIN, (skew, claims["nbf"] - before)
            assert claims["exp"] - claims["nbf"] == DEFAULT_TTL.total_seconds(), claims
    finally:
        for server in (owner, skewed):
            if server.alive():
                server.kill()


@pytest.mark.livekit
@pytest.mark.skipif(not FAKETIME.exists(), reason="needs Debian's libfaketime (faketime)")
async def test_a_server_90_s_fast_still_drives_the_microphones_of_its_livekit_room(
    postgres: PostgresServer, livekit_server: LiveKitServer
) -> None:
    """The RoomService calls of a server whose clock is off (the livekit-api SDK signs each
    with this machine's clock) carry the log's time too: LiveKit refused every call of a
    server more than its one-minute leeway fast, so its room never took a microphone back
    from a player whose token let him publish."""
    dsn = postgres.new_database()
    keys = {"LIVEKIT_URL": livekit_server.ws_url, "LIVEKIT_API_KEY": API_KEY,
            "LIVEKIT_API_SECRET": API_SECRET}  # fmt: skip
    skewed = ServerProcess(dsn, options=["--room", "livekit", "--no-voice"], env=keys)
    skewed.env.update(
        {"LD_PRELOAD": str(FAKETIME), "FAKETIME": "+90s", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    )
    player = rtc.Room()
    try:
        skewed.start()
        links = create_table(skewed)
        room = f"autohost-{links['id']}"
        grants = VideoGrants(room_join=True, room=room, can_publish=True, can_subscribe=True)
        club_token = AccessToken(API_KEY, API_SECRET).with_identity("seat-4").with_grants(grants)
        await asyncio.wait_for(player.connect(livekit_server.ws_url, club_token.to_jwt()), 20)
        assert player.local_participant.permissions.can_publish
        with connect(skewed.ws_url(links["host"]["token"]), timeout=10) as host:
            assert host.receive()["type"] == "state"
            host.ack("start")  # the engine speaks: nobody else may

            async def seat_4_silenced() -> bool:
                async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET,
                                          failover=False) as lkapi:  # fmt: skip
                    listed = await lkapi.room.list_participants(
                        api.ListParticipantsRequest(room=room)
                    )
                grant = {p.identity: p.permission.can_publish for p in listed.participants}
                return grant.get("seat-4") is False

            await eventually(seat_4_silenced, "seat 4's microphone taken back", seconds=20)
    finally:
        await player.disconnect()
        if skewed.alive():
            skewed.kill()
