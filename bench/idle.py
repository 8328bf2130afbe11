"""Idle tables: a real `autohost serve` (embedded room, voice on) with many tables in their
lobby and nobody connected. What does the server cost when nothing happens? (issue 15:
"a table with nobody connected costs no CPU"; 300 idle tables took 83 % of a core before.)

    .venv/bin/python bench/idle.py [--tables 300] [--seconds 20] [--settle 8]

The tables are created through POST /api/tables, then the server is left alone for
`--settle` seconds (each table's voice rests after 5 s of silence) and its own CPU time is
read from /proc over `--seconds`. Last line: JSON {"idle_300_tables_cpu_percent": ...}.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing import ServerProcess


async def main(tables: int, seconds: float, settle: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "autohost.db")
        server.start()
        try:
            async with server.http() as http:
                for _ in range(tables):
                    answer = await http.post("/api/tables", json={"seats": 10})
                    answer.raise_for_status()
            await asyncio.sleep(settle)
            cpu, wall = server.cpu_seconds(), time.perf_counter()
            await asyncio.sleep(seconds)
            percent = 100 * (server.cpu_seconds() - cpu) / (time.perf_counter() - wall)
            rss = server.rss_mb()
        finally:
            code = server.stop()
    if code != 0:
        raise SystemExit(f"bench: the server exited with {code}")
    print(f"{tables} idle tables: {percent:.2f} % of a core, {rss:.0f} MB "
          f"(load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    return {
        f"idle_{tables}_tables_cpu_percent": round(percent, 2),
        f"idle_{tables}_tables_rss_mb": round(rss, 1),
        "load_average": round(os.getloadavg()[0], 2),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--settle", type=float, default=8.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.tables, args.seconds, args.settle))))
