"""The whole tournament on two servers sharing PostgreSQL, one SIGKILLed mid-round (issue 34).

A fresh PostgreSQL cluster on loopback (testing.postgres) and two real `autohost serve`
processes on one database (no rooms, no voice: the games' own path). The tournament of
`autohost simulate --tournament` (100 players, 10 tables, 10 qualifying rounds, a
semi-final of 20 on 2 tables and a final of 10, by default) is played through both servers
(plugin.sim.tournament: every socket is given both and moves to the other when its server
is gone or says the table is hosted elsewhere). Every round is started through the first
server while it lives, so it makes and hosts every table; in round `--kill-round` it is
SIGKILLed once each table's game is well under way (25 events). The survivor claims the
tables' leases and the games go on there; the rest of the tournament is played on it.

Figures (the last line, JSON):
- `tournament_failover_lost_inputs` (goal 0): inputs the server acked to a simulated player
  or host that are not in their table's log after the run, over the whole tournament.
- `tournament_failover_standings_equal` (goal 1): 1 when the standings the survivor
  publishes equal their recomputation from the club's records alone, every game's protocol
  is complete and every round finished by its sheets; else 0.
- `tournament_failover_resumed_s`: from the SIGKILL until every killed table has a new
  event in the log (the survivor claimed it, replayed it, and its game went on): the
  slowest table's.

    .venv/bin/python bench/tournament_failover.py [--players 100 --tables 10 --games 10]
        [--kill-round 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plugin.cli.simulate import summarise
from plugin.sim.tournament import Plan, StagePlan, run
from testing import ServerProcess
from testing.postgres import running_postgres

UNDER_WAY = 25  # events in each table's log before the kill


def counts(dsn: str, tables: list[str]) -> dict[str, int]:
    with psycopg.connect(dsn, connect_timeout=5) as db:
        rows = db.execute(
            "SELECT table_id, count(*) FROM events WHERE table_id = ANY(%s) GROUP BY table_id",
            (tables,),
        ).fetchall()
    found = {table: int(n) for table, n in rows}
    return {table: found.get(table, 0) for table in tables}


async def main(plan: Plan, kill_round: int) -> dict[str, Any]:
    with running_postgres() as postgres:
        dsn = postgres.new_database()
        servers = [ServerProcess(dsn, options=["--room", "none", "--no-voice"]) for _ in "ab"]
        for server in servers:
            server.start()
        first, second = servers
        moments: dict[str, float] = {}

        async def during(stage: int, round_: int, tables: list[dict[str, Any]]) -> None:
            if (stage, round_) != (0, kill_round):
                return
            ids = [t["id"] for t in tables]
            deadline = time.monotonic() + 120
            while min((await asyncio.to_thread(counts, dsn, ids)).values()) < UNDER_WAY:
                if time.monotonic() > deadline:
                    raise SystemExit("bench: the games did not get going")
                await asyncio.sleep(0.1)
            before = await asyncio.to_thread(counts, dsn, ids)
            first.kill()
            killed = moments["killed"] = time.monotonic()
            print(f"round {round_ + 1}: the first server SIGKILLed with every game under way",
                  flush=True)  # fmt: skip
            while True:
                now = await asyncio.to_thread(counts, dsn, ids)
                if all(now[t] > before[t] for t in ids):
                    moments["resumed"] = time.monotonic() - killed
                    return
                if time.monotonic() - killed > 120:
                    raise SystemExit("bench: the survivor did not take the tables over")
                await asyncio.sleep(0.05)

        began = time.perf_counter()
        try:
            outcome = await run(plan, [first.base, second.base], admin_key=first.admin_key,
                                secret=first.secret.encode(), during=during,
                                progress=lambda line: print(line, flush=True))  # fmt: skip
            summary = summarise(plan, outcome, dsn, time.perf_counter() - began)
        finally:
            for server in servers:
                if server.alive():
                    server.stop()
    print(json.dumps({k: v for k, v in summary.items() if k != "problems"}))
    for problem in summary["problems"]:
        print("problem:", problem)
    return {
        "tournament_failover_lost_inputs": summary["acked_not_logged"],
        "tournament_failover_standings_equal": int(summary["ok"]),
        "tournament_failover_resumed_s": round(moments["resumed"], 2),
        "tournament_failover_games": summary["games"],
        "tournament_failover_acked_inputs": summary["acked_inputs"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--kill-round", type=int, default=5, help="from 1")
    parser.add_argument("--quick", action="store_true", help="20 players, 2 tables, a final")
    args = parser.parse_args()
    if args.quick:
        plan = Plan(players=20, tables=2, games=2, stages=(StagePlan("final", 10, 1, 1),),
                    seat_seconds=1)  # fmt: skip
        args.kill_round = 1
    else:
        plan = Plan(players=args.players, tables=args.tables, games=args.games)
    result = asyncio.run(main(plan, args.kill_round - 1))
    print(json.dumps(result))
    sys.exit(0 if result["tournament_failover_standings_equal"] else 1)
