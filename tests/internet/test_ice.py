"""The ICE servers every page and every server-side peer gets: `POST /api/ice` mints TURN
credentials in coturn's REST API scheme for a page that shows its token, refuses one that
does not, and puts them in no page and no log; aiortc peers use the same servers and bind
their host candidates inside the configured UDP range."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection

from plugin.rooms.embedded import restore_udp_ports, rtc_ice_servers, use_udp_port_range
from plugin.server import ServerOptions, build
from plugin.web.ice import IceSettings, turn_credentials
from testing import TestClient

SECRET = b"turn-shared-secret"
ICE = IceSettings(
    stun=("stun:turn.example.org:3478",),
    turn=("turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:5349?transport=tcp"),
    turn_secret=SECRET,
    turn_ttl=3600,
)


def test_credentials_follow_the_coturn_rest_api_scheme() -> None:
    username, password = turn_credentials(SECRET, "t1.3", ttl=600, now=1_000_000)
    assert username == "1000600:t1.3"
    expected = hmac.new(SECRET, b"1000600:t1.3", hashlib.sha1).digest()
    assert base64.b64decode(password) == expected


def test_settings_refuse_turn_without_a_secret_and_bad_urls() -> None:
    with pytest.raises(ValueError, match="secret"):
        IceSettings(turn=("turn:t:3478",))
    with pytest.raises(ValueError, match="not a TURN URL"):
        IceSettings(turn=("stun:t:3478",), turn_secret=b"s")
    with pytest.raises(ValueError, match="policy"):
        IceSettings(policy="none")  # type: ignore[arg-type]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    options = ServerOptions(
        db=tmp_path / "log.db", admin_key="admin", secret=b"s" * 32, voice=False, ice=ICE
    )
    with TestClient(build(options).app) as client:
        made = client.post(
            "/api/tables", json={"seats": 10}, headers={"Authorization": "Bearer admin"}
        )
        links = made.json()
        tokens = {str(s["seat"]): s["token"] for s in links["seats"]}
        tokens["host"] = links["host"]["token"]
        tokens["table"] = links["id"]
        yield client, tokens


def test_a_page_with_its_token_gets_fresh_turn_credentials(
    site: tuple[TestClient, dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    client, tokens = site
    caplog.set_level(logging.DEBUG)
    before = int(time.time())
    reply = client.post("/api/ice", headers={"Authorization": f"Bearer {tokens['3']}"})
    assert reply.status_code == 200 and reply.headers["cache-control"] == "no-store"
    body = reply.json()
    assert body["iceTransportPolicy"] == "all"
    stun, turn = body["iceServers"]
    assert stun == {"urls": ["stun:turn.example.org:3478"]}
    assert turn["urls"] == list(ICE.turn)
    expiry, who = turn["username"].split(":", 1)
    assert who == f"{tokens['table']}.3"
    assert before + 3600 <= int(expiry) <= int(time.time()) + 3600
    digest = hmac.new(SECRET, turn["username"].encode(), hashlib.sha1).digest()
    assert base64.b64decode(turn["credential"]) == digest
    # Nothing the server logged holds the credential or the token.
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert turn["credential"] not in logged and tokens["3"] not in logged

    host = client.post("/api/ice", headers={"Authorization": f"Bearer {tokens['host']}"})
    assert host.json()["iceServers"][1]["username"].endswith(f"{tokens['table']}.host")


@pytest.mark.parametrize(
    "header", ["", "Bearer", "Bearer forged.token", "Basic x", "Bearer " + "A" * 5000]
)
def test_no_token_no_credentials(site: tuple[TestClient, dict[str, str]], header: str) -> None:
    client, _ = site
    reply = client.post("/api/ice", headers={"Authorization": header} if header else {})
    assert reply.status_code == 401
    assert "iceServers" not in reply.json()
    assert client.get("/api/ice").status_code == 405  # never in a URL a page could log


def test_no_page_source_holds_a_credential(site: tuple[TestClient, dict[str, str]]) -> None:
    client, tokens = site
    table = tokens["table"]
    for path in (
        f"/t/{table}/play",
        f"/t/{table}/host",
        "/static/embedded/media.js",
        "/static/embedded/ice.js",
        "/static/video/peer.js",
        "/",
    ):
        text = client.get(path).text
        assert "turn.example.org" not in text and SECRET.decode() not in text, path


def test_a_server_without_ice_servers_gives_none(tmp_path: Path) -> None:
    options = ServerOptions(db=tmp_path / "log.db", admin_key="a", secret=b"s" * 32, voice=False)
    with TestClient(build(options).app) as client:
        links = client.post("/api/tables", json={}, headers={"Authorization": "Bearer a"}).json()
        token = links["seats"][0]["token"]
        reply = client.post("/api/ice", headers={"Authorization": f"Bearer {token}"})
        assert reply.json() == {"iceServers": [], "iceTransportPolicy": "all"}


def test_server_peers_get_the_same_servers() -> None:
    servers = rtc_ice_servers(ICE.servers("server"))
    assert servers[0].urls == ["stun:turn.example.org:3478"]
    assert servers[1].username is not None and servers[1].username.endswith(":server")
    assert servers[1].credential


@pytest.fixture
def port_range() -> Iterator[tuple[int, int]]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        low = max(20000, int(probe.getsockname()[1]) % 40000 + 20000)
    use_udp_port_range(low, low + 3)
    try:
        yield low, low + 3
    finally:
        restore_udp_ports()


async def test_host_candidates_bind_inside_the_udp_range(
    loopback_ice: None, port_range: tuple[int, int]
) -> None:
    low, high = port_range
    held = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # one port of the range is taken
    try:
        held.bind(("127.0.0.1", low))
    except OSError:
        held.close()
        pytest.skip(f"port {low} is busy on this machine")
    peers = [RTCPeerConnection(RTCConfiguration(iceServers=[])) for _ in range(3)]
    try:
        ports = []
        for pc in peers:
            pc.addTransceiver("audio")
            await pc.setLocalDescription(await pc.createOffer())
            sdp = pc.localDescription.sdp
            ports += [
                int(line.split()[5])
                for line in sdp.splitlines()
                if line.startswith("a=candidate") and line.endswith("typ host")
            ]
        assert len(ports) == 3 and len(set(ports)) == 3
        assert all(low < port <= high for port in ports), ports
        extra = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        extra.addTransceiver("audio")
        await extra.setLocalDescription(await extra.createOffer())  # the range is full
        assert "a=candidate" not in extra.localDescription.sdp
        await extra.close()
    finally:
        held.close()
        for pc in peers:
            await pc.close()
