"""The registry: tables created with their settings, all rebuilt from the log on start,
all stopped (microphones given back, log flushed) on close; and `autohost table new`."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from plugin.cli import table as table_cli
from plugin.eventlog import open_log
from plugin.host import leasing
from plugin.host.inputs import HOST, Next
from plugin.host.registry import Registry
from plugin.host.settings import SettingsError, TableSettings
from plugin.signing import Signer, load_secret, secret_path_for
from testing import FakeClock, FakeHub, FakeRoom

from .conftest import ROLES


def registry(path: Path, rooms: dict[str, FakeRoom]) -> Registry:
    def room_for(table_id: str, settings: TableSettings) -> FakeRoom:
        rooms[table_id] = FakeRoom()
        return rooms[table_id]

    log = open_log(path)
    return Registry(log, hub=FakeHub(), clock=FakeClock(), room_factory=room_for, save_every=0)


async def test_tables_resume_after_a_restart_and_close_keeps_every_microphone(tmp_path: Path):
    path = tmp_path / "log.db"
    rooms: dict[str, FakeRoom] = {}
    first = registry(path, rooms)
    await first.start()
    a = await first.create(TableSettings(seats=10, roles=ROLES))
    b = await first.create(TableSettings(seats=8, seed=5, names=tuple("ABCDEFGH")))
    for _ in range(5):
        await a.submit(HOST, Next())
    assert a.state.phase.value == "speech" and rooms[a.id].speakers == frozenset({1})
    await first.close()
    # A stop is a restart: the speaker keeps his microphone, nobody else gets one.
    assert not rooms[a.id].released and not rooms[b.id].released
    assert rooms[a.id].speakers == frozenset({1}) and rooms[a.id].stopped
    # The log was checkpointed: the WAL file is empty after a clean close.
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0

    rooms.clear()
    second = registry(path, rooms)
    await second.start()
    assert set(second.tables) == {a.id, b.id}
    again = second.tables[a.id]
    assert again.state.phase.value == "speech" and again.state.speaker == 1
    assert rooms[a.id].speakers == frozenset({1})  # told again who may speak
    assert second.tables[b.id].settings.names == tuple("ABCDEFGH")
    await second.close()


async def test_bad_settings_create_nothing(tmp_path: Path) -> None:
    rooms: dict[str, FakeRoom] = {}
    reg = registry(tmp_path / "log.db", rooms)
    await reg.start()
    with pytest.raises(SettingsError) as refusal:
        await reg.create(TableSettings(seats=10, overrides={"speech_seconds": -5}))
    assert refusal.value.code == "bad_setting"
    assert reg.tables == {} and reg.log.tables() == []
    await reg.close()


def test_table_new_writes_the_table_and_prints_links(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.delenv("AUTOHOST_SECRET", raising=False)
    db = tmp_path / "var" / "autohost.db"
    names = "Anna,Borys,Vira,Hanna,Dmytro,Olena,Ivan,Kateryna,Larysa,Mykola"
    code = table_cli.main(
        ["new", "--preset", "online", "--lang", "uk", "--seats", "10", "--names", names,
         "--db", str(db), "--base-url", "http://127.0.0.1:9000", "--json",
         "--set", "defense_seconds=20"]
    )  # fmt: skip
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["seats"][1]["name"] == "Borys"
    assert answer["host"]["link"].startswith(f"http://127.0.0.1:9000/t/{answer['id']}/host#token=")
    signer = Signer(load_secret(secret_path_for(db)))
    assert signer.verify(answer["seats"][9]["token"], table=answer["id"]).seat == 10
    stored = sqlite3.connect(db).execute("SELECT id, settings FROM tables").fetchall()
    assert [row[0] for row in stored] == [answer["id"]]
    settings = json.loads(stored[0][1])
    assert settings["language"] == "uk" and settings["overrides"] == {"defense_seconds": 20}


@pytest.mark.parametrize(
    "argv",
    [
        ["new", "--seats", "3"],
        ["new", "--lang", "fr"],
        ["new", "--names", "A,B"],
        ["new", "--preset", "nosuch"],
        ["new", "--set", "speech_seconds"],
        ["new", "--set", "no_such_rule=1"],
    ],
)
def test_table_new_refuses_bad_input_and_writes_nothing(tmp_path: Path, capsys, argv) -> None:
    db = tmp_path / "autohost.db"
    assert table_cli.main([*argv, "--db", str(db)]) == 2
    assert "autohost table new:" in capsys.readouterr().err
    assert not db.exists() or sqlite3.connect(db).execute("SELECT * FROM tables").fetchall() == []


# --- the lease loop (plugin.host.leasing), with leases taken away on demand ---------------


class TakenLeases:
    """Leases in memory (the Leases port): this server holds what it claims until the test
    gives a table to "another server" (`taken`). The real ones are PostgreSQL's
    (tests/eventlog/test_postgres.py, tests/failover); this one loses a lease on demand."""

    owner = "here"
    lease = 2.0

    def __init__(self, free: set[str] | None = None) -> None:
        self.free = set(free or ())  # live tables nobody holds
        self.held: set[str] = set()
        self.taken: set[str] = set()
        self.released: list[str] = []
        self.url_of = lambda: ""

    async def claim(self, table_id: str) -> bool:
        if table_id in self.taken:
            return False
        self.held.add(table_id)
        self.free.discard(table_id)
        return True

    async def renew(self, table_ids: list[str]) -> set[str]:
        lost = {t for t in table_ids if t in self.taken or t not in self.held}
        self.held -= lost
        return lost

    async def release(self, table_ids: list[str]) -> None:
        self.released += table_ids
        self.held -= set(table_ids)

    async def unowned(self) -> list[str]:
        return sorted(self.free)

    async def owners(self) -> dict[str, str]:
        return {t: self.owner for t in self.held}

    def owner_url(self, table_id: str) -> str | None:
        return None

    def on_fenced(self, callback: Callable[[str], None]) -> None:
        self.fenced = callback


async def test_the_lease_loop_claims_drops_and_hands_over(tmp_path: Path) -> None:
    """Given leases, the registry opens only what it claimed, drops a table whose lease
    another server took without touching its microphones, and on close hands the rest
    over (leases released, microphones kept) with no task of the loop left running."""
    path = tmp_path / "log.db"
    other = open_log(path)  # a table another process made, that nobody holds
    other.create_table("free", TableSettings(seats=10, seed=2).to_record())
    other.close()
    leases = TakenLeases(free={"free"})
    rooms: dict[str, FakeRoom] = {}

    def room_for(table_id: str, settings: TableSettings) -> FakeRoom:
        rooms[table_id] = FakeRoom()
        return rooms[table_id]

    reg = Registry(
        open_log(path), leases=leases, hub=FakeHub(), clock=FakeClock(),
        room_factory=room_for, save_every=0, heartbeat=0.02,
    )  # fmt: skip
    dropped: list[str] = []
    reg.on_drop = dropped.append
    await reg.start()
    assert set(reg.tables) == {"free"} and leases.held == {"free"}
    made = await reg.create(TableSettings(seats=10, roles=ROLES))
    await leases.claim(made.id)  # made with its lease (PostgreSQL writes it with the table)
    assert reg.holds(made.id) and reg.owner == "here"
    leases.taken.add("free")
    for _ in range(250):  # bounded: a heartbeat is 20 ms
        if dropped:
            break
        await asyncio.sleep(0.02)
    assert dropped == ["free"] and "free" not in reg.tables and not reg.holds("free")
    assert not rooms["free"].released  # the new owner's microphones now
    before = {task for task in asyncio.all_tasks() if task.get_name() in ("leases", "claims")}
    assert len(before) == 2
    await reg.close()
    assert leases.released == [made.id] and not rooms[made.id].released  # handed over
    assert all(task.done() for task in before)


async def test_the_lease_loop_measures_the_databases_clock_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: a link's expiry is the log's time (Log.wall, this clock moved by an offset
    from the database's). An offset gone stale (this clock stepped after the start: NTP, a
    resumed virtual machine) is measured again by the lease loop, not kept for good."""
    monkeypatch.setattr(leasing, "CLOCK_MEASURE_SECONDS", 0.05)
    log = open_log(tmp_path / "log.db")
    reg = Registry(
        log, leases=TakenLeases(), hub=FakeHub(), clock=FakeClock(), save_every=0,
        heartbeat=0.02,
    )  # fmt: skip
    await reg.start()
    try:
        assert abs(log.wall() - time.time()) < 0.5  # SQLite's clock is this machine's
        log._offset = 10.0  # as if this clock had stepped back 10 s since it was measured
        for _ in range(250):  # bounded: a heartbeat is 20 ms
            if abs(log.wall() - time.time()) < 0.5:
                break
            await asyncio.sleep(0.02)
        assert abs(log.wall() - time.time()) < 0.5, "the stale offset was kept"
    finally:
        await reg.close()
