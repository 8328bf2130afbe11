"""Load on a real server, shared by bench/load.py and tests/load: a driver that plays one
table the way a club would over its 12 widgets (protocol clients), and what they were told.

- `TableDriver`: one table of 12 widgets (host console, ten seats, a second tab of seat 7).
  The host starts the game and presses `next`; the speaker nominates during his speech;
  every voter votes as soon as a round is open. Every acked vote goes into the `Ledger`,
  every refusal or lost connection is an error.
- `open_tables`, `run_load`: many tables on one `ServerProcess`, for a bounded time.
- `lost_votes(db, ledger)`: acked votes missing from the event log (must be none).
- `widgets_behind(ledger)`: waits until every widget has read the last ballot acked at
  its table, before they are closed; the ones that did not in time (must be none).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from .process import ServerProcess
from .socket_client import AsyncClient, socket_url

CLIENTS_PER_TABLE = 12  # host console + 10 seats + a second tab of seat 7


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
    timings: list[tuple[float, int, list[AsyncClient]]] = field(default_factory=list, repr=False)
    games_over: int = 0
    halted: bool = False  # the server is going away on purpose: lost connections are expected
    ack_ms: list[float] = field(default_factory=list, repr=False)  # message -> its ack
    # vote -> all widgets, measured by another process (bench/load.py's widget processes)
    measured_ms: list[float] = field(default_factory=list, repr=False)

    def error(self, code: str, detail: str) -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"{code}: {detail}")

    def vote_latencies_ms(self) -> list[float]:
        """Vote sent → the last of the table's widgets has a state that includes it."""
        found = list(self.measured_ms)
        for sent, version, widgets in self.timings:
            moments = [w.reached(version) for w in widgets]
            if all(m is not None for m in moments):
                found.append((max(m for m in moments if m is not None) - sent) * 1000)
        return found

    def to_json(self) -> dict[str, Any]:
        """What another process needs of this ledger (`merge` reads it back)."""
        return {
            "acked": [
                [a.table_id, a.seat, a.client_id, a.kind, a.value, a.round_key] for a in self.acked
            ],
            "errors": dict(self.errors),
            "error_samples": self.error_samples,
            "messages": dict(self.messages),
            "games_over": self.games_over,
            "ack_ms": self.ack_ms,
            "latencies_ms": self.vote_latencies_ms(),
        }

    def merge(self, other: dict[str, Any]) -> None:
        """Add what another process's ledger holds (its `to_json`)."""
        self.acked += [
            AckedVote(table, seat, client, kind, value, tuple(key))
            for table, seat, client, kind, value, key in other["acked"]
        ]
        self.errors.update(other["errors"])
        self.error_samples += other["error_samples"][: max(0, 20 - len(self.error_samples))]
        self.messages.update(other["messages"])
        self.games_over += other["games_over"]
        self.ack_ms += other["ack_ms"]
        self.measured_ms += other["latencies_ms"]


# --- one table -------------------------------------------------------------------------------


class TableDriver:
    """Plays one table over its 12 widgets until told to stop (or the game is over)."""

    def __init__(
        self, links: dict[str, Any], host: AsyncClient, seats: list[AsyncClient], extra: AsyncClient
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
        for attempt in range(3):
            try:
                answer = await http.post("/api/tables", json=body)
                break
            except (httpx.ReadError, httpx.RemoteProtocolError):
                # A kept-alive connection the server closed as it was reused (a busy
                # machine): ask again. At worst an extra table nobody joins.
                if attempt == 2:
                    raise
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
                AsyncClient.open(
                    socket_url(port, token), f"{links['id']}/{label}", compression=None
                )
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

    async def _send(
        self, widget: AsyncClient, type: str, ledger: Ledger, **fields: Any
    ) -> int | None:
        """One request; the table version the sender had read at its ack (None if refused)."""
        ledger.messages[type] += 1
        sent = time.perf_counter()
        reply = await widget.request(type, **fields)
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
            reply = await widget.request(kind, **fields)
            id = reply["id"]
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


async def widgets_behind(ledger: Ledger, timeout: float = 30) -> list[str]:
    """Wait until every widget of a table has read a state that includes the last ballot
    acked there; the widgets that had not within `timeout` seconds (must be none).

    A ballot acked just before a run stops may not have reached all 12 widgets of its
    table yet, and a widget that is closed reads no more: wait for this before closing
    them, or that ballot has no latency (Ledger.vote_latencies_ms)."""
    needed: dict[int, tuple[AsyncClient, int]] = {}  # id(widget): the widget, its version
    for _, version, widgets in ledger.timings:
        for widget in widgets:
            _, before = needed.get(id(widget), (widget, -1))
            needed[id(widget)] = (widget, max(before, version))
    waits = list(needed.values())
    outcomes = await asyncio.gather(
        *(widget.wait_version(version, timeout) for widget, version in waits),
        return_exceptions=True,
    )
    return [
        f"{widget.label}: read version {widget.version}, not {version} ({outcome!r})"
        for (widget, version), outcome in zip(waits, outcomes, strict=True)
        if outcome is not None
    ]


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
    cpu0, client0 = server.cpu_seconds(), time.process_time()
    peak_rss = server.rss_mb()

    def sample() -> None:
        nonlocal peak_rss
        with contextlib.suppress(OSError):  # the process may be gone (crash tests)
            peak_rss = max(peak_rss, server.rss_mb())

    took = await play_tables(
        server,
        drivers,
        ledger,
        seconds=seconds,
        pace=pace,
        stop=stop,
        overrides=overrides,
        each_second=sample,
    )
    try:
        cpu = server.cpu_seconds() - cpu0
    except OSError:
        cpu = float("nan")
    client = time.process_time() - client0
    return LoadFigures(
        seconds=took,
        server_cpu_percent=100 * cpu / took,
        server_rss_mb=peak_rss,
        client_cpu_percent=100 * client / took,
    )


async def play_tables(
    server: ServerProcess,
    drivers: list[TableDriver],
    ledger: Ledger,
    *,
    seconds: float,
    pace: float = 0.3,
    stop: asyncio.Event | None = None,
    overrides: dict[str, Any] | None = None,
    each_second: Callable[[], None] = lambda: None,
    replacement_seed: int = 0,
) -> float:
    """`run_load` without the figures: only `server.port` and `server.http()` are used, so
    another process (bench/load.py's widget processes) can drive tables of a server it did
    not start. New tables are dealt from `replacement_seed` on (0: 10 000 + the tables
    given). The seconds it played."""
    stop = stop or asyncio.Event()
    seeds = itertools.count(replacement_seed or 10_000 + len(drivers))

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

    started = time.perf_counter()
    async with server.http() as http:
        tasks = [asyncio.create_task(keep_playing(d, http)) for d in list(drivers)]
        deadline = started + seconds
        while not stop.is_set() and time.perf_counter() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), min(1.0, deadline - time.perf_counter()))
            each_second()
        took = time.perf_counter() - started
        stop.set()
        await asyncio.gather(*tasks)
    return took
