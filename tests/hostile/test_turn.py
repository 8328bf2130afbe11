"""TURN credentials and `/api/ice` against a real `autohost serve` (issue 31, "smaller").

The outside check: the public watch link's TURN credential allocated a real relay, one
minted before a watch re-issue still allocated after it, and /api/ice answered 300
requests in 1.55 s. Spectators now get STUN only (they receive from the server alone: no
credential of theirs can relay anything, before or after a re-issue), and minting is
rate-limited per token and per address (plugin/web/ice.py). A seat's credential outlived
a re-issue of the seat by 6 h; it now lives minutes, the page refreshes it through the
server, which refuses the re-issued link: with a real coturn, the old device's credential
stops allocating at its short end and the current device's fresh one allocates.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aioice.stun import TransactionFailed
from aioice.turn import create_turn_endpoint

from plugin.web.ice import DEFAULT_TURN_TTL, ICE_ADDRESS_BURST, ICE_BURST
from testing import ServerProcess
from testing.coturn import Coturn, coturn_missing, running_coturn

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


TURN_SECRET = "hostile-turn-secret-0123456789"
SHORT_TTL = 10  # seconds: the bound a re-issue waits for, short for the test


@pytest.fixture
def turn_site(tmp_path: Path) -> Iterator[tuple[ServerProcess, Coturn]]:
    """A real coturn and a server minting its credentials with a short lifetime."""
    missing = coturn_missing()
    if missing:
        pytest.skip(missing)
    secret = tmp_path / "turn-secret"
    secret.write_text(TURN_SECRET + "\n")
    secret.chmod(0o600)
    with running_coturn(tmp_path / "turn", secret=TURN_SECRET) as coturn:
        config = tmp_path / "server.toml"
        config.write_text(
            "[ice]\n"
            f'turn = ["{coturn.turn_url}"]\n'
            f'turn_secret_file = "{secret}"\n'
            f"turn_ttl = {SHORT_TTL}\n"
        )
        options = ["--no-voice", "--config", str(config)]
        with ServerProcess(tmp_path / "autohost.db", options=options) as server:
            yield server, coturn


def credential(answer: httpx.Response) -> tuple[str, str, int]:
    """(username, password, ttl) of a seat's /api/ice answer."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    (turn,) = [entry for entry in body["iceServers"] if "username" in entry]
    return turn["username"], turn["credential"], body["ttl"]


def allocates(coturn: Coturn, username: str, password: str) -> bool:
    """Whether the real coturn gives this credential a relay (a TURN Allocate)."""

    async def allocate() -> bool:
        try:
            transport, _ = await asyncio.wait_for(
                create_turn_endpoint(
                    asyncio.DatagramProtocol, (coturn.host, coturn.port), username, password
                ),
                timeout=10,
            )
        except TransactionFailed as refused:
            assert refused.response.attributes["ERROR-CODE"][0] == 401, refused
            return False
        transport.close()
        return True

    return asyncio.run(allocate())


def test_a_default_seat_credential_lives_minutes(server: ServerProcess) -> None:
    links = new_table(server)
    before = time.time()
    username, _, ttl = credential(ice(server, links["seats"][0]["token"]))
    assert ttl == DEFAULT_TURN_TTL <= 600
    assert int(username.split(":")[0]) <= before + 600 + 1


def test_after_a_reissue_the_old_devices_turn_credential_stops_at_its_short_end(
    turn_site: tuple[ServerProcess, Coturn],
) -> None:
    server, coturn = turn_site
    links = new_table(server)
    old_token = links["seats"][2]["token"]
    old_user, old_password, ttl = credential(ice(server, old_token))
    assert ttl == SHORT_TTL
    assert allocates(coturn, old_user, old_password), "a credential of ours must allocate"

    headers = {"Authorization": f"Bearer {server.admin_key}"}
    reissued = httpx.post(
        f"{server.base}/api/tables/{links['id']}/reissue", json={"seat": 3}, headers=headers
    )
    assert reissued.status_code == 200, reissued.text
    reissued_at = time.time()
    new_token = reissued.json()["seats"][2]["token"]
    # The old device cannot refresh its credential: the server refuses its link.
    assert ice(server, old_token).status_code == 401
    # What it holds ends within the short lifetime of the re-issue (the documented bound).
    old_end = int(old_user.split(":")[0])
    assert old_end <= reissued_at + SHORT_TTL + 1

    while time.time() < old_end + 1.5:  # coturn's clock is this machine's
        time.sleep(0.2)
    assert not allocates(coturn, old_user, old_password), "the old credential still allocates"
    # The current device refreshes through the server and keeps allocating.
    fresh_user, fresh_password, _ = credential(ice(server, new_token))
    assert allocates(coturn, fresh_user, fresh_password)
    assert fresh_user.endswith(f":{links['id']}.3")


KEEP_FRESH = """async ([token, wait]) => {
  const { iceConfiguration, keepIceFresh } = await import("/static/embedded/ice.js");
  const first = await iceConfiguration("/api/ice", token);
  const names = (config) => config?.iceServers.map((s) => s.username ?? null) ?? null;
  window.kept = new Promise((resolve) => {
    const stop = keepIceFresh("/api/ice", token, first, (config) => { stop(); resolve(config); });
    setTimeout(() => { stop(); resolve(null); }, wait * 1000);
  }).then((fresh) => {
    let applied = null;
    if (fresh) {  // what the video mesh does with it (video.js, Mesh.freshIce)
      const pc = new RTCPeerConnection(first);
      pc.setConfiguration({ ...pc.getConfiguration(), ...fresh });
      applied = pc.getConfiguration().iceServers.map((s) => s.username ?? null);
      pc.close();
    }
    return { first: names(first), fresh: names(fresh), applied };
  });
}"""


async def test_a_page_keeps_its_credential_fresh_and_a_reissued_page_cannot(
    turn_site: tuple[ServerProcess, Coturn], browser: Any
) -> None:
    """Chromium running the pages' ice.js: a seat's page gets a new credential at half its
    lifetime and hands it to its peer connections; a page whose seat is re-issued meanwhile
    gets none (the server refuses its link), and its credential runs out."""
    server, _ = turn_site
    links = new_table(server)
    page = await browser.new_page()
    try:
        await page.goto(server.base + "/")
        token = links["seats"][2]["token"]
        await page.evaluate(KEEP_FRESH, [token, SHORT_TTL])
        got = await page.evaluate("window.kept")
        (first,), (fresh,) = got["first"], got["fresh"]
        assert int(fresh.split(":")[0]) > int(first.split(":")[0]), got
        assert got["applied"] == [fresh], got

        await page.evaluate(KEEP_FRESH, [token, SHORT_TTL])  # its credential, then...
        headers = {"Authorization": f"Bearer {server.admin_key}"}
        reissue = f"{server.base}/api/tables/{links['id']}/reissue"
        assert httpx.post(reissue, json={"seat": 3}, headers=headers).status_code == 200
        stale = await page.evaluate("window.kept")  # ...the seat is re-issued
        assert len(stale["first"]) == 1 and stale["fresh"] is None, stale
    finally:
        await page.close()
