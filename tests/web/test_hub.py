"""The hub: each client gets its own view; a view is encoded once per broadcast and viewer;
a slow client keeps only the newest state."""

from __future__ import annotations

import asyncio
import json

from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.rules import load_preset, new_game
from plugin.web.hub import Connection, Hub

ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}


def snapshot(version: int) -> Snapshot:
    settings = TableSettings(seats=10, roles=ROLES, seed=1)
    state = new_game(load_preset("online"), players=10, roles=ROLES)
    return Snapshot(
        table_id="t1",
        version=version,
        state=state,
        settings=settings,
        timer_id=None,
        timer_remaining=None,
        paused=False,
        present=frozenset(),
    )


class Inbox:
    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def send(self, data: bytes) -> None:
        self.messages.append(json.loads(data))


async def test_one_encoding_per_viewer_per_broadcast() -> None:
    hub = Hub()
    inboxes = {name: Inbox() for name in ("a", "b", "c", "h")}
    connections = [
        Connection("t1", 7, inboxes["a"].send),
        Connection("t1", 7, inboxes["b"].send),  # a second tab of seat 7
        Connection("t1", 1, inboxes["c"].send),
        Connection("t1", "host", inboxes["h"].send),
    ]
    for connection in connections:
        hub.attach(connection, snapshot(1))
    before = hub.encodings
    await hub.publish(snapshot(2))
    assert hub.encodings - before == 3  # seat 7, seat 1, host
    await asyncio.sleep(0.01)
    last = {name: inbox.messages[-1] for name, inbox in inboxes.items()}
    assert last["a"] == last["b"] and last["a"]["me"]["role"] == "civilian"
    assert last["c"]["me"]["role"] == "don"
    assert last["h"]["roles"]["1"] == "don" and "me" not in last["h"]
    assert {m["table"]["version"] for m in last.values()} == {2}
    assert last["h"]["table"]["connected"] == [1, 7]
    for connection in connections:
        await hub.detach(connection, None)


async def test_a_slow_client_gets_the_newest_state_and_every_reply() -> None:
    gate = asyncio.Event()
    received: list[dict] = []

    async def slow_send(data: bytes) -> None:
        await gate.wait()
        received.append(json.loads(data))

    hub = Hub()
    connection = Connection("t1", 3, slow_send)
    hub.attach(connection, snapshot(1))
    await asyncio.sleep(0)  # the writer takes state 1 and blocks on the gate
    for version in range(2, 6):
        await hub.publish(snapshot(version))
    connection.push_reply(b'{"type":"ack","id":"x"}')
    gate.set()
    await asyncio.sleep(0.01)
    kinds = [(m["type"], m.get("table", {}).get("version")) for m in received]
    assert kinds == [("state", 1), ("state", 5), ("ack", None)]
    await hub.detach(connection, None)
