"""The webhook endpoint: verified events feed the room, forged or altered ones are refused."""

from __future__ import annotations

import base64
import hashlib
import time

import httpx
import pytest
from google.protobuf.json_format import MessageToJson
from livekit.api import AccessToken
from livekit.protocol.models import ParticipantInfo, Room
from livekit.protocol.webhook import WebhookEvent
from starlette.applications import Starlette

from plugin.rooms.livekit.webhook import webhook_route
from testing.livekit_server import API_KEY, API_SECRET


class Sink:
    def __init__(self) -> None:
        self.listed_since = 0.0
        self.calls: list[tuple[str, str]] = []

    async def participant_joined(self, info: ParticipantInfo) -> None:
        self.calls.append(("joined", info.identity))

    async def participant_left(self, info: ParticipantInfo) -> None:
        self.calls.append(("left", info.identity))


def event_body(
    kind: str, identity: str = "seat-3", room: str = "table-1", created_at: int = 0
) -> str:
    event = WebhookEvent(
        event=kind,
        room=Room(name=room),
        participant=ParticipantInfo(identity=identity),
        created_at=created_at,
    )
    return MessageToJson(event)


def signed(body: str, secret: str = API_SECRET) -> str:
    digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    return AccessToken(API_KEY, secret).with_sha256(digest).to_jwt()


@pytest.fixture
def sink():
    return Sink()


@pytest.fixture
async def client(sink):
    route = webhook_route(API_KEY, API_SECRET, lambda name: sink if name == "table-1" else None)
    transport = httpx.ASGITransport(app=Starlette(routes=[route]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as test_client:
        yield test_client


async def post(client, body: str, auth: str | None):
    headers = {"Content-Type": "application/webhook+json"}
    if auth is not None:
        headers["Authorization"] = auth
    return await client.post("/livekit/webhook", content=body, headers=headers)


async def test_a_signed_join_and_leave_reach_the_room(client, sink):
    for kind in ("participant_joined", "participant_left"):
        body = event_body(kind)
        assert (await post(client, body, signed(body))).status_code == 200
    assert sink.calls == [("joined", "seat-3"), ("left", "seat-3")]


async def test_events_of_other_rooms_are_ignored(client, sink):
    body = event_body("participant_joined", room="elsewhere")
    assert (await post(client, body, signed(body))).status_code == 200
    assert sink.calls == []


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda body: (body.replace("seat-3", "seat-4"), signed(body)), id="tampered"),
        pytest.param(lambda body: (body, signed(body, "z" * 40)), id="wrong-secret"),
        pytest.param(lambda body: (body, None), id="unsigned"),
        pytest.param(lambda body: (body, signed(body + " ")), id="hash-of-another-body"),
    ],
)
async def test_forged_events_are_refused_and_change_nothing(client, sink, forge):
    body, auth = forge(event_body("participant_left"))
    assert (await post(client, body, auth)).status_code == 401
    assert sink.calls == []


async def test_an_event_from_before_the_room_was_listed_is_history(client, sink):
    """Event ids are remembered in memory only: after a restart (or a failover here) a
    captured genuine event, still inside its signature's window, was applied again (a stale
    join made the room adopt a dead session). One created before the room first listed
    itself is acknowledged and not applied: that listing already showed what came after."""
    sink.listed_since = time.time()
    old, new = (
        event_body("participant_joined", created_at=int(sink.listed_since) - 60),
        (event_body("participant_left", created_at=int(sink.listed_since))),
    )
    answer = await post(client, old, signed(old))
    assert answer.status_code == 200 and answer.json()["stale"] is True
    assert (await post(client, new, signed(new))).status_code == 200
    assert sink.calls == [("left", "seat-3")]
