"""Event logs written by the code before the one event-log core (issue 28), kept in
tests/eventlog/data/ so that every later log must still open and replay them.

    python -m tests.eventlog.old_logs      # (re)writes data/: run once, with the old code

(The data were written by the code of commit f104b30, before the core; the script has only
followed the registry's new signature since, so that it still runs.)

It plays the same evening on a SQLite file and on a PostgreSQL database (a cluster started
with testing/postgres.py, then dumped as plain SQL with pg_dump): a finished classic game
(archived at the next start, its next game recorded and made), a game in the middle of its
first vote (votes with client ids, an undo, a pause, the timer saved), and a game archived
by the admin before its end. `observe` reads a log back through a registry (what a
restarting server does) and the protocol export; what it read with the old code is kept
beside the logs (data/expected-*.json) and test_old_logs.py compares the new code's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from plugin.host.inputs import HOST
from plugin.host.ports import Leases, Log
from plugin.host.registry import Registry
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.host.views import build_view
from plugin.protocol.export import table_protocol
from plugin.rules.events import to_record
from plugin.sim.simulate import play
from plugin.web import messages
from testing import FakeClock, FakeHub

DATA = Path(__file__).resolve().parent / "data"
SQLITE = DATA / "old.sqlite"
POSTGRES = DATA / "old.postgres.sql"
EXPECTED = {"sqlite": DATA / "expected-sqlite.json", "postgres": DATA / "expected-postgres.json"}
ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}
NAMES = tuple(f"P{n}" for n in range(1, 11))
FINISHED, VOTING, EARLY = "finished", "voting", "early"
# The registry a test opens a log with: the old code's Registry(log), or the new one's.
OpenRegistry = Callable[[FakeClock], Registry]


def observed_state(read: dict[str, Any]) -> dict[str, Any]:
    """`read` as JSON gives it back (int keys become text), to compare with a file."""
    return json.loads(json.dumps(read, sort_keys=True))  # type: ignore[no-any-return]


async def observe(log: Log, open_registry: OpenRegistry) -> dict[str, Any]:
    """What a log holds, read back as a restarting server does: each table's settings,
    entries, clock, archive mark and protocol; then the host's view of every table the
    registry opened (replayed, timer resumed) and of every archived one's end (`final`)."""
    read: dict[str, Any] = {"live": [t for t, _ in log.tables()], "tables": {}}
    for table_id, settings in log.tables(archived=True):
        clock = log.load_clock(table_id)
        read["tables"][table_id] = {
            "settings": settings,
            "archived": log.is_archived(table_id),
            "entries": [
                [e.seq, e.record, e.source, e.client_id, e.undone, e.wall]
                for e in log.entries(table_id, include_undone=True)
            ],
            "clock": None if clock is None else asdict(clock),
            "protocol": table_protocol(log, table_id),
        }
    registry = open_registry(FakeClock())
    await registry.start()
    try:
        read["opened"] = sorted(registry.tables)
        read["broken"] = dict(registry.broken)
        for table_id, table in registry.tables.items():
            read["tables"][table_id]["view"] = build_view(table.snapshot(), "host")
            read["tables"][table_id]["generations"] = registry.link_generations(table_id)
        for table_id in read["tables"]:
            final = registry.final(table_id)
            read["tables"][table_id]["final"] = None if final is None else build_view(final, "host")
    finally:
        await registry.close()
    return observed_state(read)


# --- writing the evening (the old code) ---------------------------------------------------


async def _expire(table: Table, clock: FakeClock) -> None:
    remaining = table.countdown.remaining()
    assert remaining is not None, "no timer runs"
    clock.advance(remaining)
    await table.settle()


async def _ok(table: Table, sender: Any, kind: str, client_id: str | None = None, **fields: Any):
    # The inputs as the wire names them (this generator first ran when an input was a kind
    # and its fields; it now speaks the typed inputs through the one converter).
    message = messages.decode(json.dumps({"v": 1, "id": client_id or "-", "type": kind, **fields}))
    verdict = await table.submit(sender, messages.to_input(message), client_id=client_id)
    assert verdict.ok, verdict


