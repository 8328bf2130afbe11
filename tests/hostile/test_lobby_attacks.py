"""The lobby against a real `autohost serve` (issue 31, "the lobby"; lobby_presence.py).

The outside check: re-issuing seat 3 closed its /ws but the lobby socket of the device the
lobby had seated there stayed open, was pushed the new seat-3 token at the next lobby
change, and with a new invite the same device was seated again; the host could neither
unseat nor remove anybody. And one address filled the 30-place lobby in 21 s (50 connects,
each closing after its join); real players then got `lobby_full`, and the places outlived
their sockets, an invite re-issue and a restart.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from plugin.web.close_codes import CloseCode
from plugin.web.lobby_limits import LOBBY_GRACE_SECONDS
from testing import ServerProcess

pytestmark = pytest.mark.slow
SECONDS = 30.0  # any one wait, at most


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as running:
        yield running


def api(server: ServerProcess, path: str, body: Any = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    answer = httpx.post(f"{server.base}{path}", json=body, headers=headers, timeout=SECONDS)
    assert answer.is_success, answer.text
    return dict(answer.json())


class Lobby:
    """One /lobby socket (a player's device, or the host's console: device None)."""

    def __init__(self, server: ServerProcess, links: dict[str, Any], token: str,
                 device: str | None, source: str = "127.0.0.1") -> None:  # fmt: skip
        sock = socket.socket()
        sock.settimeout(SECONDS)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", server.port))
        url = f"ws://127.0.0.1:{server.port}/lobby"
        self.ws: ClientConnection = connect(url, sock=sock).__enter__()
        hello = {"type": "hello", "token": token, "table": links["id"]}
        if device is not None:
            hello["device"] = device
        self.ws.send(json.dumps(hello))
        self.latest: dict[str, Any] = {}

    def send(self, kind: str, **fields: Any) -> None:
        self.ws.send(json.dumps({"type": kind, **fields}))

    def receive(self) -> dict[str, Any]:
        """The next message; {"type": "closed"} once the server closed the socket."""
        try:
            message = dict(json.loads(self.ws.recv(timeout=SECONDS)))
        except ConnectionClosed:
            return {"type": "closed"}
        if message["type"] == "lobby":
            self.latest = message
        return message

    def until(self, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + SECONDS
        while not (self.latest and accept(self.latest)):
            assert time.monotonic() < deadline, self.latest
            message = self.receive()
            assert message["type"] != "closed", "the lobby socket closed"
        return self.latest

    def newest(self) -> list[dict[str, Any]]:
        """Every lobby view sent so far (read until none comes for half a second)."""
        views = []
        with contextlib.suppress(TimeoutError):
            while True:
                message = dict(json.loads(self.ws.recv(timeout=0.5)))
                if message["type"] == "lobby":
                    self.latest = message
                    views.append(message)
        return views

    def ends(self) -> list[dict[str, Any]]:
        """Everything up to the server's close (bounded: SECONDS)."""
        seen = []
        while (message := self.receive())["type"] != "closed":
            seen.append(message)
        return seen

    def close(self) -> None:
        self.ws.close()


def device(n: int) -> str:
    return f"device-{n:04d}-abcdefghijkl"


def seated(player: Lobby, console: Lobby, name: str, seat: int) -> str:
    """`name` joins and the host seats him at `seat`: the seat's token he is given."""
    player.until(lambda m: m["me"]["state"] == "new")
    player.send("join", name=name)
    player.until(lambda m: m["me"]["state"] == "waiting")
    entry = console.until(lambda m: any(e["name"] == name for e in m["entries"]))
    chosen = next(e["entry"] for e in entry["entries"] if e["name"] == name)
    console.send("seat", entry=chosen, seat=seat)
    place = player.until(lambda m: m["me"]["state"] == "seated")["me"]
    assert place["seat"] == seat
    return str(place["token"])


def first_ws_answer(server: ServerProcess, token: str) -> dict[str, Any]:
    with connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=SECONDS) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        return dict(json.loads(ws.recv(timeout=SECONDS)))


def test_a_reissued_seat_ends_every_path_of_the_device_the_lobby_seated(
    server: ServerProcess,
) -> None:
    links = api(server, "/api/tables", {"seats": 10})
    with contextlib.ExitStack() as stack:
        console = Lobby(server, links, links["host"]["token"], None)
        stack.callback(console.close)
        player = Lobby(server, links, links["invite"]["token"], device(1))
        stack.callback(player.close)
        old = seated(player, console, "Anna", 3)
        fresh = api(server, f"/api/tables/{links['id']}/reissue", {"seat": 3})
        # The device's lobby socket is ended: no new token is pushed to it.
        ended = player.ends()
        assert ended and ended[-1].get("error") == "token_reissued", ended
        # Final (4423, as the host's "remove"): its page does not come back by itself
        # (4410 made it reconnect to the lobby as a newcomer).
        assert player.ws.close_code == CloseCode.REMOVED, player.ws.close_code
        assert all("token" not in m.get("me", {}) for m in ended)
        assert first_ws_answer(server, old)["error"] == "token_reissued"
        view = console.until(lambda m: not m["seated"])
        assert 3 in view["free"]
        # The same device, with a new invite link: a newcomer, not seated by itself.
        invite = api(server, f"/api/tables/{links['id']}/reissue", {"seat": "invite"})
        again = Lobby(server, links, invite["invite"]["token"], device(1))
        stack.callback(again.close)
        assert again.until(lambda m: True)["me"] == {"state": "new"}
        assert fresh["seats"][2]["token"] != old


