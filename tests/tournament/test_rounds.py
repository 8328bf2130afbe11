"""A round's start makes its tables (issue 34, plugin.tournament.rounds), through the real app
on a real log: every table made with its seats' players and hosted by the server; its ids
recorded first, so a restart loses nothing, a second start is refused and makes nothing,
and a start cut short (the server's cap, a crash after the record) is finished by starting
again, without a table made twice."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from plugin.club import Club
from plugin.club.games import seated_players
from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import EventLog, log_opener, open_log
from plugin.host.silent import SilentRoom
from plugin.signing import Signer
from plugin.tournament import Tournaments
from plugin.tournament.api import tournament_routes
from plugin.tournament.rounds import start_question
from plugin.web.app import ServerConfig, create_app
from testing import TestClient
from tests.web.conftest import ADMIN, SECRET

AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}
NICKS = [f"P{n}" for n in range(1, 21)]


@contextmanager
def serving(
    db: Path, *, max_tables: int = 500, room_factory: Any = None
) -> Iterator[tuple[TestClient, ClubSite]]:
    site = ClubSite()
    config = ServerConfig(db_path=db.parent / "files", log=log_opener(db), admin_key=ADMIN,
                          secret=SECRET, routes=[club_routes(site), tournament_routes(site)],
                          member=site.member, max_tables=max_tables,
                          room_factory=room_factory)  # fmt: skip
    with TestClient(create_app(config)) as client:
        yield client, site


def seated_tournament(client: TestClient, *, games: int = 1) -> dict[str, Any]:
    club = {"name": "Winter Club", "language": "ru"}
    assert client.post("/api/club/settings", json=club, headers=AS_ADMIN).is_success
    for nick in NICKS:
        assert client.post("/api/club/players", json={"nick": nick}, headers=AS_ADMIN).is_success
    fields = {"name": "Cup", "players": NICKS, "tables": 2, "games": games}
    assert client.post("/api/club/tournaments", json=fields, headers=AS_ADMIN).status_code == 201
    seated = client.post("/api/club/tournaments/t1/seat", json={"seconds": 2}, headers=AS_ADMIN)
    assert seated.status_code == 201
    return dict(seated.json())


def club_records(db: Path) -> int:
    log = open_log(db)
    assert isinstance(log, EventLog)
    try:
        return len(log.club_records(0))
    finally:
        log.close()


def table_ids(db: Path) -> list[str]:
    log = open_log(db)
    try:
        return [table_id for table_id, _ in log.tables(archived=True)]
    finally:
        log.close()


def check_table(client: TestClient, site: ClubSite, db: Path, table: dict[str, Any]) -> None:
    """The table is hosted here, named and seated as the round's record says."""
    info = client.get(f"/api/tables/{table['id']}", headers=AS_ADMIN)
    assert info.status_code == 200, info.text
    settings = info.json()["settings"]
    assert settings["names"] == table["nicks"] and settings["preset"] == "classic"
    assert settings["club"] == "Winter Club" and settings["language"] == "ru"
    assert len(table["seats"]) == 10
    registry = site.server.registry if site.server else None
    assert registry is not None and table["id"] in registry.tables
    log = open_log(db)  # read in this thread (the server's reads are its loop's)
    try:
        entries = [e.record for e in log.entries(table["id"])]
    finally:
        log.close()
    assert seated_players(entries) == {n: p for n, p in enumerate(table["seats"], 1)}


