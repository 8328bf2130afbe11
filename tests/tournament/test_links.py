"""Personal tournament links (issue 34, plugin.tournament.links and .follow) through the real
app: a player's tournament page waits, and is sent his seat at his table (`moved`, the
next game's message) when his round starts; the seat's token it gets is admitted there;
a re-issued link stops the old one and the seat's old token with it; a revoked link is
refused; neither a table's token nor a tournament's opens the other's socket."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from plugin.signing import Signer
from testing import TestClient
from tests.tournament.test_rounds import AS_ADMIN, club_records, seated_tournament, serving
from tests.web.conftest import SECRET

OPEN: list[Any] = []  # every socket a test opened: closed even when it fails


def hello(client: TestClient, path: str, token: str) -> Any:
    socket = client.websocket_connect(path)
    socket.__enter__()
    OPEN.append(socket)
    socket.send_json({"type": "hello", "token": token})
    return socket


def shut(socket: Any) -> None:
    """Close a socket and wait for its session to end (its `with` block's exit)."""
    OPEN.remove(socket)
    socket.__exit__(None, None, None)


@contextmanager
def closing_sockets() -> Iterator[None]:
    try:
        yield
    finally:
        while OPEN:
            with contextlib.suppress(Exception):
                shut(OPEN[-1])


def refused(client: TestClient, path: str, token: str) -> str:
    socket = hello(client, path, token)
    try:
        message = socket.receive_json()
        assert message["type"] == "error", message
        return str(message["error"])
    finally:
        shut(socket)


def seat_of(started: dict[str, Any], player: str) -> tuple[str, int]:
    for table in started["tables"]:
        if player in table["seats"]:
            return table["id"], table["seats"].index(player) + 1
    raise AssertionError(f"{player} has no seat")


def test_a_tournament_link_follows_its_player_to_his_seat(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, _), closing_sockets():
        seated_tournament(client)
        before = club_records(db)
        for body, status, code in [({"players": ["P99"]}, 404, "no_player"),
                                   ({"players": "P1"}, 400, "bad_field")]:  # fmt: skip
            reply = client.post("/api/club/tournaments/t1/links", json=body, headers=AS_ADMIN)
            assert (reply.status_code, reply.json()["error"]) == (status, code)
        assert client.post("/api/club/tournaments/t1/links", json={}).status_code == 401
        assert client.post("/api/club/tournaments/t9/links", json={},
                           headers=AS_ADMIN).status_code == 404  # fmt: skip
        assert club_records(db) == before
        issued = client.post("/api/club/tournaments/t1/links", json={}, headers=AS_ADMIN)
        links = issued.json()["links"]
        assert len(links) == 20 and club_records(db) == before + 1
        mine = links[0]
        assert mine["link"].endswith(f"/club/tournaments/t1/play#token={mine['token']}")
        page = client.get("/club/tournaments/t1/play")
        assert page.status_code == 200 and "tournament-play.js" in page.text

        socket = hello(client, "/club/tournaments/ws", mine["token"])
        waiting = socket.receive_json()
        assert waiting["type"] == "tournament" and waiting["nick"] == mine["nick"]
        assert waiting["waiting"] is True
        started = client.post("/api/club/tournaments/t1/start", json={"round": 0},
                              headers=AS_ADMIN).json()  # fmt: skip
        moved = socket.receive_json()
        shut(socket)
        table, seat = seat_of(started, mine["player"])
        assert moved["type"] == "moved" and moved["table"] == table
        grant = Signer(SECRET).verify(moved["token"])
        assert (grant.table, grant.seat, grant.generation) == (table, seat, 0)
        at_table = hello(client, "/ws", moved["token"])
        state = at_table.receive_json()
        shut(at_table)
        assert state["type"] == "state" and state["you"] == seat

        # Opened again once the round runs: sent to his seat at once.
        again = hello(client, "/club/tournaments/ws", mine["token"])
        assert again.receive_json()["table"] == table
        shut(again)

        # Neither kind of token opens the other's socket.
        assert refused(client, "/club/tournaments/ws", moved["token"]) == "token_not_tournament"
        assert refused(client, "/ws", mine["token"]) == "no_table"

        # Re-issued: the old link stops, and the seat's token it gave with it.
        new = client.post("/api/club/tournaments/t1/links", json={"players": [mine["nick"]]},
                          headers=AS_ADMIN).json()["links"]  # fmt: skip
        assert [link["player"] for link in new] == [mine["player"]]
        assert refused(client, "/club/tournaments/ws", mine["token"]) == "token_reissued"
        assert refused(client, "/ws", moved["token"]) == "token_reissued"
        socket = hello(client, "/club/tournaments/ws", new[0]["token"])
        fresh = socket.receive_json()
        shut(socket)
        assert Signer(SECRET).verify(fresh["token"]).generation == 1
        at_table = hello(client, "/ws", fresh["token"])
        assert at_table.receive_json()["type"] == "state"
        shut(at_table)

        # Revoked: refused; revoking twice is refused and writes nothing.
        body = {"player": mine["player"]}
        reply = client.post("/api/club/tournaments/t1/links/revoke", json=body, headers=AS_ADMIN)
        assert reply.status_code == 200
        assert refused(client, "/club/tournaments/ws", new[0]["token"]) == "token_revoked"
        records = club_records(db)
        twice = client.post("/api/club/tournaments/t1/links/revoke", json=body, headers=AS_ADMIN)
        assert twice.status_code == 409 and club_records(db) == records


def next_of(socket: Any, kind: str, limit: int = 100) -> dict[str, Any]:
    """The next message of `kind` on a socket (states and acks before it pass)."""
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind:
            return dict(message)
        assert message["type"] != "error", message
    raise AssertionError(f"no {kind} in {limit} messages")


def test_a_page_at_a_finished_table_follows_its_player_to_the_next_round(
    tmp_path: Path,
) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, _), closing_sockets():
        seated_tournament(client, games=2)
        issued = client.post("/api/club/tournaments/t1/links", json={}, headers=AS_ADMIN)
        links = {link["player"]: link["token"] for link in issued.json()["links"]}
        first = client.post("/api/club/tournaments/t1/start", json={"round": 0},
                            headers=AS_ADMIN).json()  # fmt: skip
        done, playing = first["tables"]
        mover, stayer = done["seats"][0], playing["seats"][0]
        pages = {}
        for player in (mover, stayer):  # each at his seat of round 1, by his link
            page = hello(client, "/club/tournaments/ws", links[player])
            token = page.receive_json()["token"]
            shut(page)
            pages[player] = hello(client, "/ws", token)
            assert pages[player].receive_json()["type"] == "state"
        host = client.post(f"/api/club/tables/{done['id']}/host", headers=AS_ADMIN)
        console = hello(client, "/ws", host.json()["link"].split("#token=")[1])
        console.send_json({"type": "start", "v": 1, "id": "s"})
        assert next_of(console, "ack")["id"] == "s"
        console.send_json({"type": "end_game", "v": 1, "id": "e", "winner": "city"})
        assert next_of(console, "ack")["id"] == "e"
        shut(console)
        assert client.post("/api/club/tournaments/t1/finish", json={"round": 0},
                           headers=AS_ADMIN).is_success  # fmt: skip
        second = client.post("/api/club/tournaments/t1/start", json={"round": 1},
                             headers=AS_ADMIN).json()  # fmt: skip
        # His page at the finished table follows him: `moved` comes before the answer to
        # anything it sends now (were it still there, that answer would come: a refusal).
        pages[mover].send_json({"type": "pass", "v": 1, "id": "after"})
        moved = next_of(pages[mover], "moved")
        table, seat = seat_of(second, mover)
        grant = Signer(SECRET).verify(moved["token"])
        assert moved["table"] == table and (grant.table, grant.seat) == (table, seat)
        shut(pages[mover])
        at_table = hello(client, "/ws", moved["token"])
        assert at_table.receive_json()["you"] == seat
        # A table whose game is not over keeps its pages: its host starts the game, and
        # the page's next messages are that table's states, never a `moved`.
        host = client.post(f"/api/club/tables/{playing['id']}/host", headers=AS_ADMIN)
        console = hello(client, "/ws", host.json()["link"].split("#token=")[1])
        console.send_json({"type": "start", "v": 1, "id": "s"})
        assert next_of(console, "ack")["id"] == "s"
        for _ in range(100):
            message = pages[stayer].receive_json()
            assert message["type"] == "state", message
            if message["phase"] != "lobby":
                break
        else:
            raise AssertionError("the running table's page saw no start")


def test_a_page_waits_while_its_table_is_not_made(tmp_path: Path) -> None:
    """A start cut short (the server's cap): the players of the table not made yet wait
    (no `moved` to a table that does not exist); once the start is finished, they go."""
    db = tmp_path / "log.db"
    with serving(db, max_tables=1) as (client, _), closing_sockets():
        seated_tournament(client)
        issued = client.post("/api/club/tournaments/t1/links", json={}, headers=AS_ADMIN)
        links = {link["player"]: link["token"] for link in issued.json()["links"]}
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 503
        made, missing = reply.json()["tables"]
        page = hello(client, "/club/tournaments/ws", links[missing["seats"][0]])
        assert page.receive_json()["type"] == "tournament"
        shut(page)
        page = hello(client, "/club/tournaments/ws", links[made["seats"][0]])
        assert page.receive_json()["table"] == made["id"]
        shut(page)
    with serving(db) as (client, _), closing_sockets():
        page = hello(client, "/club/tournaments/ws", links[missing["seats"][0]])
        assert page.receive_json()["type"] == "tournament"  # still not made: waits
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 201
        moved = page.receive_json()  # the finished start wakes it: its seat now
        shut(page)
        assert moved["type"] == "moved" and moved["table"] == missing["id"]
