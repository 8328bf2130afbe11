"""The lobby through the real app (issue 17): the invite link, players joining over /lobby,
the host seating them from his token's socket, each player's own socket handing him his
seat's token, second devices, restarts, and hostile input refused with nothing changed."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from plugin.cli.protocol import main as protocol_main
from plugin.eventlog import log_opener
from plugin.signing import Signer, TokenError
from plugin.web.app import ServerConfig, create_app
from plugin.web.close_codes import CloseCode
from plugin.web.limits import RateLimit
from plugin.web.lobby_limits import MAX_SOCKETS, MAX_WAITING
from plugin.web.pages import page_routes
from testing import TestClient, in_process
from testing.socket_client import Client

from .conftest import ADMIN, SECRET, create_table, token_of

Message = dict[str, Any]


class Lobby:
    """One socket of /lobby: a player's (invite token and device) or the host's."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.latest: Message | None = None

    def send(self, type: str, **fields: Any) -> None:
        self.client.send_frame("text", json.dumps({"type": type, **fields}).encode())

    def receive(self) -> Message:
        message = self.client.receive()
        if message["type"] == "lobby":
            self.latest = message
        return message

    def until(self, accept: Callable[[Message], bool]) -> Message:
        while self.latest is None or not accept(self.latest):
            self.receive()
        return self.latest

    def error(self) -> Message:
        """The next error (lobby states read meanwhile are kept)."""
        while True:
            message = self.receive()
            if message["type"] != "lobby":
                return message


def open_lobby(
    stack: contextlib.ExitStack, client: TestClient, table: str, token: str, device: str | None
) -> Lobby:
    ws = Lobby(in_process(stack, client, "/lobby"))
    hello: Message = {"type": "hello", "token": token, "table": table}
    if device is not None:
        hello["device"] = device
    ws.client.send_frame("text", json.dumps(hello).encode())
    return ws


def device(n: int) -> str:
    return f"test-device-secret-{n:04}"


def app(tmp_path: Path) -> TestClient:
    config = ServerConfig(
        db_path=tmp_path / "autohost.db",
        log=log_opener(tmp_path / "autohost.db"),
        admin_key=ADMIN,
        secret=SECRET,
        routes=[page_routes],
    )
    return TestClient(create_app(config))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app(tmp_path) as test_client:
        yield test_client


def me(seen: Lobby | Message) -> Message:
    """A player's own place in a lobby message (or in the latest one his socket read)."""
    message = seen.latest if isinstance(seen, Lobby) else seen
    assert message is not None
    return dict(message["me"])


def test_the_invite_link_opens_the_lobby_and_nothing_else(client: TestClient) -> None:
    links = create_table(client)
    invite = links["invite"]
    assert invite["link"].endswith(f"/t/{links['id']}/join#token={invite['token']}")
    signer = Signer(SECRET)
    assert signer.verify_invite(invite["token"], table=links["id"]).table == links["id"]
    with pytest.raises(TokenError) as refused:
        signer.verify_any(invite["token"])
    assert refused.value.code == "token_invite_only"
    with contextlib.ExitStack() as stack:
        ws = in_process(stack, client, f"/ws?token={invite['token']}")
        assert ws.receive()["error"] == "token_invite_only"
        for token, code in [
            (token_of(links, 3), "token_not_invite"),  # a seat's link opens no lobby
            (links["watch"]["token"], "token_not_invite"),
            (invite["token"][:-2] + "AA", "token_forged"),
            ("nonsense", "token_malformed"),
        ]:
            lobby = open_lobby(stack, client, links["id"], token, device(1))
            answer = lobby.receive()
            assert (answer["type"], answer["error"]) == ("error", code), answer
            assert lobby.receive()["type"] == "close"
        # the invite link without a device secret, or with a bad one
        for secret in (None, "short", "x" * 200):
            lobby = open_lobby(stack, client, links["id"], invite["token"], secret)
            answer = lobby.receive()
            assert answer["error"] in ("bad_device", "token_malformed"), answer
    page = client.get(f"/t/{links['id']}/join")
    assert page.status_code == 200 and "lobby.js" in page.text


