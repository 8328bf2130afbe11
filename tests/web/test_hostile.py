"""A hostile client against the real app in-process (issue 15): bodies over their limit,
broken JSON, foreign origins, tokens in a first message instead of the URL, re-issued
links, connection caps and rates, archived and broken tables, a log that cannot be written.
Each attack is refused with a clear error and changes nothing; the honest clients go on.

The same classes against a real `autohost serve` over real sockets: tests/hostile/.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from plugin.web.app import ServerConfig, create_app
from plugin.web.limits import CONNECTIONS_PER_SEAT
from testing import Client, TestClient

from .conftest import ADMIN, SECRET, create_table, token_of

AUTH = {"Authorization": f"Bearer {ADMIN}"}


def hello_socket(client: TestClient, stack: ExitStack, token: str, **headers: str) -> Client:
    """A page's socket: the token in its first message, never in the URL."""
    ws = stack.enter_context(client.websocket_connect("/ws", headers=headers))
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    return Client(ws)


def first_state(client: Client) -> dict[str, Any]:
    message = client.receive()
    assert message["type"] == "state", message
    return message


def log_rows(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM events").fetchone()[0])


# --- bodies --------------------------------------------------------------------------------


def test_a_body_announced_over_the_limit_is_refused_unread(app_client: TestClient) -> None:
    answer = app_client.post(
        "/api/tables", content=b"{}", headers={**AUTH, "Content-Length": str(10**9)}
    )
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"
    assert app_client.get("/api/tables", headers=AUTH).json() == []


def test_a_streamed_body_is_cut_off_at_the_limit(app_client: TestClient) -> None:
    sent = [0]

    def chunks() -> Iterator[bytes]:
        for _ in range(1000):  # 64 MiB if the server read it all
            sent[0] += 1
            yield b" " * 65536

    answer = app_client.post("/api/tables", content=chunks(), headers=AUTH)
    assert answer.status_code == 413 and answer.json()["error"] == "too_large"
    assert app_client.get("/api/tables", headers=AUTH).json() == []


@pytest.mark.parametrize(
    "body",
    [b"[" * 5000 + b"]" * 5000, b'{"seats": ' + b"[" * 3000, b"\xff\xfe", b'{"seats": 1e999}'],
)
def test_broken_or_deep_json_is_a_400_not_a_500(app_client: TestClient, body: bytes) -> None:
    answer = app_client.post("/api/tables", content=body, headers=AUTH)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] in {"bad_json", "bad_settings", "bad_seats"}


def test_an_offer_with_a_forged_header_token_is_refused_before_its_body(
    app_client: TestClient,
) -> None:
    links = create_table(app_client)
    answer = app_client.post(
        f"/rtc/{links['id']}/offer",
        content=b"not even json",
        headers={"Authorization": "Bearer forged", "Content-Type": "application/json"},
    )
    # No rtc route in this app (no room): the table's room is unknown first.
    assert answer.status_code in (403, 404)


# --- origins -------------------------------------------------------------------------------


def test_a_foreign_origin_may_not_post_or_open_a_socket(app_client: TestClient) -> None:
    evil = {"Origin": "https://evil.example"}
    answer = app_client.post("/api/tables", json={"seats": 10}, headers={**AUTH, **evil})
    assert answer.status_code == 403 and answer.json()["error"] == "bad_origin"
    assert app_client.get("/api/tables", headers=AUTH).json() == []
    links = create_table(app_client)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        app_client.websocket_connect("/ws", headers=evil) as ws,
    ):
        ws.receive_text()
    assert refused.value.code == 4403
    # The server's own origin (the page it served) and no origin at all (a bot) may.
    with ExitStack() as stack:
        own = hello_socket(app_client, stack, token_of(links, 3), Origin="http://testserver")
        first_state(own)
        bot = hello_socket(app_client, stack, token_of(links, 4))
        first_state(bot)


def test_a_configured_origin_may(tmp_path: Path) -> None:
    config = ServerConfig(
        db_path=tmp_path / "a.db", admin_key=ADMIN, secret=SECRET,
        allowed_origins=("https://club.example",),
    )  # fmt: skip
    with TestClient(create_app(config)) as client:
        answer = client.post(
            "/api/tables", json={"seats": 10}, headers={**AUTH, "Origin": "https://club.example"}
        )
        assert answer.status_code == 201


# --- tokens --------------------------------------------------------------------------------


def test_the_token_comes_in_a_hello_and_nothing_else_opens_a_socket(
    app_client: TestClient,
) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        first_state(hello_socket(app_client, stack, token_of(links, 3)))
    for first in ('{"type": "vote", "v": 1, "id": "x", "candidate": 3}', "[]", "x" * 2000):
        with app_client.websocket_connect("/ws") as ws:
            ws.send_text(first)
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error" and reply["error"] == "token_malformed", reply


