"""The LiveKit routes against a hostile client (issue 15's classes, on the LiveKit path): a
body over its limit is refused before it is read, broken or deep JSON is a 400 (never a
500), and a genuine link for a seat the table does not have, or a re-issued one, mints no
LiveKit token. Our server alone: no LiveKit server is contacted (tables get the silent
room, the routes only sign)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from plugin.eventlog import log_opener
from plugin.rooms.livekit.tokens import Credentials
from plugin.server.livekit import LiveKitTables
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from testing import TestClient

SECRET = b"livekit-routes-secret-0123456789"
ADMIN = "routes-admin"
CREDS = Credentials(url="ws://127.0.0.1:9", api_key="devkey", api_secret="s" * 32)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    tables = LiveKitTables(CREDS, only="none-of-these")  # every table: the silent room
    config = ServerConfig(
        db_path=tmp_path / "lk.db",
        log=log_opener(tmp_path / "lk.db"),
        admin_key=ADMIN,
        secret=SECRET,
        routes=(tables.routes,),
    )
    with TestClient(create_app(config)) as running:
        yield running


def new_table(client: TestClient) -> dict:
    answer = client.post(
        "/api/tables", json={"seats": 10}, headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


@pytest.mark.parametrize("path", ["/livekit/token", "/livekit/link", "/livekit/webhook"])
def test_a_body_over_the_limit_is_refused_before_it_is_read(client: TestClient, path: str) -> None:
    sent = [0]

    def chunks() -> Iterator[bytes]:
        for _ in range(256):  # 16 MiB if the server read it all
            sent[0] += 1
            yield b" " * 65536

    headers = {"Authorization": "forged", "Content-Type": "application/json"}
    answer = client.post(path, content=chunks(), headers=headers)
    assert answer.status_code in (401, 413), answer.text
    if path != "/livekit/webhook":  # the webhook refuses a missing signature first
        assert answer.status_code == 413


@pytest.mark.parametrize(
    "body", [b"[" * 6000 + b"]" * 6000, b"{not json", b"\xff\xfe", b'{"link": ' + b"[" * 5000]
)
def test_broken_or_deep_json_is_a_400(client: TestClient, body: bytes) -> None:
    for path in ("/livekit/token", "/livekit/link"):
        answer = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert answer.status_code == 400, (path, answer.status_code, answer.text)


def test_a_seat_the_table_does_not_have_gets_no_livekit_token(client: TestClient) -> None:
    links = new_table(client)
    signer = Signer(SECRET)
    for seat in (42, 11):  # a genuine signature, a seat the 10-seat table does not have
        forged_seat = signer.issue(links["id"], seat)
        answer = client.post("/livekit/token", json={"link": forged_seat})
        assert answer.status_code == 401, answer.text
    # The genuine link passes the same check (this table has no LiveKit room here: 404).
    good = client.post("/livekit/token", json={"link": links["seats"][2]["token"]})
    assert good.status_code == 404, good.text


def test_a_reissued_link_gets_no_livekit_token(client: TestClient) -> None:
    links = new_table(client)
    old = links["seats"][4]["token"]
    client.post(
        f"/api/tables/{links['id']}/reissue", json={"seat": 5},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )  # fmt: skip
    assert client.post("/livekit/token", json={"link": old}).status_code == 401
