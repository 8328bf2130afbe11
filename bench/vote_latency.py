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
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from testing import AsyncClient, ServerProcess, percentile, socket_url


async def open_table(client: httpx.AsyncClient, port: int, seed: int) -> list[AsyncClient]:
    body = {"seats": 10, "seed": seed, "overrides": {"simultaneous_window_seconds": 3600}}
    answer = await client.post("/api/tables", json=body)
    links = answer.json()
    assert answer.status_code == 201, links
    tokens = [links["host"]["token"], *(s["token"] for s in links["seats"])]
    tokens.append(links["seats"][6]["token"])  # a second tab of seat 7: 12 clients
    widgets = [await AsyncClient.open(socket_url(port, token)) for token in tokens]
    host, seats = widgets[0], widgets[1:11]
    await host.ack("start")
    nominations = {1: 5, 2: 6}
    while host.state.get("phase") != "voting":
        speaker = host.state.get("speaker")
        if host.state.get("phase") == "speech" and speaker in nominations:
            await seats[speaker - 1].ack("nominate", target=nominations.pop(speaker))
        version = host.version
        await host.ack("next")
        await host.newer_than(version)
    return widgets


async def timed_vote(widgets: list[AsyncClient], voter: AsyncClient, candidate: int) -> float:
    """Send one vote; milliseconds until every client of the table has read the new state."""
    version = max(w.version for w in widgets)
    await asyncio.gather(*(w.newer_than(version - 1) for w in widgets))
    waits = [w.newer_than(version) for w in widgets]
    started = time.perf_counter()
    await voter.ack("vote", candidate=candidate)  # a refused vote stops the bench here
    moments = await asyncio.gather(*waits)  # each the moment that client read the state
    return (max(moments) - started) * 1000


async def one_round(widgets: list[AsyncClient], pace: float) -> list[float]:
    """The ten seats cast their ballots of the open round, about `pace` seconds apart (a
    real table casts ~10 ballots in a 15 s window); no undo, nothing but votes."""
    latencies = []
    for seat in range(1, 11):
        await asyncio.sleep(random.uniform(0.5 * pace, 1.5 * pace))
        candidate = 6 if seat == 5 else 5  # no vote for oneself
        latencies.append(await timed_vote(widgets, widgets[seat], candidate))
    return latencies


async def vote_and_undo(widgets: list[AsyncClient], samples: int, seat: int = 8) -> list[float]:
    """`seat` votes, the host takes it back (undo, not timed), `samples` times."""
    host, voter = widgets[0], widgets[seat]
    latencies = []
    for _ in range(samples):
        latencies.append(await timed_vote(widgets, voter, 5))
        version = max(w.version for w in widgets)
        await host.ack("undo")
        await asyncio.gather(*(w.newer_than(version) for w in widgets))
    return latencies


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between votes")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            Path(tmp) / "autohost.db", options=["--proxy-connections-per-address", "0"]
        ) as server,
    ):  # 600 widgets from one address here (the cap is for a club's many)
        port = server.port
        async with server.http() as client:
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
            await asyncio.gather(*(w[0].ack("undo") for w in many))
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
