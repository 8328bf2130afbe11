"""The event log under a club's write load, in process: how long an accepted input waits to
be durable, and how late a 20 ms ticker (what the embedded room's audio mixer is) runs on
the same event loop meanwhile.

`--tables` tables each commit an input every `--every` seconds on average (random gaps),
for `--seconds`, through `EventLog.commit` on a SQLite file on the project's disk; the
once-a-second clock save runs too. A ticker wakes every 20 ms and records how late it was.

    .venv/bin/python bench/log_commit.py [--tables 50] [--every 0.5] [--seconds 20]

Last line: JSON {"log_commit_p50_ms", "log_commit_p99_ms", "log_loop_lag_p99_ms",
"log_loop_lag_max_ms", "log_rows_per_transaction", ...}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plugin.eventlog import EventLog, SqliteStore
from plugin.host.ports import ClockRow
from testing import percentile

TICK = 0.020


async def _table(log: EventLog, table_id: str, every: float, until: float, waits: list[float]):
    rng = random.Random(table_id)
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        await asyncio.sleep(rng.expovariate(1 / every))
        start = time.perf_counter()
        await log.commit(table_id, {"type": "vote", "voter": rng.randint(1, 10)}, source="3")
        waits.append(time.perf_counter() - start)


async def _ticker(until: float, lags: list[float]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time()
    while loop.time() < until:
        deadline += TICK
        await asyncio.sleep(max(0.0, deadline - loop.time()))
        lags.append(max(0.0, loop.time() - deadline))


async def _clock_saver(log: EventLog, tables: list[str], until: float) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        await asyncio.sleep(1.0)
        log.save_clocks({t: ClockRow(timer_id=1, remaining=30.0, paused=False) for t in tables})


async def run(tables: int, every: float, seconds: float, directory: Path) -> dict[str, float]:
    log = EventLog(SqliteStore(directory / "bench.db"))
    ids = [f"t{n}" for n in range(tables)]
    for table_id in ids:
        log.create_table(table_id, {})
    transactions = 0
    insert = log._insert

    def counting(rows):  # type: ignore[no-untyped-def]
        nonlocal transactions
        transactions += 1
        return insert(rows)

    log._insert = counting  # type: ignore[method-assign]
    waits: list[float] = []
    lags: list[float] = []
    until = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(
        _ticker(until, lags),
        _clock_saver(log, ids, until),
        *(_table(log, table_id, every, until, waits) for table_id in ids),
    )
    log.close()
    return {
        "log_commits": len(waits),
        "log_commit_p50_ms": round(percentile(waits, 0.5) * 1000, 2),
        "log_commit_p99_ms": round(percentile(waits, 0.99) * 1000, 2),
        "log_loop_lag_p99_ms": round(percentile(lags, 0.99) * 1000, 2),
        "log_loop_lag_max_ms": round(max(lags) * 1000, 2),
        "log_rows_per_transaction": round(len(waits) / max(1, transactions), 2),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--every", type=float, default=0.5, help="mean seconds between inputs")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--quick", action="store_true", help="5 s instead of --seconds")
    args = parser.parse_args()
    seconds = 5 if args.quick else args.seconds
    # On the project's own disk (where `autohost serve` keeps its log), not a tmpfs.
    with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent) as directory:
        figures = asyncio.run(run(args.tables, args.every, seconds, Path(directory)))
    print(
        f"{figures['log_commits']} commits from {args.tables} tables in {seconds:g} s: "
        f"durable after p50 {figures['log_commit_p50_ms']} ms, p99 "
        f"{figures['log_commit_p99_ms']} ms; a 20 ms ticker on the same loop was late by "
        f"p99 {figures['log_loop_lag_p99_ms']} ms, at most {figures['log_loop_lag_max_ms']} ms"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
