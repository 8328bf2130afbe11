"""Load: 50 tables of 12 widgets each (600 WebSocket clients) on one real server, for a
bounded time, with votes and speeches flowing; then the invariants and the figures.

A real `autohost serve` process on loopback with a temp SQLite log. Each table is driven
through its own tokens (plugin/testing/load.py): the host console starts the game and presses
`next` about every `--pace` seconds, the speaker nominates during his speech, every voter
votes as soon as a round opens. A finished game is replaced by a new table. The widgets run
in this process, on the same cores as the server.

Invariants (the exit status is 1 when one fails): 0 errors (every message acked, no
connection lost), 0 lost votes (every acked ballot is in the event log as sent).
Figures: vote → every widget of the table has it (p50/p99), server CPU (% of one core)
and peak RSS.

    .venv/bin/python bench/load.py [--tables 50] [--seconds 60] [--quick]

Last line: JSON {"load_vote_to_widgets_p99_ms": ..., "load_errors": 0, ...}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plugin.testing import (
    CLIENTS_PER_TABLE,
    Ledger,
    ServerProcess,
    lost_votes,
    open_tables,
    percentile,
    run_load,
)


async def main(tables: int, seconds: float, pace: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "autohost.db"
        server = ServerProcess(db)
        server.start()
        try:
            started = time.perf_counter()
            drivers = await open_tables(server, tables)
            took = time.perf_counter() - started
            print(f"{tables} tables, {tables * CLIENTS_PER_TABLE} widgets connected in "
                  f"{took:.1f} s; idle RSS {server.rss_mb():.0f} MB")  # fmt: skip
            ledger = Ledger()
            figures = await run_load(server, drivers, ledger, seconds=seconds, pace=pace)
            for driver in drivers:
                await driver.close()
        finally:
            code = server.stop()
        lost = lost_votes(db, ledger)
    latencies = ledger.vote_latencies_ms()
    sent = sum(ledger.messages.values())
    print(f"{figures.seconds:.0f} s: {sent} messages ({dict(ledger.messages)}), "
          f"{len(ledger.acked)} ballots acked, {ledger.games_over} games finished")  # fmt: skip
    if ledger.ack_ms:
        print(f"message -> ack: p50 {statistics.median(ledger.ack_ms):.1f} ms, "
              f"p99 {percentile(ledger.ack_ms, 0.99):.1f} ms")  # fmt: skip
    if latencies:
        print(f"vote -> all 12 widgets: p50 {statistics.median(latencies):.1f} ms, "
              f"p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms "
              f"({len(latencies)} ballots)")  # fmt: skip
    print(f"server CPU {figures.server_cpu_percent:.0f}% of a core, peak RSS "
          f"{figures.server_rss_mb:.0f} MB; widgets' process CPU "
          f"{figures.client_cpu_percent:.0f}%; server exit status {code}")  # fmt: skip
    print(f"errors {sum(ledger.errors.values())} {dict(ledger.errors)}; lost votes {len(lost)}")
    for sample in ledger.error_samples[:5]:
        print("  ", sample)
    return {
        "load_tables": tables,
        "load_widgets": tables * CLIENTS_PER_TABLE,
        "load_seconds": round(figures.seconds, 1),
        "load_messages": sent,
        "load_votes_acked": len(ledger.acked),
        "load_errors": sum(ledger.errors.values()),
        "load_lost_votes": len(lost),
        "load_vote_to_widgets_p50_ms": round(statistics.median(latencies), 1)
        if latencies
        else None,
        "load_vote_to_widgets_p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
        "load_server_cpu_percent": round(figures.server_cpu_percent, 1),
        "load_server_rss_mb": round(figures.server_rss_mb, 1),
        "load_server_exit": code,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--pace", type=float, default=0.3, help="mean seconds per host step")
    parser.add_argument("--quick", action="store_true", help="15 s instead of 60")
    args = parser.parse_args()
    result = asyncio.run(main(args.tables, 15 if args.quick else args.seconds, args.pace))
    print(json.dumps(result))
    ok = result["load_errors"] == 0 and result["load_lost_votes"] == 0
    sys.exit(0 if ok else 1)