def test_the_host_unseats_removes_and_clears(server: ServerProcess) -> None:
    links = api(server, "/api/tables", {"seats": 10})
    invite = links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        console = Lobby(server, links, links["host"]["token"], None)
        players = [Lobby(server, links, invite, device(n)) for n in range(1, 5)]
        for lobby in (console, *players):
            stack.callback(lobby.close)
        token = seated(players[0], console, "Anna", 5)
        sitting = console.until(lambda m: bool(m["seated"]))["seated"]
        anna = sitting[0]["entry"]
        assert sitting[0]["online"] is True
        console.send("unseat", entry=anna)  # Anna waits again; seat 5's link is new
        players[0].until(lambda m: m["me"]["state"] == "waiting")
        assert first_ws_answer(server, token)["error"] == "token_reissued"
        console.until(lambda m: [e["name"] for e in m["entries"]] == ["Anna"] and not m["seated"])
        console.send("remove", entry=anna)  # out, her lobby socket ended for good
        assert players[0].ends()[-1]["error"] == "removed"
        assert players[0].ws.close_code == CloseCode.REMOVED  # final: the page stays out
        console.until(lambda m: not m["entries"])
        for lobby, name in ((players[1], "Boris"), (players[2], "Clara")):
            lobby.until(lambda m: True)
            lobby.send("join", name=name)
            lobby.until(lambda m: m["me"]["state"] == "waiting")
        console.until(lambda m: len(m["entries"]) == 2)
        console.send("clear")
        console.until(lambda m: not m["entries"] and not m["requests"])
        for lobby in players[1:3]:
            assert lobby.ends()[-1]["error"] == "removed"
            assert lobby.ws.close_code == CloseCode.REMOVED
        players[3].send("clear")  # a player may not
        while (answer := players[3].receive())["type"] == "lobby":
            pass
        assert answer["error"] == "not_host", answer


def test_one_address_cannot_fill_the_lobby_and_places_die_with_their_sockets(
    server: ServerProcess,
) -> None:
    links = api(server, "/api/tables", {"seats": 10})
    invite = links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        console = Lobby(server, links, links["host"]["token"], None)
        stack.callback(console.close)
        answers = []
        started = time.monotonic()
        for n in range(50):  # the outside check's loop: connect, join, close
            try:
                bot = Lobby(server, links, invite, device(100 + n), source="127.0.0.3")
            except (OSError, ConnectionClosed):
                continue
            first = bot.receive()
            if first["type"] == "lobby":
                bot.send("join", name=f"bot {n}")
                answers.append(bot.receive().get("error") or bot.latest["me"]["state"])
            bot.close()
            if time.monotonic() - started > 25:
                break
        assert 0 < answers.count("waiting") <= 6, answers  # the address's burst
        assert "lobby_busy" in answers, answers
        # Their sockets are gone: after the grace, so are their places.
        time.sleep(LOBBY_GRACE_SECONDS + 1)
        views = console.newest()
        assert max(len(view["entries"]) for view in views) > 0
        assert max(len(view["entries"]) for view in views) <= 6
        assert views[-1]["entries"] == []
        # A real player from another address joins.
        real = Lobby(server, links, invite, device(1), source="127.0.0.2")
        stack.callback(real.close)
        real.until(lambda m: True)
        real.send("join", name="Real")
        assert real.until(lambda m: m["me"]["state"] == "waiting")


def test_places_of_absent_devices_do_not_outlive_a_restart(server: ServerProcess) -> None:
    links = api(server, "/api/tables", {"seats": 10})
    bot = Lobby(server, links, links["invite"]["token"], device(7))
    bot.until(lambda m: True)
    bot.send("join", name="Ghost")
    bot.until(lambda m: m["me"]["state"] == "waiting")
    server.kill()  # its socket dies with the server; its place is in the log
    bot.close()
    server.start()
    console = Lobby(server, links, links["host"]["token"], None)
    try:
        assert [e["name"] for e in console.until(lambda m: True)["entries"]] == ["Ghost"]
        assert console.latest["entries"][0]["online"] is False
        console.until(lambda m: not m["entries"])  # within the grace (SECONDS bounds it)
    finally:
        console.close()


def test_invisible_piled_up_and_look_alike_names_are_refused(server: ServerProcess) -> None:
    names = [f"P{n}" for n in range(1, 11)]
    names[4] = "Marko"
    links = api(server, "/api/tables", {"seats": 10, "names": names})
    invite = links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        console = Lobby(server, links, links["host"]["token"], None)
        anna = Lobby(server, links, invite, device(1))
        other = Lobby(server, links, invite, device(2))
        for lobby in (console, anna, other):
            stack.callback(lobby.close)
        anna.until(lambda m: True)
        anna.send("join", name="Anna")
        anna.until(lambda m: m["me"]["state"] == "waiting")
        other.until(lambda m: True)
        refusals = {
            "Аnnа": "name_taken",  # Cyrillic а: Anna's look-alike
            "ANNA": "name_taken",
            "Маrkо": "name_taken",  # the name of seat 5, in Cyrillic letters
            "An\u200dna": "bad_name", "An\u200cna": "bad_name", "A\u034fnna": "bad_name",
            "\u3164": "bad_name", "Bo\u2800ris": "bad_name", "a" + "\u0301" * 40: "bad_name",
        }  # fmt: skip
        for name, code in refusals.items():
            other.send("join", name=name)
            while (answer := other.receive())["type"] == "lobby":
                pass
            assert answer.get("error") == code, (name, answer)
        other.send("join", name="Ｂoris")  # full-width: normalised
        other.until(lambda m: m["me"]["state"] == "waiting")
        waiting = console.until(lambda m: len(m["entries"]) == 2)["entries"]
        assert [e["name"] for e in waiting] == ["Anna", "Boris"]