def test_players_wait_the_host_seats_them_and_each_gets_his_own_seat(client: TestClient) -> None:
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        shown = host.until(lambda m: m["entries"] == [])["invite"]
        assert Signer(SECRET).verify_invite(shown, table=table).table == table
        anna = open_lobby(stack, client, table, invite, device(1))
        assert me(anna.until(lambda m: True)) == {"state": "new"}
        anna.send("join", name="  Anna  ")
        assert me(anna.until(lambda m: m["me"]["state"] == "waiting"))["name"] == "Anna"
        bob = open_lobby(stack, client, table, invite, device(2))
        bob.send("join", name="<img src=x onerror=alert(1)>")
        bob.until(lambda m: m["me"]["state"] == "waiting")
        lobby = host.until(lambda m: len(m["entries"]) == 2)
        assert [e["name"] for e in lobby["entries"]] == ["Anna", "<img src=x onerror=alert(1)>"]
        assert anna.until(lambda m: len(m["waiting"]) == 2)["waiting"][1].startswith("<img")
        assert "token" not in json.dumps(anna.latest) and "entries" not in (anna.latest or {})

        # A player cannot seat himself, nor approve anything: refused, nothing changed.
        anna.send("seat", entry=lobby["entries"][0]["entry"], seat=1)
        assert anna.error()["error"] == "not_host"
        anna.send("seat_waiting", order="arrival")
        assert anna.error()["error"] == "not_host"
        host.send("join", name="the host")
        assert host.error()["error"] == "not_player"
        host.send("seat", entry=lobby["entries"][0]["entry"], seat=99)
        assert host.error()["error"] == "bad_seat"
        assert me(anna)["state"] == "waiting"

        host.send("seat", entry=lobby["entries"][0]["entry"], seat=7)  # Anna by hand
        seated = me(anna.until(lambda m: m["me"]["state"] == "seated"))
        assert seated["seat"] == 7 and Signer(SECRET).verify(seated["token"], table=table).seat == 7
        host.send("seat_waiting", order="random")  # Bob at random
        bob_seat = me(bob.until(lambda m: m["me"]["state"] == "seated"))
        assert bob_seat["seat"] in range(1, 11) and bob_seat["seat"] != 7
        assert Signer(SECRET).verify(bob_seat["token"], table=table).seat == bob_seat["seat"]
        assert host.until(lambda m: len(m["seated"]) == 2)["entries"] == []

        # the seat token the lobby handed out opens the table's socket, and the names show
        ws = in_process(stack, client, f"/ws?token={seated['token']}")
        view = ws.receive()
        assert view["you"] == 7
        names = view["table"]["names"]
        assert names[6] == "Anna" and names[bob_seat["seat"] - 1].startswith("<img")

        # the same device comes back (a reload, another day): its seat again, no host
        again = open_lobby(stack, client, table, invite, device(1))
        assert me(again.until(lambda m: True))["seat"] == 7


