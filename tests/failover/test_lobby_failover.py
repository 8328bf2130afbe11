"""The lobby survives a failover (issue 17): players wait and one is seated on one server;
it is killed; the server that takes the table over knows who waits, gives the seated
player's device its seat again without the host, and shows his name on the tiles."""

from __future__ import annotations

import json
import time
from typing import Any

from testing import Client, ServerProcess, connect

from .conftest import TAKEOVER_SECONDS, Servers, create_table, host_of, widget


def lobby(server: ServerProcess, links: dict[str, Any], device: str | None) -> Client:
    """A /lobby socket: the player's with his device secret, or the host's (device None)."""
    client = connect(f"ws://127.0.0.1:{server.port}/lobby")
    hello: dict[str, Any] = {"type": "hello", "table": links["id"]}
    if device is None:
        hello["token"] = links["host"]["token"]
    else:
        hello |= {"token": links["invite"]["token"], "device": device}
    client.send_frame("text", json.dumps(hello).encode())
    return client


def until(client: Client, accept: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "no lobby message as expected"
        message = client.receive()
        if message["type"] == "lobby" and accept(message):
            return message


def send(client: Client, type: str, **fields: Any) -> None:
    client.send_frame("text", json.dumps({"type": type, **fields}).encode())


def test_the_lobby_survives_the_owner_being_killed(servers: Servers) -> None:
    running = servers(2)
    links = create_table(running[0])
    owner = host_of(links["id"], running)
    with lobby(owner, links, None) as host:
        until(host, lambda m: True)
        for n, name in enumerate(["Анна", "Богдан"], 1):
            with lobby(owner, links, f"failover-device-{n:04}") as player:
                until(player, lambda m: True)
                send(player, "join", name=name)
                until(player, lambda m: m["me"]["state"] == "waiting")
        entries = until(host, lambda m: len(m["entries"]) == 2)["entries"]
        send(host, "seat", entry=entries[0]["entry"], seat=3)
        until(host, lambda m: len(m["seated"]) == 1)
    owner.kill()
    (heir,) = [s for s in running if s is not owner]
    assert host_of(links["id"], [heir]) is heir
    deadline = time.monotonic() + TAKEOVER_SECONDS
    with lobby(heir, links, "failover-device-0001") as anna:
        place = until(anna, lambda m: True)["me"]
        assert place["state"] == "seated" and place["seat"] == 3 and time.monotonic() < deadline
        assert place["name"] == "Анна"
        with widget(heir, place["token"]) as page:
            assert page.state is not None and page.state["you"] == 3
            assert page.state["table"]["names"][2] == "Анна"
    with lobby(heir, links, "failover-device-0002") as bohdan:
        assert until(bohdan, lambda m: True)["me"] == {"state": "waiting", "name": "Богдан"}
    with lobby(heir, links, None) as host:
        assert [e["name"] for e in until(host, lambda m: True)["entries"]] == ["Богдан"]
