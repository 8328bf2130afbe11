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
  every table's bot is heard speaking its first announcement by a spectator's audio at
  that table (the watch link, receive-only WebRTC into the embedded room, as a spectator's
  page joins it; voiced: RMS over 200, looked at every 20 ms). It includes what a round's
  start really needs: 10 tables made and hosted (their voices), 110 sockets and 10 audio
  listeners joining them (each host starts his game once his table's have), each game
  started, its first phrase said. The slowest round's. With `--media none` (no room, no
  voice) it is until every table's game has begun instead.
- `tournament_cpu_per_table_percent`: the server process's CPU time (user + system, every
  thread) over the wall time of a round (its start's request until its last sheet is
  signed), divided by its tables, in % of one core; the median round's. It is the game's
  own work (inputs checked and logged, views to 12 sockets, the bot's voice to one
  listener), played fast (a host who moves a game on after 0.1 s of quiet: an hour's game
  in about 20 s); the players' microphones are not sent here (bench/table_cpu.py measures
  what forwarding them costs).

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
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plugin.rooms.embedded.client import RoomClient, http_answerer
from plugin.sim.tournament import Organiser, Plan, play_round, seat, setup
from testing import ServerProcess

VOICED = 200.0  # RMS over a poll's frames above which the bot is speaking (silence: ~0)
POLL = 0.02  # seconds between a listener's looks at what it received


class Listener:
    """A spectator's audio at one table (the watch link, receive-only, as a spectator's page
    joins the embedded room): when it first heard the bot speak (time.monotonic)."""

    def __init__(self, base: str, links: dict[str, Any]) -> None:
        self.client = RoomClient(keep_seconds=1, listen_only=True)
        self.url = f"{base}/rtc/{links['id']}/offer"
        self.token = links["watch"]["token"]
        self.heard: float | None = None
        self.joined = 0.0
        self._task: asyncio.Task[None] | None = None

    async def join(self) -> None:
        await self.client.connect(http_answerer(self.url, self.token), timeout=30)
        self.joined = time.monotonic()
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        looked = time.monotonic()
        while True:
            await asyncio.sleep(POLL)
            now = time.monotonic()
            if self.client.loudness(since=looked) > VOICED:
                self.heard = now  # at most POLL late
                return
            looked = now

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        await self.client.close()


async def listen(base: str, into: list[Listener], links: dict[str, Any]) -> None:
    """A table's listener, joined before its host starts the game (as the players' pages)."""
    listener = Listener(base, links)
    into.append(listener)
    await listener.join()


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
                listeners: list[Listener] = []
                hear = partial(listen, server.base, listeners) if media == "embedded" else None
                cpu0, wall0, began = server.cpu_seconds(), time.perf_counter(), time.monotonic()
                try:
                    played = await play_round(org, plan, tid, 0, round_, rng=rng,
                                              secret=server.secret.encode(),
                                              before_start=hear)  # fmt: skip
                finally:
                    for listener in listeners:
                        await listener.close()
                cpu, wall = server.cpu_seconds() - cpu0, time.perf_counter() - wall0
                if hear is not None:  # the bots heard: from the start's request on
                    heard = [x.heard for x in listeners]
                    if None in heard or len(heard) != len(played.games):
                        raise SystemExit(f"bench: round {round_ + 1}: a bot was never heard")
                    joined = max(x.joined for x in listeners) - began
                    print(f"  (every listener joined after {joined:.2f} s, every game begun "
                          f"after {played.start_s:.2f} s)")  # fmt: skip
                    played.start_s = max(h for h in heard if h is not None) - began
                errors = [e for g in played.games for e in g.errors]
                if errors:
                    raise SystemExit(f"bench: round {round_ + 1}: {errors[:3]}")
                per_table = 100 * cpu / wall / len(played.games)
                starts.append(played.start_s)
                cpus.append(per_table)
                walls.append(wall)
                print(f"round {round_ + 1}: every bot of {len(played.games)} tables "
                      f"{'heard' if hear else 'begun'} after {played.start_s:.2f} s, all "
                      f"signed after {wall:.1f} s; server CPU "
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