def test_a_second_device_waits_for_the_host_who_approves_or_refuses(client: TestClient) -> None:
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        laptop = open_lobby(stack, client, table, invite, device(1))
        laptop.send("join", name="Anna")
        entry = host.until(lambda m: len(m["entries"]) == 1)["entries"][0]["entry"]
        host.send("seat", entry=entry, seat=4)
        laptop.until(lambda m: m["me"]["state"] == "seated")

        phone = open_lobby(stack, client, table, invite, device(2))
        phone.send("join", name="anna")
        pending = me(phone.until(lambda m: m["me"]["state"] == "pending"))
        assert pending == {"state": "pending", "name": "Anna"}  # nothing of the seat
        request = host.until(lambda m: len(m["requests"]) == 1)["requests"][0]
        assert (request["name"], request["seat"]) == ("Anna", 4)
        host.send("approve", request=request["request"])
        approved = me(phone.until(lambda m: m["me"]["state"] == "seated"))
        assert approved["seat"] == 4 and approved["token"]
        host.until(lambda m: m["requests"] == [])

        tablet = open_lobby(stack, client, table, invite, device(3))
        tablet.send("join", name="ANNA")
        tablet.until(lambda m: m["me"]["state"] == "pending")
        request = host.until(lambda m: len(m["requests"]) == 1)["requests"][0]
        host.send("refuse", request=request["request"])
        assert me(tablet.until(lambda m: m["me"]["state"] != "pending")) == {"state": "refused"}
        host.send("approve", request=request["request"])  # too late: it is gone
        assert host.error()["error"] == "no_request"


def test_the_lobby_and_the_names_survive_a_restart(tmp_path: Path) -> None:
    with app(tmp_path) as client, contextlib.ExitStack() as stack:
        links = create_table(client, names=[f"p{n}" for n in range(1, 11)])
        table, invite = links["id"], links["invite"]["token"]
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        for n, name in enumerate(["Anna", "Bohdan"], 1):
            open_lobby(stack, client, table, invite, device(n)).send("join", name=name)
        entries = host.until(lambda m: len(m["entries"]) == 2)["entries"]
        host.send("seat", entry=entries[0]["entry"], seat=2)
        host.until(lambda m: len(m["seated"]) == 1)
    with app(tmp_path) as client, contextlib.ExitStack() as stack:
        anna = open_lobby(stack, client, table, invite, device(1))
        assert me(anna.until(lambda m: True))["seat"] == 2
        bohdan = open_lobby(stack, client, table, invite, device(2))
        assert me(bohdan.until(lambda m: True)) == {"state": "waiting", "name": "Bohdan"}
        ws = in_process(stack, client, f"/ws?token={token_of(links, 'host')}")
        assert ws.receive()["table"]["names"][:3] == ["p1", "Anna", "p3"]
    # the protocol sheet names her too
    out = tmp_path / "protocol.json"
    assert protocol_main(["--db", str(tmp_path / "autohost.db"), "--table", table,
                          "--json", str(out)]) == 0  # fmt: skip
    players = json.loads(out.read_text())["players"]
    assert [p["name"] for p in players[:3]] == ["p1", "Anna", "p3"]


def test_hostile_joins_are_refused_and_change_nothing(client: TestClient) -> None:
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    server = client.app.state.server  # type: ignore[attr-defined]
    with contextlib.ExitStack() as stack:
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        host.until(lambda m: True)
        player = open_lobby(stack, client, table, invite, device(1))
        for name, code in [("", "bad_name"), ("a\u0000b", "bad_name"), ("x" * 41, "bad_name")]:
            player.send("join", name=name)
            assert player.error()["error"] == code
        player.send("join", name=5)
        assert player.error()["error"] == "bad_message"
        player.client.send_frame("text", b'{"type": "join", "name": "' + b"x" * 2000 + b'"}')
        assert player.error()["error"] == "too_large"
        player.send("join", name="Anna")
        player.until(lambda m: m["me"]["state"] == "waiting")
        player.send("join", name="Anna again")  # one entry per device
        assert player.error()["error"] == "already_joined"
        assert [e["name"] for e in host.until(lambda m: len(m["entries"]) == 1)["entries"]] == [
            "Anna"
        ]

        # A flood of connects from one address is cut off...
        codes = []
        for n in range(20):
            lobby = open_lobby(stack, client, table, invite, device(100 + n))
            first = lobby.receive()
            codes.append(first.get("error"))
            if codes[-1] == "too_many_connects":
                break
        assert codes[-1] == "too_many_connects", codes
        # ...and however many addresses, the lobby holds MAX_WAITING at most.
        server.lobbies.connects = RateLimit(1000.0, 1000)
        server.lobbies.address_joins = RateLimit(1000.0, 1000)  # as if from many addresses
        for n in range(MAX_WAITING + 3):
            lobby = open_lobby(stack, client, table, invite, device(200 + n))
            lobby.until(lambda m: True)
            lobby.send("join", name=f"bot {n}")
            answer = lobby.receive()
            if n >= MAX_WAITING - 1:  # Anna waits too
                assert answer.get("error") == "lobby_full", answer
        assert len(host.until(lambda m: len(m["entries"]) == MAX_WAITING)["entries"]) == MAX_WAITING
        # and sockets that never join are bounded too
        opened = 2 + 20 + MAX_WAITING + 3  # those above (the refused ones closed)
        answers = []
        for n in range(MAX_SOCKETS - opened + 25):
            lobby = open_lobby(stack, client, table, invite, device(400 + n))
            answers.append(lobby.receive().get("error"))
        assert "too_many_connections" in answers
        assert answers.count(None) <= MAX_SOCKETS
        console = open_lobby(stack, client, table, token_of(links, "host"), None)
        assert len(console.until(lambda m: True)["entries"]) == MAX_WAITING  # never locked out


