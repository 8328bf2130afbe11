"""The authorization list: each attempt is refused with its own error and changes nothing
(the host view and the event log are as before, no state is broadcast).

The seat comes from the token, never from a message; host actions need the host's token;
a token must be genuine (signed with the server's secret), unexpired, for this table and
for a seat of it; a client message id is applied once (a replay is acked as a duplicate).
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from plugin.eventlog import log_opener
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from plugin.web.close_codes import CloseCode
from testing import Client, FakeClock, TestClient, in_process

from .messages import CANDIDATES, SENDER
from .wire import catch_up, log_size, play_to_vote

SECRET = b"auth-secret-0123456789abcdef01234"
ADMIN = "auth-admin"
AUTH = {"Authorization": f"Bearer {ADMIN}"}
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
HOST_ACTIONS: list[tuple[str, dict[str, Any]]] = [
    ("start", {}), ("manual", {"on": True}), ("choice", {"choice": "close"}), ("pause", {}),
    ("resume", {}), ("add_time", {"seconds": 30}), ("end_speech", {}), ("foul", {"seat": 4}),
    ("disqualify", {"seat": 4}), ("remove", {"seat": 4}), ("undo", {}),
    ("end_game", {"winner": "city"}), ("next", {}),
]  # fmt: skip
PLAYER_ACTIONS: list[tuple[str, dict[str, Any]]] = [
    ("vote", {"candidate": CANDIDATES[0]}), ("lift", {"leave": True}),
    ("nominate", {"target": 5}), ("pass", {}), ("shoot", {"target": 5}),
    ("don_check", {"target": 5}), ("sheriff_check", {"target": 5}),
    ("best_move", {"seats": [5, 6]}), ("leave", {}),
]  # fmt: skip


@dataclass
class Table:
    client: TestClient
    stack: contextlib.ExitStack
    db: Path
    links: dict[str, Any]
    other: dict[str, Any]  # a second table
    host: Client
    seats: dict[int, Client]
    signer: Signer

    @property
    def id(self) -> str:
        return str(self.links["id"])

    def token(self, seat: int | str) -> str:
        if seat == "host":
            return str(self.links["host"]["token"])
        return str(self.links["seats"][int(seat) - 1]["token"])

    def view(self) -> dict[str, Any]:
        return dict(self.client.get(f"/api/tables/{self.id}", headers=AUTH).json()["view"])

    def connect(self, query: str) -> Client:
        return in_process(self.stack, self.client, f"/ws?{query}")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A table in its day-1 vote (seat 3 still to vote), clients of the host and seats 1-3."""
    db = tmp_path / "autohost.db"
    config = ServerConfig(
        db_path=db,
        log=log_opener(db),
        admin_key=ADMIN,
        secret=SECRET,
        clock=FakeClock(),
        hello_seconds=0.5,
    )
    with TestClient(create_app(config)) as client, contextlib.ExitStack() as stack:
        body = {"seats": 10, "roles": ROLES}
        links = client.post("/api/tables", json=body, headers=AUTH).json()
        other = client.post("/api/tables", json=body, headers=AUTH).json()

        def channel(token: str) -> Client:
            return in_process(stack, client, f"/ws?token={token}")

        host = channel(links["host"]["token"])
        seats = {s["seat"]: channel(s["token"]) for s in links["seats"] if s["seat"] <= 3}
        play_to_vote(host, seats)
        catch_up(host, seats.values())
        yield Table(client, stack, db, links, other, host, seats, Signer(SECRET))


@contextlib.contextmanager
def nothing_changes(table: Table) -> Iterator[None]:
    view, events = table.view(), log_size(table.db, table.id)
    yield
    assert table.view() == view
    assert log_size(table.db, table.id) == events
    # No state was broadcast: the next thing the host reads answers its next message.
    assert table.host.request("bogus", "probe")["error"] == "bad_message"


def refused_at_connect(table: Table, query: str, code: str, close: int) -> None:
    channel = table.connect(query)
    reply = channel.receive()
    assert reply["type"] == "error" and reply["error"] == code, reply
    assert reply["message"]
    assert channel.receive() == {"type": "close", "code": close}


def test_a_vote_counts_for_the_tokens_seat_only(table: Table) -> None:
    with nothing_changes(table):
        for field in ("seat", "voter", "by"):
            reply = table.seats[SENDER].request("vote", f"as-4-{field}", candidate=5, **{field: 4})
            assert reply["error"] == "bad_message" and field in reply["message"], reply
    reply = table.seats[SENDER].request("vote", "mine", candidate=CANDIDATES[0])
    assert reply["type"] == "ack"
    state = table.host.until(lambda s: SENDER not in s["vote"]["round"]["waiting"])
    round_ = state["vote"]["round"]
    assert 4 in round_["waiting"]  # seat 4 has not voted: nobody voted for him
    assert round_["tally"][str(CANDIDATES[0])] >= 1


@pytest.mark.parametrize(("kind", "fields"), HOST_ACTIONS, ids=[k for k, _ in HOST_ACTIONS])
def test_host_actions_with_a_player_token(table: Table, kind: str, fields: dict[str, Any]) -> None:
    with nothing_changes(table):
        reply = table.seats[SENDER].request(kind, f"h-{kind}", **fields)
        assert reply["type"] == "error" and reply["error"] == "host_only", reply


@pytest.mark.parametrize(("kind", "fields"), PLAYER_ACTIONS, ids=[k for k, _ in PLAYER_ACTIONS])
def test_player_actions_with_the_host_token(
    table: Table, kind: str, fields: dict[str, Any]
) -> None:
    with nothing_changes(table):
        reply = table.host.request(kind, f"p-{kind}", **fields)
        assert reply["type"] == "error" and reply["error"] == "players_only", reply


