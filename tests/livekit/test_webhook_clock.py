"""Webhooks against a server whose wall clock is off (issue 31, "time across servers"),
with the real LiveKit server and its real webhooks.

A webhook's created_at is the LiveKit server's time; the room's first listing was dated by
this server's own clock (`listed_since = time.time()`), and an event older than it is
history (webhook.py). So a server 10 s fast ignored a genuine join made just after it
started (left to the next reconcile), and one 10 s slow applied a captured join replayed
from before its listing. The listing is now dated by LiveKit's answer (server_clock.py).

This process's wall clock cannot be moved for one module by libfaketime, so the room's
module is given a `time` whose time() is off by the skew, which is what faketime does to a
whole server; everything else (LiveKit, its webhooks, the listing) is real.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import time

import httpx
import jwt
import jwt.api_jwt
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plugin.rooms.livekit import backend
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.tokens import Credentials
from plugin.rooms.livekit.webhook import STALE_SKEW, webhook_route
from plugin.server import listening
from testing import eventually
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET

pytestmark = pytest.mark.livekit
ROOMS = itertools.count(1)
NEVER = 600.0  # the room's own reconcile: not within the test, only the webhook can tell


class SkewedTime:
    """The `time` module as a server whose wall clock is `skew` seconds off sees it."""

    def __init__(self, skew: float) -> None:
        self.skew = skew

    def time(self) -> float:
        return time.time() + self.skew


@pytest.fixture
def creds(livekit_server):
    return Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)


@pytest.fixture
def room_name():
    return f"clock-{next(ROOMS)}"


async def captured_join(livekit_server, creds, room_name, seat) -> list[tuple[bytes, str]]:
    """The real LiveKit server's participant_joined webhook of a player at `seat` who joins
    and leaves: its body and Authorization header, as LiveKit sent them."""
    captured: list[tuple[bytes, str]] = []

    async def capture(request: Request) -> JSONResponse:
        body = await request.body()
        if b"participant_joined" in body:
            captured.append((body, request.headers["Authorization"]))
        return JSONResponse({"ok": True})

    recorder = Starlette(routes=[Route("/livekit/webhook", capture, methods=["POST"])])
    player = Player(creds, room_name, seat)
    async with listening(recorder, port=livekit_server.webhook_port, lifespan="off"):
        await player.join()
        await eventually(lambda: asyncio.sleep(0, bool(captured)), "the captured join")
        await player.leave()
    return captured


def recorded(room: LiveKitRoom) -> list[tuple[int, bool]]:
    presence: list[tuple[int, bool]] = []

    async def record(seat: int, joined: bool) -> None:
        presence.append((seat, joined))

    room.on_presence(record)
    return presence


async def test_a_server_10_s_fast_applies_a_join_made_just_after_its_listing(
    livekit_server, creds, room_name, monkeypatch
):
    monkeypatch.setattr(backend, "time", SkewedTime(+10.0))
    room = LiveKitRoom.connect(
        creds.url, API_KEY, API_SECRET, room_name, grace=0.1, reconcile_every=NEVER
    )
    presence = recorded(room)
    route = webhook_route(API_KEY, API_SECRET, lambda name: room if name == room_name else None)
    player = Player(creds, room_name, 4)
    try:
        async with listening(Starlette(routes=[route]), port=livekit_server.webhook_port,
                             lifespan="off"):  # fmt: skip
            await room.start()
            await player.join()
            # Before, the join was "stale" (10 s older than the listing by this clock) and
            # waited for the next reconcile: the player stayed away for the engine.
            await eventually(
                lambda: asyncio.sleep(0, (4, True) in presence), "the join", seconds=15
            )
            assert abs(room.listed_since - time.time()) < STALE_SKEW, "not LiveKit's time"
    finally:
        await player.leave()
        await room.stop()


async def test_a_server_10_s_slow_ignores_a_join_replayed_from_before_its_listing(
    livekit_server, creds, room_name, monkeypatch
):
    captured = await captured_join(livekit_server, creds, room_name, 5)
    await asyncio.sleep(STALE_SKEW + 2.0)  # the join is now older than any listing

    monkeypatch.setattr(backend, "time", SkewedTime(-10.0))
    room = LiveKitRoom.connect(
        creds.url, API_KEY, API_SECRET, room_name, grace=0.1, reconcile_every=NEVER
    )
    presence = recorded(room)
    route = webhook_route(API_KEY, API_SECRET, lambda name: room if name == room_name else None)
    try:
        await room.start()  # the room as it is: seat 5 is gone
        await eventually(
            lambda: asyncio.sleep(0, room.participants.get("seat-5") is None), "seat 5 gone"
        )
        transport = httpx.ASGITransport(app=Starlette(routes=[route]))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            body, auth = captured[0]
            answer = await client.post("/livekit/webhook", content=body,
                                       headers={"Authorization": auth})  # fmt: skip
        assert answer.status_code == 200, answer.text
        assert answer.json().get("stale") is True, answer.json()
        assert (5, True) not in presence and "seat-5" not in room.participants
    finally:
        await room.stop()


class SlowDatetime(datetime.datetime):
    """pyjwt's `datetime` on a machine whose clock is 90 s slow."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return datetime.datetime.now(tz) - datetime.timedelta(seconds=90)


async def test_a_server_90_s_slow_admits_a_genuine_webhook_by_the_logs_clock(
    livekit_server, creds, room_name, monkeypatch
):
    """The webhook's JWT (nbf: LiveKit's time when it sent it) was checked by pyjwt with
    this machine's clock and LiveKit's one-minute leeway: a server 90 s slow answered every
    genuine webhook 401 ("not yet valid"). Its times are now checked with the route's
    clock, the log's on a server (here this process's true time)."""
    body, auth = (await captured_join(livekit_server, creds, room_name, 6))[0]
    monkeypatch.setattr(jwt.api_jwt, "datetime", SlowDatetime)
    calls: list[str] = []

    class Sink:
        listed_since = 0.0

        async def participant_joined(self, info) -> None:
            calls.append(info.identity)

        async def participant_left(self, info) -> None:
            pass

    sink = Sink()
    route = webhook_route(API_KEY, API_SECRET, lambda name: sink if name == room_name else None)
    transport = httpx.ASGITransport(app=Starlette(routes=[route]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.post("/livekit/webhook", content=body,
                                   headers={"Authorization": auth})  # fmt: skip
        assert answer.status_code == 200, answer.text
        assert calls == ["seat-6"]
        # Still refused: another body under that token, and the token a while after it
        # expired by the route's clock.
        forged = body.replace(b"seat-6", b"seat-7")
        assert (await client.post("/livekit/webhook", content=forged,
                                  headers={"Authorization": auth})).status_code == 401  # fmt: skip
    late = webhook_route(API_KEY, API_SECRET, lambda name: sink, clock=lambda: time.time() + 3600)
    transport = httpx.ASGITransport(app=Starlette(routes=[late]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.post("/livekit/webhook", content=body,
                                   headers={"Authorization": auth})  # fmt: skip
        assert answer.status_code == 401, answer.text
