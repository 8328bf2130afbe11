"""A tournament's hidden extras stay hidden in the club's own public reads too (issue 34):
a signed game's record, the season's standings and their CSV, and a player's page show a
game of a hidden stage scored without the judges' extra points (and without their
comments, or a correction's reason) to the public and to a player's link, while a judge's
link and the admin key see everything; once the organiser reveals them, or the tournament
ends, everybody sees the same. The ratings never depended on them. Through the real app,
real finished tables and the club's sheet endpoint (tests/tournament/test_standings_api.py)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from plugin.club import Club
from plugin.eventlog import EventLog, open_log
from plugin.signing import Signer
from plugin.tournament import Tournaments
from testing import TestClient
from tests.tournament.test_standings_api import AS_ADMIN, app, play_tables, sign
from tests.web.conftest import SECRET

COMMENT = "led the city to a win"  # the judge's words: never shown to the public while hidden
REASON = "seat 2's extra raised after the video"


def setup(db: Path, stages: list[dict[str, Any]]) -> None:
    """20 players; a qualifying round on 2 tables (then `stages`), extras hidden from the
    qualifying on; seated and started; its two tables q1, q2 played."""
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        tournaments = Tournaments(Club(log, Signer(SECRET)))
        for n in range(1, 21):
            tournaments.club.change(lambda s, n=n: s.add_player({"nick": f"P{n}"}), source="t")
        fields = {"name": "Cup", "players": [f"P{n}" for n in range(1, 21)], "tables": 2,
                  "games": 1, "stages": stages, "hide_extras_from": "qualifying"}  # fmt: skip
        tournaments.create(fields, source="t")
        tournaments.seat("t1", 0, moves=20_000, source="t")
        tournaments.start_round("t1", 0, 0, source="t")
    finally:
        log.close()
    play_tables(db, 0, 0, ["q1", "q2"], seed=1)


def link_tables(client: TestClient) -> None:
    for n, table in enumerate(["q1", "q2"], 1):
        answer = client.post("/api/club/tournaments/t1/tables", headers=AS_ADMIN,
                             json={"round": 0, "table": n, "table_id": table})  # fmt: skip
        assert answer.status_code == 201, answer.text


def personal(client: TestClient, nick: str, kind: str) -> dict[str, str]:
    """A new club member's personal link of `kind` (a judge's: granted first)."""
    made = client.post("/api/club/players", json={"nick": nick}, headers=AS_ADMIN)
    assert made.status_code == 201, made.text
    ref = made.json()["id"]
    if kind != "player":
        granted = client.post(f"/api/club/players/{ref}/grant", json={"role": kind},
                              headers=AS_ADMIN)  # fmt: skip
        assert granted.status_code == 200, granted.text
    link = client.post(f"/api/club/players/{ref}/link", json={"kind": kind}, headers=AS_ADMIN)
    assert link.status_code == 200, link.text
    return {"Authorization": f"Bearer {link.json()['token']}"}


def reads(client: TestClient, player: str, headers: dict[str, str]) -> dict[str, Any]:
    """Every public read of the club that shows a signed game's points."""
    out: dict[str, Any] = {}
    for name, path in [("game", "/api/club/games/q1.json"), ("standings", "/api/club/standings"),
                       ("page", f"/api/club/players/{player}/page"),
                       ("page_all", f"/api/club/players/{player}/page?season=all")]:  # fmt: skip
        answer = client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)
        out[name] = answer.json()
        out[name + "_text"] = answer.text
    text = client.get("/api/club/standings.csv", headers=headers)
    assert text.status_code == 200
    out["csv"] = {row["nick"]: row for row in csv.DictReader(io.StringIO(text.text))}
    return out


def seen(view: dict[str, Any], nick: str) -> dict[str, float]:
    """What a reader sees of seat 2's player in q1: in every read."""
    seat = view["game"]["seats"][1]
    row = next(r for r in view["standings"]["rows"] if r["nick"] == nick)
    game = next(g for g in view["page"]["games"] if g["game_id"] == "q1")
    role = view["page_all"]["roles"][game["role"]]
    return {"game_extra": seat["extra"], "game_points": seat["points"], "row_extra": row["extra"],
            "row_total": row["total"], "csv_extra": float(view["csv"][nick]["extra"]),
            "csv_total": float(view["csv"][nick]["total"]), "page_points": game["points"],
            "role_points": role["points"], "rating": view["page"]["rating"],
            "row_rating": row["rating"]}  # fmt: skip


