"""A crash under load: `autohost serve` killed with SIGKILL while its tables play (votes in
flight), then started again with the same command.

- No acked vote is lost: every ballot the server acked is in the event log as sent, and
  the ballots of a round still open are in its tally after the restart.
- Every table resumes: reachable over the WebSocket (all 12 widgets reconnect), at the
  engine version its host console last saw, or later only by inputs that were in flight
  when the server died (sent, never acked); at the same version the same phase, speaker,
  nominations, tally and the same seats allowed to speak (the microphones).
- Play goes on after the restart without a single refused message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from typing import Any

import pytest

from testing import Ledger, TableDriver, lost_votes, open_tables, run_load

from .conftest import STILL, close_all, until_votes

pytestmark = pytest.mark.slow

TABLES = 6
BALLOTS = 15
# The quiet table: no timer of its own runs out during the test either (speeches, votes).
QUIET = STILL | {
    key: 600
    for key in (
        "speech_seconds",
        "defense_seconds",
        "last_word_seconds",
        "morning_last_word_seconds",
        "third_foul_short_seconds",
        "candidate_window_seconds",
        "simultaneous_window_seconds",
        "lift_window_seconds",
    )
}
SAME = ("phase", "day", "speaker", "speakers", "alive", "nominations", "vote", "timer", "manual")


def log_tail(db: Any, table_id: str, count: int) -> list[tuple[str, str | None]]:
    """(source, client id) of the table's last `count` engine events in the log."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as log:
        rows = log.execute(
            "SELECT source, client_id, record FROM events WHERE table_id = ? AND undone = 0"
            " ORDER BY seq DESC",
            (table_id,),
        ).fetchall()
    events = [(s, c) for s, c, r in rows if not json.loads(r)["type"].startswith("table.")]
    return events[:count]


async def settled(driver: TableDriver) -> None:
    """Wait until every widget of the table has read the same version, for 0.5 s."""
    before: set[int] = set()
    for _ in range(60):
        versions = {widget.version for widget in driver.widgets}
        if len(versions) == 1 and versions == before:
            return
        before = versions
        await asyncio.sleep(0.5)
    raise AssertionError(f"table {driver.id} never settled: {before}")


async def test_sigkill_under_load_then_restart(server) -> None:
    drivers = await open_tables(server, TABLES, overrides=STILL)
    # One more table plays along, then stands still before the crash with nothing in flight,
    # so that at least one table is compared field by field however busy the others are.
    (quiet,) = await open_tables(server, 1, first_seed=100, overrides=QUIET)
    ledger = Ledger()
    stop, hush = asyncio.Event(), asyncio.Event()
    quiet_play = asyncio.create_task(quiet.play(hush, ledger, 0.05))
    load = asyncio.create_task(
        run_load(server, drivers, ledger, seconds=60, pace=0.05, stop=stop, overrides=STILL)
    )
    await until_votes(ledger, BALLOTS, timeout=45)
    hush.set()
    await quiet_play
    await settled(quiet)
    drivers.append(quiet)

    ledger.halted = True  # from here on, lost connections are the point
    server.kill()
    stop.set()
    await load
    assert not ledger.errors, ledger.error_samples
    before = {d.id: dict(d.host.state) for d in drivers}
    in_flight = {
        d.id: {
            f"{w.label.rsplit('/', 1)[1].rstrip('b')}/{id}" for w in d.widgets for id in w.pending
        }
        for d in drivers
    }
    await close_all(drivers)

    server.start()  # the very same command
    assert lost_votes(server.db, ledger) == []
    resumed = await asyncio.gather(*(TableDriver.connect(d.links, server.port) for d in drivers))
    try:
        compared = set()
        for driver in resumed:
            old, new = before[driver.id], driver.host.state
            assert new["version"] >= old["version"], driver.id
            extra = new["version"] - old["version"]
            if extra:
                # Accepted after the last state the console read: only inputs still in flight.
                for source, client_id in log_tail(server.db, driver.id, extra):
                    sent = in_flight[driver.id]
                    assert source == "clock" or client_id in sent, (source, client_id)
                continue
            compared.add(driver.id)
            assert {k: new.get(k) for k in SAME} == {k: old.get(k) for k in SAME}, driver.id
            # Microphones as the engine says, on every widget: the same seats may speak.
            assert all(w.state["speakers"] == old["speakers"] for w in driver.widgets)
            round_ = (new.get("vote") or {}).get("round")
            if round_ and round_["open"]:
                key = (new["day"], round_["number"], round_["kind"])
                voters = {
                    v.seat for v in ledger.acked if v.table_id == driver.id and v.round_key == key
                }
                assert not voters & set(round_["waiting"]), (voters, round_)
                assert sum(round_["tally"].values()) >= len(voters)
        assert quiet.id in compared  # the quiet table, at least, compared field by field

        # Play goes on: every table takes input again, nothing refused.
        after = Ledger()
        stop = asyncio.Event()
        load = asyncio.create_task(
            run_load(server, resumed, after, seconds=30, pace=0.05, stop=stop)
        )
        await until_votes(after, 5, timeout=30)
        stop.set()
        await load
        assert not after.errors, after.error_samples
        assert lost_votes(server.db, after) == []
    finally:  # a failure above must not leave sockets open for the next test
        await close_all(resumed)
    assert server.stop() == 0
