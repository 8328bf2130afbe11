"""A log written before the host's inputs were typed (commit 37ca476, when an input was a
kind and its fields) replays to the very tables that code showed after a restart.

`data/log_of_37ca476.sql` is that code's SQLite log as a dump: table t1 went through every
kind of input (the console's pause, resume, add time, stream, undo, foul, next; players'
nominations, passes and votes; the clock's timers), a rename and a re-issue, and was left
paused mid-vote; t2 ended and names its successor. `data/log_of_37ca476.json` is what that
code showed when it opened the log again (the host's and seat 3's views, the table's own
settings, the clock, the entries).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from plugin.eventlog import EventLog, SqliteStore
from plugin.host.inputs import HOST, Pause, Vote
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.host.views import build_view
from testing import FakeClock, FakeHub, FakeRoom, FakeVoice

DATA = Path(__file__).parent / "data"
ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}
SETTINGS = TableSettings(preset="online", language="uk", seats=10, roles=ROLES, seed=1)


def _opened(log: EventLog, table_id: str) -> Table:
    clock, room, voice, hub = FakeClock(), FakeRoom(), FakeVoice(), FakeHub()
    return Table(table_id, SETTINGS, log=log, clock=clock, room=room, voice=voice, hub=hub)


def _shown(table: Table) -> dict[str, Any]:
    """What the table shows after the restart, as the JSON file has it."""
    snapshot = table.snapshot()
    return json.loads(
        json.dumps(
            {
                "host_view": build_view(snapshot, "host"),
                "seat_3_view": build_view(snapshot, 3),
                "paused": table.paused,
                "stream": {"on": table.stream.setting.on, "delay": table.stream.setting.delay},
                "generations": {str(k): v for k, v in sorted(table.generations.items(), key=str)},
                "names": list(table.settings.names),
                "successor": table.successor,
                "clock": {
                    "timer_id": table.countdown.timer_id,
                    "remaining": table.countdown.remaining(),
                    "warn_at": table.countdown.warn_at,
                },
                "entries": [[e.seq, e.record, e.source] for e in table.log.entries(table.id)],
            },
            default=list,
        )
    )


def _old_log(tmp_path: Path) -> EventLog:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript((DATA / "log_of_37ca476.sql").read_text())
    db.close()
    return EventLog(SqliteStore(path))


async def test_an_old_log_replays_to_the_tables_it_showed(tmp_path: Path) -> None:
    expected = json.loads((DATA / "log_of_37ca476.json").read_text())
    log = _old_log(tmp_path)
    try:
        for table_id in ("t1", "t2"):
            table = _opened(log, table_id)
            await table.start()
            try:
                assert _shown(table) == expected[table_id]
            finally:
                await table.stop(hand_off=True)
    finally:
        log.close()
    assert expected["t1"]["paused"] and expected["t1"]["host_view"]["phase"] == "voting"
    assert expected["t2"]["successor"] == "t3" and expected["t2"]["host_view"]["end"]


async def test_an_old_log_still_knows_its_client_ids(tmp_path: Path) -> None:
    """Seat 7's vote was its 13th message (c13), the host's last pause the 15th: retried
    after the restart, each is acked as the duplicate it is and changes nothing."""
    log = _old_log(tmp_path)
    table = _opened(log, "t1")
    await table.start()
    try:
        entries = log.entries("t1")
        vote = next(e for e in entries if e.record == {"type": "vote", "voter": 7, "candidate": 5})
        pause = [e for e in entries if e.record == {"type": "table.pause"}][-1]
        again = await table.submit(7, Vote(candidate=5), client_id="c13")
        assert again.ok and again.duplicate and again.seq == vote.seq
        again = await table.submit(HOST, Pause(), client_id="c15")
        assert again.ok and again.duplicate and again.seq == pause.seq
        assert log.entries("t1") == entries
    finally:
        await table.stop(hand_off=True)
        log.close()
