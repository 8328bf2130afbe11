"""The protocol export: a real game replayed from its records, as JSON and as a sheet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plugin.protocol import game_protocol, render_sheet
from plugin.rules import events as ev
from plugin.rules.state import Phase
from tests.rules.driver import Driver

ROLES = {2: "don", 5: "mafia", 8: "mafia", 9: "sheriff"}
NAMES = [f"P{seat}" for seat in range(1, 10)] + ["<script>alert(1)</script>"]


def played_game() -> list[dict]:
    """Day 1 votes out the don; night 1 kills the sheriff after his check."""
    d = Driver.game(roles=ROLES)
    d.until(lambda s: s.phase is Phase.SPEECH)
    d.send(ev.Nominate(by=1, target=2))
    d.send(ev.PassSpeech(seat=1))
    d.send(ev.Nominate(by=2, target=5))
    d.send(ev.Foul(seat=3))
    d.ballots((1, 2), (3, 2), (4, 2), (6, 2), (7, 2), (2, 5))
    d.until(lambda s: s.phase is Phase.SHOT)
    d.send(ev.Shoot(by=5, target=9))
    d.send(ev.Shoot(by=8, target=9))
    d.until(lambda s: s.phase is Phase.MORNING_LAST_WORD)
    d.send(ev.BestMove(by=9, seats=(5, 8, 1)))
    return [ev.to_record(e) for e in d.log]


def test_protocol_has_every_day_ballot_and_night() -> None:
    records = played_game()
    protocol = game_protocol(preset="classic", seats=10, records=records, names=NAMES, roles=ROLES)
    assert [p["role"] for p in protocol["players"]][:2] == ["civilian", "don"]
    assert protocol["players"][2]["fouls"] == 1
    day1 = protocol["days"][0]
    assert day1["nominations"] == [{"by": 1, "target": 2}, {"by": 2, "target": 5}]
    assert day1["vote"]["eliminated"] == [2]
    ballots = day1["vote"]["rounds"][0]["ballots"]
    assert {"voter": 6, "choice": 2} in ballots and {"voter": 2, "choice": 5} in ballots
    assert protocol["nights"][0]["killed"] == 9
    assert protocol["best_move"] == {"by": 9, "named": [5, 8, 1], "correct": 2}
    assert protocol["refused"] == []


def test_sheet_escapes_names_and_shows_the_game() -> None:
    protocol = game_protocol(
        preset="classic", seats=10, records=played_game(), names=NAMES, roles=ROLES
    )
    html = render_sheet(protocol)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "Day 1" in html and "Nights" in html and "Best move" in html


def test_refused_records_are_listed_not_fatal() -> None:
    records = [{"type": "start_game"}, {"type": "vote", "voter": 1, "candidate": 2}]
    protocol = game_protocol(preset="online", seats=10, records=records, roles=ROLES)
    assert (
        protocol["refused"][0]["reason"] == "not_now"
    )  # the transition table: no vote at night zero


def test_cli_reads_the_event_log(tmp_path: Path) -> None:
    from plugin.eventlog import open_log

    db = tmp_path / "log.db"
    log = open_log(db)
    log.create_table(
        "t1",
        {
            "preset": "classic",
            "seats": 10,
            "names": NAMES,
            "roles": {"2": "don", "5": "mafia", "8": "mafia", "9": "sheriff"},
        },
    )
    for record in played_game():
        log.append("t1", record, source="host")
    log.close()
    html = tmp_path / "sheet.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "plugin.cli",
            "protocol",
            "--db",
            str(db),
            "--table",
            "t1",
            "--html",
            str(html),
            "--json",
            str(tmp_path / "p.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    protocol = json.loads((tmp_path / "p.json").read_text())
    assert protocol["days"][0]["vote"]["eliminated"] == [2]
    sheet = html.read_text()  # the table speaks Ukrainian (the default): so does its sheet
    assert "Протокол гри" in sheet and "Ночі" in sheet and "lang='uk'" in sheet
    missing = subprocess.run(
        [sys.executable, "-m", "plugin.cli", "protocol", "--db", str(db), "--table", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "nope" in missing.stderr
