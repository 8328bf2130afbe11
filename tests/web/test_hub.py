"""The hub: each client gets its own view; a view is encoded once per broadcast and viewer;
a slow client keeps only the newest state."""

from __future__ import annotations

import asyncio
import json

from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.rules import load_preset, new_game
from plugin.web.hub import Connection, Hub
from testing import public_version

ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}


def snapshot(version: int, present: frozenset[int] = frozenset()) -> Snapshot:
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
        present=present,
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
    # The host's table version counts every change; the pages' public one only what they
    # see (rhythm.py: snapshot 2 changed nothing they see), as does the host's `public`.
    assert last["h"]["table"]["version"] == 2
    assert {public_version(m) for m in last.values()} == {1}
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
    for version in range(2, 6):  # each a change the seat sees (who is in the call)
        await hub.publish(snapshot(version, present=frozenset(range(1, version))))
    connection.push_reply(b'{"type":"ack","id":"x"}')
    gate.set()
    await asyncio.sleep(0.01)
    kinds = [(m["type"], m.get("table", {}).get("version")) for m in received]
    assert kinds == [("state", 0), ("state", 4), ("ack", None)]  # public versions
    await hub.detach(connection, None)


async def test_a_page_that_connects_gets_its_view_even_when_nothing_it_sees_changed() -> None:
    """A second tab of a seat, attached with a newer snapshot that changed nothing the
    seat sees (rhythm.py): the others get nothing, the new tab its whole view."""
    hub = Hub()
    first, second = Inbox(), Inbox()
    hub.attach(Connection("t1", 7, first.send), snapshot(1))
    await hub.publish(snapshot(2))
    hub.attach(Connection("t1", 7, second.send), snapshot(3))  # connected: still {7}
    await asyncio.sleep(0.01)
    assert len(first.messages) == 1 and len(second.messages) == 1
    assert second.messages[0] == first.messages[0]
