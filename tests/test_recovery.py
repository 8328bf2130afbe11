"""A real `autohost serve` killed with SIGKILL in the middle of a vote and restarted with the
same command: the same tally, candidates, timer (give or take a second) and speakers.

Everything goes through the public surface: the table is created with
`autohost table new --server`, the game is driven and checked over the WebSocket protocol.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugin.paths import ROOT
from testing import Client, ServerProcess, connect

pytestmark = pytest.mark.slow

AUTOHOST = [sys.executable, "-m", "plugin.cli"]
WAIT_BEFORE_KILL = 3.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path / "autohost.db")
    yield running
    if running.alive():
        running.kill()


def create_table(server: ServerProcess) -> dict[str, Any]:
    command = [
        *AUTOHOST, "table", "new", "--preset", "online", "--lang", "uk", "--seats", "10",
        "--names", ",".join(f"P{i}" for i in range(1, 11)), "--seed", "4",
        "--set", "simultaneous_window_seconds=40", "--set", "defense_seconds=40",
        "--server", server.base, "--json",
    ]  # fmt: skip
    env = {**os.environ, "AUTOHOST_ADMIN_KEY": server.admin_key}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def widget(server: ServerProcess, token: str) -> Client:
    """One client of the protocol (a player's widget or the host console), once it has read
    its first state."""
    client = connect(server.ws_url(token))
    first = client.receive()
    assert first["type"] == "state", first
    return client


def open_all(server: ServerProcess, links: dict[str, Any]) -> tuple[Client, dict[int, Client]]:
    host = widget(server, links["host"]["token"])
    seats = {s["seat"]: widget(server, s["token"]) for s in links["seats"]}
    return host, seats


def checkpoint(host: Client) -> dict[str, Any]:
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


def crash_and_restart(server: ServerProcess, links: dict[str, Any], before: dict[str, Any]):
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


def test_sigkill_in_the_middle_of_a_vote_loses_nothing(server: ServerProcess) -> None:
    server.start()
    links = create_table(server)
    host, seats = open_all(server, links)
    host.ack("start")
    nominations = {1: 5, 2: 6}
    while host.state["phase"] != "voting":
        speaker = host.state["speaker"]
        if host.state["phase"] == "speech" and speaker in nominations:
            seats[speaker].ack("nominate", target=nominations.pop(speaker))
        host.ack("next")
    for voter, candidate in [(1, 5), (2, 6), (3, 5), (4, 6), (7, 5)]:
        seats[voter].ack("vote", candidate=candidate)
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
        seats[voter].ack("vote", candidate=candidate)
    while host.state["phase"] != "defense":
        host.ack("next")
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
