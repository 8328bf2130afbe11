"""Vote message → every widget of the table has the new state: p50/p99, over real sockets.

A real `autohost serve` process; one table with 12 WebSocket clients (the host console, the
ten seats, a second tab of seat 7), then 50 such tables (600 clients), each casting its
round's ten ballots at a club's pace (~1 s apart), then all voting back to back with an
undo after each vote (saturation). Each sample: a seat sends a vote, the clock stops when
all 12 clients of that table have read a state with a newer version. The clients run in
this process, on the same 2 cores as the server (and whatever else the machine runs: the
load average is printed).

    .venv/bin/python bench/vote_latency.py [--samples 300] [--tables 50]

Last line: JSON {"vote_to_widgets_p99_ms": ..., "vote_to_widgets_p99_ms_50_tables": ...}.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "bench-admin"
_ids = itertools.count(1)


class Widget:
    """One client: a reader task keeps the newest state version it has read."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.version = -1
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._waiters: list[tuple[int, asyncio.Future[float]]] = []
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, token: str) -> Widget:
        ws = await connect(f"ws://127.0.0.1:{port}/ws?token={token}", max_queue=None)
        widget = cls(ws)
        await widget.newer_than(-1)
        return widget

    async def _read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            if message["type"] == "state":
                self.state, self.version = message, message["table"]["version"]
                now = time.perf_counter()
                for entry in [w for w in self._waiters if self.version > w[0]]:
                    self._waiters.remove(entry)
                    entry[1].set_result(now)
            elif message.get("id") in self._replies:
                self._replies.pop(message["id"]).set_result(message)

    def newer_than(self, version: int) -> asyncio.Future[float]:
        """Resolves with the moment a state newer than `version` was read."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.version > version:
            future.set_result(time.perf_counter())
        else:
            self._waiters.append((version, future))
        return future

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        id = f"b{next(_ids)}"
        reply = asyncio.get_running_loop().create_future()
        self._replies[id] = reply
        await self.ws.send(json.dumps({"v": 1, "id": id, "type": type, **fields}))
        message = await reply
        assert message["type"] == "ack", message
        return message

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


async def open_table(client: httpx.AsyncClient, port: int, seed: int) -> list[Widget]:
    body = {"seats": 10, "seed": seed, "overrides": {"simultaneous_window_seconds": 3600}}
    answer = await client.post("/api/tables", json=body)
    links = answer.json()
    assert answer.status_code == 201, links
    tokens = [links["host"]["token"], *(s["token"] for s in links["seats"])]
    tokens.append(links["seats"][6]["token"])  # a second tab of seat 7: 12 clients
    widgets = [await Widget.open(port, token) for token in tokens]
    host, seats = widgets[0], widgets[1:11]
    await host.request("start")
    nominations = {1: 5, 2: 6}
    while host.state.get("phase") != "voting":
        speaker = host.state.get("speaker")
        if host.state.get("phase") == "speech" and speaker in nominations:
            await seats[speaker - 1].request("nominate", target=nominations.pop(speaker))
        version = host.version
        await host.request("next")
        await host.newer_than(version)
    return widgets


async def timed_vote(widgets: list[Widget], voter: Widget, candidate: int) -> float:
    """Send one vote; milliseconds until every client of the table has read the new state."""
    version = max(w.version for w in widgets)
    await asyncio.gather(*(w.newer_than(version - 1) for w in widgets))
    waits = [w.newer_than(version) for w in widgets]
    started = time.perf_counter()
    await voter.request("vote", candidate=candidate)  # a refused vote stops the bench here
    moments = await asyncio.gather(*waits)  # each the moment that client read the state
    return (max(moments) - started) * 1000


async def one_round(widgets: list[Widget], pace: float) -> list[float]:
    """The ten seats cast their ballots of the open round, about `pace` seconds apart (a
    real table casts ~10 ballots in a 15 s window); no undo, nothing but votes."""
    latencies = []
    for seat in range(1, 11):
        await asyncio.sleep(random.uniform(0.5 * pace, 1.5 * pace))
        candidate = 6 if seat == 5 else 5  # no vote for oneself
        latencies.append(await timed_vote(widgets, widgets[seat], candidate))
    return latencies


async def vote_and_undo(widgets: list[Widget], samples: int, seat: int = 8) -> list[float]:
    """`seat` votes, the host takes it back (undo, not timed), `samples` times."""
    host, voter = widgets[0], widgets[seat]
    latencies = []
    for _ in range(samples):
        latencies.append(await timed_vote(widgets, voter, 5))
        version = max(w.version for w in widgets)
        await host.request("undo")
        await asyncio.gather(*(w.newer_than(version) for w in widgets))
    return latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between votes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        command = [sys.executable, "-m", "plugin.cli", "serve", "--port", str(port),
                   "--db", str(Path(tmp) / "autohost.db"), "--admin-key", ADMIN]  # fmt: skip
        env = {**os.environ, "AUTOHOST_SECRET": "bench-secret-0123456789abcdef0123"}
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and "listening" in server.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {ADMIN}"}
        try:
            async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
                one = await open_table(client, port, seed=1)
                single = await vote_and_undo(one, args.samples)
                for widget in one:
                    await widget.close()
                print(f"1 table, 12 clients, {len(single)} votes (each undone after): "
                      f"p50 {statistics.median(single):.1f} ms, "
                      f"p99 {percentile(single, 0.99):.1f} ms, "
                      f"max {max(single):.1f} ms")  # fmt: skip
                many = [await open_table(client, port, seed=i) for i in range(args.tables)]
                results = await asyncio.gather(*(one_round(w, args.pace) for w in many))
                spread = [value for result in results for value in result]
                print(f"{args.tables} tables, {12 * args.tables} clients, each table's ten "
                      f"ballots ~{args.pace} s apart, {len(spread)} votes: "
                      f"p50 {statistics.median(spread):.1f} ms, "
                      f"p99 {percentile(spread, 0.99):.1f} ms, "
                      f"max {max(spread):.1f} ms")  # fmt: skip
                # Every seat has voted: take seat 10's ballot back, then seat 10 votes again.
                await asyncio.gather(*(w[0].request("undo") for w in many))
                started = time.perf_counter()
                results = await asyncio.gather(*(vote_and_undo(w, 10, seat=10) for w in many))
                took = time.perf_counter() - started
                flood = [value for result in results for value in result]
                rate = len(flood) / took
                print(f"{args.tables} tables voting back to back (saturation): {rate:.0f} votes/s"
                      f" (each with an undo), p50 {statistics.median(flood):.1f} ms, "
                      f"p99 {percentile(flood, 0.99):.1f} ms")  # fmt: skip
                for widgets in many:
                    for widget in widgets:
                        await widget.close()
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
            server.stdout.close()
    load = os.getloadavg()[0]
    print(f"machine load average (1 min) at the end: {load:.1f} on {os.cpu_count()} cores")
    print(
        json.dumps(
            {
                "load_average": round(load, 1),
                "vote_to_widgets_p50_ms": round(statistics.median(single), 2),
                "vote_to_widgets_p99_ms": round(percentile(single, 0.99), 2),
                "vote_to_widgets_p50_ms_50_tables": round(statistics.median(spread), 2),
                "vote_to_widgets_p99_ms_50_tables": round(percentile(spread, 0.99), 2),
                "saturated_votes_per_s_50_tables": round(rate),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