def test_the_clubs_public_reads_hide_a_hidden_stages_extras_until_revealed(
    tmp_path: Path,
) -> None:
    db, files = tmp_path / "log.db", tmp_path / "files"
    setup(db, [{"name": "final", "players": 10, "games": 1}])
    with app(db, files) as client:
        link_tables(client)
        judge, player_link = personal(client, "Chief", "judge"), personal(client, "Fan", "player")
        sign(client, "q1", {"extra": {"2": [{"points": 0.5, "comment": COMMENT}]}})
        whole = client.get("/api/club/games/q1.json", headers=AS_ADMIN).json()
        player, nick = whole["seats"][1]["player"], whole["seats"][1]["nick"]
        views = {who: reads(client, player, headers) for who, headers in
                 [("public", {}), ("player", player_link), ("judge", judge),
                  ("admin", AS_ADMIN)]}  # fmt: skip
        judges = seen(views["judge"], nick)
        assert judges == seen(views["admin"], nick)
        assert judges["game_extra"] == judges["row_extra"] == judges["csv_extra"]
        for who in ("public", "player"):  # a player's link is the public's
            view, public = views[who], seen(views[who], nick)
            # what is left is the system's own (an auto-bonus), the same in every read
            assert public["game_extra"] == public["row_extra"] == public["csv_extra"]
            for key in ("game_extra", "row_extra", "csv_extra", "game_points", "row_total",
                        "csv_total", "page_points", "role_points"):  # fmt: skip
                assert judges[key] - public[key] == pytest.approx(0.5), (who, key)
            # the ratings never took the points: the same for everybody
            assert (
                public["rating"] == judges["rating"]
                and public["row_rating"] == judges["row_rating"]
            )
            assert view["game"]["extras_hidden"] and "extra" not in view["game"]["sheet"]
            for name in ("game_text", "standings_text", "page_text", "page_all_text"):
                assert COMMENT not in view[name], (who, name)
            # and says so: the pages mark what is left out
            assert view["standings"]["extras_hidden"] == view["page"]["extras_hidden"] == 1
            assert [g["extras_hidden"] for g in view["page"]["games"]] == [True]
        assert views["judge"]["standings"]["extras_hidden"] == 0
        assert not views["judge"]["game"]["extras_hidden"]
        assert views["judge"]["game"]["sheet"]["extra"]["2"][0]["comment"] == COMMENT
        # a link that is sent and refused is refused, not shown the public's view
        refused = client.get("/api/club/standings", headers={"Authorization": "Bearer nonsense"})
        assert refused.status_code == 401
        # an admin's correction while hidden: its before, after and reason stay hidden too
        fixed = {"extra": {"2": [{"points": 0.6, "comment": COMMENT}]}}
        answer = client.post("/api/club/sheet/q1/correct", headers=AS_ADMIN,
                             json={"sheet": fixed, "reason": REASON})  # fmt: skip
        assert answer.status_code == 200, answer.text
        public_game = client.get("/api/club/games/q1.json")
        corrected = public_game.json()["history"][-1]
        assert corrected["what"] == "corrected" and corrected["reason"] == ""
        assert COMMENT not in public_game.text and REASON not in public_game.text
        judges_game = client.get("/api/club/games/q1.json", headers=judge).json()
        assert judges_game["history"][-1]["reason"] == REASON
        assert judges_game["seats"][1]["extra"] - public_game.json()["seats"][1]["extra"] == (
            pytest.approx(0.6)
        )
        before_reveal = seen(reads(client, player, {}), nick)
        # the organiser reveals them: everybody sees everything, the ratings unmoved
        assert client.post("/api/club/tournaments/t1/reveal", headers=AS_ADMIN).status_code == 200
        public, judges_now = reads(client, player, {}), reads(client, player, judge)
        assert public["game"] == judges_now["game"] and not public["game"]["extras_hidden"]
        for name in ("standings", "page", "page_all", "csv"):
            assert public[name] == judges_now[name], name
        revealed = seen(public, nick)
        assert revealed["game_extra"] == revealed["row_extra"] == revealed["csv_extra"]
        assert revealed["game_extra"] - before_reveal["game_extra"] == pytest.approx(0.6)
        assert revealed["rating"] == before_reveal["rating"]


def test_the_tournaments_end_reveals_them_in_the_clubs_reads(tmp_path: Path) -> None:
    db, files = tmp_path / "log.db", tmp_path / "files"
    setup(db, [])  # one stage only: its last sheet ends the tournament
    with app(db, files) as client:
        link_tables(client)
        sign(client, "q1", {"extra": {"2": [{"points": 0.4, "comment": COMMENT}]}})
        hidden = client.get("/api/club/games/q1.json")
        whole = client.get("/api/club/games/q1.json", headers=AS_ADMIN).json()
        assert whole["seats"][1]["extra"] - hidden.json()["seats"][1]["extra"] == (
            pytest.approx(0.4)
        )
        assert COMMENT not in hidden.text
        public = client.get("/api/club/standings").json()
        assert public != client.get("/api/club/standings", headers=AS_ADMIN).json()
        sign(client, "q2", {})
        assert client.get("/api/club/tournaments/t1").json()["over"]
        game = client.get("/api/club/games/q1.json")
        assert COMMENT in game.text and not game.json()["extras_hidden"]
        assert game.json() == client.get("/api/club/games/q1.json", headers=AS_ADMIN).json()
        public = client.get("/api/club/standings").json()
        assert public == client.get("/api/club/standings", headers=AS_ADMIN).json()
