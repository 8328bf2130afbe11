"""`autohost simulate --tournament` (issue 34): a small tournament played on a real server
(its API, its tables hosted by their bots, played to their ends over the table protocol by
simulated players and hosts, every sheet signed by a simulated judge); the server's live
standings equal the recomputation from the club's records alone, every round finished by
its sheets, every table's protocol complete. Impossible sizes are refused before anything
starts, with the reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from plugin.cli import main as autohost
from plugin.cli.simulate import recomputed_document, simulate
from plugin.eventlog import EventLog, open_log
from plugin.sim.tournament import Plan, StagePlan
from plugin.tournament import fold


def test_a_small_tournament_is_played_to_its_final_and_equals_its_recomputation(
    tmp_path: Path,
) -> None:
    db = tmp_path / "t.db"
    plan = Plan(players=20, tables=2, games=2, stages=(StagePlan("final", 10, 1, 1),),
                seed=3, seat_seconds=1, idle=0.05)  # fmt: skip
    summary = asyncio.run(simulate(plan, db, progress=lambda line: None))
    assert summary["problems"] == [] and summary["ok"], summary
    assert summary["standings_equal_recompute"] and summary["incomplete_protocols"] == 0
    # Every input the server acked (players', hosts') is in its table's log.
    assert summary["acked_inputs"] > 100 * summary["games"] and summary["acked_not_logged"] == 0
    assert (summary["rounds"], summary["games"], summary["signed"]) == (3, 5, 5)
    log = open_log(db)
    try:
        assert isinstance(log, EventLog)
        records = [e.record for e in log.club_records(0)]
    finally:
        log.close()
    state = fold(records)
    tournament = state.get(summary["tournament"])
    assert tournament.over  # every round finished, by its signed sheets (no manual finish)
    assert not [r for r in records if r["type"] == "tournament.round.finish"]
    signed = {r["game_id"] for r in records if r["type"] == "sheet.sign"}
    assert signed == set(tournament.tables) and len(signed) == 5
    final = tournament.stages[1]
    doc = recomputed_document(records, tournament.id)
    # The final's players are the qualifying's top ten, as its standings rank them.
    top = [row["player"] for row in doc["stages"][0]["rows"]][:10]
    assert sorted(final.seated) == sorted(top)
    assert {row["player"] for row in doc["results"][:10]} == set(final.seated)
    assert len(doc["results"]) == 20 and doc["stages"][1]["games"] == 1


@pytest.mark.parametrize(
    "flags, reason",
    [
        (["--players", "25", "--tables", "2"], "not a multiple of 10"),
        (["--players", "9", "--tables", "1", "--no-stages"], "stage 'qualifying'"),
        (["--stage", "final:30:3:1"], "takes 30 players of 20"),
        (["--stage", "final:ten:1:1"], "NAME:PLAYERS:TABLES:GAMES"),
        (["--games", "0"], "whole numbers from 1"),
    ],
)
def test_impossible_sizes_are_refused_before_anything_starts(
    flags: list[str], reason: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "never.db"
    base = ["--players", "20", "--tables", "2", "--games", "1"]
    code = autohost(["simulate", "--tournament", *base, *flags, "--db", str(db), "--json"])
    out = capsys.readouterr()
    assert code == 2 and out.out == "", out
    assert out.err.startswith("autohost simulate: ") and reason in out.err, out.err
    assert not db.exists()


def test_the_games_simulator_is_still_there(capsys: pytest.CaptureFixture[str]) -> None:
    assert autohost(["simulate", "--games", "3", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["games"] == 3
