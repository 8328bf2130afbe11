"""`autohost tournament link|standings|reveal` (issue 34): a finished table linked from the
command line, its signed sheet in the standings as text, CSV and JSON (the REST API's
document); refusals on stderr, status 1, nothing written."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from plugin.club import Club, sheets
from plugin.eventlog import EventLog, open_log
from plugin.protocol.export import table_protocol
from plugin.signing import Signer, load_secret, secret_path_for
from plugin.tournament import Tournaments
from testing.club import write_finished_table
from tests.tournament.test_cli import run, written


def test_link_standings_reveal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "club.db")
    for n in range(1, 11):
        assert run(capsys, "player", "add", f"P{n}", "--db", db)[0] == 0
    players = ",".join(f"P{n}" for n in range(1, 11))
    assert run(capsys, "tournament", "new", "Cup", "--players", players, "--tables", "1",
               "--games", "1", "--hide-extras-from", "qualifying", "--db", db)[0] == 0  # fmt: skip
    assert run(capsys, "tournament", "seat", "t1", "--seconds", "1", "--db", db)[0] == 0
    before = written(db)
    status, _, err = run(capsys, "tournament", "link", "t1", "1", "1", "g1", "--db", db)
    assert status == 1 and "has not started" in err and written(db) == before
    # The round started in the log alone (`tournament start` would make its tables too:
    # tests/tournament/test_cli.py); its table played elsewhere and linked by hand.
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        by_hand = Tournaments(Club(log, Signer(load_secret(secret_path_for(Path(db))))))
        by_hand.refresh()
        by_hand.start_round("t1", 0, 0, source="t")
    finally:
        log.close()
    status, out, _ = run(capsys, "tournament", "link", "t1", "1", "1", "g1", "--db", db)
    assert (status, out) == (0, "table g1 is table 1 of round 1")
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        club = Club(log, Signer(load_secret(secret_path_for(Path(db)))))
        tournaments = Tournaments(club)
        tournaments.refresh()
        stage = tournaments.state.get("t1").stages[0]
        seats = {n: (stage.seated[p], f"P{stage.seated[p][1:]}")
                 for n, p in enumerate(stage.seating[0][0], 1)}  # fmt: skip
        write_finished_table(log, "g1", seed=2, members=seats)
        assert table_protocol(log, "g1") is not None
        _, game = sheets._table_game(log, "g1")
        sheet = {"extra": {"1": [{"points": 0.5, "comment": "a fine speech"}]}}
        club.change(lambda s: s.sign("g1", "2026", "fiim", game, sheet, "judge:p1"), source="j")
    finally:
        log.close()
    status, out, _ = run(capsys, "tournament", "standings", "t1", "--db", db)
    assert status == 0 and "qualifying: 1 of 1 games signed" in out and "results:" in out
    first = seats[1][1]
    status, out, _ = run(capsys, "tournament", "standings", "t1", "--json", "--db", db)
    judges = {r["nick"]: r["total"] for r in json.loads(out)["stages"][0]["rows"]}
    status, out, _ = run(capsys, "tournament", "standings", "t1", "--json", "--public",
                         "--db", db)  # fmt: skip
    public = {r["nick"]: r["total"] for r in json.loads(out)["stages"][0]["rows"]}
    # one game, one round: the qualifying is finished by its sheet, so is the tournament,
    # and its extras are public at its end
    assert json.loads(out)["over"] and public == judges
    status, out, _ = run(capsys, "tournament", "standings", "t1", "--csv", "--db", db)
    rows = list(csv.DictReader(io.StringIO(out)))
    mine = next(r for r in rows if r["table"] == "qualifying" and r["nick"] == first)
    assert float(mine["total"]) == judges[first] and float(mine["extra"]) == 0.8
    before = written(db)
    status, _, err = run(capsys, "tournament", "reveal", "t1", "--db", db)
    assert status == 1 and "public already" in err and written(db) == before
    status, _, err = run(capsys, "tournament", "standings", "t9", "--db", db)
    assert status == 1 and "no tournament 't9'" in err
