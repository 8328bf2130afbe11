"""A tournament's standings through the real app (issue 34): real finished tables (the
simulator's games written as a table writes them) linked to a round's tables over REST,
their sheets signed by the club's sheet endpoint, and the standings, their CSV and JSON,
the hidden extras (public vs admin), the reveal and a restart; bad input refused with its
code and nothing written."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from plugin.club import Club
from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import EventLog, log_opener, open_log
from plugin.signing import Signer
from plugin.tournament import Tournaments
from plugin.tournament.api import tournament_routes
from plugin.tournament.standings import from_protocols, recompute
from plugin.web.app import ServerConfig, create_app
from testing import TestClient
from testing.club import write_finished_table
from tests.web.conftest import ADMIN, SECRET

AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}


def app(db: Path, files: Path) -> TestClient:
    site = ClubSite()
    config = ServerConfig(db_path=files, log=log_opener(db), admin_key=ADMIN, secret=SECRET,
                          routes=[club_routes(site), tournament_routes(site)],
                          member=site.member)  # fmt: skip
    return TestClient(create_app(config))


def written(db: Path) -> int:
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        return len(log.club_records(0))
    finally:
        log.close()


def play_tables(db: Path, stage: int, round_: int, names: list[str], seed: int) -> None:
    """Finished tables `names` (table 1, 2, ...) of a started round, its seating's players
    seated through the lobby as themselves (testing.club)."""
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        tournaments = Tournaments(Club(log, Signer(SECRET)))
        tournaments.refresh()
        s = tournaments.state.get("t1").stages[stage]
        nick = tournaments.club.state.nick_of
        for n, name in enumerate(names):
            players = [s.seated[i] for i in s.seating[round_][n]]
            members = {seat: (p, nick(p)) for seat, p in enumerate(players, 1)}
            write_finished_table(log, name, seed=seed + 5 * n, members=members)
    finally:
        log.close()


def setup(db: Path, hide: str = "final") -> None:
    """20 players; a tournament of one qualifying round on 2 tables and a final of 10 in two
    games, extras hidden from stage `hide` on; the qualifying seated and started."""
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        tournaments = Tournaments(Club(log, Signer(SECRET)))
        for n in range(1, 21):
            tournaments.club.change(lambda s, n=n: s.add_player({"nick": f"P{n}"}), source="t")
        fields = {"name": "Cup", "players": [f"P{n}" for n in range(1, 21)], "tables": 2,
                  "games": 1, "stages": [{"name": "final", "players": 10, "games": 2}],
                  "hide_extras_from": hide}  # fmt: skip
        tournaments.create(fields, source="t")
        tournaments.seat("t1", 0, moves=20_000, source="t")  # the same seating every run
        tournaments.start_round("t1", 0, 0, source="t")
    finally:
        log.close()


def start_round(db: Path, stage: int) -> None:
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        tournaments = Tournaments(Club(log, Signer(SECRET)))
        tournaments.refresh()
        tournaments.start_round("t1", stage, 0, source="t")
    finally:
        log.close()


def sign(client: TestClient, table: str, sheet: dict[str, Any]) -> None:
    answer = client.post(f"/api/club/sheet/{table}", json={"sheet": sheet}, headers=AS_ADMIN)
    assert answer.status_code == 201, answer.text


def totals(doc: dict[str, Any], stage: int) -> dict[str, float]:
    return {row["nick"]: row["total"] for row in doc["stages"][stage]["rows"]}


def test_linked_tables_signed_sheets_standings_exports_and_a_restart(tmp_path: Path) -> None:
    db, files = tmp_path / "log.db", tmp_path / "files"
    setup(db)
    play_tables(db, 0, 0, ["q1", "q2"], seed=1)
    with app(db, files) as client:
        empty = client.get("/api/club/tournaments/t1/standings").json()
        assert empty["stages"][0]["games"] == 0 and empty["results"] == []
        # bad input: refused with its code, nothing written
        before = written(db)
        link = {"round": 0, "table": 1, "table_id": "q1"}
        for body, headers, status, code in [
            (link, {}, 401, "no_token"),
            ({**link, "table": 3}, AS_ADMIN, 404, "no_table"),
            ({**link, "round": "1"}, AS_ADMIN, 400, "bad_field"),
            ({**link, "table_id": 7}, AS_ADMIN, 400, "bad_field"),
            ({**link, "stage": 1}, AS_ADMIN, 409, "not_seated"),
        ]:
            answer = client.post("/api/club/tournaments/t1/tables", json=body, headers=headers)
            assert (answer.status_code, answer.json()["error"]) == (status, code), body
        for path, status, code in [("/api/club/tournaments/t1/standings?format=xml", 400,
                                    "bad_format"), ("/api/club/tournaments/t9/standings", 404,
                                    "no_tournament"), ("/api/club/tournaments/t1/standings.pdf",
                                    400, "bad_format")]:  # fmt: skip
            answer = client.get(path)
            assert (answer.status_code, answer.json()["error"]) == (status, code), path
        wrong = client.get(
            "/api/club/tournaments/t1/standings", headers={"Authorization": "Bearer nonsense"}
        )
        assert wrong.status_code == 401
        assert written(db) == before
        # the round's tables linked and signed: the standings follow at once
        for n, table in enumerate(["q1", "q2"], 1):
            answer = client.post("/api/club/tournaments/t1/tables", headers=AS_ADMIN,
                                 json={"round": 0, "table": n, "table_id": table})  # fmt: skip
            assert answer.status_code == 201, answer.text
        sign(client, "q1", {"extra": {"2": [{"points": 0.5, "comment": "led the city"}]}})
        doc = client.get("/api/club/tournaments/t1/standings").json()
        assert doc["stages"][0]["games"] == 1 and len(doc["stages"][0]["rows"]) == 10
        game = client.get("/api/club/games/q1.json").json()
        seat2 = game["seats"][1]
        assert totals(doc, 0)[seat2["nick"]] == round(seat2["points"], 2)
        sign(client, "q2", {})
        tournament = client.get("/api/club/tournaments/t1").json()
        assert tournament["stages"][0]["finished"] == [0]  # finished by its sheets
        doc = client.get("/api/club/tournaments/t1/standings").json()
        assert len(doc["results"]) == 20 and doc["results"][0]["place"] == 1
        # exports: CSV and JSON, by suffix or ?format=
        as_json = client.get("/api/club/tournaments/t1/standings.json").json()
        assert as_json == doc
        text = client.get("/api/club/tournaments/t1/standings.csv")
        assert text.headers["content-type"].startswith("text/csv")
        assert client.get("/api/club/tournaments/t1/standings?format=csv").text == text.text
        rows = list(csv.DictReader(io.StringIO(text.text)))
        stage_rows = [r for r in rows if r["table"] == "qualifying"]
        assert [r["nick"] for r in stage_rows] == [r["nick"] for r in doc["stages"][0]["rows"]]
        assert float(stage_rows[0]["total"]) == doc["stages"][0]["rows"][0]["total"]
        # the final: the top ten (by hand where the cut is tied), its extras hidden
        qualifying = doc["stages"][0]["rows"]
        seat = client.post("/api/club/tournaments/t1/seat", json={"stage": 1, "seconds": 2},
                           headers=AS_ADMIN)  # fmt: skip
        if qualifying[9]["place"] == qualifying[10]["place"]:
            assert seat.json()["error"] == "tie_at_cut"
            chosen = [row["player"] for row in qualifying[:10]]
            seat = client.post("/api/club/tournaments/t1/seat", headers=AS_ADMIN,
                               json={"stage": 1, "seconds": 2, "players": chosen})  # fmt: skip
        assert seat.status_code == 201, seat.text
        finalists = seat.json()["stages"][1]["seated"]
        assert sorted(finalists) == sorted(row["player"] for row in qualifying[:10])
    # The final's round started in the log alone (no tables made: REST's start would make
    # and host them, tests/tournament/test_rounds.py), its table played and linked by hand.
    start_round(db, stage=1)
    play_tables(db, 1, 0, ["f1"], seed=3)
    with app(db, files) as client:
        client.post("/api/club/tournaments/t1/tables", headers=AS_ADMIN,
                    json={"stage": 1, "round": 0, "table": 1, "table_id": "f1"})  # fmt: skip
        sign(client, "f1", {"extra": {"4": [{"points": 0.7, "comment": "a fine best move"}]}})
        public = client.get("/api/club/tournaments/t1/standings").json()
        judges = client.get("/api/club/tournaments/t1/standings", headers=AS_ADMIN).json()
        fourth = client.get("/api/club/games/f1.json").json()["seats"][3]["nick"]
        assert public["extras_hidden"] and public["stages"][1]["extras_hidden"]
        assert not judges["extras_hidden"]
        assert totals(judges, 1)[fourth] - totals(public, 1)[fourth] == pytest.approx(0.7)
        assert totals(judges, 0) == totals(public, 0)
        assert client.post("/api/club/tournaments/t1/reveal").status_code == 401
        assert client.post("/api/club/tournaments/t1/reveal", headers=AS_ADMIN).status_code == 200
        revealed = client.get("/api/club/tournaments/t1/standings").json()
        assert totals(revealed, 1) == totals(judges, 1)
        again = client.post("/api/club/tournaments/t1/reveal", headers=AS_ADMIN)
        assert again.json()["error"] == "revealed"
        page = client.get("/club/tournaments/t1")
        assert page.status_code == 200 and "static/tournament.js" in page.text
        assert client.get("/club/static/tournament.js").status_code == 200
        listing = client.get("/club/tournaments")
        assert listing.status_code == 200 and 'src="static/tournament.js"' in listing.text
    with app(db, files) as client:  # a restart: the fold of the records, nothing lost
        assert client.get("/api/club/tournaments/t1/standings").json() == revealed
    # the standings equal a recomputation from the tables' own protocols
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        records = [entry.record for entry in log.club_records(0)]
        _, recomputed = recompute(records)
        protocols = from_protocols(log, records)["t1"]
    finally:
        log.close()
    assert protocols.overall.games == 3
    for mine, theirs in [(protocols.overall, recomputed["t1"].overall),
                         *zip(protocols.stages, recomputed["t1"].stages, strict=True)]:  # fmt: skip
        assert mine.rows() == theirs.rows()
