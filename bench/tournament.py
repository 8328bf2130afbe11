"""A tournament's rounds on one real server (issue 34): how long a round takes to get going,
and what a playing table costs the server.

A real `autohost serve` process on loopback (a temporary SQLite log; the embedded room and
the voice by default, as a club runs it: every table's phrases are rendered as it opens)
with 100 players on its roster and a tournament of 10 tables per round. Each round is
started through the server (`POST /api/club/tournaments/{id}/start`: the server makes and
hosts its 10 tables) and played by simulated people in this process (plugin.sim.tournament:
ten players and a host per table over the table protocol, a judge signing each sheet), so
the server's CPU is the server's alone.

- `tournament_round_start_s` (goal under 5 s for 10 tables): from the start's request until
  the last of the round's tables had begun its game, i.e. its bot spoke its first
  announcement (the game's start is published and its announcement handed to the voice in
  the same step: plugin.host.table.follow). It includes what a round's start really needs:
  10 tables made and hosted, 110 sockets joining them, each game started by its host. The
  slowest round's.
- `tournament_cpu_per_table_percent`: the server process's CPU time (user + system, every
  thread) over the wall time of a round (its start's request until its last sheet is
  signed), divided by its tables, in % of one core; the median round's. The games are
  played fast (a host who moves them on after 0.1 s of quiet): a table here does in
  seconds what a real one does in an hour, so this is an upper bound of a real table's
  cost, not its cost.

    .venv/bin/python bench/tournament.py [--rounds 3] [--tables 10] [--media embedded|none]

Last line: JSON {"tournament_round_start_s": ..., "tournament_cpu_per_table_percent": ...}.
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

from plugin.sim.tournament import Organiser, Plan, play_round, seat, setup
from testing import ServerProcess


async def main(rounds: int, tables: int, media: str) -> dict[str, object]:
    players = 10 * tables
    plan = Plan(players=players, tables=tables, games=rounds, stages=(), seed=1, seat_seconds=5)
    options = ["--room", media] + (["--no-voice"] if media == "none" else [])
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "autohost.db", options=options)
        server.start()
        org = Organiser([server.base], server.admin_key)
        rng = random.Random(1)
        starts, cpus, walls = [], [], []
        try:
            tid = await setup(org, plan)
            await seat(org, plan, tid, 0)
            for round_ in range(rounds):
                cpu0, wall0 = server.cpu_seconds(), time.perf_counter()
                played = await play_round(org, plan, tid, 0, round_,
                                          secret=server.secret.encode(), rng=rng)  # fmt: skip
                cpu, wall = server.cpu_seconds() - cpu0, time.perf_counter() - wall0
                errors = [e for g in played.games for e in g.errors]
                if errors:
                    raise SystemExit(f"bench: round {round_ + 1}: {errors[:3]}")
                per_table = 100 * cpu / wall / len(played.games)
                starts.append(played.start_s)
                cpus.append(per_table)
                walls.append(wall)
                print(f"round {round_ + 1}: {len(played.games)} tables begun after "
                      f"{played.start_s:.2f} s, all signed after {wall:.1f} s; server CPU "
                      f"{100 * cpu / wall:.0f}% of a core, {per_table:.1f}% per table "
                      f"({sum(g.host_steps for g in played.games)} host steps, "
                      f"{sum(g.moves for g in played.games)} players' moves)",
                      flush=True)  # fmt: skip
        finally:
            await org.close()
            code = server.stop()
    print(f"server exit status {code}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores (other work on the machine slows the start)")  # fmt: skip
    return {
        "tournament_round_start_s": round(max(starts), 3),
        "tournament_round_start_s_median": round(statistics.median(starts), 3),
        "tournament_cpu_per_table_percent": round(statistics.median(cpus), 1),
        "tournament_round_seconds_median": round(statistics.median(walls), 1),
        "tournament_tables": tables,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--media", choices=("embedded", "none"), default="embedded")
    parser.add_argument("--quick", action="store_true", help="one round")
    args = parser.parse_args()
    result = asyncio.run(main(1 if args.quick else args.rounds, args.tables, args.media))
    print(json.dumps(result))
