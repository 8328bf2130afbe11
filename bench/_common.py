"""Load plumbing shared by bench/load.py and tests/load: a real `autohost serve` process,
light WebSocket widgets, and a driver that plays one table the way a club would.

- `ServerProcess`: `python -m plugin.cli serve` on a free loopback port with a temp SQLite
  log; SIGKILL and restart with the same command; the process's CPU time and RSS from /proc.
- `Widget`: one WebSocket client (what a player's page or the host console is to the
  server): keeps the newest state and the moment each table version arrived.
- `TableDriver`: one table of 12 widgets (host console, ten seats, a second tab of seat 7).
  The host starts the game and presses `next`; the speaker nominates during his speech;
  every voter votes as soon as a round is open. Every acked vote goes into the `Ledger`,
  every refusal or lost connection is an error.
- `lost_votes(db, ledger)`: acked votes missing from the event log (must be none).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "load-admin-key"
SECRET = "load-secret-0123456789abcdef0123"
CLIENTS_PER_TABLE = 12  # host console + 10 seats + a second tab of seat 7
_ids = itertools.count(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- the server process ----------------------------------------------------------------------


class ServerProcess:
    """`autohost serve` in its own process; `restart()` runs the very same command again."""

    def __init__(self, db: Path, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.command = [sys.executable, "-m", "plugin.cli", "serve", "--port", str(self.port),
                        "--db", str(db), "--admin-key", ADMIN]  # fmt: skip
        self.process: subprocess.Popen[str] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 60) -> float:
        """Spawn and wait for the "listening" line; returns the seconds it took."""
        started = time.perf_counter()
        env = {**os.environ, "AUTOHOST_SECRET": SECRET}
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if "listening" in line:
                return time.perf_counter() - started
            if not line and self.process.poll() is not None:
                break
        raise RuntimeError(f"autohost serve did not start (exit {self.process.poll()})")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (a crash)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._close_pipe()

    def stop(self) -> int:
        """SIGTERM and wait: a clean stop (status 0 expected)."""
        if self.process is None or self.process.poll() is not None:
            self._close_pipe()
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._close_pipe()
        return code

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far (/proc/PID/stat)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def http(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {ADMIN}"}
        return httpx.AsyncClient(base_url=self.base, headers=headers, timeout=60)

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()


# --- one client ------------------------------------------------------------------------------


class Widget:
    """One WebSocket client. `history`: (table version, perf_counter) of every state read."""

    def __init__(self, ws: ClientConnection, label: str) -> None:
        self.ws = ws
        self.label = label
        self.state: dict[str, Any] = {}
        self.version = -1
        self.history: list[tuple[int, float]] = []
        self.closed = False
        self.pending: set[str] = set()  # sent, not answered (yet)
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read(), name=f"widget {label}")

    @classmethod
    async def open(cls, port: int, token: str, label: str) -> Widget:
        ws = await connect(
            f"ws://127.0.0.1:{port}/ws?token={token}",
            max_queue=None,
            compression=None,
            open_timeout=60,
            ping_interval=None,
        )
        widget = cls(ws, label)
        await widget.wait_version(0)
        return widget

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                if message["type"] == "state":
                    self.state, self.version = message, message["table"]["version"]
                    self.history.append((self.version, time.perf_counter()))
                    self._changed.set()
                elif message.get("id") in self._replies:
                    future = self._replies.pop(message["id"])
                    if not future.done():
                        future.set_result(message)
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._changed.set()
            for future in self._replies.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"{self.label}: connection closed"))

    async def wait_version(self, version: int, timeout: float = 60) -> None:
        """Until a state of at least this table version was read."""
        deadline = time.monotonic() + timeout
        while self.version < version:
            if self.closed:
                raise ConnectionError(f"{self.label}: connection closed")
            self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.label}: no state version {version}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def request(self, type: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """Send one message; (its id, the ack or error that answers it)."""
        id = f"L{next(_ids)}"
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[id] = reply
        self.pending.add(id)
        await self.ws.send(json.dumps({"v": 1, "id": id, "type": type, **fields}))
        answer = await asyncio.wait_for(reply, 60)
        self.pending.discard(id)
        return id, answer

    def reached(self, version: int) -> float | None:
        """The moment this widget first read a state of at least `version`."""
        for seen, moment in self.history:
            if seen >= version:
                return moment
        return None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


# --- what happened -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AckedVote:
    table_id: str
    seat: int
    client_id: str
    kind: str  # "vote" or "lift"
    value: Any  # the candidate (or None) / leave
    round_key: tuple[Any, ...]  # (day, round number, round kind) when it was cast


@dataclass(slots=True)
class Ledger:
    """Everything the widgets were told, for the invariants and the figures."""

    acked: list[AckedVote] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    messages: Counter[str] = field(default_factory=Counter)
    # (sent at, table version the sender had read at its ack, the table's widgets)
    timings: list[tuple[float, int, list[Widget]]] = field(default_factory=list, repr=False)
    games_over: int = 0
    halted: bool = False  # the server is going away on purpose: lost connections are expected
    ack_ms: list[float] = field(default_factory=list, repr=False)  # message -> its ack

    def error(self, code: str, detail: str) -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"{code}: {detail}")

    def vote_latencies_ms(self) -> list[float]:
        """Vote sent → the last of the table's widgets has a state that includes it."""
        found = []
        for sent, version, widgets in self.timings:
            moments = [w.reached(version) for w in widgets]
            if all(m is not None for m in moments):
                found.append((max(m for m in moments if m is not None) - sent) * 1000)
        return found


