"""The end of the game (issue 17): the end view every page shows (the result and why,
every seat's role, the timeline) and the next game's successor record (issue 17, "next
game in one click"): a new table, recorded in the old one's log, made once however often
the host clicks, a restart between the clicks included."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from plugin.eventlog import open_log
from plugin.host.ending import end_view
from plugin.host.inputs import HOST, Disqualify, EndGame, GiveFoul, Start, Undo
from plugin.host.records import SUCCESSOR
from plugin.host.registry import GameNotOver, Registry
from plugin.host.settings import TableSettings
from plugin.host.views import build_view
from plugin.protocol.export import game_protocol
from plugin.rules.events import to_record
from plugin.sim.simulate import play
from testing import FakeClock, FakeHub

from .conftest import ROLES, Harness


@pytest.mark.parametrize(("rules", "seed"), [("online", 3), ("classic", 11), ("fiim", 42),
                                             ("online", 97), ("classic", 2024)])  # fmt: skip
def test_the_end_view_tells_the_whole_game(rules: str, seed: int) -> None:
    """Whole simulated games: the result is the game's, every seat has its role, everyone
    who left is in the timeline once, as the protocol export counts him, at his moment."""
    game = play(rules, seed, keep_log=True)
    assert game.log is not None and game.error is None, game
    settings = TableSettings(preset=rules, seats=10, seed=seed)
    records = [to_record(event) for event in game.log]
    end = end_view(settings, records)
    protocol = game_protocol(preset=rules, seats=10, seed=seed, records=records)
    assert end["result"] == protocol["outcome"] and end["result"]["winner"] == game.winner
    assert [s["role"] for s in end["seats"]] == [p["role"] for p in protocol["players"]]
    assert sorted(s["role"] for s in end["seats"]).count("don") == 1
    exits = [i for i in end["timeline"] if i["kind"] in ("vote", "killed", "fouls",
                                                         "disqualified", "left")]  # fmt: skip
    assert sorted(i["seat"] for i in exits) == sorted(
        p["seat"] for p in protocol["players"] if p["out"] is not None
    )
    for seat in end["seats"]:
        out = next(p["out"] for p in protocol["players"] if p["seat"] == seat["seat"])
        assert seat["out"] == out
    checks = [i for i in end["timeline"] if i["kind"].endswith("_check")]
    expected = sum((n["don_check"] is not None) + (n["sheriff_check"] is not None)
                   for n in protocol["nights"])  # fmt: skip
    assert len(checks) == expected
    fouls = [i for i in end["timeline"] if i["kind"] == "foul"]
    assert len(fouls) == len(protocol["fouls"])
    # In the order of the game: day n, then night n, then day n + 1.
    periods = [2 * i["night"] + 1 if "night" in i else 2 * i["day"] for i in end["timeline"]]
    assert periods == sorted(periods)


def test_the_end_view_is_only_for_a_game_that_is_over() -> None:
    settings = TableSettings(seats=10, seed=1)
    with pytest.raises(ValueError, match="over"):
        end_view(settings, [{"type": "start_game"}])


async def test_a_table_shows_its_end_only_after_the_game(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.ok(HOST, GiveFoul(seat=5))
    snapshot = harness.table.snapshot()
    assert snapshot.ending is None
    for viewer in (None, 1, 5, "host"):
        assert build_view(snapshot, viewer)["end"] is None
    for seat in (1, 2, 3):  # the don and both mafiosi (conftest.ROLES) are disqualified
        await harness.ok(HOST, Disqualify(seat=seat))
    assert harness.state.over
    snapshot = harness.table.snapshot()
    views = [build_view(snapshot, viewer)["end"] for viewer in (None, 4, "host")]
    assert views[0] == views[1] == views[2]  # the same for everyone
    end = views[0]
    assert end["result"] == {"termination": "no_black_left", "winner": "city"}
    roles = {s["seat"]: s["role"] for s in end["seats"]}
    assert {seat: roles[seat] for seat in ROLES} == ROLES
    assert [(i["kind"], i["seat"]) for i in end["timeline"]] == [
        ("foul", 5),
        ("disqualified", 1),
        ("disqualified", 2),
        ("disqualified", 3),
    ]
    assert all(i["day"] == 1 for i in end["timeline"])
    assert next(s for s in end["seats"] if s["seat"] == 5)["fouls"] == 1
    # An undo of the last event makes the game run again: the end is gone.
    await harness.ok(HOST, Undo())
    assert not harness.state.over and harness.table.snapshot().ending is None


# --- the next game ------------------------------------------------------------------------


def registry(path: Path) -> Registry:
    return Registry(open_log(path), hub=FakeHub(), clock=FakeClock(), save_every=0)


SETTINGS = TableSettings(
    preset="online", language="ru", seats=10, seed=1, roles=ROLES,
    names=tuple(f"P{n}" for n in range(1, 11)), club="Клуб", host_name="Ведущий",
)  # fmt: skip


async def finished(reg: Registry) -> str:
    table = await reg.create(SETTINGS)
    await table.submit(HOST, Start())
    verdict = await table.submit(HOST, EndGame(winner="mafia"))
    assert verdict.ok and table.state.over
    return table.id


def successor_records(path: Path, table_id: str) -> list[str]:
    log = open_log(path)
    try:
        return [e.record["table"] for e in log.entries(table_id)
                if e.record.get("type") == SUCCESSOR]  # fmt: skip
    finally:
        log.close()


async def test_the_next_game_is_a_new_table_made_once(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    reg = registry(path)
    await reg.start()
    old = await finished(reg)
    new = await reg.next_game(old)
    assert new != old and await reg.next_game(old) == new  # a double click: one successor
    table = reg.tables[new]
    assert table.state.phase.value == "lobby"
    fresh = table.settings
    assert (fresh.seats, fresh.names, fresh.language, fresh.club, fresh.host_name) == (
        10,
        SETTINGS.names,
        "ru",
        "Клуб",
        "Ведущий",
    )
    assert fresh.roles is None and fresh.seed != SETTINGS.seed  # a new deal
    # The old table is archived, whole: its end is still served from its log.
    assert old not in reg.tables and reg.log.is_archived(old)
    final = reg.final(old)
    assert final is not None and final.successor == new
    assert final.ending is not None and final.ending["result"]["winner"] == "mafia"
    await reg.close()

    again = registry(path)  # a restart between the two clicks
    await again.start()
    assert await again.next_game(old) == new
    await again.close()
    assert successor_records(path, old) == [new]
    log = open_log(path)
    assert len(log.tables(archived=True)) == 2
    log.close()


async def test_a_crash_between_the_record_and_the_new_table_makes_it_later(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.db"
    reg = registry(path)
    await reg.start()
    old = await finished(reg)
    await reg.tables[old].record_successor("c0ffee0001")  # the record, then the crash
    await reg.close()
    again = registry(path)
    await again.start()  # the finished table is archived at start
    final = again.final(old)
    assert final is not None and final.successor is None  # recorded, but not made yet
    assert build_view(final, "host")["controls"] == ["next_game"]
    assert await again.next_game(old) == "c0ffee0001"
    assert "c0ffee0001" in again.tables
    final = again.final(old)
    assert final is not None and final.successor == "c0ffee0001"
    await again.close()
    assert successor_records(path, old) == ["c0ffee0001"]


async def test_no_next_game_before_the_end_or_for_no_table(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    reg = registry(path)
    await reg.start()
    table = await reg.create(SETTINGS)
    await table.submit(HOST, Start())
    with pytest.raises(GameNotOver):
        await reg.next_game(table.id)
    with pytest.raises(KeyError):
        await reg.next_game("nosuchtable")
    assert list(reg.tables) == [table.id] and table.successor is None  # nothing changed
    assert reg.final(table.id) is None  # not archived: no final view either
    await reg.close()
    assert successor_records(path, table.id) == []


async def test_an_archived_table_serves_its_final_view_to_everyone(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    reg = registry(path)
    await reg.start()
    old = await finished(reg)
    await reg.close()
    again = registry(path)
    await again.start()
    assert old not in again.tables  # archived at start, not reopened
    final = again.final(old)
    assert final is not None and final.successor is None
    for viewer in (None, 3, "host"):
        view = build_view(final, viewer)
        assert view["over"] and view["end"]["result"]["winner"] == "mafia"
        assert view["roles"]["1"] == "don"
    assert build_view(final, "host")["controls"] == ["next_game"]
    # Archived at start while this server could still write its log: the next game's id
    # is reserved there (a shared log refuses writes to an archived table), and used.
    reserved = successor_records(path, old)
    assert len(reserved) == 1
    assert await again.next_game(old) == reserved[0]
    await again.close()
    assert successor_records(path, old) == reserved


async def test_two_clicks_at_once_make_one_next_game(tmp_path: Path) -> None:
    reg = registry(tmp_path / "log.db")
    await reg.start()
    old = await finished(reg)
    first, second = await asyncio.gather(reg.next_game(old), reg.next_game(old))
    assert first == second and set(reg.tables) == {first}
    await reg.close()
    assert successor_records(tmp_path / "log.db", old) == [first]