async def write_evening(
    log: Log, leases: Leases | None, registry_of: Callable[..., Registry]
) -> None:
    """The evening on `log` (closed at the end)."""
    game = play("classic", 11, keep_log=True)
    assert game.log is not None and game.error is None
    log.create_table(FINISHED, TableSettings(preset="classic", seats=10, seed=11).to_record())
    for event in game.log:
        record = to_record(event)
        seat = record.get("voter") or record.get("by")
        log.append(FINISHED, record, source=str(seat) if isinstance(seat, int) else "host")
    clock = FakeClock()
    registry = registry_of(log, leases, clock)
    await registry.start()  # the finished game is archived here
    assert FINISHED not in registry.tables
    settings = TableSettings(
        preset="online", language="uk", seats=10, seed=1, roles=ROLES, names=NAMES,
        club="Клуб", host_name="Ведущий",
    )  # fmt: skip
    voting = await registry.create(settings, table_id=VOTING)
    await _ok(voting, HOST, "start")
    while voting.state.phase.value != "speech":
        await _expire(voting, clock)
    pending = {1: 5, 2: 6}
    while voting.state.phase.value != "voting":
        speaker = voting.state.speaker
        if voting.state.phase.value == "speech" and speaker in pending:
            await _ok(
                voting, speaker, "nominate", client_id=f"{speaker}/n", target=pending.pop(speaker)
            )
        await _expire(voting, clock)
    for seat, candidate in ((7, 5), (8, 6), (9, 5)):
        await _ok(voting, seat, "vote", client_id=f"{seat}/v", candidate=candidate)
    await _ok(voting, HOST, "undo")  # seat 9's vote
    await _ok(voting, 10, "vote", client_id="10/v", candidate=6)
    clock.advance(1.5)
    registry.save_clocks()
    await _ok(voting, HOST, "pause")
    early = await registry.create(TableSettings(preset="fiim", seats=10, seed=7), table_id=EARLY)
    await _ok(early, HOST, "start")
    await _expire(early, clock)
    await _ok(early, HOST, "foul", seat=3)
    assert await registry.archive(EARLY)
    successor = await registry.next_game(FINISHED)
    assert successor in registry.tables
    await registry.close()  # the clocks saved, the log closed


# --- running it ----------------------------------------------------------------------------


def _registry(log: Log, leases: Leases | None, clock: FakeClock) -> Registry:
    return Registry(log, leases=leases, hub=FakeHub(), clock=clock, save_every=0, heartbeat=60)


def restore(dump: Path, dsn: str) -> None:
    """Load a plain pg_dump into the (empty) database at `dsn`."""
    done = subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(dump)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _write_expected(kind: str, expected: dict[str, Any]) -> None:
    EXPECTED[kind].write_text(json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False))


async def _main() -> None:
    from plugin.eventlog import open_hosting
    from testing.postgres import running_postgres

    os.environ["TZ"] = "UTC"  # the protocol's date is the server's local day
    time.tzset()
    DATA.mkdir(exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        SQLITE.unlink()
    await write_evening(*open_hosting(SQLITE), _registry)
    for extra in ("-wal", "-shm"):  # closed: everything is in the main file
        assert (
            not Path(str(SQLITE) + extra).exists() or Path(str(SQLITE) + extra).stat().st_size == 0
        )
    copy = DATA / "observe.sqlite"
    shutil.copyfile(SQLITE, copy)
    try:
        log, _ = open_hosting(copy)
        expected = await observe(log, lambda clock: _registry(log, None, clock))
    finally:
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(str(copy) + suffix).unlink(missing_ok=True)
    EXPECTED["sqlite"].write_text(
        json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False)
    )
    with running_postgres() as server:
        dsn = server.new_database()
        await write_evening(*open_hosting(dsn, owner="old-server"), _registry)
        dumped = subprocess.run(
            ["pg_dump", "--no-owner", "--no-privileges", "-d", dsn],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        POSTGRES.write_text(dumped.stdout)
        again = server.new_database()
        restore(POSTGRES, again)
        log, leases = open_hosting(again, owner="reader")
        expected = await observe(log, lambda clock: _registry(log, leases, clock))
    _write_expected("postgres", expected)
    print(f"wrote {SQLITE}, {POSTGRES} and the expected readings", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(_main())
