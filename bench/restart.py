"""Time from a restart to every table ready, for 50 tables with games in progress.

Builds 50 tables in a fresh SQLite log (each: night zero, day 1 speeches with nominations,
a vote under way), then measures:
1. in-process: a new Registry replaying the whole log (`Registry.start`), three times;
2. a real `autohost serve` process on that log killed with SIGKILL and started again with
   the same command: from the spawn to the "listening" line, and to every table's host
   console having received its state over the WebSocket protocol.

    .venv/bin/python bench/restart.py [--tables 50]

Last line: JSON {"restart_to_ready_s": ..., ...} (goal: under 2 s for 50 tables).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from plugin.eventlog import open_log  # noqa: E402
from plugin.host.inputs import HOST, Next, Nominate, Start, Vote  # noqa: E402
from plugin.host.registry import Registry  # noqa: E402
from plugin.host.settings import TableSettings  # noqa: E402
from plugin.signing import Signer  # noqa: E402
from plugin.web.hub import Hub  # noqa: E402
from testing import AsyncClient, ServerProcess  # noqa: E402

SECRET = "bench-secret-0123456789abcdef0123"


async def play_into_a_vote(registry: Registry, index: int) -> str:
    """One table, its game taken into the day-1 vote with a few ballots cast."""
    settings = TableSettings(seats=10, seed=index, overrides={"simultaneous_window_seconds": 600})
    table = await registry.create(settings)
    await table.submit(HOST, Start())
    nominations = {1: 5, 2: 6, 3: 7}
    while table.state.phase.value != "voting":
        speaker = table.state.speaker
        if table.state.phase.value == "speech" and speaker in nominations:
            await table.submit(speaker, Nominate(target=nominations.pop(speaker)))
        await table.submit(HOST, Next())
    for voter, candidate in [(1, 5), (2, 6), (3, 7), (4, 5)]:
        await table.submit(voter, Vote(candidate=candidate))
    return table.id


async def build(db: Path, tables: int) -> tuple[list[str], int]:
    registry = Registry(open_log(db), hub=Hub())
    await registry.start()
    ids = [await play_into_a_vote(registry, i) for i in range(tables)]
    events = sum(len(registry.log.entries(t)) for t in ids)
    await registry.close()
    return ids, events


async def rebuild_in_process(db: Path) -> float:
    started = time.perf_counter()
    registry = Registry(open_log(db), hub=Hub())
    await registry.start()
    elapsed = time.perf_counter() - started
    assert all(t.state.phase.value == "voting" for t in registry.tables.values())
    await registry.close()
    return elapsed


async def all_tables_answer(server: ServerProcess, ids: list[str]) -> None:
    signer = Signer(server.secret.encode())

    async def one(table_id: str) -> None:
        client = await AsyncClient.open(server.ws_url(signer.issue(table_id, HOST)))
        try:
            assert client.state["phase"] == "voting", client.state
        finally:
            await client.close()

    await asyncio.gather(*(one(t) for t in ids))


async def restart_subprocess(db: Path, ids: list[str]) -> tuple[float, float]:
    server = ServerProcess(db, admin_key="bench", secret=SECRET)
    server.start()
    server.kill()
    started = time.perf_counter()
    listening = server.start()  # the same command, the same port
    await all_tables_answer(server, ids)
    ready = time.perf_counter() - started
    server.stop()
    return listening, ready


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "autohost.db"
        os.environ["AUTOHOST_SECRET"] = SECRET
        started = time.perf_counter()
        ids, events = await build(db, args.tables)
        took = time.perf_counter() - started
        print(f"built {len(ids)} tables, {events} logged events, in {took:.2f} s")
        replays = [await rebuild_in_process(db) for _ in range(3)]
        for i, seconds in enumerate(replays, 1):
            print(f"in-process registry rebuild #{i}: {seconds * 1000:.0f} ms")
        listening, ready = await restart_subprocess(db, ids)
        print(f"subprocess after SIGKILL: spawn -> listening {listening:.2f} s")
        print(f"subprocess after SIGKILL: spawn -> all {len(ids)} tables answered {ready:.2f} s")
    load = os.getloadavg()[0]
    print(f"machine load average (1 min) at the end: {load:.1f} on {os.cpu_count()} cores")
    print(
        json.dumps(
            {
                "load_average": round(load, 1),
                "tables": len(ids),
                "events": events,
                "registry_rebuild_s": round(min(replays), 3),
                "restart_to_listening_s": round(listening, 3),
                "restart_to_ready_s": round(ready, 3),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