def forgeries(table: Table) -> list[str]:
    """Tokens that were never signed by this server."""
    genuine = table.token(SENDER)
    body, _, signature = genuine.partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    as_host = dict(payload, s="host")
    host_body = base64.urlsafe_b64encode(json.dumps(as_host).encode()).rstrip(b"=").decode()
    # Another signature of canonical base64url ("A" and "E" leave the 2 unused bits 0): a
    # non-canonical spelling is refused earlier, as malformed (tests/test_signing.py).
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "AE")
    return [
        f"{host_body}.{signature}",  # a player's token turned into the host's
        f"{body}.{flipped}",  # a damaged signature
        Signer(b"another-secret-0123456789abcdef0").issue(table.id, "host"),  # another key
    ]


def body_only(table: Table) -> str:
    return table.token(SENDER).partition(".")[0]


def test_forged_tokens(table: Table) -> None:
    with nothing_changes(table):
        for token in forgeries(table):
            refused_at_connect(table, f"token={token}", "token_forged", CloseCode.UNAUTHORIZED)
        refused_at_connect(
            table, f"token={body_only(table)}", "token_malformed", CloseCode.UNAUTHORIZED
        )
        # An empty signature is no signature: malformed (a token has one spelling only).
        empty = f"token={body_only(table)}."
        refused_at_connect(table, empty, "token_malformed", CloseCode.UNAUTHORIZED)


def test_expired_token(table: Table) -> None:
    expired = table.signer.issue(table.id, SENDER, lifetime=60, now=time.time() - 3600)
    with nothing_changes(table):
        refused_at_connect(table, f"token={expired}", "token_expired", CloseCode.UNAUTHORIZED)


def test_other_tables_token(table: Table) -> None:
    other_host = table.other["host"]["token"]
    with nothing_changes(table):
        query = f"token={other_host}&table={table.id}"
        refused_at_connect(table, query, "token_other_table", CloseCode.UNAUTHORIZED)
        # A genuine token of a table that does not exist.
        ghost = table.signer.issue("no-such-table", "host")
        refused_at_connect(table, f"token={ghost}", "no_table", CloseCode.NO_TABLE)
    # The other table's host reaches only his own table: this one never moves.
    with nothing_changes(table):
        theirs = table.connect(f"token={other_host}")
        assert theirs.until(lambda s: True)["table"]["id"] == table.other["id"]
        assert theirs.request("start", "theirs")["type"] == "ack"


# Found here (bug): the app admitted a genuine token for seat 42 of a 10-seat table; building
# its view raised inside Hub.attach, so the connection died AND stayed in the hub, and every
# later broadcast of that table failed. Server.admit (plugin/web/context.py) now refuses it
# (token_bad_seat).
def test_token_for_a_seat_outside_the_table(table: Table) -> None:
    outside = table.signer.issue(table.id, 42)
    with nothing_changes(table):
        channel = table.connect(f"token={outside}")
        reply = channel.receive()
        assert reply["type"] == "error" and reply["error"].startswith("token_"), reply
        assert channel.receive() == {"type": "close", "code": CloseCode.UNAUTHORIZED}
    # The table's own clients still get every change.
    version = table.view()["table"]["version"]
    assert table.seats[SENDER].request("vote", "after", candidate=CANDIDATES[0])["type"] == "ack"
    assert table.host.until(lambda s: s["table"]["version"] > version)


def test_missing_or_empty_token(table: Table) -> None:
    with nothing_changes(table):
        for query in ("", "token=", f"table={table.id}", "token=" + "A" * 600):
            refused_at_connect(table, query, "token_malformed", CloseCode.UNAUTHORIZED)


def test_a_replayed_message_is_applied_once(table: Table) -> None:
    seat = table.seats[SENDER]
    first = seat.request("vote", "once", candidate=CANDIDATES[0])
    assert first == {"type": "ack", "v": 1, "id": "once", "duplicate": False}
    table.host.until(lambda s: SENDER not in s["vote"]["round"]["waiting"])
    with nothing_changes(table):
        for candidate in (CANDIDATES[0], CANDIDATES[1]):  # the same id, even other content
            again = seat.request("vote", "once", candidate=candidate)
            assert again == {"type": "ack", "v": 1, "id": "once", "duplicate": True}
        # From another connection of the same seat (a second tab) too.
        tab = table.connect(f"token={table.token(SENDER)}")
        catch_up(table.host, [tab])
        assert tab.request("vote", "once", candidate=CANDIDATES[1])["duplicate"] is True
        catch_up(table.host, [table.host])
    tally = table.view()["vote"]["round"]["tally"]
    assert tally[str(CANDIDATES[1])] == 0 and tally[str(CANDIDATES[0])] == 1
    # Ids are each sender's own: seat 2 may use "once" for his own first ballot.
    assert table.seats[2].request("vote", "once", candidate=CANDIDATES[1])["duplicate"] is False


def test_the_table_api_needs_the_admin_key(table: Table) -> None:
    with nothing_changes(table):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": ADMIN}):
            assert table.client.post("/api/tables", json={}, headers=headers).status_code == 401
            answer = table.client.get(f"/api/tables/{table.id}", headers=headers)
            assert answer.status_code == 401 and answer.json()["error"] == "not_admin"
        host_token = {"Authorization": f"Bearer {table.token('host')}"}
        assert table.client.get(f"/api/tables/{table.id}", headers=host_token).status_code == 401
