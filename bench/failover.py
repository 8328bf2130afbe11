"""Failover time: SIGKILL of the server that hosts the tables, until every one of them
answers on another server (its host console gets the table's state over the protocol).

Two `autohost serve` (embedded room, --no-voice) on one fresh PostgreSQL cluster (Debian's,
run as the `postgres` user when root); `--tables` tables, created on the first; then
`--kills` times: find the server that hosts them, SIGKILL it, time until every table
answers on the other, start the killed one again (a new process) for the next round.
With a lease of 3 s and a heartbeat of 1 s the floor is what was left of the dead
server's lease plus the next claim pass.

    .venv/bin/python bench/failover.py [--kills 10] [--tables 3]

Last line: JSON {"failover_s": median, "failover_s_max": ..., ...} (goal: under 3 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from plugin.signing import Signer  # noqa: E402
from testing import AsyncClient, ServerProcess  # noqa: E402
from testing.postgres import PostgresServer, binaries  # noqa: E402

ANSWER_SECONDS = 30  # a failover slower than this is a failure, not a figure


def hosted(server: ServerProcess) -> set[str]:
    try:
        answer = httpx.get(
            server.base + "/api/tables",
            headers={"Authorization": f"Bearer {server.admin_key}"},
            timeout=2,
        )
        return {t["id"] for t in answer.json() if "broken" not in t}
    except httpx.HTTPError:
        return set()


async def answers(server: ServerProcess, table_id: str, deadline: float) -> None:
    """Until the table's host console gets its state from `server`. Asks the admin API
    whether the server hosts it yet, then connects (a socket a few ms apart would meet the
    server's connection rate limit, not the failover)."""
    token = Signer(server.secret.encode()).issue(table_id, "host")
    while table_id not in await asyncio.to_thread(hosted, server):
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {table_id} never hosted by {server.base}")
        await asyncio.sleep(0.02)
    while True:
        try:
            client = await asyncio.wait_for(AsyncClient.open(server.ws_url(token)), 5)
            await client.close()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {table_id} never answered on {server.base}") from None
            await asyncio.sleep(0.02)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--tables", type=int, default=3)
    args = parser.parse_args()
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("failover: PostgreSQL is missing (apt-get install postgresql)")
    postgres = PostgresServer(bin_dir)
    servers: list[ServerProcess] = []
    try:
        postgres.start()
        dsn = postgres.new_database()
        servers = [ServerProcess(dsn, options=["--no-voice"]) for _ in range(2)]
        for server in servers:
            server.start()
        headers = {"Authorization": f"Bearer {servers[0].admin_key}"}
        ids = [
            httpx.post(servers[0].base + "/api/tables", json={}, headers=headers, timeout=30)
            .raise_for_status()
            .json()["id"]
            for _ in range(args.tables)
        ]
        times: list[float] = []
        for _ in range(args.kills):
            deadline = time.monotonic() + ANSWER_SECONDS
            while True:  # wait until one server hosts every table
                owners = [s for s in servers if set(ids) <= hosted(s)]
                if owners:
                    break
                assert time.monotonic() < deadline, "the tables never settled on one server"
                await asyncio.sleep(0.05)
            owner = owners[0]
            (other,) = [s for s in servers if s is not owner]
            killed = time.monotonic()
            owner.kill()
            deadline = killed + ANSWER_SECONDS
            await asyncio.gather(*(answers(other, t, deadline) for t in ids))
            times.append(time.monotonic() - killed)
            owner.start()
        print(
            json.dumps(
                {
                    "failover_s": round(statistics.median(times), 3),
                    "failover_s_max": round(max(times), 3),
                    "failover_kills": len(times),
                    "failover_tables": len(ids),
                    "failover_s_all": [round(t, 3) for t in times],
                }
            )
        )
    finally:
        for server in servers:
            if server.alive():
                server.kill()
        postgres.remove()


if __name__ == "__main__":
    asyncio.run(main())
