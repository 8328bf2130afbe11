"""Several servers, no load balancer: a server that does not host a table tells the page
where it is hosted (the owner's public URL, from the lease table), every server tells its
pages the club's other servers (`--peers`, GET /api/servers), and a page served by one
may open the socket of another (a peer's origin is allowed)."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from testing import ServerProcess, connect, free_port
from testing.postgres import PostgresServer

from .conftest import create_table, host_of

pytestmark = pytest.mark.slow


@pytest.fixture
def pair(postgres: PostgresServer):
    dsn = postgres.new_database()
    ports = free_port(), free_port()
    made = [
        ServerProcess(dsn, port=port, options=["--room", "embedded", "--no-voice",
                                               "--peers", f"http://127.0.0.1:{peer}"])
        for port, peer in (ports, ports[::-1])
    ]  # fmt: skip
    try:
        for server in made:
            server.start()
        yield made
    finally:
        for server in made:
            if server.alive():
                server.kill()


def test_a_server_that_does_not_host_a_table_says_which_does(pair) -> None:
    links = create_table(pair[0])
    table_id = links["id"]
    owner = host_of(table_id, pair)
    (other,) = [s for s in pair if s is not owner]
    with connect(other.ws_url(links["host"]["token"])) as elsewhere:
        refused = elsewhere.receive()
    assert refused["type"] == "error" and refused["error"] == "table_elsewhere", refused
    assert refused["server"] == owner.base  # the owner's public URL, from its lease
    # Its own pages are never sent to it: the owner does not hint at itself.
    with connect(owner.ws_url(links["host"]["token"])) as console:
        assert console.receive()["type"] == "state"
    # Every server tells its pages the club's other servers.
    told = httpx.get(other.base + "/api/servers", timeout=10).json()
    assert told == {"self": other.base, "peers": [owner.base]}
    # A page the other server served may open the owner's socket (a peer's origin).
    with ws_connect(owner.ws_url(links["host"]["token"]), origin=other.base) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    with pytest.raises(InvalidStatus) as refused_origin:  # any other origin is not
        ws_connect(owner.ws_url(links["host"]["token"]), origin="http://evil.example")
    assert refused_origin.value.response.status_code == 403
    # After the owner dies the hint follows the lease: to the heir (itself: no hint).
    owner.kill()
    assert host_of(table_id, [other]) is other
    assert table_id in other.hosted()
