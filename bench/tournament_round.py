"""A tournament round's start (issue 34): from the organiser's start of a round until every
table's bot is speaking.

    .venv/bin/python bench/tournament_round.py [--tables 10] [--runs 3] [--quick]

A real server in this process (the club and its tournaments, the embedded room, the real
voice: the server's engine, RHVoice or espeak-ng, each table prerendering its phrases as
it opens; a SQLite log), a roster of ten players a table and a seated tournament. Then:
- `tournament_round_made_s`: POST .../start answered: every table of the round made,
  seated and hosted here (its bot's announcer made);
- `tournament_round_bot_speaks_s`: from that request until the last table's bot speaks, the
  judges having begun every game at once (POST .../play, right after the start): each
  table's announcer is read as its room reads it, and a table's bot speaks at its first
  voiced frame. The median of --runs rounds (a new server each), and the worst.
The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from plugin.club.pages import club_routes  # noqa: E402
from plugin.club.site import ClubSite  # noqa: E402
from plugin.eventlog import log_opener  # noqa: E402
from plugin.server.embedded import EmbeddedTables  # noqa: E402
from plugin.tournament.api import tournament_routes  # noqa: E402
from plugin.web.app import ServerConfig, create_app  # noqa: E402
from testing import serve  # noqa: E402

ADMIN = "bench-admin-key-0123456789"
VOICED = 200  # a sample above this is speech, not silence (bench/announce_latency.py)
SPEAK_WITHIN = 120.0  # seconds: a table whose bot is silent longer fails the run


async def first_voiced(voice: Any) -> float:
    """When the announcer's first voiced frame comes out (as the room reads its frames)."""
    track = voice.track()
    try:
        while True:
            frame = await track.recv()
            if np.abs(frame.to_ndarray().astype(np.int32)).max() > VOICED:
                return time.perf_counter()
    finally:
        track.stop()


async def one_round(tables: int, folder: Path) -> tuple[float, float]:
    rooms = EmbeddedTables(voice=True)
    site = ClubSite()
    config = ServerConfig(
        db_path=folder / "files", log=log_opener(folder / "log.db"), admin_key=ADMIN,
        secret=b"bench-secret-0123456789abcdef", room_factory=rooms.room,
        voice_factory=rooms.voice, member=site.member, max_tables=tables + 1,
        routes=(rooms.routes, club_routes(site), tournament_routes(site)),
    )  # fmt: skip
    app = create_app(config)
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=120) as http:
        server = app.state.server
        server.config = replace(server.config, base_url=url)
        headers = {"Authorization": f"Bearer {ADMIN}"}

        async def call(path: str, body: dict[str, Any]) -> Any:
            reply = await http.post(f"/api/club/{path}", json=body, headers=headers)
            assert reply.is_success, reply.text
            return reply.json()

        await call("settings", {"language": "uk"})
        nicks = [f"P{n}" for n in range(1, 10 * tables + 1)]
        for nick in nicks:
            await call("players", {"nick": nick})
        await call("tournaments", {"name": "Bench", "players": nicks, "tables": tables,
                                   "games": 1})  # fmt: skip
        await call("tournaments/t1/seat", {"seconds": 10})
        asked = time.perf_counter()
        started = await call("tournaments/t1/start", {"round": 0})
        made = time.perf_counter() - asked
        registry = server.registry
        listening = [
            asyncio.create_task(first_voiced(registry.tables[t["id"]].voice))
            for t in started["tables"]
        ]
        begun = await call("tournaments/t1/play", {"round": 0})
        assert len(begun["started"]) == tables, begun
        spoken = await asyncio.wait_for(asyncio.gather(*listening), SPEAK_WITHIN)
        return made, max(spoken) - asked


async def main(tables: int, runs: int) -> dict[str, float]:
    made, speaking = [], []
    for run in range(runs):
        with tempfile.TemporaryDirectory(prefix="tournament-bench-") as folder:
            answered, spoke = await one_round(tables, Path(folder))
        made.append(answered)
        speaking.append(spoke)
        print(f"run {run + 1}: {tables} tables made in {answered:.2f} s, every bot speaking "
              f"after {spoke:.2f} s", file=sys.stderr)  # fmt: skip
    return {
        "tournament_round_bot_speaks_s": round(statistics.median(speaking), 2),
        "tournament_round_bot_speaks_max_s": round(max(speaking), 2),
        "tournament_round_made_s": round(statistics.median(made), 2),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one run")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.tables, 1 if args.quick else args.runs))))
