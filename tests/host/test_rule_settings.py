"""Rule settings from `autohost table new --set` and from a table's record in the event log
are checked by the rules engine's one settings check (plugin/rules/settings.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from plugin.cli import table as table_cli
from plugin.eventlog import open_log
from plugin.host import game
from plugin.host.registry import Registry
from plugin.host.settings import TableSettings
from plugin.rules import InvalidAction

BAD_SETS = [
    ("defense_seconds=NaN", "defense_seconds"),
    ("defense_seconds=Infinity", "defense_seconds"),
    ("defense_seconds=" + "9" * 400, "defense_seconds"),
    ("defense_seconds=[30]", "defense_seconds"),
    ("read_candidates_times=1000000000", "read_candidates_times"),
    ('tie_dialog_options=["speeches","dance"]', "tie_dialog_options"),
    ("tie_dialog_default=dance", "tie_dialog_default"),
]


@pytest.mark.parametrize(("item", "setting"), BAD_SETS)
def test_table_new_set_is_bounded(tmp_path: Path, capsys, item: str, setting: str) -> None:
    db = tmp_path / "autohost.db"
    assert table_cli.main(["new", "--db", str(db), "--set", item]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and setting in err[0] and "must be" in err[0]
    assert not db.exists() or sqlite3.connect(db).execute("SELECT * FROM tables").fetchall() == []


@pytest.mark.parametrize(
    "overrides",
    [{"defense_seconds": float("nan")}, {"speech_seconds": int("9" * 400)},
     {"read_candidates_times": 10**9}, {"tie_dialog_options": ["dance"]}],
)  # fmt: skip
def test_overrides_stored_in_the_log_are_refused_on_replay(tmp_path: Path, overrides) -> None:
    """A log written by an older version (or by hand) is checked when the table is rebuilt."""
    log = open_log(tmp_path / "log.db")
    try:
        log.create_table(
            "t1", {**TableSettings(seats=10, seed=1).to_record(), "overrides": overrides}
        )
        [(table_id, record)] = log.tables()
        assert table_id == "t1"
    finally:
        log.close()
    settings = TableSettings.from_record(record)
    with pytest.raises(InvalidAction) as refused:
        game.new_game(settings)
    assert next(iter(overrides)) in refused.value.message


class _Hub:
    async def publish(self, snapshot: object) -> None:
        pass


async def test_a_table_whose_stored_overrides_are_refused_does_not_stop_the_others(
    tmp_path: Path,
) -> None:
    log = open_log(tmp_path / "log.db")
    try:
        good = TableSettings(seats=10, seed=1).to_record()
        log.create_table("bad", {**good, "overrides": {"defense_seconds": float("nan")}})
        log.create_table("good", good)
    finally:
        log.close()
    registry = Registry(open_log(tmp_path / "log.db"), hub=_Hub(), save_every=0)
    await registry.start()
    try:
        assert set(registry.tables) == {"good"}
        assert "defense_seconds" in registry.broken["bad"]
        assert await registry.get("bad") is None
    finally:
        await registry.close()