def test_a_reissued_link_is_refused_at_once_and_its_sockets_closed(
    app_client: TestClient, tmp_path: Path
) -> None:
    links = create_table(app_client)
    old = token_of(links, 3)
    with ExitStack() as stack:
        victim = hello_socket(app_client, stack, old)
        first_state(victim)
        other = hello_socket(app_client, stack, token_of(links, 4))
        first_state(other)
        as_host = {"Authorization": f"Bearer {token_of(links, 'host')}"}
        answer = app_client.post(
            f"/api/tables/{links['id']}/reissue", json={"seat": 3}, headers=as_host
        )
        assert answer.status_code == 200, answer.text
        new = token_of(answer.json(), 3)
        assert new != old and token_of(answer.json(), 4) == token_of(answer.json(), 4)
        while (message := victim.receive())["type"] == "state":
            pass
        assert message["error"] == "token_reissued"
        assert victim.receive() == {"type": "close", "code": 4410}
        # Seat 4's socket is untouched, and its link still works.
        assert other.request("pass")["type"] in ("ack", "error")
        first_state(hello_socket(app_client, stack, token_of(links, 4)))
        first_state(hello_socket(app_client, stack, new))
    with app_client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": old}))
        assert json.loads(ws.receive_text())["error"] == "token_reissued"


def test_only_the_host_or_the_admin_reissues(app_client: TestClient) -> None:
    links = create_table(app_client)
    for key in (token_of(links, 3), "garbage", ""):
        answer = app_client.post(
            f"/api/tables/{links['id']}/reissue",
            json={},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert answer.status_code == 401
    bad = app_client.post(f"/api/tables/{links['id']}/reissue", json={"seat": 42}, headers=AUTH)
    assert bad.status_code == 400 and bad.json()["error"] == "bad_seat"
    everyone = app_client.post(f"/api/tables/{links['id']}/reissue", json={}, headers=AUTH)
    assert everyone.status_code == 200
    assert token_of(everyone.json(), "host") != token_of(links, "host")


def test_a_reissue_survives_a_restart(tmp_path: Path) -> None:
    config = ServerConfig(db_path=tmp_path / "r.db", admin_key=ADMIN, secret=SECRET)
    with TestClient(create_app(config)) as client:
        links = create_table(client)
        client.post(f"/api/tables/{links['id']}/reissue", json={"seat": 5}, headers=AUTH)
    with TestClient(create_app(config)) as client, client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token_of(links, 5)}))
        assert json.loads(ws.receive_text())["error"] == "token_reissued"


# --- connections ---------------------------------------------------------------------------


def test_a_seat_has_a_few_connections_at_most(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        for _ in range(CONNECTIONS_PER_SEAT):
            first_state(hello_socket(app_client, stack, token_of(links, 3)))
        extra = hello_socket(app_client, stack, token_of(links, 3))
        assert extra.receive()["error"] == "too_many_connections"
        first_state(hello_socket(app_client, stack, token_of(links, 4)))  # others may


def test_reconnecting_a_seat_does_not_broadcast_to_the_table(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = hello_socket(app_client, stack, token_of(links, "host"))
        first_state(host)
        first_state(hello_socket(app_client, stack, token_of(links, 3)))
        seen = host.receive()  # seat 3 came online: the host hears it once
        assert seen["type"] == "state" and 3 in seen["table"]["connected"]
        for _ in range(3):  # the same seat again: the host hears nothing
            with app_client.websocket_connect("/ws") as again:
                again.send_text(json.dumps({"type": "hello", "token": token_of(links, 3)}))
                assert json.loads(again.receive_text())["type"] == "state"
        host.ws.send_text(json.dumps({"v": 1, "id": "p", "type": "pause"}))
        states = []
        while (message := host.receive())["type"] == "state":
            states.append(message)
        assert message["type"] == "ack"
        # Only the pause reached the host: the three reconnects cost it nothing.
        assert len(states) == 1 and states[0]["table"]["paused"], states


# --- tables that cannot be served ----------------------------------------------------------


def test_an_archived_table_ends_its_sockets_and_is_not_reopened(tmp_path: Path) -> None:
    config = ServerConfig(db_path=tmp_path / "a.db", admin_key=ADMIN, secret=SECRET)
    with TestClient(create_app(config)) as client, ExitStack() as stack:
        links, kept = create_table(client), create_table(client)
        player = hello_socket(client, stack, token_of(links, 3))
        first_state(player)
        answer = client.post(f"/api/tables/{links['id']}/archive", headers=AUTH)
        assert answer.status_code == 200
        while (message := player.receive())["type"] == "state":
            pass
        assert message["error"] == "table_archived"
        assert [t["id"] for t in client.get("/api/tables", headers=AUTH).json()] == [kept["id"]]
        assert client.post("/api/tables/nope/archive", headers=AUTH).status_code == 404
        assert client.get("/api/tables/nope", headers=AUTH).status_code == 404
    with TestClient(create_app(config)) as client, client.websocket_connect("/ws") as ws:
        assert [t["id"] for t in client.get("/api/tables", headers=AUTH).json()] == [kept["id"]]
        info = client.get(f"/api/tables/{links['id']}", headers=AUTH)  # still the admin's
        assert info.status_code == 200, info.text
        assert info.json()["archived"] is True and info.json()["over"] is False
        assert info.json()["settings"]["seats"] == 10
        assert info.json()["protocol"] == f"/t/{links['id']}/protocol.json"
        assert client.get(f"/api/tables/{links['id']}").status_code == 401  # without the key
        ws.send_text(json.dumps({"type": "hello", "token": token_of(links, 3)}))
        assert json.loads(ws.receive_text())["error"] == "table_archived"


def test_a_table_that_cannot_be_replayed_is_broken_and_the_others_start(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "b.db"
    config = ServerConfig(db_path=db, admin_key=ADMIN, secret=SECRET)
    with TestClient(create_app(config)) as client:
        bad, good = create_table(client), create_table(client)
    with sqlite3.connect(db) as connection:  # an event the engine refuses in the lobby
        connection.execute(
            "INSERT INTO events (table_id, seq, record, wall, source) VALUES (?, 1, ?, 0, 'host')",
            (bad["id"], json.dumps({"type": "vote", "voter": 3, "candidate": 4})),
        )
    with TestClient(create_app(config)) as client, ExitStack() as stack:
        listed = client.get("/api/tables", headers=AUTH).json()
        assert {t["id"] for t in listed if "phase" in t} == {good["id"]}
        assert [t["id"] for t in listed if "broken" in t] == [bad["id"]]
        health = client.get("/healthz").json()
        assert health["ok"] is True and bad["id"] in health["broken"]
        first_state(hello_socket(client, stack, token_of(good, 3)))
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token_of(bad, 3)}))
            assert json.loads(ws.receive_text())["error"] == "table_broken"


