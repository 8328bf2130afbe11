"""A real `autohost serve` killed with SIGKILL in the middle of a vote and restarted with the
same command: the same tally, candidates, timer (give or take a second) and speakers.

Everything goes through the public surface: the table is created with
`autohost table new --server`, the game is driven and checked over the WebSocket protocol.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
AUTOHOST = [sys.executable, "-m", "plugin.cli"]
ADMIN = "recovery-admin-key"
WAIT_BEFORE_KILL = 3.0
_ids = itertools.count(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """`autohost serve` as a subprocess; the same command line every time it is started."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.command = [
            *AUTOHOST, "serve", "--port", str(self.port), "--db", str(db), "--admin-key", ADMIN,
        ]  # fmt: skip
        self.process: subprocess.Popen[str] | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> float:
        """Start and wait for the "listening" line; returns the moment it was ready."""
        env = {**os.environ, "AUTOHOST_SECRET": "recovery-secret-0123456789abcdef"}
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "listening on" in line, line
        return time.monotonic()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._close_pipe()

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=10)
        self._close_pipe()
        return code

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()


class Widget:
    """One WebSocket client of the protocol (a player's widget or the host console)."""

    def __init__(self, server: Server, token: str) -> None:
        self._stack = ExitStack()
        url = f"ws://127.0.0.1:{server.port}/ws?token={token}"
        # max_queue=None: a widget that reads only now and then must not stall its socket.
        self.ws: ClientConnection = self._stack.enter_context(connect(url, max_queue=None))
        self.state: dict[str, Any] = {}
        self.state_at = 0.0
        first = self.receive()
        assert first["type"] == "state", first

    def receive(self) -> dict[str, Any]:
        message = json.loads(self.ws.recv(timeout=10))
        if message["type"] == "state":
            self.state, self.state_at = message, time.monotonic()
        return message

    def request(self, type: str, **fields: Any) -> dict[str, Any]:
        id = f"r{next(_ids)}"
        self.ws.send(json.dumps({"v": 1, "id": id, "type": type, **fields}))
        while True:
            message = self.receive()
            if message.get("id") == id:
                assert message["type"] == "ack", message
                return message

    def close(self) -> None:
        self._stack.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "autohost.db")
    yield running
    if running.process is not None and running.process.poll() is None:
        running.kill()


def create_table(server: Server) -> dict[str, Any]:
    command = [
        *AUTOHOST, "table", "new", "--preset", "online", "--lang", "uk", "--seats", "10",
        "--names", ",".join(f"P{i}" for i in range(1, 11)), "--seed", "4",
        "--set", "simultaneous_window_seconds=40", "--set", "defense_seconds=40",
        "--server", server.url, "--admin-key", ADMIN, "--json",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def open_all(server: Server, links: dict[str, Any]) -> tuple[Widget, dict[int, Widget]]:
    host = Widget(server, links["host"]["token"])
    seats = {s["seat"]: Widget(server, s["token"]) for s in links["seats"]}
    return host, seats


def checkpoint(host: Widget) -> dict[str, Any]:
    """What must survive a crash: the round, the speakers, the timer (as of now)."""
    state = host.state
    clock = state["clock"]
    elapsed = time.monotonic() - host.state_at
    return {
        "phase": state["phase"],
        "round": state["vote"]["round"] if state["vote"] else None,
        "speakers": state["speakers"],
        "timer": clock["timer"],
        "remaining": clock["remaining"] - elapsed,
    }


def crash_and_restart(server: Server, links: dict[str, Any], before: dict[str, Any]):
    """Wait past a clock save, SIGKILL, restart with the same command, reconnect."""
    # The registry saves timers about once a second: wait several saves, so a timer restored
    # from anything older than the last second would show.
    time.sleep(WAIT_BEFORE_KILL)
    before = {**before, "remaining": before["remaining"] - WAIT_BEFORE_KILL}
    killed_at = time.monotonic()
    server.kill()
    server.start()
    host, seats = open_all(server, links)
    after = checkpoint(host)
    downtime = time.monotonic() - killed_at
    return before, after, downtime, host, seats


def test_sigkill_in_the_middle_of_a_vote_loses_nothing(server: Server) -> None:
    server.start()
    links = create_table(server)
    host, seats = open_all(server, links)
    host.request("start")
    nominations = {1: 5, 2: 6}
    while host.state["phase"] != "voting":
        speaker = host.state["speaker"]
        if host.state["phase"] == "speech" and speaker in nominations:
            seats[speaker].request("nominate", target=nominations.pop(speaker))
        host.request("next")
    for voter, candidate in [(1, 5), (2, 6), (3, 5), (4, 6), (7, 5)]:
        seats[voter].request("vote", candidate=candidate)
    while host.state["vote"]["round"]["tally"] != {"5": 3, "6": 2}:
        host.receive()

    for widget in (host, *seats.values()):
        widget.close()
    before, after, downtime, host, seats = crash_and_restart(server, links, checkpoint(host))
    assert after["round"] == before["round"]  # tally, candidates, voters, who is waiting
    assert after["round"]["tally"] == {"5": 3, "6": 2}
    assert after["speakers"] == before["speakers"]
    assert after["timer"] == before["timer"]
    # Timers resume with the time they had left, give or take a second (the save interval).
    assert abs(after["remaining"] - before["remaining"]) <= 1.0 + 0.5
    assert after["remaining"] > before["remaining"] - downtime  # it did not run while down

    # The game goes on: a tie, then the candidates' defense speeches (seed 004).
    for voter, candidate in [(8, 6), (9, 5), (10, 6), (5, 6), (6, 5)]:
        seats[voter].request("vote", candidate=candidate)
    while host.state["phase"] != "defense":
        host.request("next")
    speakers = host.state["speakers"]
    assert len(speakers) == 1 and speakers[0] in (5, 6)

    for widget in (host, *seats.values()):
        widget.close()
    before, after, _, host, seats = crash_and_restart(server, links, checkpoint(host))
    assert after["phase"] == "defense"
    assert after["speakers"] == speakers
    assert after["timer"] == before["timer"]
    assert abs(after["remaining"] - before["remaining"]) <= 1.0 + 0.5

    for widget in (host, *seats.values()):
        widget.close()
    assert server.stop() == 0  # SIGTERM: a clean shutdown
    wal = server.db.with_name(server.db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # the log was flushed and checkpointed
