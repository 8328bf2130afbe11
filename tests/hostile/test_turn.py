"""TURN credentials and `/api/ice` against a real `autohost serve` (issue 31, "smaller").

The outside check: the public watch link's TURN credential allocated a real relay, one
minted before a watch re-issue still allocated after it, and /api/ice answered 300
requests in 1.55 s. Spectators now get STUN only (they receive from the server alone: no
credential of theirs can relay anything, before or after a re-issue), and minting is
rate-limited per token and per address (plugin/web/ice.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from plugin.web.ice import ICE_ADDRESS_BURST, ICE_BURST
from testing import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    secret = tmp_path / "turn-secret"
    secret.write_text("turn-shared-secret-0123456789\n")
    secret.chmod(0o600)
    config = tmp_path / "server.toml"
    config.write_text(
        "[ice]\n"
        'stun = ["stun:127.0.0.1:3478"]\n'
        'turn = ["turn:127.0.0.1:3478?transport=udp"]\n'
        f'turn_secret_file = "{secret}"\n'
        'policy = "relay"\n'
    )
    options = ["--no-voice", "--config", str(config)]
    with ServerProcess(tmp_path / "autohost.db", options=options) as running:
        yield running


def new_table(server: ServerProcess) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    answer = httpx.post(f"{server.base}/api/tables", json={"seats": 10}, headers=headers)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def ice(server: ServerProcess, token: str, source: str = "127.0.0.1") -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=30) as client:
        return client.post(f"{server.base}/api/ice", headers={"Authorization": f"Bearer {token}"})


def test_a_spectator_gets_stun_only_and_a_seat_its_turn_credential(server: ServerProcess) -> None:
    links = new_table(server)
    watch = ice(server, links["watch"]["token"])
    assert watch.status_code == 200, watch.text
    body = watch.json()
    assert not any("username" in entry or "credential" in entry for entry in body["iceServers"])
    assert body["iceServers"] == [{"urls": ["stun:127.0.0.1:3478"]}]
    assert body["iceTransportPolicy"] == "all"  # the server is reached without a relay
    seat = ice(server, links["seats"][2]["token"], source="127.0.0.2").json()
    turn = [entry for entry in seat["iceServers"] if "username" in entry]
    assert len(turn) == 1 and turn[0]["username"].endswith(f":{links['id']}.3")
    assert seat["iceTransportPolicy"] == "relay"


def test_minting_is_limited_per_address_and_per_token(server: ServerProcess) -> None:
    links = new_table(server)
    tokens = [seat["token"] for seat in links["seats"]] + [links["host"]["token"]]
    answers = [ice(server, tokens[n % len(tokens)]).status_code for n in range(150)]
    assert answers.count(200) <= ICE_ADDRESS_BURST + 10, answers  # the burst, and a little
    assert answers.count(429) >= 150 - ICE_ADDRESS_BURST - 10
    # One token from many addresses: its own limit.
    token = links["seats"][0]["token"]
    per_token = [ice(server, token, source=f"127.0.0.{10 + n}").status_code for n in range(20)]
    assert per_token.count(200) <= ICE_BURST + 2 and 429 in per_token, per_token
    # Another address and another token are still answered.
    assert ice(server, links["seats"][5]["token"], source="127.0.0.99").status_code == 200
