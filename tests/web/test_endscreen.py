"""The end of the game over the real app (issue 17; issue 15's leftover): every socket of
the table gets the end screen only once the game is over; the protocol's HTML and JSON
are served to the table's links (a header, never the URL) once it is over; the host's
next game is a new table, made once, and every page of the old table is moved to its
seat there over its own socket; after a restart a finished table's pages get their end
screen (read-only) or their seat at the next game, never `table_archived`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from plugin.eventlog import log_opener
from plugin.server.exports import protocol_routes
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from testing import Client, TestClient

from .conftest import ADMIN, SECRET, create_table, token_of
from .test_hostile import first_state, hello_socket

AUTH = {"Authorization": f"Bearer {ADMIN}"}


def config(tmp_path: Path) -> ServerConfig:
    return ServerConfig(
        db_path=tmp_path / "end.db",
        log=log_opener(tmp_path / "end.db"),
        admin_key=ADMIN,
        secret=SECRET,
        routes=(protocol_routes,),
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(config(tmp_path))) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def finish(host: Client, *, start: bool = True) -> dict[str, Any]:
    """Start the game, a foul to 5, the don and both mafiosi disqualified: the city wins."""
    if start:
        host.ack("start")
    host.ack("foul", seat=5)
    for seat in (1, 2, 3):
        host.ack("disqualify", seat=seat)
    return host.until(lambda m: m["type"] == "state" and m["over"])


def test_every_page_gets_the_end_only_once_the_game_is_over(client: TestClient) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        host = hello_socket(client, stack, token_of(links, "host"))
        player = hello_socket(client, stack, token_of(links, 7))
        watcher = hello_socket(client, stack, links["watch"]["token"])
        for socket in (host, player, watcher):
            assert first_state(socket)["end"] is None
        host.ack("start")
        assert player.until(lambda m: m["type"] == "state" and m["phase"] != "lobby")["end"] is None
        finish_state = finish(host, start=False)
        ends = [finish_state["end"]]
        for socket in (player, watcher):
            ends.append(socket.until(lambda m: m["type"] == "state" and m["over"])["end"])
        assert ends[0] == ends[1] == ends[2]
        end = ends[0]
        assert end["result"] == {"termination": "no_black_left", "winner": "city"}
        assert [s["role"] for s in end["seats"]][:4] == ["don", "mafia", "mafia", "sheriff"]
        assert [(i["kind"], i["seat"]) for i in end["timeline"]] == [
            ("foul", 5),
            ("disqualified", 1),
            ("disqualified", 2),
            ("disqualified", 3),
        ]
        assert finish_state["controls"] == ["next_game"]


def test_the_protocol_is_the_tables_own_after_the_game(client: TestClient) -> None:
    links = create_table(client, names=[f"Гравець {n}" for n in range(1, 11)])
    table = links["id"]
    html, data = f"/t/{table}/protocol.html", f"/t/{table}/protocol.json"
    seat, watch = token_of(links, 6), links["watch"]["token"]
    assert client.get(html).status_code == 401  # no token
    assert client.get(f"{html}?token={seat}").status_code == 401  # never in the URL
    forged = seat[:-2] + ("AA" if not seat.endswith("AA") else "BB")
    assert client.get(html, headers=bearer(forged)).json()["error"] == "token_forged"
    other = create_table(client)
    assert client.get(html, headers=bearer(token_of(other, 6))).status_code == 401
    answer = client.get(data, headers=bearer(seat))
    assert answer.status_code == 403 and answer.json()["error"] == "game_not_over"  # roles!
    assert client.get(data, headers=bearer(token_of(links, "host"))).status_code == 200
    with ExitStack() as stack:
        finish(hello_socket(client, stack, token_of(links, "host")))
    for token in (seat, watch, ADMIN):
        sheet = client.get(html, headers=bearer(token))
        assert sheet.status_code == 200 and "text/html" in sheet.headers["content-type"]
        assert "Гравець 5" in sheet.text
        record = client.get(data, headers=bearer(token)).json()
        assert record["table"] == table and record["outcome"]["winner"] == "city"
        assert [p["role"] for p in record["players"]][:4] == ["don", "mafia", "mafia", "sheriff"]
    assert client.get("/t/nosuch/protocol.json", headers=AUTH).status_code == 404


def test_the_next_game_moves_every_page_to_its_seat_at_a_new_table(client: TestClient) -> None:
    links = create_table(client, names=[f"P{n}" for n in range(1, 11)], club="Club")
    old = links["id"]
    url = f"/api/tables/{old}/next"
    host_token = token_of(links, "host")
    with ExitStack() as stack:
        host = hello_socket(client, stack, host_token)
        player = hello_socket(client, stack, token_of(links, 4))
        watcher = hello_socket(client, stack, links["watch"]["token"])
        for socket in (host, player, watcher):
            first_state(socket)
        host.ack("start")
        # Refused, and nothing changes: before the end, without the host's token.
        early = client.post(url, headers=bearer(host_token))
        assert early.status_code == 409 and early.json()["error"] == "game_not_over"
        finish(host, start=False)
        for token in (token_of(links, 4), links["watch"]["token"], "nonsense"):
            refused = client.post(url, headers=bearer(token))
            assert refused.status_code == 401 and refused.json()["error"] == "not_host"
        assert client.post("/api/tables/nosuch/next", headers=AUTH).status_code == 404
        listed = client.get("/api/tables", headers=AUTH).json()
        assert [t["id"] for t in listed] == [old]

        answer = client.post(url, headers=bearer(host_token))
        assert answer.status_code == 200, answer.text
        new = answer.json()["successor"]
        # The host token never gets the new table's links (issue 31): its pages move.
        assert new != old and answer.json()["links"] is None
        signer = Signer(SECRET)
        for socket, seat in ((host, "host"), (player, 4), (watcher, "watch")):
            moved = socket.next_answer()
            assert moved["table"] == new
            grant = signer.verify_any(moved["token"], table=new)
            assert grant.seat == seat
            # The page opens its seat at the new table with that token.
            fresh = first_state(hello_socket(client, stack, moved["token"]))
            assert fresh["table"]["id"] == new and fresh["phase"] == "lobby"
            assert fresh["end"] is None and fresh["table"]["names"][0] == "P1"
        again = client.post(url, headers=AUTH)  # a double click (here: the admin's)
        assert again.status_code == 200 and again.json()["successor"] == new
        assert again.json()["links"]["id"] == new  # the admin's answer has them
        assert sorted(t["id"] for t in client.get("/api/tables", headers=AUTH).json()) == [new]
        # An old seat link opened later lands on the successor seat.
        late = hello_socket(client, stack, token_of(links, 9))
        moved = late.receive()
        assert moved["type"] == "moved" and moved["table"] == new
        assert Signer(SECRET).verify(moved["token"], table=new).seat == 9
        # The seat's link at the new table was replaced since: the old link's path there
        # is closed (issue 31: only the new table's own generation counts).
        reissued = client.post(f"/api/tables/{new}/reissue", json={"seat": 9}, headers=AUTH)
        assert reissued.status_code == 200
        refused = hello_socket(client, stack, token_of(links, 9)).receive()
        assert refused["type"] == "error" and refused["error"] == "token_reissued"


def test_after_a_restart_a_finished_tables_pages_see_their_end(tmp_path: Path) -> None:
    """Issue 15's leftover: a finished table is archived at start; its players get their
    end screen (read-only), not `table_archived`, and its protocol still exports."""
    with TestClient(create_app(config(tmp_path))) as client, ExitStack() as stack:
        links = create_table(client)
        finish(hello_socket(client, stack, token_of(links, "host")))
    with TestClient(create_app(config(tmp_path))) as client, ExitStack() as stack:
        assert client.get("/api/tables", headers=AUTH).json() == []  # archived at start
        player = hello_socket(client, stack, token_of(links, 2))
        state = first_state(player)
        assert state["over"] and state["end"]["result"]["winner"] == "city"
        assert state["me"]["role"] == "mafia" and state["roles"]["1"] == "don"
        refusal = player.request("vote", candidate=3)  # read-only: nothing is taken
        assert refusal["type"] == "error" and refusal["error"] == "game_over"
        host = hello_socket(client, stack, token_of(links, "host"))
        assert first_state(host)["controls"] == ["next_game"]
        record = client.get(f"/t/{links['id']}/protocol.json", headers=bearer(token_of(links, 2)))
        assert record.status_code == 200 and record.json()["outcome"]["winner"] == "city"
        # The next game from the archived table, then a restart: the seat moves on.
        host_auth = bearer(token_of(links, "host"))
        answer = client.post(f"/api/tables/{links['id']}/next", headers=host_auth)
        assert answer.status_code == 200, answer.text
        new = answer.json()["successor"]
        # The pages on the end screen of the archived table are moved on as well.
        for socket, seat in ((player, 2), (host, "host")):
            moved = socket.next_answer()
            assert moved["type"] == "moved" and moved["table"] == new
            assert Signer(SECRET).verify(moved["token"], table=new).seat == seat
    with TestClient(create_app(config(tmp_path))) as client, client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token_of(links, 2)}))
        moved = json.loads(ws.receive_text())
        assert moved["type"] == "moved" and moved["table"] == new
        assert [t["id"] for t in client.get("/api/tables", headers=AUTH).json()] == [new]


def test_a_replaced_link_of_a_finished_table_gets_nothing(tmp_path: Path) -> None:
    """A re-issued link stays refused after the end and after a restart: no end screen,
    no protocol and, above all, no seat at the next game."""
    with TestClient(create_app(config(tmp_path))) as client, ExitStack() as stack:
        links = create_table(client)
        fresh = client.post(f"/api/tables/{links['id']}/reissue", json={"seat": 2}, headers=AUTH)
        assert fresh.status_code == 200
        finish(hello_socket(client, stack, token_of(links, "host")))
    old_token, new_token = token_of(links, 2), token_of(fresh.json(), 2)
    data = f"/t/{links['id']}/protocol.json"
    with TestClient(create_app(config(tmp_path))) as client, ExitStack() as stack:
        refused = client.get(data, headers=bearer(old_token))
        assert refused.status_code == 401 and refused.json()["error"] == "token_reissued"
        assert client.get(data, headers=bearer(new_token)).status_code == 200
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": old_token}))
            assert json.loads(ws.receive_text())["error"] == "token_reissued"
        assert first_state(hello_socket(client, stack, new_token))["end"] is not None
        client.post(f"/api/tables/{links['id']}/next", headers=AUTH).raise_for_status()
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": old_token}))
            assert json.loads(ws.receive_text())["error"] == "token_reissued"


def test_a_finished_table_archived_by_the_admin_still_shows_its_end(client: TestClient) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        player = hello_socket(client, stack, token_of(links, 6))
        first_state(player)
        finish(hello_socket(client, stack, token_of(links, "host")))
        assert client.post(f"/api/tables/{links['id']}/archive", headers=AUTH).status_code == 200
        assert player.next_answer()["error"] == "game_over"  # not table_archived
        again = first_state(hello_socket(client, stack, token_of(links, 6)))  # a reconnect
        assert again["over"] and again["end"]["result"]["winner"] == "city"
    info = client.get(f"/api/tables/{links['id']}", headers=AUTH).json()
    assert info["archived"] is True and info["over"] is True


@pytest.mark.parametrize("damage", ['{"type": "end_game"', "[" * 100_000])
def test_a_finished_table_whose_log_is_damaged_is_reported_broken(
    tmp_path: Path, damage: str
) -> None:
    """The outside check: an archived, finished table with a record that no longer decodes
    (truncated, nested too deep) or replays answered its pages' sockets by dropping them
    (1006, which pages retry forever) and its protocol with a 500 and a traceback, and
    /healthz did not name it. It is a broken table like a live one: said, everywhere."""
    with TestClient(create_app(config(tmp_path))) as client, ExitStack() as stack:
        links = create_table(client)
        finish(hello_socket(client, stack, token_of(links, "host")))
    with sqlite3.connect(tmp_path / "end.db") as db:
        db.execute(
            "UPDATE events SET record = ? WHERE table_id = ? AND seq = 2", (damage, links["id"])
        )
    with TestClient(create_app(config(tmp_path))) as client:
        info = client.get(f"/api/tables/{links['id']}", headers=AUTH)  # the first to read it
        assert info.status_code == 409 and "broken" in info.json(), info.text
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token_of(links, 2)}))
            refusal = json.loads(ws.receive_text())
        assert refusal["error"] == "table_broken", refusal
        answer = client.get(f"/t/{links['id']}/protocol.json", headers=bearer(token_of(links, 2)))
        assert answer.status_code == 409 and answer.json()["error"] == "table_broken"
        health = client.get("/healthz").json()
        assert links["id"] in health["broken"]
        assert client.get("/api/tables", headers=AUTH).json() == [
            {"id": links["id"], "broken": health["broken"][links["id"]]}
        ]


def test_the_protocol_refuses_a_seat_outside_the_table(client: TestClient) -> None:
    """A genuine signature for seat 42 of a 10-seat table: refused like on every socket."""
    links = create_table(client)
    with ExitStack() as stack:
        finish(hello_socket(client, stack, token_of(links, "host")))
    stranger = Signer(SECRET).issue(links["id"], 42)
    answer = client.get(f"/t/{links['id']}/protocol.json", headers=bearer(stranger))
    assert answer.status_code == 401 and answer.json()["error"] == "token_bad_seat"
