"""Tokens: what our player and host tokens grant, verifying a club's own, /livekit/token."""

from __future__ import annotations

import datetime

import httpx
import pytest
from livekit.api import AccessToken, TokenVerifier, VideoGrants
from starlette.applications import Starlette

from plugin.rooms.livekit.proof import host_proof
from plugin.rooms.livekit.tokens import (
    Credentials,
    InvalidToken,
    bot_token,
    host_token,
    link_route,
    player_token,
    spectator_token,
    token_route,
    verify_seat,
)
from testing.livekit_server import API_KEY, API_SECRET

CREDS = Credentials(url="ws://127.0.0.1:7880", api_key=API_KEY, api_secret=API_SECRET)
VERIFIER = TokenVerifier(API_KEY, API_SECRET)


def test_player_token_binds_the_seat_and_publishes_nothing_at_join():
    claims = VERIFIER.verify(player_token(CREDS, "table-1", 7))
    assert claims.identity == "seat-7"
    assert claims.attributes == {"seat": "7"}
    again = VERIFIER.verify(player_token(CREDS, "table-1", 7, generation=2))  # re-issued
    assert again.identity == "seat-7.2"  # never replaces the old token's session
    assert again.attributes == {"seat": "7"}
    video = claims.video
    assert video.room == "table-1" and video.room_join
    assert video.can_publish is False and not video.can_publish_sources
    assert video.can_subscribe and video.can_publish_data
    assert not video.room_admin


def test_host_token_is_a_room_admin():
    claims = VERIFIER.verify(host_token(CREDS, "table-1"))
    assert claims.identity == "host"
    assert claims.video.room_admin and claims.video.room == "table-1"
    assert claims.attributes == {"autohost-host": host_proof(API_SECRET, "table-1")}
    again = VERIFIER.verify(host_token(CREDS, "table-1", generation=3))  # re-issued
    assert again.identity == "host.3"
    assert again.attributes == {"autohost-host": host_proof(API_SECRET, "table-1", "host.3")}
    assert host_proof(API_SECRET, "table-2") != host_proof(API_SECRET, "table-1")


def club_token(
    identity: str,
    attributes: dict[str, str] | None = None,
    room: str = "table-1",
    secret: str = API_SECRET,
    ttl: float = 3600,
) -> str:
    token = AccessToken(API_KEY, secret).with_identity(identity)
    token = token.with_grants(VideoGrants(room_join=True, room=room))
    token = token.with_ttl(datetime.timedelta(seconds=ttl))
    return (token.with_attributes(attributes) if attributes else token).to_jwt()


@pytest.mark.parametrize(
    ("identity", "attributes", "seat"),
    [
        ("seat-3", None, 3),
        ("seat-3", {"seat": "4"}, 3),  # the identity only: attributes bind nothing
    ],
)
def test_a_clubs_own_token_gives_the_seat(identity, attributes, seat):
    assert verify_seat(VERIFIER, club_token(identity, attributes), room="table-1") == seat


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (club_token("seat-3", secret="y" * 40), "Signature"),
        (club_token("seat-3", room="other"), "not for room"),
        (club_token("anna@club"), "no seat"),
        (club_token("anna@club", {"seat": "5"}), "no seat"),  # a club must use seat-N
        (club_token("host"), "room admin"),
        (club_token("seat-3", ttl=-3600), "expired"),
        ("not-a-jwt", "refused"),
    ],
)
def test_a_bad_club_token_is_refused(token, reason):
    with pytest.raises(InvalidToken, match=reason):
        verify_seat(VERIFIER, token, room="table-1")


def links(link: str):
    known = {"good": ("t1", 4, 0), "host": ("t1", "host", 0), "watch": ("t1", "watch", 0),
             "nowhere": ("t9", 1, 0), "again": ("t1", 4, 3)}  # fmt: skip
    return known.get(link)


