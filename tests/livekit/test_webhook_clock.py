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
import itertools
import time

import httpx
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
    captured: list[tuple[bytes, str]] = []

    async def capture(request: Request) -> JSONResponse:
        body = await request.body()
        if b"participant_joined" in body:
            captured.append((body, request.headers["Authorization"]))
        return JSONResponse({"ok": True})

    recorder = Starlette(routes=[Route("/livekit/webhook", capture, methods=["POST"])])
    player = Player(creds, room_name, 5)
    async with listening(recorder, port=livekit_server.webhook_port, lifespan="off"):
        await player.join()
        await eventually(lambda: asyncio.sleep(0, bool(captured)), "the captured join")
        await player.leave()
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