# --- one table -------------------------------------------------------------------------------


class TableDriver:
    """Plays one table over its 12 widgets until told to stop (or the game is over)."""

    def __init__(
        self, links: dict[str, Any], host: Widget, seats: list[Widget], extra: Widget
    ) -> None:
        self.links = links  # the table's tokens, to reconnect after a restart
        self.id: str = links["id"]
        self.host = host
        self.seats = seats  # seats[0] is seat 1
        self.extra = extra  # the second tab of seat 7
        self.widgets = [host, *seats, extra]

    @classmethod
    async def create(
        cls, http: httpx.AsyncClient, port: int, seed: int, overrides: dict[str, Any] | None = None
    ) -> TableDriver:
        # A vote window long enough that only the voters close it (no race with the clock).
        window = {"simultaneous_window_seconds": 3600}
        body = {"seats": 10, "seed": seed, "overrides": {**window, **(overrides or {})}}
        answer = await http.post("/api/tables", json=body)
        links = answer.json()
        if answer.status_code != 201:
            raise RuntimeError(f"table not created: {links}")
        return await cls.connect(links, port)

    @classmethod
    async def connect(cls, links: dict[str, Any], port: int) -> TableDriver:
        tokens = [links["host"]["token"], *(s["token"] for s in links["seats"])]
        labels = ["host", *map(str, range(1, len(tokens))), "7b"]
        widgets = await asyncio.gather(
            *(
                Widget.open(port, token, f"{links['id']}/{label}")
                for token, label in zip([*tokens, tokens[7]], labels, strict=True)
            )
        )
        return cls(links, widgets[0], list(widgets[1:-1]), widgets[-1])

    async def close(self) -> None:
        await asyncio.gather(*(w.close() for w in self.widgets))

    async def play(self, stop: asyncio.Event, ledger: Ledger, pace: float = 0.3) -> None:
        """Drive the game: `pace` is the mean pause (s) before each host step."""
        rng = random.Random(self.id)
        try:
            while not stop.is_set():
                state = self.host.state
                if state.get("over"):
                    ledger.games_over += 1
                    return
                if await self._vote_if_open(state, ledger, rng):
                    continue
                await self._nominate_if_speaking(state, ledger, rng)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), rng.uniform(0.5, 1.5) * pace)
                if stop.is_set():
                    return
                await self._send(self.host, "next", ledger)
        except (ConnectionError, ConnectionClosed, TimeoutError) as error:
            if not ledger.halted:
                ledger.error("connection", f"{self.id}: {error!r}")

    async def _send(self, widget: Widget, type: str, ledger: Ledger, **fields: Any) -> int | None:
        """One request; the table version the sender had read at its ack (None if refused)."""
        ledger.messages[type] += 1
        sent = time.perf_counter()
        _, reply = await widget.request(type, **fields)
        ledger.ack_ms.append((time.perf_counter() - sent) * 1000)
        if reply["type"] != "ack":
            ledger.error(reply.get("error", "?"), f"{widget.label} {type} {fields}: {reply}")
            return None
        return widget.version

    async def _vote_if_open(
        self, state: dict[str, Any], ledger: Ledger, rng: random.Random
    ) -> bool:
        round_ = (state.get("vote") or {}).get("round")
        if state.get("phase") != "voting" or not round_ or not round_["open"]:
            return False
        waiting = list(round_["waiting"])  # eligible and not yet voted
        if not waiting:
            return False
        key = (state.get("day"), round_["number"], round_["kind"])
        candidates = list(round_["candidates"])

        async def cast(seat: int) -> int | None:
            await asyncio.sleep(rng.uniform(0, 0.3))  # voters do not press at the same instant
            widget = self.extra if seat == 7 and rng.random() < 0.5 else self.seats[seat - 1]
            if round_["kind"] == "lift":
                kind, value = "lift", rng.random() < 0.5
                fields: dict[str, Any] = {"leave": value}
            else:
                choices = [c for c in candidates if c != seat] or [None]
                kind, value = "vote", rng.choice(choices)
                fields = {"candidate": value}
            sent = time.perf_counter()
            ledger.messages[kind] += 1
            id, reply = await widget.request(kind, **fields)
            ledger.ack_ms.append((time.perf_counter() - sent) * 1000)
            if reply["type"] != "ack":
                ledger.error(reply.get("error", "?"), f"{widget.label} {kind}: {reply}")
                return None
            if not reply.get("duplicate"):
                ledger.acked.append(AckedVote(self.id, seat, id, kind, value, key))
                ledger.timings.append((sent, widget.version, self.widgets))
            return widget.version

        outcomes = await asyncio.gather(*(cast(seat) for seat in waiting), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        versions = [v for v in outcomes if isinstance(v, int)]
        # Wait until the host console has seen every accepted ballot before looking again.
        await self.host.wait_version(max(versions, default=0))
        return True

    async def _nominate_if_speaking(
        self, state: dict[str, Any], ledger: Ledger, rng: random.Random
    ) -> None:
        speaker = state.get("speaker")
        if state.get("phase") != "speech" or speaker is None or rng.random() < 0.4:
            return
        nominations = state.get("nominations") or []
        if any(by == speaker for by, _ in nominations):
            return
        taken = {target for _, target in nominations}
        targets = [s for s in state.get("alive", []) if s != speaker and s not in taken]
        if not targets:
            return
        version = await self._send(
            self.seats[speaker - 1], "nominate", ledger, target=rng.choice(targets)
        )
        if version is not None:
            await self.host.wait_version(version)


async def open_tables(
    server: ServerProcess,
    count: int,
    *,
    first_seed: int = 1,
    parallel: int = 10,
    overrides: dict[str, Any] | None = None,
) -> list[TableDriver]:
    """`count` tables, each with its 12 widgets connected (a few tables at a time)."""
    drivers: list[TableDriver] = []
    async with server.http() as http:
        for start in range(0, count, parallel):
            batch = range(start, min(count, start + parallel))
            drivers += await asyncio.gather(
                *(TableDriver.create(http, server.port, first_seed + i, overrides) for i in batch)
            )
    return drivers


def lost_votes(db: Path, ledger: Ledger) -> list[AckedVote]:
    """Acked votes that are not in the event log as the very ballot that was sent."""
    lost = []
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as log:
        for vote in ledger.acked:
            row = log.execute(
                "SELECT record, source FROM events WHERE table_id = ? AND client_id = ?",
                (vote.table_id, f"{vote.seat}/{vote.client_id}"),
            ).fetchone()
            if row is None or row[1] != str(vote.seat):
                lost.append(vote)
                continue
            record = json.loads(row[0])
            expected = (
                {"type": "vote", "voter": vote.seat, "candidate": vote.value}
                if vote.kind == "vote"
                else {"type": "lift", "voter": vote.seat, "leave": vote.value}
            )
            if record != expected:
                lost.append(vote)
    return lost


@dataclass(frozen=True, slots=True)
class LoadFigures:
    seconds: float
    server_cpu_percent: float  # of one core, averaged over the run
    server_rss_mb: float  # the largest seen during the run
    client_cpu_percent: float  # this process (the widgets), of one core


async def run_load(
    server: ServerProcess,
    drivers: list[TableDriver],
    ledger: Ledger,
    *,
    seconds: float,
    pace: float = 0.3,
    stop: asyncio.Event | None = None,
    overrides: dict[str, Any] | None = None,
) -> LoadFigures:
    """Play every table for `seconds` (or until `stop` is set); a finished game is replaced
    by a new table so the load keeps flowing. `drivers` gets the new tables too."""
    stop = stop or asyncio.Event()
    seeds = itertools.count(10_000 + len(drivers))

    async def keep_playing(driver: TableDriver, http: httpx.AsyncClient) -> None:
        while not stop.is_set():
            await driver.play(stop, ledger, pace)
            if stop.is_set() or ledger.halted or not driver.host.state.get("over"):
                return
            try:
                driver = await TableDriver.create(http, server.port, next(seeds), overrides)
            except (httpx.HTTPError, OSError, ConnectionError, TimeoutError) as error:
                if not ledger.halted:
                    ledger.error("new_table", repr(error))
                return
            drivers.append(driver)

    cpu0, client0, started = server.cpu_seconds(), time.process_time(), time.perf_counter()
    peak_rss = server.rss_mb()
    async with server.http() as http:
        tasks = [asyncio.create_task(keep_playing(d, http)) for d in list(drivers)]
        deadline = started + seconds
        while not stop.is_set() and time.perf_counter() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), min(1.0, deadline - time.perf_counter()))
            with contextlib.suppress(OSError):  # the process may be gone (crash tests)
                peak_rss = max(peak_rss, server.rss_mb())
        took = time.perf_counter() - started
        try:
            cpu = server.cpu_seconds() - cpu0
        except OSError:
            cpu = float("nan")
        stop.set()
        await asyncio.gather(*tasks)
    client = time.process_time() - client0
    return LoadFigures(
        seconds=took,
        server_cpu_percent=100 * cpu / took,
        server_rss_mb=peak_rss,
        client_cpu_percent=100 * client / took,
    )