@pytest.fixture
async def client():
    route = token_route(CREDS, links, room_for_table=lambda t: "room-t1" if t == "t1" else None)
    transport = httpx.ASGITransport(app=Starlette(routes=[route]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as test_client:
        yield test_client


async def test_a_reissued_links_token_has_an_identity_of_its_own(client):
    """The old token's holder may rejoin with it until it expires: with the same identity
    he would replace the new holder in the room (one session per identity)."""
    answer = (await client.post("/livekit/token", json={"link": "again"})).json()
    claims = VERIFIER.verify(answer["token"])
    assert answer["identity"] == claims.identity == "seat-4.3"
    assert claims.attributes == {"seat": "4"}


async def test_token_route_mints_the_linked_seats_token(client):
    answer = await client.post("/livekit/token", json={"link": "good"})
    assert answer.status_code == 200
    body = answer.json()
    assert (body["room"], body["identity"], body["seat"]) == ("room-t1", "seat-4", 4)
    assert verify_seat(VERIFIER, body["token"], room="room-t1") == 4
    host = (await client.post("/livekit/token", json={"link": "host"})).json()
    assert VERIFIER.verify(host["token"]).video.room_admin


async def test_a_spectators_token_subscribes_only_and_is_hidden(client):
    """Issue 17: a watch link's LiveKit token hears and sees the room, and can publish no
    track and no data; the room does not list him; each spectator is someone else."""
    first = (await client.post("/livekit/token", json={"link": "watch"})).json()
    second = (await client.post("/livekit/token", json={"link": "watch"})).json()
    assert first["seat"] == "watch" and first["identity"].startswith("watch-")
    assert first["identity"] != second["identity"]
    claims = VERIFIER.verify(first["token"])
    assert claims.identity == first["identity"] and not claims.attributes
    video = claims.video
    assert video.room == "room-t1" and video.room_join and video.can_subscribe
    assert video.hidden is True
    assert video.can_publish is False and video.can_publish_data is False
    assert not video.can_update_own_metadata and not video.room_admin
    with pytest.raises(InvalidToken):  # no seat: refused wherever a seat's token is needed
        verify_seat(VERIFIER, first["token"], room="room-t1")


@pytest.mark.parametrize(
    ("content", "status"),
    [
        (b"{", 400),
        (b'{"link": 5}', 400),
        (b'["good"]', 400),
        (b'{"link": "forged"}', 401),
        (b'{"link": "nowhere"}', 404),
    ],
)
async def test_token_route_refuses_bad_requests(client, content, status):
    answer = await client.post("/livekit/token", content=content)
    assert answer.status_code == status
    assert "token" not in answer.json()


def issued(table: str, seat) -> str:
    return f"link:{table}:{seat}"


@pytest.fixture
async def exchange():
    route = link_route(VERIFIER, {"table-1": "t1"}.get, issued)
    transport = httpx.ASGITransport(app=Starlette(routes=[route]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as test_client:
        yield test_client


def admin_token(identity: str, admin: bool) -> str:
    grants = VideoGrants(room_join=True, room="table-1", room_admin=admin)
    return AccessToken(API_KEY, API_SECRET).with_identity(identity).with_grants(grants).to_jwt()


def test_a_clubs_host_token_must_be_a_room_admins():
    assert verify_seat(VERIFIER, admin_token("host", True), room="table-1") == "host"


async def test_a_clubs_token_is_traded_for_our_seat_link(exchange):
    answer = await exchange.post("/livekit/link", json={"token": club_token("seat-6")})
    assert answer.status_code == 200
    assert answer.json() == {"table": "t1", "seat": 6, "link": "link:t1:6"}
    host = await exchange.post("/livekit/link", json={"token": admin_token("host", True)})
    assert host.json()["link"] == "link:t1:host"


@pytest.mark.parametrize(
    ("token", "status"),
    [
        (club_token("seat-3", secret="y" * 40), 401),
        (club_token("anna"), 401),  # no seat
        (club_token("anna", {"seat": "6"}), 401),  # an attribute binds no seat
        (admin_token("host", False), 401),  # "host" without room admin
        (club_token("seat-3", room="other"), 404),
        (5, 400),
    ],
)
async def test_a_bad_club_token_gets_no_link(exchange, token, status):
    answer = await exchange.post("/livekit/link", json={"token": token})
    assert answer.status_code == status
    assert "link" not in answer.json()


@pytest.mark.parametrize("content", [b"{", b'["token"]', b'{"token": ""}', b"\xff"])
async def test_a_malformed_link_request_is_refused(exchange, content):
    answer = await exchange.post("/livekit/link", content=content)
    assert answer.status_code == 400
    assert answer.json()["error"] == "malformed"


def test_our_tokens_live_minutes_not_hours():
    """A re-issued host link left a LiveKit room admin for 6 h (issue 30): every token we
    mint expires within minutes (LiveKit refreshes a connected participant's token)."""
    import jwt

    for token in (
        player_token(CREDS, "table-1", 7),
        host_token(CREDS, "table-1"),
        spectator_token(CREDS, "table-1", "watch-0123456789ab"),
        bot_token(CREDS, "table-1"),
    ):
        claims = jwt.decode(token, options={"verify_signature": False})
        assert 0 < claims["exp"] - claims["nbf"] <= 10 * 60, claims
