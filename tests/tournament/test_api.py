"""/api/club/tournaments through the real app (issue 34): an admin creates a tournament, seats
it, swaps two players and starts a round; reads are public, changes an admin's; a refusal is
answered with its code and writes nothing."""

from __future__ import annotations

from pathlib import Path

from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import EventLog, log_opener, open_log
from plugin.tournament.api import tournament_routes
from plugin.web.app import ServerConfig, create_app
from testing import TestClient
from tests.web.conftest import ADMIN, SECRET

AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}
NICKS = [f"P{n}" for n in range(1, 21)]


def written(db: Path) -> int:
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        return len(log.club_records(0))
    finally:
        log.close()


def test_create_seat_swap_start_over_rest(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    site = ClubSite()
    config = ServerConfig(db_path=tmp_path / "files", log=log_opener(db), admin_key=ADMIN,
                          secret=SECRET, routes=[club_routes(site), tournament_routes(site)],
                          member=site.member)  # fmt: skip
    with TestClient(create_app(config)) as client:
        for nick in NICKS:
            reply = client.post("/api/club/players", json={"nick": nick}, headers=AS_ADMIN)
            assert reply.status_code == 201
        fields = {"name": "Cup", "players": NICKS, "tables": 2, "games": 1}
        assert client.post("/api/club/tournaments", json=fields).status_code == 401
        before = written(db)
        bad = client.post("/api/club/tournaments", json={**fields, "games": 3, "tables": 3},
                          headers=AS_ADMIN)  # fmt: skip
        assert bad.status_code == 400 and bad.json()["error"] == "impossible_sizes"
        assert written(db) == before
        made = client.post("/api/club/tournaments", json=fields, headers=AS_ADMIN)
        assert made.status_code == 201 and made.json()["id"] == "t1"
        seated = client.post("/api/club/tournaments/t1/seat", json={"seconds": 2},
                             headers=AS_ADMIN)  # fmt: skip
        assert seated.status_code == 201
        stage = client.get("/api/club/tournaments/t1").json()["stages"][0]
        (tables,) = stage["seating"]  # one round: 20 players, 2 tables, 1 game
        assert sorted(p for t in tables for p in t) == list(range(20))
        a, b = stage["seated"][tables[0][0]], stage["seated"][tables[1][0]]
        swap = client.post("/api/club/tournaments/t1/swap", json={"round": 0, "a": a, "b": b},
                           headers=AS_ADMIN)  # fmt: skip
        assert swap.status_code == 200 and set(swap.json()["change"]) >= {"total", "seats"}
        start = client.post("/api/club/tournaments/t1/start", json={"round": 0},
                            headers=AS_ADMIN)  # fmt: skip
        assert start.status_code == 201 and start.json()["tables"][0]["seats"][0] == b
        before = written(db)
        again = client.post("/api/club/tournaments/t1/start", json={"round": 0},
                            headers=AS_ADMIN)  # fmt: skip
        assert again.status_code == 409 and again.json()["error"] == "round_started"
        assert written(db) == before
        listed = client.get("/api/club/tournaments").json()
        assert listed == [{"id": "t1", "name": "Cup", "players": 20, "stages": ["qualifying"]}]
