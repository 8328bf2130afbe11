"""Server CPU for tables of 10 players with audio (goal: at least two tables of 10 per core
under 50%). Each scenario runs in a fresh process: EmbeddedRoom tables served over HTTP
signalling on loopback, each with a bot voice (a tone) and one allowed speaker; the 10
players per table are aiortc clients in another process (bench/_peers.py), so only the
server's CPU is counted (time.process_time: every thread of the server process).

Scenarios:
- all-send: every page keeps sending its microphone (the worst case: pages that ignore
  setSending(false)); the server decodes 10 streams and forwards one.
- speaker-sends: only the speaker's page sends (what media.js pages do).
- released: release_all(), everybody speaks at once (after the game): 10 mixes, 10 encodes.

Usage: .venv/bin/python bench/table_cpu.py [--seconds 10]
Last line: {"table_cpu_percent": .., "memory_mb_per_table": .., ...}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._table import peers, tables

PLAYERS = 10
WARMUP_SECONDS = 3.0
SCENARIOS = [  # (name, tables, who sends, release_all)
    ("all-send", 1, "all", False),
    ("speaker-sends", 1, "speaker", False),
    ("all-send", 2, "all", False),
    ("released", 1, "all", True),
]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def scenario(count: int, senders: str, release: bool, seconds: float) -> dict[str, float]:
    before = rss_mb()
    specs = [f"{seat}:{500 + 100 * seat}" for seat in range(1, PLAYERS + 1)]
    if senders == "speaker":
        specs = [specs[0]] + [f"{seat}:mute" for seat in range(2, PLAYERS + 1)]
    async with contextlib.AsyncExitStack() as stack:
        url, rooms = await stack.enter_async_context(tables(count))
        for i in range(count):
            await stack.enter_async_context(peers(url, f"t{i + 1}", specs))
        for room in rooms:
            if release:
                await room.release_all()
            else:
                await room.set_speakers(frozenset({1}))
        await asyncio.sleep(WARMUP_SECONDS)
        connected = sum(len(room.present) for room in rooms)
        cpu, wall = time.process_time(), time.monotonic()
        ticks = [room.ticks for room in rooms]
        await asyncio.sleep(seconds)
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        ticks = [room.ticks - start for room, start in zip(rooms, ticks, strict=True)]
        forwarded = sum(room.stats()[1].frames_forwarded for room in rooms)
        after = rss_mb()
    return {
        "tables": count,
        "peers": connected,
        "cpu_percent": round(100 * cpu / wall, 1),
        # A starved process does less work (the mixer skips ticks): scale to 50 ticks/s.
        "cpu_percent_at_50_ticks": round(100 * cpu / wall * 50 / max(1, min(ticks) / wall), 1),
        "memory_mb_per_table": round((after - before) / count, 1),
        "ticks_per_second": round(min(ticks) / wall, 1),
        "speaker_frames_forwarded": forwarded,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # name,tables,senders,release
    args = parser.parse_args()
    if args.one:
        name, count, senders, release = args.one.split(",")
        result = asyncio.run(scenario(int(count), senders, release == "1", args.seconds))
        print(json.dumps({"scenario": name, **result}))
        return 0

    rows = []
    for name, count, senders, release in SCENARIOS:
        spec = f"{name},{count},{senders},{int(release)}"
        out = subprocess.run(
            [sys.executable, __file__, "--seconds", str(args.seconds), "--one", spec],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            print(out.stdout, out.stderr, file=sys.stderr)
            return 1
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    header = ("scenario", "tables", "peers", "cpu %", "ticks/s", "cpu % @50", "MB/table")
    print("{:<14} {:>6} {:>5} {:>6} {:>7} {:>9} {:>8}".format(*header))
    for row in rows:
        print(
            f"{row['scenario']:<14} {row['tables']:>6} {row['peers']:>5} {row['cpu_percent']:>6}"
            f" {row['ticks_per_second']:>7} {row['cpu_percent_at_50_ticks']:>9}"
            f" {row['memory_mb_per_table']:>8}"
        )
    load = os.getloadavg()[0]
    print(f"machine load average {load:.1f} on {os.cpu_count()} cores (figures are noisy above 1)")
    one = rows[0]
    two = rows[2]
    print(
        f"one table of {PLAYERS} (all pages sending): {one['cpu_percent']}% of a core; "
        f"two tables: {two['cpu_percent']}% (goal: under 50%)"
    )
    summary = {
        "table_cpu_percent": one["cpu_percent"],
        "memory_mb_per_table": one["memory_mb_per_table"],
        "two_tables_cpu_percent": two["cpu_percent"],
        "two_tables_cpu_percent_at_50_ticks": two["cpu_percent_at_50_ticks"],
        "speaker_only_cpu_percent": rows[1]["cpu_percent"],
        "released_cpu_percent": rows[3]["cpu_percent"],
        "load_average": round(load, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
