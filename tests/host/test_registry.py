"""The registry: tables created with their settings, all rebuilt from the log on start,
all stopped (microphones given back, log flushed) on close; and `autohost table new`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from plugin.cli import table as table_cli
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

    return Registry(path, hub=FakeHub(), clock=FakeClock(), room_factory=room_for, save_every=0)


async def test_tables_resume_after_a_restart_and_close_releases_every_room(tmp_path: Path):
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
    assert rooms[a.id].released and rooms[b.id].released
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
