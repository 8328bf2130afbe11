"""Real `autohost serve` processes on loopback sharing one real PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from plugin.paths import ROOT
from testing import Client, ServerProcess, connect
from testing.postgres import PostgresServer, running_postgres

AUTOHOST = [sys.executable, "-m", "plugin.cli"]
TAKEOVER_SECONDS = 15  # a lease (2 s), a heartbeat (0.4 s), a replay, on a busy machine
CLOCK_SAVE_SECONDS = 1.5  # past the registry's once-a-second save


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


Servers = Callable[[int], list[ServerProcess]]


@pytest.fixture
def servers(postgres: PostgresServer) -> Iterator[Servers]:
    """`servers(n)`: n servers started on one new database (killed at the end if alive)."""
    started: list[ServerProcess] = []
    dsn = postgres.new_database()

    def start(count: int) -> list[ServerProcess]:
        made = [
            ServerProcess(dsn, options=["--room", "embedded", "--no-voice"]) for _ in range(count)
        ]
        for server in made:
            started.append(server)
            server.start()
        return made

    yield start
    for server in started:
        if server.alive():
            server.kill()


def dsn_of(server: ServerProcess) -> str:
    return str(server.db)


def create_table(server: ServerProcess) -> dict[str, Any]:
    command = [
        *AUTOHOST, "table", "new", "--preset", "online", "--lang", "uk", "--seats", "10",
        "--seed", "4", "--set", "simultaneous_window_seconds=60", "--set", "defense_seconds=60",
        "--set", "speech_seconds=60",
        "--server", server.base, "--json",
    ]  # fmt: skip
    env = {**os.environ, "AUTOHOST_ADMIN_KEY": server.admin_key}  # never on a command line
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def claim_after(dsn: str, table_id: str, epoch: int) -> float:
    """Wait until a server holds the table's lease past `epoch`; the moment (monotonic)
    of the last poll that still saw the old epoch. The claim, and everything the heir does
    after it (its replay, its timer), came after that moment. Call it before the claim can
    have happened (just after the owner is killed: its lease has 2 s to run)."""
    before: float | None = None
    deadline = time.monotonic() + TAKEOVER_SECONDS
    while True:
        asked = time.monotonic()
        lease = leases(dsn).get(table_id)
        if lease is not None and lease[1] > epoch:
            assert before is not None, "claimed before the watch began: its moment is unknown"
            return before
        before = asked
        assert asked < deadline, f"nobody claimed table {table_id} past epoch {epoch}"
        time.sleep(0.02)


def leases(dsn: str) -> dict[str, tuple[str, int]]:
    with psycopg.connect(dsn, connect_timeout=5) as db:
        rows = db.execute("SELECT table_id, owner, epoch FROM leases").fetchall()
    return {table_id: (owner, epoch) for table_id, owner, epoch in rows}


def assert_resumed(timer_now: int, left_now: float, timer: int, left: float, ran: float) -> None:
    """The heir's timer is the one that ran, with the time it had when the owner died:
    no more than the last clock save gave back (saved once a second; 0.5 s more for its
    commit on a busy machine), no less than what it may have run since (`ran`: on the
    owner after it was read, on the heir since its claim; 0.5 s for the polls' grain). A
    timer that ran on while nobody hosted the table (the rest of the lease: 1.6 s or more)
    is under that."""
    assert timer_now == timer
    low, high = left - ran - 0.5, left + CLOCK_SAVE_SECONDS + 0.5
    assert low <= left_now <= high, (left, left_now, ran)


def events(dsn: str, table_id: str) -> list[tuple[int, str, str | None]]:
    with psycopg.connect(dsn, connect_timeout=5) as db:
        rows = db.execute(
            "SELECT seq, record, client_id FROM events WHERE table_id = %s ORDER BY seq",
            (table_id,),
        ).fetchall()
    return [(seq, json.loads(record)["type"], client_id) for seq, record, client_id in rows]


def host_of(table_id: str, candidates: list[ServerProcess]) -> ServerProcess:
    """The one server that hosts the table, once one does; never two at once."""

    def one() -> ServerProcess | None:
        alive = [s for s in candidates if s.alive()]
        holding = [s for s in alive if table_id in s.hosted(lenient=True)]
        assert len(holding) <= 1, f"table {table_id} hosted by {len(holding)} servers"
        return holding[0] if holding else None

    deadline = time.monotonic() + TAKEOVER_SECONDS
    while (found := one()) is None:
        assert time.monotonic() < deadline, f"no server hosts table {table_id}"
        time.sleep(0.05)
    return found


class Refused(AssertionError):
    """A widget's socket answered with something other than the table's state."""


def widget(server: ServerProcess, token: str) -> Client:
    client = connect(server.ws_url(token))
    first = client.receive()
    if first["type"] != "state":
        client.close()
        raise Refused(first)
    return client


def open_all(server: ServerProcess, links: dict[str, Any]) -> tuple[Client, dict[int, Client]]:
    """The host's widget and every seat's, each past its first state (none left open if one
    is refused)."""
    opened: list[Client] = []
    try:
        for token in [links["host"]["token"], *(s["token"] for s in links["seats"])]:
            opened.append(widget(server, token))
    except BaseException:
        for client in opened:
            client.close()
        raise
    host, *seats = opened
    return host, {s["seat"]: client for s, client in zip(links["seats"], seats, strict=True)}


def close_all(host: Client, seats: dict[int, Client]) -> None:
    for client in (host, *seats.values()):
        client.close()


def to_the_vote(host: Client, seats: dict[int, Client]) -> None:
    """Start the game and play the speeches to the vote, with 5 and 6 nominated (seed 4)."""
    host.ack("start")
    nominations = {1: 5, 2: 6}
    deadline = time.monotonic() + 60
    while host.state["phase"] != "voting":
        assert time.monotonic() < deadline, host.state
        speaker = host.state["speaker"]
        if host.state["phase"] == "speech" and speaker in nominations:
            seats[speaker].ack("nominate", target=nominations.pop(speaker))
        host.ack("next")


def tally(host: Client, expected: dict[str, int]) -> None:
    deadline = time.monotonic() + 20
    while host.state["vote"]["round"]["tally"] != expected:
        assert time.monotonic() < deadline, host.state["vote"]
        host.receive()


class HostingWatch:
    """Polls every server's /api/tables in a thread for as long as it runs; `doubles` lists
    each moment a table was listed by two servers at once."""

    def __init__(self, candidates: list[ServerProcess]) -> None:
        self.candidates = candidates
        self.doubles: list[tuple[str, int]] = []
        self.polls = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> HostingWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            counts: dict[str, int] = {}
            for server in self.candidates:
                if server.alive():
                    for table_id in server.hosted(lenient=True):
                        counts[table_id] = counts.get(table_id, 0) + 1
            self.doubles += [(t, n) for t, n in counts.items() if n > 1]
            self.polls += 1
            self._stop.wait(0.05)
