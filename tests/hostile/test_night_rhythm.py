"""The night's rhythm against a real `autohost serve` (issue 31; plugin/web/rhythm.py).

The outside check counted the states on a civilian's socket and on the spectators' watch
page: at the shot one more per shot, at a check phase one more when the check was made,
so whether the don and the sheriff are alive, and how many black players shot, showed.
Here two tables of the same deal play the same night; at one the black players shoot
(and miss) and the don and the sheriff check, at the other nobody does anything hidden.
A civilian and a spectator of each must receive the same messages, one for one (only the
table's id and the clock's time left may differ). tests/web/test_rhythm.py holds the same
over whole simulated games.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from testing import Client, ServerProcess, connect

pytestmark = pytest.mark.slow
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as running:
        yield running


def new_table(server: ServerProcess) -> dict[str, Any]:
    body = {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES, "seed": 7}
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    answer = httpx.post(f"{server.base}/api/tables", json=body, headers=headers, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def seat_token(links: dict[str, Any], seat: int) -> str:
    return str(links["seats"][seat - 1]["token"])


def comparable(message: dict[str, Any]) -> dict[str, Any]:
    """A message without what may differ between two tables: the id, the time left."""
    if message.get("type") != "state":
        return message
    table = {k: v for k, v in message["table"].items() if k != "id"}
    clock = message.get("clock")
    if clock is not None:
        clock = {k: v for k, v in clock.items() if k != "remaining"}
    return {**message, "table": table, "clock": clock}


def play_night(server: ServerProcess, links: dict[str, Any], *, hidden: bool) -> dict[str, list]:
    """Start, go to the first night, play it (with or without the hidden actions) to the
    next morning; what the civilian (seat 7) and the spectator received meanwhile."""
    with contextlib.ExitStack() as stack:

        def open_(token: str) -> Client:
            return stack.enter_context(connect(server.ws_url(token), timeout=30))

        host = open_(links["host"]["token"])
        black = {seat: open_(seat_token(links, seat)) for seat in (1, 2, 3, 4)}
        watched = {
            "civilian": open_(seat_token(links, 7)),
            "spectator": open_(links["watch"]["token"]),
        }
        for client in (host, *black.values(), *watched.values()):
            client.receive()
        host.ack("start")
        for _ in range(40):
            if host.state is not None and host.state["phase"] == "shot":
                break
            host.ack("next")
        assert host.state is not None and host.state["phase"] == "shot"
        for client in watched.values():  # everything up to the night, read and set aside
            client.until(lambda state: state["phase"] == "shot")
        if hidden:
            black[1].ack("shoot", target=5)
            black[2].ack("shoot", target=6)  # and seat 3 never shoots: a miss
        host.ack("next")
        host.until(lambda state: state["phase"] == "don_check")
        if hidden:
            black[1].ack("don_check", target=4)
        host.ack("next")
        host.until(lambda state: state["phase"] == "sheriff_check")
        if hidden:
            black[4].ack("sheriff_check", target=1)
        host.ack("next")
        host.until(lambda state: state["phase"] == "speech")
        received: dict[str, list] = {}
        for name, client in watched.items():
            seen = []
            while not seen or seen[-1].get("phase") != "speech":
                seen.append(comparable(client.receive()))
            received[name] = seen
        return received


def test_a_civilian_and_a_spectator_receive_the_same_night_whatever_the_black_team_did(
    server: ServerProcess,
) -> None:
    quiet = play_night(server, new_table(server), hidden=False)
    busy = play_night(server, new_table(server), hidden=True)
    for name in ("civilian", "spectator"):
        assert len(busy[name]) == len(quiet[name]), (name, len(busy[name]), len(quiet[name]))
        assert busy[name] == quiet[name], name