def test_a_round_starts_with_every_table_hosted_and_once(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, site):
        tournament = seated_tournament(client, games=2)
        stage = tournament["stages"][0]
        before = club_records(db)
        wrong = [
            ({"round": 5}, 404, "no_round"),
            ({"round": "1"}, 400, "bad_field"),
            ({"round": 1}, 409, "round_order"),
            ({"stage": 3, "round": 0}, 404, "no_stage"),
        ]
        for body, status, code in wrong:  # bad input: its error, nothing written or made
            reply = client.post("/api/club/tournaments/t1/start", json=body, headers=AS_ADMIN)
            assert (reply.status_code, reply.json()["error"]) == (status, code), body
        assert client.post("/api/club/tournaments/t1/start", json={"round": 0}).status_code == 401
        assert club_records(db) == before and table_ids(db) == []

        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 201, reply.text
        started = reply.json()
        assert started["complete"] and [t["table"] for t in started["tables"]] == [1, 2]
        for table, seats in zip(started["tables"], stage["seating"][0], strict=True):
            assert table["seats"] == [stage["seated"][i] for i in seats]
            assert table["nicks"] == [f"P{p[1:]}" for p in table["seats"]]
            check_table(client, site, db, table)
        made = sorted(t["id"] for t in started["tables"])
        assert sorted(table_ids(db)) == made and club_records(db) == before + 1

        again = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert again.status_code == 409 and again.json()["error"] == "round_started"
        assert sorted(table_ids(db)) == made and club_records(db) == before + 1
        busy = client.post("/api/club/tournaments/t1/start", json={"round": 1}, headers=AS_ADMIN)
        assert busy.status_code == 409 and busy.json()["error"] == "player_busy"
        view = client.get("/api/club/tournaments/t1").json()
        assert sorted(t["id"] for t in view["tables"]) == made

    with serving(db) as (client, site):  # a restart: the same tables, hosted again
        view = client.get("/api/club/tournaments/t1").json()
        assert sorted(t["id"] for t in view["tables"]) == made
        for table in started["tables"]:
            check_table(client, site, db, table)
        again = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert again.status_code == 409 and sorted(table_ids(db)) == made


def test_a_start_cut_short_is_finished_by_starting_again(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db, max_tables=1) as (client, site):  # room for one table of two
        seated_tournament(client)
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 503 and reply.json()["error"] == "round_incomplete"
        first, second = reply.json()["tables"]
        assert "failed" not in first and second["failed"].startswith("too_many_tables")
        assert table_ids(db) == [first["id"]]
        view = client.get("/api/club/tournaments/t1").json()  # the record says it started
        assert view["stages"][0]["started"] == [0] and len(view["tables"]) == 2
    with serving(db) as (client, site):
        records = club_records(db)
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 201, reply.text
        assert [t["id"] for t in reply.json()["tables"]] == [first["id"], second["id"]]
        assert sorted(table_ids(db)) == sorted([first["id"], second["id"]])
        assert club_records(db) == records  # resumed: no second start record
        for table in reply.json()["tables"]:
            check_table(client, site, db, table)


def test_a_crash_after_the_record_is_finished_by_starting_again(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, _):
        seated_tournament(client)
    log = open_log(db)  # the start's record written, then the server died before any table
    assert isinstance(log, EventLog)
    tournaments = Tournaments(Club(log, Signer(SECRET)))
    record = tournaments.change(start_question("t1", 0, 0), source="admin")
    log.close()
    assert table_ids(db) == []
    with serving(db) as (client, site):
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 201, reply.text
        tables = reply.json()["tables"]
        assert [t["id"] for t in tables] == [t["id"] for t in record["tables"]]
        for table in tables:
            check_table(client, site, db, table)


def test_a_table_that_fails_to_open_is_made_by_starting_again(tmp_path: Path) -> None:
    """A table's room that cannot be made once (what a real room will not do on demand):
    the others are made, the answer names it, and the next start opens and seats it."""
    db = tmp_path / "log.db"
    failures = [RuntimeError("the room could not be made")]

    def room(table_id: str, settings: Any) -> SilentRoom:
        if failures:
            raise failures.pop()
        return SilentRoom()

    with serving(db, room_factory=room) as (client, site):
        seated_tournament(client)
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 503 and reply.json()["error"] == "round_incomplete"
        first, second = reply.json()["tables"]
        assert first["failed"].startswith("table_failed: RuntimeError") and "failed" not in second
        check_table(client, site, db, second)
        again = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert again.status_code == 201, again.text
        assert [t["id"] for t in again.json()["tables"]] == [first["id"], second["id"]]
        for table in again.json()["tables"]:
            check_table(client, site, db, table)