def test_reissuing_the_invite_link_refuses_the_old_one(client: TestClient) -> None:
    links = create_table(client)
    table, old = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        waiting = open_lobby(stack, client, table, old, device(1))
        waiting.until(lambda m: True)
        answer = client.post(f"/api/tables/{table}/reissue", json={"seat": "invite"},
                             headers={"Authorization": f"Bearer {ADMIN}"})  # fmt: skip
        assert answer.status_code == 200, answer.text
        new = answer.json()["invite"]["token"]
        assert new != old
        assert waiting.error()["error"] == "token_reissued"
        again = open_lobby(stack, client, table, old, device(1))
        assert again.receive()["error"] == "token_reissued"
        fresh = open_lobby(stack, client, table, new, device(1))
        assert me(fresh.until(lambda m: True)) == {"state": "new"}


def test_table_new_prints_the_invite_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from plugin.cli import table as table_cli
    from plugin.signing import load_secret, secret_path_for

    db = tmp_path / "autohost.db"
    argv = ["new", "--db", str(db), "--base-url", "http://club.example"]
    assert table_cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    invite = next(line for line in lines if line.startswith("invite:"))
    link = invite.split()[1]
    table = lines[0].split()[1]
    assert link.startswith(f"http://club.example/t/{table}/join#token=")
    signer = Signer(load_secret(secret_path_for(db)))
    assert signer.verify_invite(link.partition("#token=")[2], table=table).table == table


def test_archiving_the_table_ends_its_lobby(client: TestClient) -> None:
    links = create_table(client)
    table = links["id"]
    with contextlib.ExitStack() as stack:
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        player = open_lobby(stack, client, table, links["invite"]["token"], device(1))
        host.until(lambda m: True)
        player.until(lambda m: True)
        answer = client.post(f"/api/tables/{table}/archive",
                             headers={"Authorization": f"Bearer {ADMIN}"})  # fmt: skip
        assert answer.status_code == 200
        for lobby in (host, player):
            assert lobby.error()["error"] == "table_archived"
            assert lobby.receive() == {"type": "close", "code": CloseCode.ENDED}
        again = open_lobby(stack, client, table, links["invite"]["token"], device(1))
        assert again.receive()["error"] == "table_archived"


def test_a_seat_in_use_on_its_own_link_is_not_free(client: TestClient) -> None:
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        on_link = in_process(stack, client, f"/ws?token={token_of(links, 1)}")  # seat 1's link
        assert on_link.receive()["you"] == 1
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        for n, name in enumerate(["Anna", "Bohdan"], 1):
            open_lobby(stack, client, table, invite, device(n)).send("join", name=name)
        lobby = host.until(lambda m: len(m["entries"]) == 2)
        assert 1 not in lobby["free"] and lobby["free"][0] == 2
        host.send("seat", entry=lobby["entries"][0]["entry"], seat=1)
        assert host.error()["error"] == "seat_taken"
        host.send("seat_waiting", order="arrival")
        seated = host.until(lambda m: len(m["seated"]) == 2)["seated"]
        assert [(s["name"], s["seat"]) for s in seated] == [("Anna", 2), ("Bohdan", 3)]


