"""The control server through starlette's TestClient: the table API, the WebSocket protocol,
authorization refusals, idempotent retries, malformed messages, reconnection."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

from plugin.host.log import EventLog
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from testing import Client, TestClient, next_id

from .conftest import ADMIN, SECRET, create_table, token_of


def open_ws(client: TestClient, token: str, stack: ExitStack, **query: str) -> Client:
    params = "&".join(f"{k}={v}" for k, v in {"token": token, **query}.items())
    ws = Client(stack.enter_context(client.websocket_connect(f"/ws?{params}")))
    first = ws.receive()
    assert first["type"] == "state", first  # a client gets the whole state at once
    return ws


def refusal_of(client: TestClient, token: str, **query: str) -> dict:
    params = "&".join(f"{k}={v}" for k, v in {"token": token, **query}.items())
    with client.websocket_connect(f"/ws?{params}") as ws:
        return json.loads(ws.receive_text())


def drive_to_vote(host: Client, speakers: dict[int, Client], nominations: dict[int, int]):
    """Host presses "next" through the night and the speeches; speakers nominate."""
    assert host.request("start")["type"] == "ack"
    pending = dict(nominations)
    while host.state["phase"] != "voting":
        speaking = host.state["speakers"]
        if host.state["phase"] == "speech" and speaking and speaking[0] in pending:
            seat = speaking[0]
            reply = speakers[seat].request("nominate", target=pending.pop(seat))
            assert reply["type"] == "ack", reply
        reply = host.request("next")
        assert reply["type"] == "ack", reply


def test_health(app_client: TestClient) -> None:
    health = app_client.get("/healthz").json()
    log = health.pop("log")
    assert health == {"ok": True, "tables": 0, "broken": {}}
    assert log["slow_commits"] == 0 and log["slow_ms"] == 50.0
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert app_client.post("/api/tables", json={}, headers=admin).status_code == 201
    # The table's record went through a durable commit, which the health answer counts
    # (an operator's way to tell a slow disk from a slow server).
    after = app_client.get("/healthz").json()["log"]
    assert after["commits"] > log["commits"] and after["slowest_commit_ms"] >= 0


def test_creating_a_table_needs_the_admin_key(app_client: TestClient) -> None:
    assert app_client.post("/api/tables", json={}).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert app_client.post("/api/tables", json={}, headers=wrong).status_code == 401
    assert app_client.get("/api/tables", headers=wrong).status_code == 401
    assert app_client.get("/healthz").json()["tables"] == 0


def test_no_admin_key_admits_nobody(tmp_path: Path) -> None:
    """An empty key (however it came about) is nobody's key: before, `Bearer ` with
    nothing after it matched it and made every caller admin."""
    config = ServerConfig(db_path=tmp_path / "autohost.db", admin_key="", secret=SECRET)
    with TestClient(create_app(config)) as client:
        for header in ("Bearer ", "Bearer", "bearer  "):
            assert client.get("/api/tables", headers={"Authorization": header}).status_code == 401
            answer = client.post("/api/tables", json={}, headers={"Authorization": header})
            assert answer.status_code == 401


def test_bad_settings_are_refused_and_create_nothing(app_client: TestClient) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    for body, code in [
        ({"seats": 3}, "bad_seats"),
        ({"language": "fr"}, "bad_language"),
        ({"preset": "nosuch"}, "bad_preset"),
        ({"names": ["A", "B"]}, "bad_names"),
        ({"overrides": {"speech_seconds": "long"}}, "bad_setting"),
        ({"colour": "red"}, "bad_settings"),
        # The outside check: NUL, ESC and direction overrides reached the protocol sheet
        # through the table's names (the lobby already refused them in typed names).
        ({"seats": 7, "names": ["A", "B", "C\u0000", "D", "E", "F", "G"]}, "bad_names"),
        ({"seats": 7, "names": ["A", "B", "C", "\u202eD", "E", "F", "G"]}, "bad_names"),
        ({"club": "Club\u001b[2J"}, "bad_settings"),
        ({"host_name": "Ju\u2028dge"}, "bad_settings"),
    ]:
        answer = app_client.post("/api/tables", json=body, headers=admin)
        assert answer.status_code == 400, body
        assert answer.json()["error"] == code, (body, answer.json())
    assert app_client.post("/api/tables", content=b"{", headers=admin).json()["error"] == "bad_json"
    assert app_client.get("/api/tables", headers=admin).json() == []


def test_names_keep_their_joiners_and_old_tables_still_open(tmp_path: Path) -> None:
    """The joiners are format characters but belong in names (ZWJ inside 👩‍💻 and ❤️‍🔥,
    ZWNJ in Persian); and a table an older version logged with a control character in a
    name must still open after the upgrade (the check is for new tables only)."""
    config = ServerConfig(db_path=tmp_path / "autohost.db", admin_key=ADMIN, secret=SECRET)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    names = ["👩\u200d💻", "Club ❤️\u200d🔥", "می\u200cخواهم", "D", "E", "F", "G"]
    with TestClient(create_app(config)) as client:
        made = client.post("/api/tables", json={"seats": 7, "names": names}, headers=admin)
        assert made.status_code == 201, made.text
    log = EventLog(tmp_path / "autohost.db")
    log.create_table("oldtable", {"seats": 10, "club": "Old\u0007club"})  # as before
    log.close()
    with TestClient(create_app(config)) as client:
        listed = {t["id"]: t for t in client.get("/api/tables", headers=admin).json()}
        assert "oldtable" in listed and "broken" not in listed["oldtable"], listed


def test_created_table_gives_links_with_tokens(app_client: TestClient) -> None:
    names = [f"Player {i}" for i in range(1, 11)]
    links = create_table(app_client, names=names)
    assert links["host"]["link"].endswith(f"/t/{links['id']}/host#token={links['host']['token']}")
    assert [s["name"] for s in links["seats"]] == names
    signer = Signer(SECRET)
    assert signer.verify(links["seats"][6]["token"], table=links["id"]).seat == 7
    info = app_client.get(
        f"/api/tables/{links['id']}", headers={"Authorization": f"Bearer {ADMIN}"}
    ).json()
    assert info["view"]["phase"] == "lobby" and info["settings"]["names"] == names


def test_refused_tokens(app_client: TestClient) -> None:
    links = create_table(app_client)
    other = create_table(app_client)
    signer = Signer(SECRET)
    expired = signer.issue(links["id"], 3, lifetime=1, now=time.time() - 10)
    forged = Signer(b"someone-elses-secret-0123456789a").issue(links["id"], "host")
    cases = [
        (refusal_of(app_client, expired), "token_expired"),
        (refusal_of(app_client, forged), "token_forged"),
        (refusal_of(app_client, "garbage"), "token_malformed"),
        (refusal_of(app_client, token_of(other, 3), table=links["id"]), "token_other_table"),
        (refusal_of(app_client, signer.issue("no-such-table", 3)), "no_table"),
    ]
    for message, code in cases:
        assert message["type"] == "error" and message["error"] == code


def test_each_viewer_sees_only_what_it_may(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        don = open_ws(app_client, token_of(links, 1), stack)
        civilian = open_ws(app_client, token_of(links, 7), stack)
        assert host.state["you"] == "host" and host.state["roles"]["1"] == "don"
        assert don.state["you"] == 1 and don.state["me"]["role"] == "don"
        assert civilian.state["me"]["role"] == "civilian"
        for view in (don.state, civilian.state):
            assert "roles" not in view and "checks" not in view
        assert "don" not in json.dumps(civilian.state)


def test_a_vote_reaches_every_client_and_counts_for_the_token_seat(app_client: TestClient):
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        seats = {s: open_ws(app_client, token_of(links, s), stack) for s in (1, 2, 7)}
        drive_to_vote(host, seats, {1: 5, 2: 6})
        assert host.state["vote"]["round"]["candidates"] == [5, 6]
        ack = seats[7].request("vote", candidate=5)
        assert ack == {"type": "ack", "v": 1, "id": ack["id"], "duplicate": False}
        version = seats[7].state["table"]["version"]
        assert seats[7].state["vote"]["round"]["tally"] == {"5": 1, "6": 0}
        for client in (host, seats[1], seats[2]):
            assert client.wait_version(version)["vote"]["round"]["tally"] == {"5": 1, "6": 0}
        # The seat is the token's: a "voter" field is refused, nothing changes.
        reply = seats[7].send_raw(
            json.dumps({"v": 1, "id": "x1", "type": "vote", "candidate": 6, "voter": 1})
        )
        assert reply["type"] == "error" and reply["error"] == "bad_message"
        assert reply["id"] == "x1"
        assert seats[1].request("vote", candidate=6)["type"] == "ack"
        assert seats[1].state["vote"]["round"]["tally"] == {"5": 1, "6": 1}
        # seat 7 already voted: the engine refuses a second ballot, the socket stays open
        again = seats[7].request("vote", candidate=6)
        assert again["type"] == "error"
        assert seats[7].request("vote", candidate=6, id=ack["id"])["duplicate"] is True


def test_a_retry_is_acknowledged_again_and_applied_once(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        first = host.request("start", id="start-1")
        assert first["type"] == "ack" and not first["duplicate"]
        phase = host.state["phase"]
        retry = host.request("start", id="start-1")
        assert retry["type"] == "ack" and retry["duplicate"] is True
        assert host.request("pause", id="p-1")["duplicate"] is False
        assert host.request("pause", id="p-1")["duplicate"] is True
        assert host.state["phase"] == phase and host.state["table"]["paused"] is True


def test_console_actions_only_from_the_host(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        player = open_ws(app_client, token_of(links, 3), stack)
        host = open_ws(app_client, token_of(links, "host"), stack)
        for kind, fields in [
            ("start", {}),
            ("pause", {}),
            ("undo", {}),
            ("next", {}),
            ("manual", {"on": True}),
            ("foul", {"seat": 5}),
            ("end_game", {}),
        ]:
            reply = player.request(kind, **fields)
            assert reply["type"] == "error" and reply["error"] == "host_only", kind
        assert host.request("vote", candidate=5)["error"] == "players_only"
        assert host.state["phase"] == "lobby" and not host.state["manual"]
        assert host.request("start")["type"] == "ack"  # the socket still works


def test_malformed_messages_get_an_error_and_change_nothing(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        version = host.state["table"]["version"]
        for text, code in [
            ("not json", "bad_json"),
            ('{"v":1,"id":"a","type":"nope"}', "bad_message"),
            ('{"v":9,"id":"a","type":"start"}', "bad_version"),
            (json.dumps({"v": 1, "id": "a", "type": "start", "x": "y" * 5000}), "too_large"),
            ('{"v":1,"id":"a","type":"foul","seat":"five"}', "bad_message"),
        ]:
            reply = host.send_raw(text)
            assert reply["type"] == "error" and reply["error"] == code, text
            assert set(reply) == {"type", "v", "id", "error", "message"}
        assert host.request("start")["type"] == "ack"
        assert host.state["table"]["version"] == version + 1


def test_a_reconnecting_client_gets_the_whole_state(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        host.request("start")
        host.request("next")
        with app_client.websocket_connect(f"/ws?token={token_of(links, 4)}") as ws:
            state = json.loads(ws.receive_text())
            assert state["type"] == "state"
            assert state["phase"] == host.state["phase"] == "don_meeting"
            assert state["me"]["role"] == "sheriff"
            assert state["clock"]["remaining"] > 0
        while 4 in host.state["table"]["connected"]:  # the disconnect is published too
            host.receive()
        assert host.state["phase"] == "don_meeting"


def test_connected_seats_are_shown(app_client: TestClient) -> None:
    links = create_table(app_client)
    with ExitStack() as stack:
        host = open_ws(app_client, token_of(links, "host"), stack)
        open_ws(app_client, token_of(links, 6), stack)
        while 6 not in host.state["table"]["connected"]:
            host.receive()
        assert host.request("next", id=next_id())["type"] == "ack"


def test_a_table_made_by_the_cli_opens_on_first_use(
    app_client: TestClient, tmp_path, monkeypatch, capsys
) -> None:
    from plugin.cli import table as table_cli

    monkeypatch.setenv("AUTOHOST_SECRET", SECRET.decode())
    db = app_client.app.state.server.config.db_path
    assert table_cli.main(["new", "--db", str(db), "--json", "--seed", "3"]) == 0
    links = json.loads(capsys.readouterr().out)
    with ExitStack() as stack:
        player = open_ws(app_client, token_of(links, 2), stack)
        assert player.state["phase"] == "lobby" and player.state["table"]["id"] == links["id"]