def test_a_log_that_cannot_be_written_refuses_inputs_and_health(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    config = ServerConfig(db_path=db, admin_key=ADMIN, secret=SECRET)
    with TestClient(create_app(config)) as client, ExitStack() as stack:
        links = create_table(client)
        host = hello_socket(client, stack, token_of(links, "host"))
        view = first_state(host)
        rows = log_rows(db)
        server = client.app.state.server  # type: ignore[attr-defined]
        # The disk refuses: every write from now on fails as a read-only file would (root
        # writes through a file's mode bits, so SQLite's own switch stands in for them).
        log = server.registry.log
        log._wait_for_writer(lambda: log._write_db.execute("PRAGMA query_only = ON"))
        reply = host.request("start")
        assert reply["type"] == "error" and reply["error"] == "log_unavailable", reply
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json()["reason"] == "log_unavailable"
        log._wait_for_writer(lambda: log._write_db.execute("PRAGMA query_only = OFF"))
        assert log_rows(db) == rows
        assert (
            client.get(f"/api/tables/{links['id']}", headers=AUTH).json()["view"]["phase"]
            == (view["phase"])
        )
        assert host.request("start")["type"] == "ack"  # the disk is back: so are inputs
        assert client.get("/healthz").status_code == 200


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_the_log_and_its_wal_are_the_owners_only(app_client: TestClient, tmp_path: Path) -> None:
    create_table(app_client)
    for name in ("autohost.db", "autohost.db-wal", "autohost.db-shm", "autohost.db.secret"):
        path = tmp_path / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    assert (tmp_path / "autohost.db").exists()


def test_too_many_tables_is_a_clear_refusal(tmp_path: Path) -> None:
    config = ServerConfig(db_path=tmp_path / "c.db", admin_key=ADMIN, secret=SECRET, max_tables=2)
    with TestClient(create_app(config)) as client:
        create_table(client)
        create_table(client)
        answer = client.post("/api/tables", json={"seats": 10}, headers=AUTH)
        assert answer.status_code == 409 and answer.json()["error"] == "too_many_tables"
        assert "at most 2" in answer.json()["message"]
        assert len(client.get("/api/tables", headers=AUTH).json()) == 2


def test_a_page_that_reconnects_gets_the_time_left_now(tmp_path: Path) -> None:
    """The newcomer's state is its own, built at connect time: a seat coming back in the
    middle of a speech sees the timer as it is, not as it was at the last change."""
    from testing import FakeClock

    clock = FakeClock()
    config = ServerConfig(db_path=tmp_path / "t.db", admin_key=ADMIN, secret=SECRET, clock=clock)
    with TestClient(create_app(config)) as client, ExitStack() as stack:
        links = create_table(client)
        host = hello_socket(client, stack, token_of(links, "host"))
        first_state(host)
        first_state(hello_socket(client, stack, token_of(links, 3)))  # seat 3 is online
        host.ack("start")
        started = host.until(lambda m: m["type"] == "state" and m["clock"] is not None)
        clock.advance(5)
        again = hello_socket(client, stack, token_of(links, 3))  # seat 3 again, 5 s later
        fresh = first_state(again)
        assert fresh["clock"]["remaining"] == pytest.approx(started["clock"]["remaining"] - 5)
