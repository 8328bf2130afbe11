"""The overlay through LiveKit after a failover (issue 16): two `autohost serve --room
livekit` on one real PostgreSQL and one real LiveKit server. A participant holding only
LiveKit tokens talks to the table's bot; the owner is SIGKILLed; the same participant's
RPC, retried with backoff, is answered by the new owner's bot, and what was acked before
the kill is still there."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from plugin.rooms.livekit.tokens import Credentials, host_token, player_token
from testing import ServerProcess, eventually
from testing.livekit_overlay import OverlayClient
from testing.livekit_server import API_KEY, API_SECRET
from testing.postgres import PostgresServer, running_postgres

pytestmark = [pytest.mark.slow, pytest.mark.livekit]
TAKEOVER_SECONDS = 30  # a lease (3 s), a replay, the new bot's join, on a busy machine


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


def owner_of(table_id: str, servers: list[ServerProcess]) -> ServerProcess:
    deadline = time.monotonic() + TAKEOVER_SECONDS
    while True:
        holding = [s for s in servers if s.alive() and table_id in s.hosted(lenient=True)]
        assert len(holding) <= 1, f"table {table_id} hosted by {len(holding)} servers"
        if holding:
            return holding[0]
        assert time.monotonic() < deadline, f"no server hosts table {table_id}"
        time.sleep(0.05)


async def test_the_new_owners_bot_answers_the_same_participant(
    livekit_server, postgres, monkeypatch
) -> None:
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    monkeypatch.setenv("LIVEKIT_URL", creds.url)
    monkeypatch.setenv("LIVEKIT_API_KEY", API_KEY)
    monkeypatch.setenv("LIVEKIT_API_SECRET", API_SECRET)
    dsn = postgres.new_database()
    servers = [ServerProcess(dsn, options=["--room", "livekit", "--no-voice"]) for _ in range(2)]
    clients: list[OverlayClient] = []
    try:
        for server in servers:
            server.start()
        async with servers[0].http() as http:
            created = await http.post("/api/tables", json={"seats": 10, "preset": "online"})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        room = f"autohost-{table_id}"
        owner = owner_of(table_id, servers)
        # Any server of the club mints a page's LiveKit token, not only the owner.
        other = next(server for server in servers if server is not owner)
        seat7 = created.json()["seats"][6]["token"]
        minted = httpx.post(f"{other.base}/livekit/token", json={"link": seat7}, timeout=10)
        assert minted.status_code == 200, minted.text
        assert (minted.json()["room"], minted.json()["seat"]) == (room, 7)
        forged = seat7[:-2] + ("AA" if not seat7.endswith("AA") else "BB")
        refused = httpx.post(f"{other.base}/livekit/token", json={"link": forged}, timeout=10)
        assert refused.status_code == 401, refused.text
        host = OverlayClient(creds.url, host_token(creds, room))
        player = OverlayClient(creds.url, player_token(creds, room, 7))
        clients += [host, player]
        for client in clients:
            await client.join()
        assert (await host.hello(seconds=60))["seat"] == "host"
        assert (await player.hello(seconds=60))["seat"] == 7
        await eventually(lambda: player.state is not None, "the player's first view")
        started = await host.send("start")
        assert started["type"] == "ack", started
        await eventually(
            lambda: (player.state or {}).get("phase") not in (None, "lobby"),
            "the player's view shows the game started",
        )

        owner.kill()  # SIGKILL: no goodbye, the lease runs out
        survivor = next(s for s in servers if s is not owner)
        paused = await host.send("pause", seconds=TAKEOVER_SECONDS)  # retried until answered
        assert paused["type"] == "ack", paused
        assert owner_of(table_id, servers) is survivor
        # The player asked nothing since the kill: the new owner's bot sends him his view
        # as it joins, and after the pause.
        await eventually(
            lambda: (player.state or {}).get("table", {}).get("paused") is True,
            "the new owner's bot sends the player his view, unasked",
            seconds=TAKEOVER_SECONDS,
        )
        assert player.state["phase"] != "lobby"  # the start acked before the kill held
        assert player.state["you"] == 7
        seen = len(player.states)
        assert (await player.hello(seconds=TAKEOVER_SECONDS))["seat"] == 7
        await eventually(lambda: len(player.states) > seen, "a hello gets the view again")
    finally:
        for client in clients:
            await client.leave()
        for server in servers:
            if server.alive():
                server.kill()
