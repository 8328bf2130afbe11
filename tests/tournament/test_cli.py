"""`autohost tournament` (issue 34): create, seat, swap, start and show from the command line,
in the club's log; a refusal is one line on stderr, status 1, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plugin.cli import main
from plugin.club.games import seated_players
from plugin.eventlog import EventLog, open_log


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out.strip(), err.strip()


def written(db: str) -> int:
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        return len(log.club_records(0))
    finally:
        log.close()


def tables_in(db: str) -> dict[str, dict[int, str]]:
    """Each table in the log: its seats' club players (the judge's sheet reads them)."""
    log = open_log(db)
    try:
        return {table_id: seated_players(e.record for e in log.entries(table_id))
                for table_id, _ in log.tables(archived=True)}  # fmt: skip
    finally:
        log.close()


def test_new_seat_swap_start_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "club.db")
    for n in range(1, 20):
        assert run(capsys, "player", "add", f"P{n}", "--db", db)[0] == 0
    players = ",".join([*(f"P{n}" for n in range(1, 20)), "guest:Anna"])
    status, out, err = run(capsys, "tournament", "new", "Cup", "--players", players,
                           "--tables", "2", "--games", "2", "--keep-apart", "P1,P2",
                           "--stage", "final:10:1:2", "--db", db)  # fmt: skip
    assert (status, out, err) == (0, "created Cup (t1)", "")
    before = written(db)
    status, _, err = run(capsys, "tournament", "new", "Bad", "--players", "P1,P2",
                         "--tables", "1", "--games", "1", "--db", db)  # fmt: skip
    assert status == 1 and "a table needs 10" in err and written(db) == before
    status, out, _ = run(capsys, "tournament", "seat", "t1", "--seconds", "2", "--db", db)
    assert status == 0 and "round 2 (not started)" in out and "cost meetings" in out
    status, out, _ = run(capsys, "tournament", "show", "t1", "--json", "--db", db)
    shown = json.loads(out)["stages"][0]
    first = shown["seating"][0]  # round 1: two tables of ten
    a, b = shown["seated"][first[0][0]], shown["seated"][first[1][0]]  # the seats 1

    def arg(player: str) -> str:  # p5 was added fifth: P5; a guest is named as such
        return player if player.startswith("guest:") else f"P{player[1:]}"

    status, out, _ = run(capsys, "tournament", "swap", "t1", "1", arg(a), arg(b), "--db", db)
    assert status == 0 and out.startswith(f"swapped {arg(a)} and {arg(b)}") and "cost " in out
    status, out, _ = run(capsys, "tournament", "start", "t1", "1", "--db", db)
    assert status == 0 and out.splitlines()[1].startswith(
        f"table 1: {arg(b).removeprefix('guest:')},"
    )
    made = tables_in(db)  # every table of the round, seated, for a server to open
    assert len(made) == 2 and all(f"(at table {t})" in out for t in made)
    assert all(sorted(seats) == list(range(1, 11)) for seats in made.values())
    before = written(db)
    status, _, err = run(capsys, "tournament", "start", "t1", "1", "--db", db)
    assert status == 1 and "round 1 of 'qualifying' has started" in err and written(db) == before
    assert tables_in(db) == made
    status, out, _ = run(capsys, "tournament", "show", "t1", "--db", db)
    assert "round 1 (playing)" in out and "round 2 (not started)" in out
