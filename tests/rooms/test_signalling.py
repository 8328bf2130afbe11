"""POST /rtc/{table_id}/offer: the token decides the seat; bad requests change nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from plugin.rooms.embedded import EmbeddedRoom
from plugin.rooms.embedded.client import RoomClient, http_answerer
from plugin.rooms.embedded.signalling import MAX_BODY_BYTES, rtc_routes

from .conftest import until

TOKENS = {"t-seat-3": 3, "t-host": "host"}
SEAT_3_OFFER = b'{"sdp": "v=0", "type": "offer", "token": "t-seat-3"}'


@pytest.fixture
async def http(room: EmbeddedRoom) -> AsyncIterator[httpx.AsyncClient]:
    async def authorize(table_id: str, token: str) -> int | str | None:
        return TOKENS.get(token) if table_id in ("t1", "t2") else None  # t2: not open here

    app = Starlette(routes=rtc_routes(lambda table: room if table == "t1" else None, authorize))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://table") as client:
        yield client


async def test_a_token_admits_its_seat(room: EmbeddedRoom, http: httpx.AsyncClient):
    client = RoomClient()
    await client.connect(http_answerer("http://table/rtc/t1/offer", "t-seat-3", http))
    await until(lambda: room.present == {3})
    await until(lambda: client.frames_received > 0)
    await client.close()


@pytest.mark.parametrize(
    ("path", "body", "status", "error"),
    [
        ("/rtc/t1/offer", b"not json", 400, "bad_request"),
        ("/rtc/t1/offer", b"[1, 2]", 400, "bad_request"),
        ("/rtc/t1/offer", b'{"sdp": "v=0", "type": "offer"}', 400, "bad_request"),
        ("/rtc/t1/offer", b'{"sdp": 5, "type": "offer", "token": "t-seat-3"}', 400, "bad_request"),
        (
            "/rtc/t1/offer",
            b'{"sdp": "v=0", "type": "answer", "token": "t-seat-3"}',
            400,
            "bad_request",
        ),
        ("/rtc/t1/offer", b'{"sdp": "v=0", "type": "offer", "token": "forged"}', 403, "forbidden"),
        # Whether a table exists is told only to a token it admits (the outside check).
        (
            "/rtc/t9/offer",
            b'{"sdp": "v=0", "type": "offer", "token": "t-seat-3"}',
            403,
            "forbidden",
        ),
        ("/rtc/t2/offer", b'{"sdp": "v=0", "type": "offer", "token": "t-seat-3"}', 404, "no_table"),
        (
            "/rtc/t1/offer",
            b'{"sdp": "hello", "type": "offer", "token": "t-host"}',
            400,
            "bad_request",
        ),
        ("/rtc/t1/offer", b" " * (MAX_BODY_BYTES + 1), 413, "too_large"),
    ],
)
async def test_bad_requests_get_a_clear_error(
    room: EmbeddedRoom, http: httpx.AsyncClient, path: str, body: bytes, status: int, error: str
):
    response = await http.post(path, content=body)
    assert response.status_code == status
    assert response.json()["error"] == error
    assert response.json()["message"]
    assert "unpack" not in response.json()["message"]  # aiortc's words are not sent
    assert list(room.peers()) == []