def test_the_players_of_a_table_write_its_log_at_a_bounded_pace(tmp_path: Path) -> None:
    """Every join and leave is a record in the table's log: 8 sockets of one invite link
    wrote 780 of them in 10 s (the outside check). The players of a table share a budget;
    past it they are told to wait and nothing is written, and the host is never held."""

    def attempt(player: Lobby, kind: str, **fields: Any) -> str | None:
        player.send(kind, **fields)
        wanted = "waiting" if kind == "join" else "new"
        while True:
            message = player.receive()
            if message["type"] != "lobby":
                return str(message.get("error"))
            if message["me"]["state"] == wanted:
                return None

    def lobby_records(table: str) -> int:
        with sqlite3.connect(tmp_path / "autohost.db") as db:
            query = "SELECT count(*) FROM events WHERE table_id = ? AND source = 'lobby'"
            return int(db.execute(query, (table,)).fetchone()[0])

    with app(tmp_path) as client, contextlib.ExitStack() as stack:
        links = create_table(client)
        table, invite = links["id"], links["invite"]["token"]
        server = client.app.state.server  # type: ignore[attr-defined]
        server.lobbies.records = RateLimit(0.001, 6)  # six records, then (almost) none
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        host.until(lambda m: True)
        players = [open_lobby(stack, client, table, invite, device(n)) for n in range(3)]
        idle = open_lobby(stack, client, table, invite, device(9))
        for _ in range(8):  # refused, so nothing written and nothing charged (the check
            idle.send("leave")  # found refusals charged: one socket locked everyone out)
            assert idle.error()["error"] not in ("lobby_busy", None)
        outcomes = []
        for round_ in range(4):
            for n, player in enumerate(players):
                if round_ % 2 == 0:
                    outcomes.append(attempt(player, "join", name=f"P{n}.{round_}"))
                else:
                    outcomes.append(attempt(player, "leave"))
        assert outcomes[:6] == [None] * 6 and "lobby_busy" in outcomes[6:]
        assert set(outcomes[6:]) <= {"lobby_busy", "not_waiting"}  # a refused join: no leave
        assert lobby_records(table) == 6
        assert host.until(lambda m: True)["entries"] == []  # they left in round 2
        players[0].send("join", name="late")
        assert players[0].error()["error"] == "lobby_busy"


def test_a_waiting_place_outlives_a_reload_but_not_an_absence(client: TestClient) -> None:
    """Issue 31 (lobby_presence.py): a place lives while its device is connected, and for
    the grace after its last socket closed (a reload); then it goes."""
    server = client.app.state.server  # type: ignore[attr-defined]
    server.lobbies.grace_seconds = 1.0
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        host = open_lobby(stack, client, table, token_of(links, "host"), None)
        with contextlib.ExitStack() as first:
            anna = open_lobby(first, client, table, invite, device(1))
            anna.until(lambda m: True)
            anna.send("join", name="Anna")
            anna.until(lambda m: me(m)["state"] == "waiting")
        time.sleep(0.4)  # a reload: back within the grace
        again = open_lobby(stack, client, table, invite, device(1))
        assert me(again.until(lambda m: True))["state"] == "waiting"
        time.sleep(1.5)  # the grace passed, and the device is here: it stays
        assert [e["name"] for e in host.until(lambda m: bool(m["entries"]))["entries"]] == ["Anna"]
        again.client.close()
        gone = host.until(lambda m: not m["entries"])  # within a grace of her leaving
        assert gone["entries"] == []
